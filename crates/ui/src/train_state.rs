//! The training panel's state as a reducer over `TrainAction`s: the form (mode, corpus, settings),
//! the run's phase, bounded chart series, the filmstrip and its two scrub positions, the masking
//! view, saved files. Pure Rust (tested natively); `components/train_*.rs` render it.

use crate::explain::chart::Series;
use crate::explain::filmstrip::Filmstrip;
use crate::explain::training::{CorpusSource, MaskingView, TrainMode, TrainSetup};
use crate::explain::ModelInfo;
use crate::protocol::TrainEvent;
use std::rc::Rc;

/// Points kept per chart series and frames kept in the filmstrip (long runs are thinned).
pub const SERIES_CAP: usize = 1000;
pub const FILMSTRIP_CAP: usize = 120;

/// The bundled corpora (in `www/corpora/`, copied next to the page): (file, label).
pub const CORPORA: [(&str, &str); 2] =
    [("simple.txt", "Simple English (generated, 230 KB)"), ("brown-sample.txt", "Brown Corpus sample (300 KB)")];

#[derive(Clone, Debug, PartialEq)]
pub enum Corpus {
    /// One of `CORPORA`, by file name.
    Bundled(String),
    /// Pasted or uploaded text.
    Custom,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TrainForm {
    pub corpus: Corpus,
    pub custom: Rc<String>,
    /// The settings (its `corpus` field is filled in by `setup`).
    pub setup: TrainSetup,
}

impl Default for TrainForm {
    fn default() -> Self {
        TrainForm {
            corpus: Corpus::Bundled(CORPORA[0].0.into()),
            custom: Rc::new(String::new()),
            setup: TrainSetup::defaults(TrainMode::Scratch, CorpusSource::Url(String::new())),
        }
    }
}

impl TrainForm {
    /// The settings to send, a bundled corpus resolved to an absolute URL by `resolve`.
    pub fn setup(&self, resolve: impl Fn(&str) -> String) -> TrainSetup {
        let corpus = match &self.corpus {
            Corpus::Bundled(f) => CorpusSource::Url(resolve(&format!("corpora/{f}"))),
            Corpus::Custom => CorpusSource::Text((*self.custom).clone()),
        };
        TrainSetup { corpus, ..self.setup.clone() }
    }
}

/// A field of the form, as typed.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    Mode(TrainMode),
    Corpus(Corpus),
    Custom(String),
    Batch(String),
    Seq(String),
    Lr(String),
    Steps(String),
    Seed(String),
    SnapEvery(String),
    Probe(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// No run yet (the form is editable).
    Idle,
    /// The worker prepares the run (message).
    Preparing(String),
    Running,
    Paused,
    Finished,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TrainAction {
    Edit(Field),
    /// A command was sent (Start / Step): show that the worker is on it.
    Requested,
    Event(TrainEvent),
    /// Filmstrip scrub positions (frame indices); None follows the latest frame.
    ScrubA(Option<usize>),
    ScrubB(Option<usize>),
    /// The seed of the next re-roll.
    RerollSeed(u64),
    /// Download links for the saved files: (name, bytes, blob URL).
    Links(Vec<(String, usize, String)>),
    /// The explainer uses the trained model.
    UseTrained(bool),
}

#[derive(Clone, Debug, PartialEq)]
pub struct TrainView {
    pub form: TrainForm,
    pub phase: Phase,
    pub error: Option<String>,
    /// A run exists in the worker (the form is locked until Reset).
    pub has_run: bool,
    pub info: Option<ModelInfo>,
    pub train_tokens: usize,
    pub setup_ms: f64,
    /// What the run trains on.
    pub device: String,
    /// The held-out loss before training.
    pub eval0: f32,
    pub step: usize,
    pub steps: usize,
    /// Training masked-LM loss per step.
    pub loss: Rc<Series>,
    /// The latest NSP loss (models with that head).
    pub nsp_loss: Option<f32>,
    pub eval_loss: Rc<Series>,
    pub acc: Rc<Series>,
    pub eval_acc: Rc<Series>,
    pub lr: Rc<Series>,
    pub tokens_per_s: Rc<Series>,
    /// The latest throughput window.
    pub rate: f64,
    pub ms_per_step: f64,
    /// Mean non-padding tokens per step (for the ETA).
    pub tokens_per_step: f64,
    pub filmstrip: Rc<Filmstrip>,
    pub scrub_a: Option<usize>,
    pub scrub_b: Option<usize>,
    pub masking: Option<Rc<MaskingView>>,
    pub reroll_seed: u64,
    pub links: Vec<(String, usize, String)>,
    pub use_trained: bool,
    /// The worker's WebAssembly memory (bytes), as last reported.
    pub worker_memory: u64,
}

impl Default for TrainView {
    fn default() -> Self {
        let s = || Rc::new(Series::new(SERIES_CAP));
        TrainView {
            form: TrainForm::default(),
            phase: Phase::Idle,
            error: None,
            has_run: false,
            info: None,
            train_tokens: 0,
            setup_ms: 0.0,
            device: String::new(),
            eval0: f32::NAN,
            step: 0,
            steps: 0,
            loss: s(),
            nsp_loss: None,
            eval_loss: s(),
            acc: s(),
            eval_acc: s(),
            lr: s(),
            tokens_per_s: s(),
            rate: 0.0,
            ms_per_step: 0.0,
            tokens_per_step: 0.0,
            filmstrip: Rc::new(Filmstrip::new(FILMSTRIP_CAP)),
            scrub_a: Some(0),
            scrub_b: None,
            masking: None,
            reroll_seed: 1,
            links: vec![],
            use_trained: false,
            worker_memory: 0,
        }
    }
}

impl TrainView {
    pub fn running(&self) -> bool {
        self.phase == Phase::Running
    }

    /// Fraction of the planned steps done.
    pub fn progress(&self) -> f64 {
        if self.steps == 0 {
            0.0
        } else {
            (self.step as f64 / self.steps as f64).min(1.0)
        }
    }

    /// Seconds left at the latest throughput (None before any is known).
    pub fn eta_secs(&self) -> Option<f64> {
        (self.rate > 0.0 && self.tokens_per_step > 0.0)
            .then(|| self.steps.saturating_sub(self.step) as f64 * self.tokens_per_step / self.rate)
    }

    /// The frame indices the filmstrip shows: A (default the first) and B (default the latest).
    pub fn scrubbed(&self) -> Option<(usize, usize)> {
        let n = self.filmstrip.len();
        if n == 0 {
            return None;
        }
        let a = self.scrub_a.unwrap_or(n - 1).min(n - 1);
        let b = self.scrub_b.unwrap_or(n - 1).min(n - 1);
        Some((a, b))
    }

    pub fn apply(&mut self, action: TrainAction) {
        match action {
            TrainAction::Edit(f) => self.edit(f),
            TrainAction::Requested => {
                self.error = None;
                if !self.has_run {
                    self.phase = Phase::Preparing("starting…".into());
                }
            }
            TrainAction::Event(e) => self.on_event(e),
            TrainAction::ScrubA(i) => self.scrub_a = i,
            TrainAction::ScrubB(i) => self.scrub_b = i,
            TrainAction::RerollSeed(s) => self.reroll_seed = s,
            TrainAction::Links(l) => self.links = l,
            TrainAction::UseTrained(on) => self.use_trained = on,
        }
    }

    fn edit(&mut self, f: Field) {
        if self.has_run {
            return; // locked while a run exists
        }
        let s = &mut self.form.setup;
        let num = |v: &str| v.trim().parse::<usize>().ok();
        match f {
            Field::Mode(m) => {
                let d = TrainSetup::defaults(m, s.corpus.clone());
                *s = TrainSetup { seed: s.seed, probe: s.probe.clone(), snap_every: s.snap_every, ..d };
            }
            Field::Corpus(c) => self.form.corpus = c,
            Field::Custom(t) => self.form.custom = Rc::new(t),
            Field::Batch(v) => s.batch = num(&v).unwrap_or(s.batch),
            Field::Seq(v) => s.seq = num(&v).unwrap_or(s.seq),
            Field::Lr(v) => s.lr = v.trim().parse::<f64>().ok().filter(|x| x.is_finite()).unwrap_or(s.lr),
            Field::Steps(v) => {
                s.steps = num(&v).unwrap_or(s.steps);
                s.eval_every = (s.steps / 12).clamp(10, 500);
            }
            Field::Seed(v) => s.seed = v.trim().parse::<u64>().unwrap_or(s.seed),
            Field::SnapEvery(v) => s.snap_every = num(&v).filter(|&n| n > 0).unwrap_or(s.snap_every),
            Field::Probe(v) => s.probe = v,
        }
    }

    fn on_event(&mut self, e: TrainEvent) {
        match e {
            TrainEvent::Preparing(m) => {
                self.phase = Phase::Preparing(m);
                self.error = None;
            }
            TrainEvent::Ready { info, train_tokens, eval_loss, eval_acc, setup_ms, device } => {
                let keep = (self.form.clone(), self.reroll_seed);
                *self = TrainView::default();
                (self.form, self.reroll_seed) = keep;
                self.has_run = true;
                self.info = Some(info);
                self.train_tokens = train_tokens;
                self.setup_ms = setup_ms;
                self.device = device;
                self.eval0 = eval_loss;
                self.steps = self.form.setup.steps;
                self.phase = Phase::Paused;
                Rc::make_mut(&mut self.eval_loss).push(0.0, eval_loss as f64);
                Rc::make_mut(&mut self.eval_acc).push(0.0, eval_acc as f64);
            }
            TrainEvent::Progress { logs, step, steps, running, tokens_per_s, ms_per_step, memory } => {
                if !self.has_run {
                    return;
                }
                self.worker_memory = memory;
                for p in &logs {
                    let x = p.step as f64;
                    // the masked-LM part: comparable with the held-out loss (MLM only)
                    Rc::make_mut(&mut self.loss).push(x, p.mlm_loss.unwrap_or(p.loss) as f64);
                    self.nsp_loss = p.nsp_loss;
                    Rc::make_mut(&mut self.acc).push(x, p.mlm_acc as f64);
                    Rc::make_mut(&mut self.lr).push(x, p.lr);
                    if let Some(l) = p.eval_loss {
                        Rc::make_mut(&mut self.eval_loss).push(x, l as f64);
                    }
                    if let Some(a) = p.eval_acc {
                        Rc::make_mut(&mut self.eval_acc).push(x, a as f64);
                    }
                }
                if !logs.is_empty() {
                    let t = logs.iter().map(|p| p.tokens).sum::<usize>() as f64 / logs.len() as f64;
                    self.tokens_per_step = if self.tokens_per_step == 0.0 { t } else { 0.9 * self.tokens_per_step + 0.1 * t };
                    if tokens_per_s > 0.0 {
                        self.rate = tokens_per_s;
                        self.ms_per_step = ms_per_step;
                        Rc::make_mut(&mut self.tokens_per_s).push(step as f64, tokens_per_s);
                    }
                }
                self.step = step;
                self.steps = steps;
                self.phase = if step >= steps && steps > 0 {
                    Phase::Finished
                } else if running {
                    Phase::Running
                } else {
                    Phase::Paused
                };
            }
            TrainEvent::Frame(f) => {
                if self.has_run {
                    Rc::make_mut(&mut self.filmstrip).push(*f);
                }
            }
            TrainEvent::Batch(v) => self.masking = Some(Rc::new(*v)),
            TrainEvent::Saved(_) => {} // turned into links by the page
            TrainEvent::Failed(m) => {
                self.error = Some(m);
                if !self.has_run {
                    self.phase = Phase::Idle;
                } else if self.phase == Phase::Running {
                    self.phase = Phase::Paused;
                }
            }
            TrainEvent::Reset => {
                let keep = (self.form.clone(), self.reroll_seed);
                *self = TrainView::default();
                (self.form, self.reroll_seed) = keep;
            }
        }
    }
}

#[cfg(test)]
#[path = "train_state_tests.rs"]
mod tests;
