//! The logit lens: the masked-LM head applied to every layer's hidden state at a [MASK] (after the
//! embeddings' LayerNorm, after layer 1, ..., after layer L; the last is the model's own answer),
//! so one sees what the model would guess after each layer, and the probability of its final
//! answer along the layers (nostalgebraist 2020, "interpreting GPT: the logit lens").

use super::{fill_encoded, FillResult, Prediction};
use crate::backend::Backend;
use crate::bundle::Bert;
use crate::error::{BertError, Result};
use crate::model::forward::{mlm_logits, ForwardTrace};
use crate::model::top_k::top_k;
use ndarray::Array2;
use serde::Serialize;

/// The guesses at one [MASK] from one layer's hidden state.
#[derive(Clone, Debug, Serialize)]
pub struct LayerGuess {
    /// 0: the embeddings' output; l: after layer l.
    pub layer: usize,
    pub predictions: Vec<Prediction>,
    /// The probability this layer gives the final answer (the last layer's first guess).
    pub answer_prob: f32,
}

/// Every layer's top-`k` at `position` of `trace`'s one sequence.
pub fn lens_at(bert: &Bert, trace: &ForwardTrace<f32>, position: usize, k: usize) -> Result<Vec<LayerGuess>> {
    if bert.params.mlm.is_none() {
        return Err(BertError::Input("this model has no masked-LM head, so it has no logit lens".into()));
    }
    let h = bert.cfg.hidden_size;
    let rows = Array2::from_shape_fn((trace.hidden.len(), h), |(l, j)| trace.hidden[l][[position, j]]); // (L+1, H)
    let logits = mlm_logits(&bert.params, &bert.cfg, rows.view()).expect("an MLM head"); // (L+1, V)
    let probs: Vec<Vec<(u32, f32)>> =
        logits.outer_iter().map(|row| top_k(row.as_slice().expect("contiguous"), bert.cfg.vocab_size)).collect();
    let answer = probs.last().and_then(|p| p.first()).map(|&(id, _)| id).expect("a vocabulary");
    Ok(probs
        .iter()
        .enumerate()
        .map(|(layer, p)| LayerGuess {
            layer,
            predictions: p[..k.min(p.len())]
                .iter()
                .map(|&(id, prob)| Prediction { token: bert.tokenizer.id_to_token(id), id, prob })
                .collect(),
            answer_prob: p.iter().find(|&&(id, _)| id == answer).map_or(0.0, |&(_, prob)| prob),
        })
        .collect())
}

/// `fill`, with every [MASK]'s guesses after each layer (`MaskPredictions::layers`).
pub async fn fill_layers(backend: &mut Backend, bert: &Bert, text: &str, pair: Option<&str>, k: usize) -> Result<FillResult> {
    let enc = bert.tokenizer.encode(text, pair)?;
    let (mut r, trace) = fill_encoded(backend, bert, enc, pair.is_some(), k, None).await?;
    for m in &mut r.masks {
        m.layers = Some(lens_at(bert, &trace, m.position, k)?);
    }
    Ok(r)
}
