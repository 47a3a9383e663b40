//! Fine-tuning in the page, as plain data: the run's settings (task, data, where it starts), one
//! point per step for the curves (and the random-weights run beside it), the held-out scores, the
//! current batch with the model's answers, and a sentence of your own before and after.
//! `app::jobs::finetune` fills them in; `ui::tune_state` keeps them for the fine-tune tab.

use crate::config::TaskKind;
use crate::explain::snapshot::TaskOutput;
use serde::{Deserialize, Serialize};

/// The bundled sets (in `www/datasets/<name>/{train,test}.jsonl`): (name, task, label).
pub const DATASETS: [(&str, TaskKind, &str); 4] = [
    ("sentiment", TaskKind::SequenceClassification, "Sentiment: 2,683 one-line reviews, negative / positive"),
    ("spam", TaskKind::SequenceClassification, "Spam: e-mail subject lines, ham / spam"),
    ("entities", TaskKind::TokenClassification, "Entities: people, places, organisations (BIO tags)"),
    ("questions", TaskKind::QuestionAnswering, "Questions: find the answer span in a short text"),
];

/// Where the fine-tuning starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TuneStart {
    /// The model loaded at the top of the page (pre-trained, or already fine-tuned for the task).
    Loaded,
    /// The model pre-trained in the train tab.
    Trained,
    /// The loaded model's shape and vocabulary with fresh random weights.
    Random,
    /// The bundled bert-tiny (`models/bert-tiny/`), whichever model the explainer shows: a run of
    /// seconds where a larger loaded model would take minutes.
    Tiny,
}

impl TuneStart {
    pub fn key(self) -> &'static str {
        match self {
            TuneStart::Loaded => "loaded",
            TuneStart::Trained => "trained",
            TuneStart::Random => "random",
            TuneStart::Tiny => "tiny",
        }
    }

    pub fn from_key(k: &str) -> Option<Self> {
        [TuneStart::Loaded, TuneStart::Trained, TuneStart::Random, TuneStart::Tiny].into_iter().find(|s| s.key() == k)
    }
}

/// The labelled lines: URLs next to the page (fetched by the worker), or JSONL the user pasted or
/// uploaded (then a tenth of it is held out, when no test text is given).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TuneData {
    Urls { train: String, test: String },
    Text { train: String, test: Option<String> },
}

/// The settings of one fine-tuning run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneSetup {
    pub task: TaskKind,
    pub data: TuneData,
    pub start: TuneStart,
    /// Also fine-tune the same architecture from random weights, step for step ("why pre-training
    /// matters").
    pub compare: bool,
    pub steps: usize,
    pub batch: usize,
    /// Longest sequence in tokens (longer inputs are cut).
    pub seq: usize,
    pub lr: f64,
    pub seed: u64,
    /// Held-out scores every this many steps (and at step 0 and the end).
    pub eval_every: usize,
    /// Held-out lines scored at most (the first ones of the test file).
    pub eval_max: usize,
    /// The bundled bert-tiny's folder as an absolute URL (`TuneStart::Tiny`), resolved by the page:
    /// the worker's own location may be a blob.
    pub tiny_base: String,
}

/// A held-out score every twelfth of a run of `steps` (5 to 500 steps apart).
pub fn eval_every(steps: usize) -> usize {
    (steps / 12).clamp(5, 500)
}

/// The largest batch and the most steps the page accepts.
pub const MAX_TUNE_BATCH: usize = 128;
pub const MAX_TUNE_STEPS: usize = 100_000;

impl TuneSetup {
    /// The page's defaults: from the bundled bert-tiny (seconds in the page, where MiniLM-L6
    /// would take minutes), batch 32, 10% warmup then linear decay, a held-out score every
    /// twelfth of the run. A short run at a high learning rate for the tiny model:
    /// `sentiment` passes 85% held-out within about 100 of the 200 steps (lr 4e-4; measured with
    /// `bertscope finetune --steps 200 --lr 4e-4`); tags and spans need a few more steps.
    pub fn defaults(task: TaskKind, data: TuneData) -> Self {
        let (steps, lr) = if task == TaskKind::SequenceClassification { (200, 4e-4) } else { (300, 5e-4) };
        TuneSetup {
            task,
            data,
            start: TuneStart::Tiny,
            compare: false,
            steps,
            batch: 32,
            seq: 64,
            lr,
            seed: 0,
            eval_every: eval_every(steps),
            eval_max: 300,
            tiny_base: String::new(),
        }
    }

