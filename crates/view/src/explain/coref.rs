//! The coreference probe's report (`app::coref_probe` computes it): every head's share of
//! sentences where a pronoun attends more to its antecedent than to the other noun.

use serde::{Deserialize, Serialize};

/// A head's share of sentences where it prefers the antecedent, on each split.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadScore {
    pub layer: usize,
    pub head: usize,
    pub dev: f32,
    pub test: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CorefReport {
    pub dev_sentences: usize,
    pub test_sentences: usize,
    /// The head with the highest dev share (ties: the first in HF's order).
    pub best: HeadScore,
    /// The share where the noun nearest to the pronoun is its antecedent.
    pub nearest_noun: Baseline,
    pub heads: Vec<HeadScore>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub dev: f32,
    pub test: f32,
}
