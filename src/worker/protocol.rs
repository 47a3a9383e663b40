//! The messages between the page (UI thread) and the engine's Web Worker. Plain serde types: the
//! worker encodes them with bincode, so no `skip_serializing_if` here.

use crate::explain::embeddings::PositionView;
use crate::explain::finetune::{TuneBatch, TuneProbe, TuneScores, TuneSetup, TuneStep};
use crate::explain::snapshot::MaskPredictions;
use crate::explain::training::{Frame, LogPoint, MaskingView, TrainSetup};
use crate::explain::{ModelInfo, Request, Snapshot};
use serde::{Deserialize, Serialize};

/// Page -> worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToEngine {
    /// Fetch and load the model folder at this absolute URL (ending in `/`).
    Load { base_url: String },
    /// Load a model from files the user picked (`Loaded`, or `LoadFailed` with the old model kept).
    LoadFiles(Vec<crate::worker::model_files::PickedFile>),
    /// Run one forward and reply with a snapshot (or `Failed`).
    Explain(Request),
    /// Training in the page.
    Train(TrainCmd),
    /// Fine-tuning in the page.
    Tune(TuneCmd),
    /// Which backend runs the explainer's forward (the worker answers with `Device`).
    Device(DevicePref),
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

/// What the training panel asks of the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TrainCmd {
    /// Run steps until paused or done; the run is prepared from these settings if there is none.
    Start(TrainSetup),
    /// One step (the run is prepared first if there is none), then stop.
    Step(TrainSetup),
    Pause,
    /// Drop the run (the explainer goes back to the loaded model).
    Reset,
    /// The masking of the last batch again: as trained (None) or re-masked from this seed.
    Reroll(Option<u64>),
    /// The explainer views use the trained model (true) or the loaded one (false).
    UseTrained(bool),
    /// Reply with the trained model's files (`Saved`).
    Save,
}

/// What the fine-tune tab asks of the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TuneCmd {
    /// Run steps until paused or done; the run is prepared from these settings if there is none.
    Start(TuneSetup),
    Pause,
    /// Drop the run (the explainer goes back to the loaded model when it used the fine-tuned one).
    Reset,
    /// The explainer views use the fine-tuned model (true) or the loaded one (false).
    UseTuned(bool),
    /// Reply with the fine-tuned model's files (`Saved`).
    Save,
    /// A sentence (and, for a question, its context) before and after fine-tuning (`Probe`).
    Probe {
        text: String,
        pair: Option<String>,
    },
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
    Device(DeviceStatus),
    /// The attribution asked for by request `seq` ("why this prediction"), after its snapshot.
    Why(Box<crate::explain::why::WhyView>),
    /// The attribution of request `seq` could not be computed.
    WhyFailed {
        seq: u64,
        message: String,
    },
    /// The position views of the model the explainer now uses (they do not depend on the text:
    /// sent once, after `Loaded` and `ModelChanged`).
    Positions(Box<PositionView>),
}

/// Worker -> training panel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TrainEvent {
    /// What the worker is doing before the first step (fetching the corpus, training a vocabulary).
    Preparing(String),
    /// The run is set up: the model, the corpus size, the held-out loss before training, and what
    /// it trains on ("CPU (wasm)", "WebGPU (…)").
    Ready {
        info: ModelInfo,
        train_tokens: usize,
        eval_loss: f32,
        eval_acc: f32,
        setup_ms: f64,
        device: String,
    },
    /// The steps since the last progress message; throughput over that window (wall clock); the
    /// worker's WebAssembly memory in bytes.
    Progress {
        logs: Vec<LogPoint>,
        step: usize,
        steps: usize,
        running: bool,
        tokens_per_s: f64,
        ms_per_step: f64,
        memory: u64,
    },
    Frame(Box<Frame>),
    Batch(Box<MaskingView>),
    /// The trained model's files (HF layout) as blob URLs made by the worker (the bytes never
    /// cross to the page): (name, bytes, URL).
    Saved(Vec<(String, usize, String)>),
    Failed(String),
    /// The run was dropped.
    Reset,
}

