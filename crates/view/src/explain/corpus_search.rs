//! Corpus search as the page shows it (`app::corpus_index` finds the matches): each match in its
//! line, keyword in context, and a summary of the words matched.

use serde::{Deserialize, Serialize};

/// What the page asks: token `position` of the sentence of `req` (as the page shows it), compared
/// by its hidden state after `layer` (0: the embeddings' output) or, with `head`, by that head's
/// part of layer `layer`'s attention output (1..L).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchRequest {
    pub req: crate::explain::snapshot::Request,
    pub position: usize,
    pub layer: usize,
    pub head: Option<usize>,
    pub k: usize,
}

/// One match, as the page shows it: its line's pieces, the match's position, the score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IndexMatch {
    pub line: usize,
    pub position: usize,
    pub score: f32,
    /// The line's pieces ([CLS] and [SEP] included), readable.
    pub pieces: Vec<String>,
}

/// The answer to one search: the token looked for, where, and its matches with a summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchView {
    pub token: String,
    pub position: usize,
    pub layer: usize,
    pub head: Option<usize>,
    pub matches: Vec<IndexMatch>,
    /// Matches that are the same piece as the token looked for.
    pub same_word: usize,
    /// The pieces matched most often, with their counts, most first.
    pub common: Vec<(String, usize)>,
    /// Milliseconds the search took in the worker.
    pub ms: f64,
}

impl SearchView {
    /// The summary of `matches` for the token `token`.
    pub fn summarise(token: &str, matches: &[IndexMatch]) -> (usize, Vec<(String, usize)>) {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for m in matches {
            let w = m.pieces.get(m.position).cloned().unwrap_or_default();
            match counts.iter_mut().find(|(x, _)| *x == w) {
                Some(c) => c.1 += 1,
                None => counts.push((w, 1)),
            }
        }
        let same = counts.iter().find(|(w, _)| w == token).map_or(0, |c| c.1);
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counts.truncate(5);
        (same, counts)
    }
}
