//! The messages between the page (UI thread) and the engine's Web Worker. Plain serde types: the
//! worker encodes them with bincode, so no `skip_serializing_if` here.

use crate::explain::decode::{DecodeAction, DecodeRequest, DecodeView};
use crate::explain::embeddings::PositionView;
use crate::explain::finetune::{TuneBatch, TuneProbe, TuneScores, TuneSetup, TuneStep};
use crate::explain::snapshot::MaskPredictions;
use crate::explain::training::{Frame, LogPoint, MaskingView, TrainSetup};
use crate::explain::translate::{Seq2SeqInfo, TranslatePoint, TranslateScores, TranslateSetup};
use crate::explain::{ModelInfo, Request, Snapshot};
pub use crate::job::{JobCmd, JobEvent, Link, Progress, RunReady};
use serde::{Deserialize, Serialize};

/// Page -> worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToEngine {
    /// Fetch and load the model folder at this absolute URL (ending in `/`).
    Load { base_url: String },
    /// Load a model from files the user picked (`Loaded`, or `LoadFailed` with the old model kept).
    LoadFiles(Vec<crate::model_files::PickedFile>),
    /// Run one forward and reply with a snapshot (or `Failed`).
    Explain(Request),
    /// Training in the page.
    Train(TrainCmd),
    /// Fine-tuning in the page.
    Tune(TuneCmd),
    /// An encoder-decoder trained and decoding in the page (the Translate tab).
    Translate(TranslateCmd),
    /// Which backend runs the explainer's forward (the worker answers with `Device`).
    Device(DevicePref),
    /// The head survey over a text, with the explainer's model (a long job in slices).
    Survey(SurveyCmd),
    /// Search the surveyed sentences for the tokens closest to one of the current sentence's.
    Search(crate::explain::corpus_search::SearchRequest),
    /// One head's queries and keys of the surveyed sentences in one scatter, the sentence's over them.
    QueriesKeys(crate::explain::qk_scatter::QkRequest),
    /// Time the attribution rows (`explain::attribute_bench`) over this many rounds on the loaded
    /// model, in the worker (`?bench=attribution`; the answer is `Bench`).
    BenchAttribution { rounds: usize },
}

/// The backend the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DevicePref {
    /// One forward timed on each backend (on the first request after a model loads), then the
    /// faster; the CPU path when there is no WebGPU.
    #[default]
    Auto,
    Cpu,
    /// WebGPU whenever an adapter exists (emulated too).
    Gpu,
}

impl DevicePref {
    /// The URL / select value.
    pub fn key(self) -> &'static str {
        match self {
            DevicePref::Auto => "auto",
            DevicePref::Cpu => "cpu",
            DevicePref::Gpu => "webgpu",
        }
    }

    pub fn from_key(k: &str) -> Option<Self> {
        [DevicePref::Auto, DevicePref::Cpu, DevicePref::Gpu].into_iter().find(|d| d.key() == k.trim().to_ascii_lowercase())
    }
}

/// What the worker found and uses.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceStatus {
    pub pref: DevicePref,
    /// The WebGPU adapter, once one was found ("vendor architecture").
    pub adapter: Option<String>,
    /// The adapter is a CPU emulation (SwiftShader): Auto keeps the CPU path.
    pub emulated: bool,
    /// Why WebGPU is not used: no adapter, the device was lost, a forward failed.
    pub problem: Option<String>,
    /// The explainer's forwards run on WebGPU now.
    pub on_gpu: bool,
    /// Auto's measurement: milliseconds of one forward on (CPU, WebGPU).
    pub race: Option<(f64, f64)>,
}

/// What the train tab asks of the worker.
pub type TrainCmd = JobCmd<TrainSetup, Reroll>;

/// The masking of the last batch again: as trained (None) or re-masked from this seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reroll {
    pub seed: Option<u64>,
}

/// What the fine-tune tab asks of the worker.
pub type TuneCmd = JobCmd<TuneSetup, ProbeAsk>;

/// A sentence (and, for a question, its context) before and after fine-tuning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeAsk {
    pub text: String,
    pub pair: Option<String>,
}

/// What the Translate tab asks of the worker: training a new encoder-decoder, and decoding a
/// sentence with it (back to the start, one step, or every step to the end: `Decoded` after each
/// slice of steps, or `DecodeFailed`).
pub type TranslateCmd = JobCmd<TranslateSetup, DecodeAsk>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecodeAsk {
    pub req: DecodeRequest,
    pub action: DecodeAction,
}

