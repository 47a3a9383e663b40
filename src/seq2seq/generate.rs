//! Decoding one token at a time: the encoder runs once, the decoder on the growing prefix
//! ([decoder_start] + the tokens so far) and the next token comes from its last row's logits.
//! Greedy as HF's `generate(do_sample=False, num_beams=1)`: the most probable token until
//! `eos_token_id` or `max_new` tokens.

use super::forward::{forward, Seq2SeqBatch};
use super::Seq2Seq;
use crate::error::Result;
use crate::model::forward::{Batch, MlmRows};
use serde::Serialize;

/// One decoding step: the token chosen, its probability and the top alternatives.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    pub id: u32,
    pub token: String,
    pub prob: f32,
    /// (id, token, probability), most probable first.
    pub top: Vec<(u32, String, f32)>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Generated {
    /// The decoder's tokens after decoder_start (eos included when reached).
    pub ids: Vec<u32>,
    pub tokens: Vec<String>,
    pub text: String,
    pub steps: Vec<Step>,
}

/// The source as the encoder's batch of one.
pub fn source_batch(m: &Seq2Seq, text: &str) -> Result<Batch> {
    let enc = m.tokenizer.encode(text, None)?;
    Ok(Batch::single(enc.input_ids.iter().map(|&i| i as usize).collect(), vec![0; enc.input_ids.len()]))
}

/// The next-token logits after `prefix` (decoder ids, decoder_start first): (V).
pub fn next_logits(m: &Seq2Seq, src: &Batch, prefix: &[u32]) -> Result<Vec<f32>> {
    let t = prefix.len();
    let tgt = Batch::single(prefix.iter().map(|&i| i as usize).collect(), vec![0; t]);
    let tr = forward(&m.params, &m.cfg, &Seq2SeqBatch { src: src.clone(), tgt }, MlmRows::Rows(vec![t - 1]))?;
    Ok(tr.decoder.mlm.expect("the decoder's head ran").logits.row(0).to_vec())
}

/// Greedy decoding of `text`, at most `max_new` tokens; each step's `top_k` alternatives.
pub fn greedy(m: &Seq2Seq, text: &str, max_new: usize, top_k: usize) -> Result<Generated> {
    let src = source_batch(m, text)?;
    let mut prefix = vec![m.cfg.decoder_start];
    let mut steps = Vec::new();
    let room = m.cfg.decoder.max_tokens().saturating_sub(1);
    for _ in 0..max_new.min(room) {
        let logits = next_logits(m, &src, &prefix)?;
        let top = crate::infer::top_k(&logits, top_k.max(1));
        let (id, prob) = top[0];
        steps.push(Step {
            id,
            token: m.tokenizer.id_to_token(id),
            prob,
            top: top.iter().map(|&(i, q)| (i, m.tokenizer.id_to_token(i), q)).collect(),
        });
        prefix.push(id);
        if id == m.cfg.eos {
            break;
        }
    }
    let ids: Vec<u32> = prefix[1..].to_vec();
    let tokens = ids.iter().map(|&i| m.tokenizer.id_to_token(i)).collect();
    let text = m.tokenizer.decode(&ids)?;
    Ok(Generated { ids, tokens, text, steps })
}

/// A finished hypothesis of beam search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Beamed {
    /// The decoder's tokens after decoder_start (eos included when reached).
    pub ids: Vec<u32>,
    pub tokens: Vec<String>,
    pub text: String,
    /// Sum of the tokens' log-probabilities / (tokens) ^ length_penalty, as HF's `sequences_scores`.
    pub score: f64,
}

/// log softmax of a row, in f64.
fn log_softmax(logits: &[f32]) -> Vec<f64> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let lse = max + logits.iter().map(|&x| (x as f64 - max).exp()).sum::<f64>().ln();
    logits.iter().map(|&x| x as f64 - lse).collect()
}

