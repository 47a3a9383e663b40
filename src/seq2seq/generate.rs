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