/// Worker -> page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromEngine {
    /// Bytes of the model files received so far, of `total` (0 while unknown).
    Progress {
        loaded: u64,
        total: u64,
    },
    Loaded {
        info: ModelInfo,
        bytes: u64,
        ms: f64,
    },
    LoadFailed(String),
    Snapshot(Box<Snapshot>),
    Failed {
        seq: u64,
        message: String,
    },
    /// While the explainer uses the trained model: the loaded model's guesses at the typed
    /// [MASK]s of request `seq` (before / after, side by side).
    Compare {
        seq: u64,
        predictions: Vec<MaskPredictions>,
    },
    /// The explainer now answers with this model (the trained one, or the loaded one again).
    ModelChanged {
        info: ModelInfo,
        trained: bool,
    },
    Train(TrainEvent),
    Tune(TuneEvent),
    Translate(TranslateEvent),
    Device(DeviceStatus),
    /// The attribution asked for by request `seq` ("why this prediction"), after its snapshot.
    Why(Box<crate::explain::why::WhyView>),
    /// The attribution of request `seq` could not be computed.
    WhyFailed {
        seq: u64,
        message: String,
    },
    /// `BenchAttribution`'s medians, or why there are none.
    Bench(std::result::Result<crate::explain::attribute_bench::AttributionTimings, String>),
    /// The position views of the model the explainer now uses (they do not depend on the text:
    /// sent once, after `Loaded` and `ModelChanged`).
    Positions(Box<PositionView>),
    Survey(SurveyEvent),
    /// The answer to `Search`, or why there is none.
    Search(std::result::Result<Box<crate::explain::corpus_search::SearchView>, String>),
    /// The answer to `QueriesKeys`, or why there is none.
    QueriesKeys(std::result::Result<Box<crate::explain::qk_scatter::QkView>, String>),
}

/// What the head map asks of the worker (one job at a time: a new one replaces it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SurveyCmd {
    /// Survey the text at this absolute URL (one sentence a line) with the explainer's model.
    Start {
        url: String,
    },
    /// Survey the user's own text (one sentence a line).
    Text {
        text: String,
    },
    /// Run the coreference probe on these sentence sets (absolute URLs of JSON lines).
    Coref {
        dev_url: String,
        test_url: String,
    },
    Pause,
    Resume,
    Cancel,
}

/// Worker -> head map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SurveyEvent {
    /// Sentences done of `total` (the survey's or the probe's), milliseconds of work so far,
    /// whether it is running (false: paused).
    Progress {
        done: usize,
        total: usize,
        ms: f64,
        running: bool,
    },
    Done {
        report: Box<crate::explain::head_stats::SurveyReport>,
        ms: f64,
        /// Bytes of the search index the scan filled, and of the worker's wasm memory after it.
        index_bytes: u64,
        memory: u64,
    },
    CorefDone {
        report: Box<crate::explain::coref::CorefReport>,
        ms: f64,
    },
    /// It stopped: cancelled (None) or failed (why).
    Stopped(Option<String>),
}

/// Worker -> train tab.
pub type TrainEvent = JobEvent<TrainReady, LogPoint, TrainShow>;

/// A pre-training run is set up: the model, the corpus size, the held-out loss before training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainReady {
    pub info: ModelInfo,
    pub train_tokens: usize,
    pub eval_loss: f32,
    pub eval_acc: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TrainShow {
    Frame(Box<Frame>),
    Batch(Box<MaskingView>),
}

/// Worker -> fine-tune tab.
pub type TuneEvent = JobEvent<TuneReady, TuneStep, TuneShow>;

/// A fine-tuning run is set up.
pub type TuneReady = RunReady<ModelInfo, TuneScores>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TuneShow {
    /// The held-out scores (at every evaluation).
    Scores(Box<TuneScores>),
    /// The current batch with the model's answers.
    Batch(Box<TuneBatch>),
    Probe(Box<TuneProbe>),
}

/// Worker -> Translate tab.
pub type TranslateEvent = JobEvent<TranslateReady, TranslatePoint, TranslateShow>;

/// A translation run is set up (its examples: pairs).
pub type TranslateReady = RunReady<Seq2SeqInfo, TranslateScores>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TranslateShow {
    /// The held-out exact match (at every evaluation).
    Scores(Box<TranslateScores>),
    /// Where decoding is now, and the worker's milliseconds for the step that made this view (its
    /// forward, the choice and the view; for Restart the first forward).
    Decoded { view: Box<DecodeView>, ms: f64 },
    /// Decoding could not go on (an empty source, no model yet); the run is untouched.
    DecodeFailed(String),
}