/// Worker -> fine-tune tab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TuneEvent {
    /// What the worker is doing before the first step (fetching the data, encoding it).
    Preparing(String),
    /// The run is set up: its model (with the head), the examples, the scores before any step,
    /// and what it trains on.
    Ready {
        info: ModelInfo,
        train_examples: usize,
        eval_examples: usize,
        scores: Box<TuneScores>,
        setup_ms: f64,
        device: String,
    },
    /// The steps since the last progress message; examples per second over that window.
    Progress {
        steps: Vec<TuneStep>,
        step: usize,
        total: usize,
        running: bool,
        examples_per_s: f64,
    },
    /// The held-out scores (at every evaluation).
    Scores(Box<TuneScores>),
    /// The current batch with the model's answers.
    Batch(Box<TuneBatch>),
    Probe(Box<TuneProbe>),
    /// The fine-tuned model's files (HF layout) as blob URLs: (name, bytes, URL).
    Saved(Vec<(String, usize, String)>),
    Failed(String),
    /// The run was dropped.
    Reset,
}

#[cfg(test)]
mod tests {
    //! Every message crosses the thread boundary through gloo-worker's codec (bincode 1): each one,
    //! filled by the engine itself, must come back equal.
    use super::*;
    use crate::backend::block_on;
    use crate::bundle::Bert;
    use crate::config::TaskKind;
    use crate::config::{BertConfig, Heads};
    use crate::explain::embeddings::position_view;
    use crate::explain::finetune::{TuneData, TuneStart};
    use crate::explain::snapshot::build;
    use crate::explain::training::{CorpusSource, TrainMode};
    use crate::tokenize::BertTokenizer;
    use crate::worker::model_files::PickedFile;
    use crate::worker::session::TrainSession;
    use crate::worker::tune_session::TuneSession;

    const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\n##s\nsat\non\nmat\ndog\nran\n.\n";
    const CORPUS: &str = "the cat sat on the mat.\nthe dog ran.\nthe cats sat.\n\nthe dog sat on the mat.\nthe cat ran.\n";

    fn round_trip<T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(what: &str, v: &T) {
        let bytes = bincode::serialize(v).unwrap_or_else(|e| panic!("{what}: cannot encode: {e}"));
        let back: T = bincode::deserialize(&bytes).unwrap_or_else(|e| panic!("{what}: cannot decode: {e}"));
        assert_eq!(&back, v, "{what} changed on its way through the codec");
    }