    /// A message for the first setting out of range.
    pub fn check(&self) -> std::result::Result<(), String> {
        if !(1..=MAX_TUNE_BATCH).contains(&self.batch) {
            return Err(format!("batch size must be 1 to {MAX_TUNE_BATCH}"));
        }
        if !(8..=512).contains(&self.seq) {
            return Err("sequence length must be 8 to 512".into());
        }
        if !(self.lr.is_finite() && self.lr > 0.0 && self.lr < 1.0) {
            return Err("learning rate must be between 0 and 1 (for example 0.0002)".into());
        }
        if !(1..=MAX_TUNE_STEPS).contains(&self.steps) {
            return Err(format!("steps must be 1 to {MAX_TUNE_STEPS}"));
        }
        if self.eval_every == 0 || self.eval_max == 0 {
            return Err("the evaluation interval and size must be positive".into());
        }
        if let TuneData::Text { train, .. } = &self.data {
            if train.lines().filter(|l| !l.trim().is_empty()).count() < 2 {
                return Err("paste or upload at least two labelled JSON lines".into());
            }
        }
        Ok(())
    }
}

/// One step of one run, as the curves plot it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TunePoint {
    pub step: usize,
    pub loss: f32,
    /// Right by arg-max in this batch (classes, tags or spans).
    pub acc: f32,
    pub lr: f64,
    pub tokens: usize,
    /// On the steps that evaluate: the held-out loss and accuracy.
    pub eval_loss: Option<f32>,
    pub eval_acc: Option<f32>,
}

/// One step of the run and, with `compare`, the same step of the random-weights run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneStep {
    pub main: TunePoint,
    pub random: Option<TunePoint>,
}

/// One example of the current batch with the model's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TuneExample {
    /// The text (pieces joined), the true label and the model's, with its probability.
    Class { text: String, gold: String, predicted: String, prob: f32 },
    /// Every labelled word's first piece: (piece, true tag, predicted tag).
    Tags { cells: Vec<(String, String, String)> },
    /// The question, and the true and predicted answers (text pieces joined).
    Span { question: String, gold: String, predicted: String },
}

impl TuneExample {
    /// The model's answer is the true one (every tag, for a tagged sentence).
    pub fn correct(&self) -> bool {
        match self {
            TuneExample::Class { gold, predicted, .. } | TuneExample::Span { gold, predicted, .. } => gold == predicted,
            TuneExample::Tags { cells } => cells.iter().all(|(_, g, p)| g == p),
        }
    }
}

/// The batch just trained on, first few examples, with the model's answers after the step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneBatch {
    pub step: usize,
    pub examples: Vec<TuneExample>,
}

/// A sentence of your own through the model as it was before fine-tuning and as it is now: the
/// task head's answer and what [CLS] attends to (mean over the heads of the last layer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneProbe {
    pub step: usize,
    pub tokens: Vec<String>,
    pub before: Option<TaskOutput>,
    pub after: Option<TaskOutput>,
    pub cls_before: Vec<f32>,
    pub cls_after: Vec<f32>,
}

/// The held-out scores at one step of the run (and of the random-weights run).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneScores {
    pub step: usize,
    pub main: TaskMetrics,
    pub random: Option<TaskMetrics>,
}

/// One tag's accuracy: of the `total` positions whose true tag it is, `right` were tagged so.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TagScore {
    pub label: String,
    pub right: usize,
    pub total: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskMetrics {
    pub kind: TaskKind,
    /// Examples scored.
    pub examples: usize,
    pub loss: f32,
    /// Classes or tags right, or answers exactly right (exact match), 0 to 1.
    pub accuracy: f32,
    /// The label names by id (classes and tags).
    pub labels: Vec<String>,
    /// Classification: counts[true][predicted].
    pub confusion: Vec<Vec<usize>>,
    /// Tagging: every true tag present, in id order.
    pub per_tag: Vec<TagScore>,
    /// Question answering: the mean over examples of the F1 of the predicted span's pieces
    /// against the true span's.
    pub f1: Option<f32>,
}
