//! The train tab's state: the form (mode, corpus, settings), the run (`run_state`), bounded chart
//! series, the filmstrip and its two scrub positions, the masking view. Pure Rust (tested
//! natively); `components/train/` renders it.

use crate::explain::chart::Series;
use crate::explain::filmstrip::Filmstrip;
use crate::explain::training::{CorpusSource, LogPoint, MaskingView, TrainMode, TrainSetup};
use crate::explain::ModelInfo;
use crate::protocol::{TrainEvent, TrainReady, TrainShow};
use crate::run_state::{JobAction, JobView, Own, RunState};
use std::rc::Rc;

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

/// A field of the form, as typed, or how the run is shown (any time).
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
    /// Filmstrip scrub positions (frame indices); None follows the latest frame.
    ScrubA(Option<usize>),
    ScrubB(Option<usize>),
    /// The seed of the next re-roll.
    RerollSeed(u64),
}

pub type TrainAction = JobAction<Field, TrainEvent>;

#[derive(Clone, Debug, PartialEq)]
pub struct TrainView {
    pub form: TrainForm,
    pub run: RunState,
    pub info: Option<ModelInfo>,
    pub train_tokens: usize,
    /// The held-out loss before training.
    pub eval0: f32,
    /// Training masked-LM loss per step.
    pub loss: Rc<Series>,
    /// The latest NSP loss (models with that head).
    pub nsp_loss: Option<f32>,
    pub eval_loss: Rc<Series>,
    pub acc: Rc<Series>,
    pub eval_acc: Rc<Series>,
    pub lr: Rc<Series>,
    pub tokens_per_s: Rc<Series>,
    /// Mean non-padding tokens per step (for the ETA).
    pub tokens_per_step: f64,
    pub filmstrip: Rc<Filmstrip>,
    pub scrub_a: Option<usize>,
    pub scrub_b: Option<usize>,
    pub masking: Option<Rc<MaskingView>>,
    pub reroll_seed: u64,
}

impl Default for TrainView {
    fn default() -> Self {
        TrainView {
            form: TrainForm::default(),
            run: RunState::default(),
            info: None,
            train_tokens: 0,
            eval0: f32::NAN,
            loss: Rc::default(),
            nsp_loss: None,
            eval_loss: Rc::default(),
            acc: Rc::default(),
            eval_acc: Rc::default(),
            lr: Rc::default(),
            tokens_per_s: Rc::default(),
            tokens_per_step: 0.0,
            filmstrip: Rc::default(),
            scrub_a: Some(0),
            scrub_b: None,
            masking: None,
            reroll_seed: 1,
        }
    }
}

impl TrainView {
    /// Seconds left at the latest throughput (None before any is known).
    pub fn eta_secs(&self) -> Option<f64> {
        let r = &self.run;
        (r.per_s > 0.0 && self.tokens_per_step > 0.0).then(|| r.steps.saturating_sub(r.step) as f64 * self.tokens_per_step / r.per_s)
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
}

impl JobView for TrainView {
    type Field = Field;
    type Ready = TrainReady;
    type Point = LogPoint;
    type Show = TrainShow;

    fn run(&mut self) -> &mut RunState {
        &mut self.run
    }

    fn planned(&self) -> usize {
        self.form.setup.steps
    }

    fn edit(&mut self, f: Field) {
        match f {
            Field::ScrubA(i) => return self.scrub_a = i,
            Field::ScrubB(i) => return self.scrub_b = i,
            Field::RerollSeed(s) => return self.reroll_seed = s,
            _ if self.run.has_run => return, // the settings are locked while a run exists
            _ => {}
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
            Field::ScrubA(_) | Field::ScrubB(_) | Field::RerollSeed(_) => {}
        }
    }

    fn own(&mut self, o: Own<TrainReady, LogPoint, TrainShow>) {
        match o {
            Own::Ready(r) => {
                *self = TrainView { form: self.form.clone(), run: self.run.clone(), reroll_seed: self.reroll_seed, ..TrainView::default() };
                (self.info, self.train_tokens, self.eval0) = (Some(r.info), r.train_tokens, r.eval_loss);
                Rc::make_mut(&mut self.eval_loss).push(0.0, r.eval_loss as f64);
                Rc::make_mut(&mut self.eval_acc).push(0.0, r.eval_acc as f64);
            }
            Own::Points(logs) => {
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
                    if self.run.per_s > 0.0 {
                        Rc::make_mut(&mut self.tokens_per_s).push(self.run.step as f64, self.run.per_s);
                    }
                }
            }
            Own::Show(TrainShow::Frame(f)) if self.run.has_run => Rc::make_mut(&mut self.filmstrip).push(*f),
            Own::Show(TrainShow::Frame(_)) => {}
            Own::Show(TrainShow::Batch(v)) => self.masking = Some(Rc::new(*v)),
            Own::Reset => *self = TrainView { form: self.form.clone(), reroll_seed: self.reroll_seed, ..TrainView::default() },
        }
    }
}

#[cfg(test)]
#[path = "train_state_tests.rs"]
mod tests;