    #[test]
    fn every_message_survives_the_workers_codec() {
        let tok = BertTokenizer::from_vocab_txt(VOCAB, true, 32).unwrap();
        let bert = Bert::from_scratch(BertConfig::new(0, 12, 2, 3, 20, 32), tok, Heads::PRETRAINING, 3).unwrap();
        let req = Request {
            seq: 9,
            text: "the cat [MASK] on the mat.".into(),
            pair: Some("the dog ran.".into()),
            top_k: 3,
            ..Default::default()
        };
        let snap = build(&bert, &req).unwrap();
        assert!(!snap.predictions.is_empty());
        let info = ModelInfo::of(&bert);
        let setup = TrainSetup {
            batch: 2,
            seq: 16,
            steps: 2,
            vocab_size: 40,
            snap_every: 1,
            eval_every: 1,
            probe: "the cat [MASK].".into(),
            ..TrainSetup::defaults(TrainMode::Continue, CorpusSource::Text(CORPUS.repeat(12)))
        };
        let mut run = TrainSession::new(Some(&bert), &CORPUS.repeat(12), &setup).unwrap();
        let log = block_on(run.step()).unwrap();
        let frame = run.frame().unwrap();
        let batch = run.masking_view(2, Some(4), 2).unwrap();
        let status = DeviceStatus {
            pref: DevicePref::Gpu,
            adapter: Some("vendor arch".into()),
            emulated: true,
            problem: Some("lost".into()),
            on_gpu: false,
            race: Some((1.5, 2.5)),
        };

        // a fine-tuning run of the QA fixture, stepped once, for the fine-tune messages
        let qa_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/models/task_qa");
        let qa = Bert::from_dir(&qa_dir).unwrap();
        let qa_lines = r#"{"question": "who sat?", "context": "the cat sat on the mat", "answer": {"text": "the cat", "start": 0}}
{"question": "where?", "context": "the dog ran on the mat", "answer": {"text": "the mat", "start": 15}}
"#;
        let tune_setup = TuneSetup {
            batch: 2,
            steps: 2,
            eval_every: 1,
            ..TuneSetup::defaults(TaskKind::QuestionAnswering, TuneData::Text { train: qa_lines.into(), test: Some(qa_lines.into()) })
        };
        let mut tune = TuneSession::new(&qa, qa_lines, Some(qa_lines), &tune_setup, &crate::backend::Backend::cpu()).unwrap();
        let (tune_step, tune_scores) = block_on(tune.step()).unwrap();
        let tune_scores = tune_scores.expect("evaluated every step");
        let tune_batch = block_on(tune.batch_view(2)).unwrap();
        let tune_probe = tune.probe("who sat?", Some("the cat sat on the mat")).unwrap();
        assert!(tune_probe.after.is_some() && !tune_batch.examples.is_empty());

        let to = vec![
            ToEngine::Load { base_url: "http://127.0.0.1/models/default/".into() },
            ToEngine::LoadFiles(vec![
                PickedFile { name: "m/config.json".into(), bytes: b"{}".to_vec() },
                PickedFile { name: "m/model.safetensors".into(), bytes: vec![0, 255, 7] },
            ]),
            ToEngine::Explain(req.clone()),
            ToEngine::Explain(Request {
                why: Some(crate::explain::why::WhyRequest {
                    target: Some("mask:3:sat".into()),
                    method: Some(crate::infer::attribute::Method::GradXInput),
                    steps: 32,
                }),
                ..req.clone()
            }),
            ToEngine::Device(DevicePref::Cpu),
            ToEngine::Train(TrainCmd::Start(setup.clone())),
            ToEngine::Train(TrainCmd::Step(TrainSetup { corpus: CorpusSource::Url("corpora/simple.txt".into()), ..setup.clone() })),
            ToEngine::Train(TrainCmd::Pause),
            ToEngine::Train(TrainCmd::Reset),
            ToEngine::Train(TrainCmd::Reroll(Some(u64::MAX))),
            ToEngine::Train(TrainCmd::Reroll(None)),
            ToEngine::Train(TrainCmd::UseTrained(true)),
            ToEngine::Train(TrainCmd::Save),
            ToEngine::Tune(TuneCmd::Start(tune_setup.clone())),
            ToEngine::Tune(TuneCmd::Start(TuneSetup {
                data: TuneData::Urls { train: "datasets/x/train.jsonl".into(), test: "datasets/x/test.jsonl".into() },
                start: TuneStart::Random,
                compare: true,
                ..tune_setup.clone()
            })),
            ToEngine::Tune(TuneCmd::Pause),
            ToEngine::Tune(TuneCmd::Reset),
            ToEngine::Tune(TuneCmd::UseTuned(true)),
            ToEngine::Tune(TuneCmd::Save),
            ToEngine::Tune(TuneCmd::Probe { text: "who sat?".into(), pair: Some("the cat sat".into()) }),
        ];
        for m in &to {
            round_trip(&format!("{m:?}").chars().take(40).collect::<String>(), m);
        }
        let from = vec![
            FromEngine::Progress { loaded: 3, total: 9_000_000 },
            FromEngine::Loaded { info: info.clone(), bytes: 8_800_000, ms: 612.5 },
            FromEngine::LoadFailed("config.json: HTTP 404".into()),
            FromEngine::Snapshot(Box::new(snap.clone())),
            FromEngine::Snapshot(Box::new({
                // a fine-tuned model's snapshot carries its task output
                let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/models/task_qa");
                let qa = Bert::from_dir(&dir).unwrap();
                let s = build(&qa, &Request { pair: Some("the cat sat on the mat".into()), ..req.clone() }).unwrap();
                assert!(s.task.is_some());
                s
            })),
            FromEngine::Failed { seq: 4, message: "the text is empty".into() },
            FromEngine::Compare { seq: 9, predictions: snap.predictions.clone() },
            FromEngine::ModelChanged { info: info.clone(), trained: true },
            FromEngine::Device(status),
            FromEngine::Positions(Box::new(position_view(&bert))),
            FromEngine::Train(TrainEvent::Preparing("fetching the corpus…".into())),
            FromEngine::Train(TrainEvent::Ready {
                info,
                train_tokens: 120,
                eval_loss: 4.5,
                eval_acc: 0.1,
                setup_ms: 30.0,
                device: "CPU (wasm)".into(),
            }),
            FromEngine::Train(TrainEvent::Progress {
                logs: vec![log],
                step: 1,
                steps: 2,
                running: true,
                tokens_per_s: 1e4,
                ms_per_step: 3.0,
                memory: 1 << 24,
            }),
            FromEngine::Train(TrainEvent::Frame(Box::new(frame))),
            FromEngine::Train(TrainEvent::Batch(Box::new(batch))),
            FromEngine::Train(TrainEvent::Saved(vec![("model.safetensors".into(), 1234, "blob:http://127.0.0.1/x".into())])),
            FromEngine::Train(TrainEvent::Failed("the loss is not finite".into())),
            FromEngine::Train(TrainEvent::Reset),
            FromEngine::Tune(TuneEvent::Preparing("fetching the data set…".into())),
            FromEngine::Tune(TuneEvent::Ready {
                info: ModelInfo::of(&qa),
                train_examples: 2,
                eval_examples: 2,
                scores: Box::new(tune_scores.clone()),
                setup_ms: 12.0,
                device: "CPU (wasm)".into(),
            }),
            FromEngine::Tune(TuneEvent::Progress { steps: vec![tune_step], step: 1, total: 2, running: true, examples_per_s: 100.0 }),
            FromEngine::Tune(TuneEvent::Scores(Box::new(tune_scores))),
            FromEngine::Tune(TuneEvent::Batch(Box::new(tune_batch))),
            FromEngine::Tune(TuneEvent::Probe(Box::new(tune_probe))),
            FromEngine::Tune(TuneEvent::Saved(vec![("config.json".into(), 12, "blob:x".into())])),
            FromEngine::Tune(TuneEvent::Failed("test.jsonl line 3: unknown label `maybe`".into())),
            FromEngine::Tune(TuneEvent::Reset),
            FromEngine::Why(Box::new({
                let w = crate::explain::why::WhyRequest { target: None, method: Some(crate::infer::attribute::Method::Ig), steps: 4 };
                let prep = crate::explain::why::prepare(&bert, &snap, &w).expect("a [MASK] to explain");
                block_on(crate::explain::why::finish(&mut crate::backend::Backend::cpu(), &bert, (0, 0), prep)).unwrap()
            })),
            FromEngine::WhyFailed { seq: 3, message: "target `class:x`: no label".into() },
        ];
        for m in &from {
            round_trip(&format!("{m:?}").chars().take(40).collect::<String>(), m);
        }
        // every variant is in the lists (a new one fails to compile here until it is added)
        let to_kinds: std::collections::BTreeSet<usize> = to
            .iter()
            .map(|m| match m {
                ToEngine::Load { .. } => 0,
                ToEngine::LoadFiles(_) => 1,
                ToEngine::Explain(_) => 2,
                ToEngine::Device(_) => 3,
                ToEngine::Train(c) => match c {
                    TrainCmd::Start(_) => 4,
                    TrainCmd::Step(_) => 5,
                    TrainCmd::Pause => 6,
                    TrainCmd::Reset => 7,
                    TrainCmd::Reroll(_) => 8,
                    TrainCmd::UseTrained(_) => 9,
                    TrainCmd::Save => 10,
                },
                ToEngine::Tune(c) => match c {
                    TuneCmd::Start(_) => 11,
                    TuneCmd::Pause => 12,
                    TuneCmd::Reset => 13,
                    TuneCmd::UseTuned(_) => 14,
                    TuneCmd::Save => 15,
                    TuneCmd::Probe { .. } => 16,
                },
            })
            .collect();
        assert_eq!(to_kinds.len(), 17, "ToEngine / TrainCmd variants covered: {to_kinds:?}");
        let from_kinds: std::collections::BTreeSet<usize> = from
            .iter()
            .map(|m| match m {
                FromEngine::Progress { .. } => 0,
                FromEngine::Loaded { .. } => 1,
                FromEngine::LoadFailed(_) => 2,
                FromEngine::Snapshot(_) => 3,
                FromEngine::Failed { .. } => 4,
                FromEngine::Compare { .. } => 5,
                FromEngine::ModelChanged { .. } => 6,
                FromEngine::Device(_) => 7,
                FromEngine::Positions(_) => 8,
                FromEngine::Why(_) => 26,
                FromEngine::WhyFailed { .. } => 27,
                FromEngine::Train(e) => match e {
                    TrainEvent::Preparing(_) => 9,
                    TrainEvent::Ready { .. } => 10,
                    TrainEvent::Progress { .. } => 11,
                    TrainEvent::Frame(_) => 12,
                    TrainEvent::Batch(_) => 13,
                    TrainEvent::Saved(_) => 14,
                    TrainEvent::Failed(_) => 15,
                    TrainEvent::Reset => 16,
                },
                FromEngine::Tune(e) => match e {
                    TuneEvent::Preparing(_) => 17,
                    TuneEvent::Ready { .. } => 18,
                    TuneEvent::Progress { .. } => 19,
                    TuneEvent::Scores(_) => 20,
                    TuneEvent::Batch(_) => 21,
                    TuneEvent::Probe(_) => 22,
                    TuneEvent::Saved(_) => 23,
                    TuneEvent::Failed(_) => 24,
                    TuneEvent::Reset => 25,
                },
            })
            .collect();
        assert_eq!(from_kinds.len(), 28, "FromEngine / TrainEvent variants covered: {from_kinds:?}");
    }
}
