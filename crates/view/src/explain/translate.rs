//! Training an encoder-decoder in the page, as plain data: the run's settings (data set, size,
//! steps), one point per step for the curves, the held-out exact match with a few of its
//! translations. `app::jobs::translate` fills them in; `ui::translate_state` keeps them for
//! the Translate tab. One decoding step's view is `explain::decode`.

use serde::{Deserialize, Serialize};

/// The bundled pair sets (in `www/datasets/<name>/{train,test}.jsonl`): (name, label, a source to try).
pub const DATASETS: [(&str, &str, &str); 2] = [
    ("numbers", "Numbers to words: \"3 1 2\" → \"three hundred twelve\" (900 pairs)", "4 5 7"),
    (
        "toy-translate",
        "English → Zorbish, a made-up language: verb last, adjectives after the noun (5,940 pairs)",
        "a farmer saw this bank near the big river .",
    ),
];

/// Where the pairs come from: URLs next to the page (fetched by the worker), or JSON lines the
/// user pasted or uploaded (then every tenth line is held out).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TranslateData {
    Urls { train: String, test: String },
    Text(String),
}

/// The settings of one run: a new encoder-decoder (both halves BERT-shaped) trained from scratch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TranslateSetup {
    pub data: TranslateData,
    pub hidden: usize,
    /// Layers of each half.
    pub layers: usize,
    pub heads: usize,
    /// Longest source or target in tokens (the position table of each half).
    pub max_len: usize,
    /// The WordPiece vocabulary learnt from both sides of the pairs, about this many pieces.
    pub vocab_size: usize,
    pub steps: usize,
    pub batch: usize,
    pub lr: f64,
    pub seed: u64,
    /// Held-out exact match every this many steps (and before the first and after the last).
    pub eval_every: usize,
    /// Held-out pairs decoded for it, at most (the first ones).
    pub eval_max: usize,
}

/// The most steps and the largest batch the page accepts.
pub const MAX_STEPS: usize = 100_000;
pub const MAX_BATCH: usize = 128;

/// Held-out exact match about ten times in a run of `steps` (every 20 to 500 steps).
pub fn eval_every(steps: usize) -> usize {
    (steps / 10).clamp(20, 500)
}

impl TranslateSetup {
    /// The page's defaults for a bundled set (measured natively with `bertscope train --config
    /// seq2seq-tiny`): numbers reach 100% held-out exact match in 300 to 600 steps at lr 3e-3;
    /// toy-translate 98% in 1,500 steps at lr 2e-3. Pasted data gets the toy-translate sizes.
    pub fn defaults(dataset: &str, data: TranslateData) -> Self {
        let (max_len, vocab_size, steps, lr) = match dataset {
            "numbers" => (24, 200, 400, 3e-3),
            _ => (32, 400, 1500, 2e-3),
        };
        TranslateSetup {
            data,
            hidden: 64,
            layers: 2,
            heads: 2,
            max_len,
            vocab_size,
            steps,
            batch: 32,
            lr,
            seed: 0,
            eval_every: eval_every(steps),
            eval_max: 30,
        }
    }

    /// A message for the first setting out of range.
    pub fn check(&self) -> std::result::Result<(), String> {
        if !(1..=MAX_BATCH).contains(&self.batch) {
            return Err(format!("batch size must be 1 to {MAX_BATCH}"));
        }
        if !(1..=MAX_STEPS).contains(&self.steps) {
            return Err(format!("steps must be 1 to {MAX_STEPS}"));
        }
        if !(self.lr.is_finite() && self.lr > 0.0 && self.lr < 1.0) {
            return Err("learning rate must be between 0 and 1 (for example 0.003)".into());
        }
        if !(8..=128).contains(&self.max_len) {
            return Err("the longest sentence must be 8 to 128 tokens".into());
        }
        if self.hidden == 0 || self.heads == 0 || !self.hidden.is_multiple_of(self.heads) || self.layers == 0 {
            return Err("the width must be a positive multiple of the heads, with at least one layer".into());
        }
        if !(50..=5000).contains(&self.vocab_size) {
            return Err("the vocabulary size must be 50 to 5000".into());
        }
        if self.eval_every == 0 || self.eval_max == 0 {
            return Err("the evaluation interval and size must be positive".into());
        }
        if let TranslateData::Text(t) = &self.data {
            if t.lines().filter(|l| !l.trim().is_empty()).count() < 2 {
                return Err("paste or upload at least two JSON lines of {\"source\": .., \"target\": ..}".into());
            }
        }
        Ok(())
    }
}

/// One training step, as the curves plot it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TranslatePoint {
    pub step: usize,
    /// Mean cross-entropy of the target tokens (and eos), teacher-forced.
    pub loss: f32,
    /// Target tokens whose most probable token was right, teacher-forced (the decoder read the
    /// true target so far, not its own guesses).
    pub acc: f32,
    pub lr: f64,
    /// On the steps that evaluate: the held-out exact match of greedy decoding.
    pub exact_match: Option<f32>,
}

/// One held-out pair and what greedy decoding made of its source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TranslateExample {
    pub source: String,
    pub target: String,
    pub output: String,
    pub correct: bool,
}

/// The held-out score at one step: the share of sources whose greedy translation is exactly the
/// target (spaces normalised), and the first few pairs with the model's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TranslateScores {
    pub step: usize,
    pub exact_match: f32,
    pub pairs: usize,
    /// Scored on held-out pairs (false: too few pasted lines to hold any out, so on training pairs).
    pub held_out: bool,
    pub examples: Vec<TranslateExample>,
}

/// The model a run trains.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Seq2SeqInfo {
    pub layers: usize,
    pub heads: usize,
    pub hidden: usize,
    pub vocab: usize,
    pub max_len: usize,
    pub params: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_data_set_and_bad_settings_are_named() {
        let n = TranslateSetup::defaults("numbers", TranslateData::Text(String::new()));
        assert_eq!((n.max_len, n.vocab_size, n.steps, n.lr, n.eval_every), (24, 200, 400, 3e-3, 40));
        let t = TranslateSetup::defaults("toy-translate", TranslateData::Text(String::new()));
        assert_eq!((t.max_len, t.steps, t.eval_every), (32, 1500, 150));
        assert!(n.check().unwrap_err().contains("at least two JSON lines"));
        let ok = TranslateSetup { data: TranslateData::Text("a\nb\n".into()), ..n };
        assert_eq!(ok.check(), Ok(()));
        assert!(TranslateSetup { lr: 2.0, ..ok.clone() }.check().unwrap_err().contains("learning rate"));
        assert!(TranslateSetup { batch: 0, ..ok.clone() }.check().unwrap_err().contains("batch"));
        assert!(TranslateSetup { heads: 3, ..ok }.check().unwrap_err().contains("multiple of the heads"));
    }
}
