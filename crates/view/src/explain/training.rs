//! Training in the page, as plain data: the run's settings, one point per step for the charts, the
//! probe frames of the attention filmstrip, and the masking pipeline of the current batch (which 15%
//! were chosen, what became of them, the model's guesses). `app::jobs::pretrain` fills them in.

use crate::explain::snapshot::Prediction;
use serde::{Deserialize, Serialize};

/// What happened at one position: the page shows this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaskAction {
    /// Not chosen: no loss here.
    None,
    /// Chosen, replaced by [MASK] (80%).
    Masked,
    /// Chosen, replaced by a random token (10%).
    Random,
    /// Chosen, left as it was (10%).
    Unchanged,
}

/// Train a new tiny BERT (vocabulary trained on the corpus) or continue the loaded model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TrainMode {
    Scratch,
    Continue,
}

/// Where the training text comes from: a file next to the page (fetched by the worker) or text the
/// user pasted or uploaded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum CorpusSource {
    Url(String),
    Text(String),
}

/// The settings of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainSetup {
    pub mode: TrainMode,
    pub corpus: CorpusSource,
    pub batch: usize,
    pub seq: usize,
    pub lr: f64,
    pub steps: usize,
    pub seed: u64,
    /// WordPiece vocabulary size when training from scratch.
    pub vocab_size: usize,
    /// A filmstrip frame every this many steps (and at step 0 and the end).
    pub snap_every: usize,
    /// Held-out loss every this many steps (and at the end).
    pub eval_every: usize,
    /// The probe sentence of the filmstrip (a [MASK] in it gets predictions).
    pub probe: String,
}

/// The config of "from scratch (tiny)".
pub const SCRATCH_PRESET: &str = "scratch-tiny";
/// The largest batch and the most steps the page accepts.
pub const MAX_BATCH: usize = 128;
pub const MAX_STEPS: usize = 1_000_000;

impl TrainSetup {
    /// The page's defaults for each mode.
    pub fn defaults(mode: TrainMode, corpus: CorpusSource) -> Self {
        let (batch, seq, lr, steps) = match mode {
            TrainMode::Scratch => (16, 64, 2e-3, 600),
            TrainMode::Continue => (8, 64, 1e-4, 200),
        };
        TrainSetup {
            mode,
            corpus,
            batch,
            seq,
            lr,
            steps,
            seed: 0,
            vocab_size: 1000,
            snap_every: 10,
            eval_every: 50,
            probe: "the cats sat on the [MASK] of the river.".into(),
        }
    }

    /// A message for the first setting out of range.
    pub fn check(&self) -> std::result::Result<(), String> {
        let max_seq = if self.mode == TrainMode::Scratch { 128 } else { 512 };
        if !(1..=MAX_BATCH).contains(&self.batch) {
            return Err(format!("batch size must be 1 to {MAX_BATCH}"));
        }
        if !(8..=max_seq).contains(&self.seq) {
            return Err(format!("sequence length must be 8 to {max_seq}"));
        }
        if !(self.lr.is_finite() && self.lr > 0.0 && self.lr < 1.0) {
            return Err("learning rate must be between 0 and 1 (for example 0.002)".into());
        }
        if !(1..=MAX_STEPS).contains(&self.steps) {
            return Err(format!("steps must be 1 to {MAX_STEPS}"));
        }
        if self.mode == TrainMode::Scratch && !(50..=30_000).contains(&self.vocab_size) {
            return Err("vocabulary size must be 50 to 30000".into());
        }
        if self.snap_every == 0 || self.eval_every == 0 {
            return Err("snapshot and evaluation intervals must be positive".into());
        }
        if let CorpusSource::Text(t) = &self.corpus {
            if t.split_whitespace().nth(20).is_none() {
                return Err("the corpus is too short: paste or upload at least a few sentences of text".into());
            }
        }
        Ok(())
    }
}

/// One training step, as the charts plot it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogPoint {
    pub step: usize,
    /// The training loss (masked LM, + NSP when the model has that head).
    pub loss: f32,
    /// Its two parts.
    pub mlm_loss: Option<f32>,
    pub nsp_loss: Option<f32>,
    pub mlm_acc: f32,
    pub lr: f64,
    /// Non-padding tokens in the batch.
    pub tokens: usize,
    /// Held-out loss and masked-token accuracy, on the steps that evaluate.
    pub eval_loss: Option<f32>,
    pub eval_acc: Option<f32>,
}

/// The probe sentence through the model at one step: every head's attention and the top guesses
/// at its first [MASK].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    pub step: usize,
    pub tokens: Vec<String>,
    pub layers: usize,
    pub heads: usize,
    /// [layer * heads + head] -> (T*T) softmax rows.
    pub attention: Vec<Vec<f32>>,
    /// The position of the probe's first [MASK] and the model's guesses there.
    pub mask_position: Option<usize>,
    pub predictions: Vec<Prediction>,
}

impl Frame {
    pub fn head(&self, layer: usize, head: usize) -> &[f32] {
        &self.attention[layer * self.heads + head]
    }
}

/// One position of a masked training sequence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaskCell {
    /// The piece in the text.
    pub original: String,
    /// The piece the model was given (the original, [MASK] or a random piece).
    pub input: String,
    pub action: MaskAction,
    pub special: bool,
    pub segment: u32,
    /// The model's top guesses at a chosen position (these carry the loss); empty elsewhere.
    pub guesses: Vec<Prediction>,
}

impl MaskCell {
    pub fn carries_loss(&self) -> bool {
        self.action != MaskAction::None
    }

    /// The top guess is the original piece.
    pub fn correct(&self) -> Option<bool> {
        self.guesses.first().map(|g| g.token == self.original)
    }
}

/// One sequence of the batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaskRow {
    pub cells: Vec<MaskCell>,
    /// With NSP: whether sentence B really follows A, and the model's P(IsNext).
    pub is_next: Option<bool>,
    pub nsp_prob: Option<f32>,
}

/// Counts over the whole batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaskCounts {
    /// Positions that could be chosen (not [CLS], [SEP], ...).
    pub candidates: usize,
    pub masked: usize,
    pub random: usize,
    pub kept: usize,
}

impl MaskCounts {
    pub fn chosen(&self) -> usize {
        self.masked + self.random + self.kept
    }
}

/// The masking pipeline of the current batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaskingView {
    pub step: usize,
    /// None: the batch as it was trained on; Some: the same sequences masked again with this seed.
    pub reroll_seed: Option<u64>,
    pub rows: Vec<MaskRow>,
    pub counts: MaskCounts,
    pub sequences: usize,
}