/// Beam search with `k` beams as HF's `generate(num_beams=k, early_stopping=False)`: each step
/// extends every running beam by every token, keeps the 2k best sums, and a candidate ending in eos
/// (among the best k) finishes with score sum / n ^ length_penalty (n: the tokens generated, eos
/// included); search stops when no running beam can beat the worst of k finished ones, or after
/// `max_new` tokens (running beams then finish as they are). Returns the best-scored hypothesis.
pub fn beam(m: &Seq2Seq, text: &str, max_new: usize, k: usize, length_penalty: f64) -> Result<Beamed> {
    let k = k.max(1);
    let src = source_batch(m, text)?;
    let eos = m.cfg.eos;
    let mut running: Vec<(Vec<u32>, f64)> = vec![(vec![m.cfg.decoder_start], 0.0)];
    let mut finished: Vec<(Vec<u32>, f64)> = Vec::new();
    let norm = |sum: f64, n: usize| sum / (n as f64).powf(length_penalty);
    let keep_best = |f: &mut Vec<(Vec<u32>, f64)>| {
        f.sort_by(|a, b| b.1.total_cmp(&a.1));
        f.truncate(k);
    };
    let steps = max_new.min(m.cfg.decoder.max_tokens().saturating_sub(1));
    for step in 0..steps {
        let mut cand: Vec<(f64, usize, u32)> = Vec::new();
        for (bi, (prefix, sum)) in running.iter().enumerate() {
            let lp = log_softmax(&next_logits(m, &src, prefix)?);
            cand.extend(lp.iter().enumerate().map(|(v, &l)| (sum + l, bi, v as u32)));
        }
        cand.sort_by(|a, b| b.0.total_cmp(&a.0));
        cand.truncate(2 * k);
        let mut next = Vec::with_capacity(k);
        for (rank, &(sum, bi, v)) in cand.iter().enumerate() {
            if v == eos {
                // only an eos among the k best candidates finishes a hypothesis
                if rank < k {
                    let ids: Vec<u32> = running[bi].0[1..].iter().copied().chain([eos]).collect();
                    finished.push((ids, norm(sum, step + 1)));
                }
            } else {
                next.push((running[bi].0.iter().copied().chain([v]).collect::<Vec<u32>>(), sum));
            }
            if next.len() == k {
                break;
            }
        }
        keep_best(&mut finished);
        running = next;
        // early_stopping = False: go on while the best running beam could still do better
        let worst = finished.last().map(|f| f.1);
        if finished.len() == k && running.first().is_none_or(|r| norm(r.1, step + 1) <= worst.unwrap_or(f64::NEG_INFINITY)) {
            running.clear();
            break;
        }
    }
    for (prefix, sum) in running {
        let n = prefix.len() - 1;
        finished.push((prefix[1..].to_vec(), norm(sum, n.max(1))));
    }
    keep_best(&mut finished);
    let (ids, score) = finished.into_iter().next().unwrap_or_default();
    Ok(Beamed { tokens: ids.iter().map(|&i| m.tokenizer.id_to_token(i)).collect(), text: m.tokenizer.decode(&ids)?, ids, score })
}

/// Sampling: each token drawn from softmax(logits / temperature) over the `top_k` most probable
/// (0: all), seeded; the steps record the drawn token's probability under that distribution.
pub fn sample(m: &Seq2Seq, text: &str, max_new: usize, temperature: f32, top_k: usize, seed: u64) -> Result<Generated> {
    if !(temperature > 0.0 && temperature.is_finite()) {
        return Err(crate::error::BertError::Input(format!("temperature {temperature} must be positive")));
    }
    let mut rng = crate::rng::Rng::new(seed);
    let src = source_batch(m, text)?;
    let mut prefix = vec![m.cfg.decoder_start];
    let mut steps = Vec::new();
    for _ in 0..max_new.min(m.cfg.decoder.max_tokens().saturating_sub(1)) {
        let logits: Vec<f32> = next_logits(m, &src, &prefix)?.iter().map(|&x| x / temperature).collect();
        let v = logits.len();
        let top = crate::infer::top_k(&logits, if top_k == 0 { v } else { top_k.min(v) });
        let total: f64 = top.iter().map(|t| t.1 as f64).sum();
        let mut u = rng.uniform() * total;
        let &(id, p) = top
            .iter()
            .find(|t| {
                u -= t.1 as f64;
                u <= 0.0
            })
            .unwrap_or(&top[top.len() - 1]);
        steps.push(Step {
            id,
            token: m.tokenizer.id_to_token(id),
            prob: (p as f64 / total) as f32,
            top: top.iter().take(5).map(|&(i, q)| (i, m.tokenizer.id_to_token(i), (q as f64 / total) as f32)).collect(),
        });
        prefix.push(id);
        if id == m.cfg.eos {
            break;
        }
    }
    let ids: Vec<u32> = prefix[1..].to_vec();
    Ok(Generated { tokens: ids.iter().map(|&i| m.tokenizer.id_to_token(i)).collect(), text: m.tokenizer.decode(&ids)?, ids, steps })
}

/// The steps of a given output `ids` (after decoder_start): each token's probability and the
/// top `top_k` at its position (what beam search's result shows).
pub fn steps_of(m: &Seq2Seq, text: &str, ids: &[u32], top_k: usize) -> Result<Vec<Step>> {
    let src = source_batch(m, text)?;
    let mut prefix = vec![m.cfg.decoder_start];
    let mut steps = Vec::with_capacity(ids.len());
    for &id in ids {
        let logits = next_logits(m, &src, &prefix)?;
        let mut p = logits.clone();
        crate::cpu::softmax::softmax_row(&mut p);
        let top = crate::infer::top_k(&logits, top_k.max(1));
        steps.push(Step {
            id,
            token: m.tokenizer.id_to_token(id),
            prob: p[id as usize],
            top: top.iter().map(|&(i, q)| (i, m.tokenizer.id_to_token(i), q)).collect(),
        });
        prefix.push(id);
    }
    Ok(steps)
}
