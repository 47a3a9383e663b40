//! "Why this prediction?" as the page shows it (`bertscope::explain::why` computes it): the
//! outputs that can be explained, each token's attribution score, and how far attention rollout
//! agrees (Spearman's rank correlation).

use super::attribution::Method;
pub use super::snapshot::WhyRequest;
use serde::{Deserialize, Serialize};

/// An output that can be explained: its spec and how the page names it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WhyOption {
    pub spec: String,
    pub label: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WhyView {
    /// The request it answers.
    pub seq: u64,
    pub options: Vec<WhyOption>,
    pub target: String,
    pub method: Method,
    /// The position of the output ([CLS] for a class).
    pub position: usize,
    pub tokens: Vec<String>,
    /// One score per token; f(x); the integrated-gradient completeness gap.
    pub scores: Vec<f32>,
    pub value: f32,
    pub gap: Option<f32>,
    /// Attention rollout's row at `position` (how much each token flows into it), and each
    /// layer's head average at that row.
    pub rollout: Vec<f32>,
    pub layer_means: Vec<Vec<f32>>,
    /// Spearman's rank correlation of |scores| (or the scores, for `grad`) with the rollout row.
    pub spearman: Option<f32>,
    /// Milliseconds the attribution took.
    pub ms: f64,
}

/// Ranks (average ranks for ties), 1-based.
fn ranks(v: &[f32]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[idx[k]] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation (None for fewer than 2 values or a constant one).
pub fn spearman(a: &[f32], b: &[f32]) -> Option<f32> {
    if a.len() < 2 || a.len() != b.len() {
        return None;
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let mean = (n + 1.0) / 2.0;
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        cov += (x - mean) * (y - mean);
        va += (x - mean).powi(2);
        vb += (y - mean).powi(2);
    }
    (va > 0.0 && vb > 0.0).then(|| (cov / (va * vb).sqrt()) as f32)
}
