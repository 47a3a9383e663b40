//! Decoding run to the end, as `bertscope generate` prints it: greedy (HF's
//! `generate(do_sample=False, num_beams=1)`), seeded sampling and beam search, each the
//! `stepper::Stepper` stepped until done (the one implementation of every method), with each
//! step's token, probability and top alternatives.

pub use super::forward::source_batch;
use super::forward::{forward, Seq2SeqBatch};
use super::stepper::{distribution, Method, Stepper};
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

/// The next-token logits after `prefix` (decoder ids, decoder_start first): (V).
pub fn next_logits(m: &Seq2Seq, src: &Batch, prefix: &[u32]) -> Result<Vec<f32>> {
    let t = prefix.len();
    let tgt = Batch::single(prefix.iter().map(|&i| i as usize).collect(), vec![0; t]);
    let tr = forward(&m.params, &m.cfg, &Seq2SeqBatch { src: src.clone(), tgt }, MlmRows::Rows(vec![t - 1]))?;
    Ok(tr.decoder.mlm.expect("the decoder's head ran").logits.row(0).to_vec())
}

/// The tokens of `ids` as text.
fn generated(m: &Seq2Seq, ids: Vec<u32>, steps: Vec<Step>) -> Result<Generated> {
    Ok(Generated { tokens: ids.iter().map(|&i| m.tokenizer.id_to_token(i)).collect(), text: m.tokenizer.decode(&ids)?, ids, steps })
}

/// A step's record: the chosen token's probability under `dist` (id, probability; most probable
/// first) and the first `top_k` of it.
fn step_of(m: &Seq2Seq, id: u32, dist: &[(u32, f32)], top_k: usize) -> Step {
    let prob = dist.iter().find(|d| d.0 == id).map_or(0.0, |d| d.1);
    let top = dist.iter().take(top_k.max(1)).map(|&(i, q)| (i, m.tokenizer.id_to_token(i), q)).collect();
    Step { id, token: m.tokenizer.id_to_token(id), prob, top }
}

/// Greedy or sampling, stepped to the end; each step's `top_k` alternatives under the distribution
/// the token was chosen from (the model's softmax for greedy).
fn run(m: &Seq2Seq, text: &str, method: Method, max_new: usize, top_k: usize) -> Result<Generated> {
    let (temperature, k) = match method {
        Method::Sample { temperature, top_k, .. } => (temperature, top_k),
        _ => (1.0, 0),
    };
    let mut s = Stepper::new(m, text, method, max_new)?;
    let mut steps = Vec::new();
    while let Some(look) = s.step(m)? {
        let id = look.chosen.expect("a step chooses a token");
        steps.push(step_of(m, id, &distribution(&look.logits, temperature, k), top_k));
    }
    generated(m, s.output(), steps)
}

/// Greedy decoding of `text`, at most `max_new` tokens; each step's `top_k` alternatives.
pub fn greedy(m: &Seq2Seq, text: &str, max_new: usize, top_k: usize) -> Result<Generated> {
    run(m, text, Method::Greedy, max_new, top_k)
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

/// Beam search with `k` beams as HF's `generate(num_beams=k, early_stopping=False)` (see
/// `Stepper`): the best-scored finished hypothesis.
pub fn beam(m: &Seq2Seq, text: &str, max_new: usize, k: usize, length_penalty: f64) -> Result<Beamed> {
    let mut s = Stepper::new(m, text, Method::Beam { k, length_penalty }, max_new)?;
    while s.step(m)?.is_some() {}
    let (ids, score) = s.finished.first().cloned().unwrap_or_default();
    let g = generated(m, ids, vec![])?;
    Ok(Beamed { ids: g.ids, tokens: g.tokens, text: g.text, score })
}

/// Sampling: each token drawn from softmax(logits / temperature) over the `top_k` most probable
/// (0: all), seeded; the steps record the drawn token's probability under that distribution.
pub fn sample(m: &Seq2Seq, text: &str, max_new: usize, temperature: f32, top_k: usize, seed: u64) -> Result<Generated> {
    run(m, text, Method::Sample { temperature, top_k, seed }, max_new, 5)
}

/// The steps of a given output `ids` (after decoder_start): each token's probability and the
/// top `top_k` at its position (what beam search's result shows).
pub fn steps_of(m: &Seq2Seq, text: &str, ids: &[u32], top_k: usize) -> Result<Vec<Step>> {
    let src = source_batch(m, text)?;
    let mut prefix = vec![m.cfg.decoder_start];
    let mut steps = Vec::with_capacity(ids.len());
    for &id in ids {
        let logits = next_logits(m, &src, &prefix)?;
        steps.push(step_of(m, id, &distribution(&logits, 1.0, 0), top_k));
        prefix.push(id);
    }
    Ok(steps)
}
