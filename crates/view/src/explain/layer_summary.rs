//! What each layer did to the token vectors, in numbers a student can read: each token's norm and
//! its cosine with the layer before, and the mean and spread of all the numbers.

use ndarray::Array2;
use serde::{Deserialize, Serialize};

/// How the token vectors change through one step (layer 0 = the embeddings output).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerSummary {
    /// (T) L2 norm of each token's vector after this layer.
    pub norm: Vec<f32>,
    /// (T) cosine similarity of each token's vector with its vector before this layer (1.0 for
    /// the embeddings, which have no "before").
    pub cos_prev: Vec<f32>,
    /// Mean and standard deviation over all T*H numbers.
    pub mean: f32,
    pub std: f32,
}

/// Per-token norms and layer-to-layer cosine similarity of the hidden states (L+1 of (T, H)).
pub fn summarise_hidden(hidden: &[Array2<f32>]) -> Vec<LayerSummary> {
    let norms = |x: &Array2<f32>| -> Vec<f32> { x.rows().into_iter().map(|r| r.dot(&r).sqrt()).collect() };
    hidden
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let norm = norms(x);
            let cos_prev = match i {
                0 => vec![1.0; x.nrows()],
                _ => {
                    let prev = &hidden[i - 1];
                    let prev_norm = norms(prev);
                    x.rows()
                        .into_iter()
                        .zip(prev.rows())
                        .enumerate()
                        .map(|(t, (a, b))| a.dot(&b) / (norm[t] * prev_norm[t]).max(1e-12))
                        .collect()
                }
            };
            let n = x.len().max(1) as f32;
            let mean = x.sum() / n;
            let std = (x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n).sqrt();
            LayerSummary { norm, cos_prev, mean, std }
        })
        .collect()
}
