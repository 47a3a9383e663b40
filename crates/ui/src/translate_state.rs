//! The Translate tab's state as a reducer over `TranslateAction`s: the training form (data set,
//! pasted pairs, settings), the run's phase and curves (loss, teacher-forced accuracy, held-out
//! exact match), the latest held-out translations; the decoding form (source, method, temperature,
//! top-k, beams, seed) and the latest decoding step; the saved model's download links. Pure Rust (tested natively);
//! `components/translate_*.rs` and `decode_*.rs` render it.

use crate::explain::chart::Series;
use crate::explain::decode::Method;
use crate::explain::decode::{DecodeRequest, DecodeView};
use crate::explain::translate::{eval_every, Seq2SeqInfo, TranslateData, TranslateScores, TranslateSetup, DATASETS};
use crate::protocol::TranslateEvent;
use crate::train_state::{Phase, SERIES_CAP};
use std::rc::Rc;

/// How the next token is chosen, as the form's radio buttons hold it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodKind {
    Greedy,
    Sample,
    Beam,
}

/// A field of the forms, as typed.
#[derive(Clone, Debug, PartialEq)]
pub enum TranslateField {
    /// A bundled set by name, or "custom".
    Dataset(String),
    Custom(String),
    Steps(String),
    Batch(String),
    Lr(String),
    Seed(String),
    Source(String),
    Method(MethodKind),
    Temperature(String),
    TopK(String),
    Beams(String),
    SampleSeed(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum TranslateAction {
    Edit(TranslateField),
    /// Start was pressed: show that the worker is on it.
    Requested,
    /// A decoding button was pressed, for this request.
    DecodeRequested(DecodeRequest),
    Event(TranslateEvent),
}

#[derive(Clone, Debug, PartialEq)]
pub struct TranslateForm {
    /// A name in `DATASETS`, or "custom".
    pub dataset: String,
    pub custom: Rc<String>,
    /// The settings (`data` is filled in by `setup`).
    pub setup: TranslateSetup,
    pub source: String,
    pub method: MethodKind,
    pub temperature: f32,
    /// 0: every token.
    pub top_k: usize,
    pub beams: usize,
    pub sample_seed: u64,
}

impl Default for TranslateForm {
    fn default() -> Self {
        TranslateForm {
            dataset: DATASETS[0].0.into(),
            custom: Rc::new(String::new()),
            setup: TranslateSetup::defaults(DATASETS[0].0, TranslateData::Text(String::new())),
            source: DATASETS[0].2.into(),
            method: MethodKind::Greedy,
            temperature: 0.8,
            top_k: 5,
            beams: 3,
            sample_seed: 1,
        }
    }
}

impl TranslateForm {
    /// The settings to send, a bundled set resolved to absolute URLs by `resolve`.
    pub fn setup(&self, resolve: impl Fn(&str) -> String) -> TranslateSetup {
        let data = if self.dataset == "custom" {
            TranslateData::Text((*self.custom).clone())
        } else {
            let url = |f: &str| resolve(&format!("datasets/{}/{f}", self.dataset));
            TranslateData::Urls { train: url("train.jsonl"), test: url("test.jsonl") }
        };
        TranslateSetup { data, ..self.setup.clone() }
    }

    /// What the decoding buttons ask for.
    pub fn request(&self) -> DecodeRequest {
        let method = match self.method {
            MethodKind::Greedy => Method::Greedy,
            MethodKind::Sample => Method::Sample { temperature: self.temperature, top_k: self.top_k, seed: self.sample_seed },
            MethodKind::Beam => Method::Beam { k: self.beams, length_penalty: 1.0 },
        };
        DecodeRequest { source: self.source.clone(), method }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TranslateView {
    pub form: TranslateForm,
    pub phase: Phase,
    pub error: Option<String>,
    /// A run exists in the worker (the training form is locked until Reset).
    pub has_run: bool,
    pub info: Option<Seq2SeqInfo>,
    pub train_pairs: usize,
    pub eval_pairs: usize,
    pub setup_ms: f64,
    pub step: usize,
    pub steps: usize,
    pub loss: Rc<Series>,
    pub acc: Rc<Series>,
    /// Held-out exact match (0 to 1), at each evaluation.
    pub exact: Rc<Series>,
    pub pairs_per_s: f64,
    pub scores: Option<Rc<TranslateScores>>,
    pub decode: Option<Rc<DecodeView>>,
    pub decode_error: Option<String>,
    /// A decoding request is on its way.
    pub decoding: bool,
    /// The last request sent (the view in `decode` is of it).
    pub sent: Option<DecodeRequest>,
    /// Decoding answers received (views and messages), for scripts waiting on the next one.
    pub answers: usize,
    /// The worker's milliseconds for the step that made `decode`.
    pub step_ms: Option<f64>,
    /// The saved model's files: (name, bytes, blob URL), and the training step they hold.
    pub links: Vec<(String, usize, String)>,
    pub saved_step: usize,
}

impl Default for TranslateView {
    fn default() -> Self {
        let s = || Rc::new(Series::new(SERIES_CAP));
        TranslateView {
            form: TranslateForm::default(),
            phase: Phase::Idle,
            error: None,
            has_run: false,
            info: None,
            train_pairs: 0,
            eval_pairs: 0,
            setup_ms: 0.0,
            step: 0,
            steps: 0,
            loss: s(),
            acc: s(),
            exact: s(),
            pairs_per_s: 0.0,
            scores: None,
            decode: None,
            decode_error: None,
            decoding: false,
            sent: None,
            answers: 0,
            step_ms: None,
            links: vec![],
            saved_step: 0,
        }
    }
}

impl TranslateView {
    pub fn running(&self) -> bool {
        self.phase == Phase::Running
    }

    /// The latest held-out exact match (0 to 1).
    pub fn exact_match(&self) -> Option<f64> {
        self.exact.last().map(|p| p.1)
    }

    /// The decoding on screen reached its end and the form still asks for the same: another step
    /// has nothing to do (Restart, or change the source or the method).
    pub fn decode_finished(&self) -> bool {
        self.decode.as_ref().is_some_and(|d| d.done) && self.sent.as_ref() == Some(&self.form.request())
    }

    /// The time of the step on screen, as shown beside it: "step 4: 2.1 ms" (step 0 is the first
    /// forward, before any token is chosen).
    pub fn step_time(&self) -> Option<String> {
        let (d, ms) = (self.decode.as_ref()?, self.step_ms?);
        Some(match d.step {
            0 => format!("first forward: {ms:.1} ms"),
            n => format!("step {n}: {ms:.1} ms"),
        })
    }

    /// Whether Save can be pressed, or why not (shown beside the button).
    pub fn save_blocked(&self) -> Option<&'static str> {
        match (&self.phase, self.has_run, self.step) {
            (Phase::Preparing(_), _, _) => Some("Wait until the run is set up."),
            (_, false, _) => Some("Nothing to save yet: train a model first (Start training above)."),
            (_, true, 0) => Some("Nothing learnt yet: Save works after the first training step."),
            _ => None,
        }
    }

    pub fn apply(&mut self, action: TranslateAction) {
        match action {
            TranslateAction::Edit(f) => self.edit(f),
            TranslateAction::Requested => {
                self.error = None;
                if !self.has_run {
                    self.phase = Phase::Preparing("starting…".into());
                }
            }
            TranslateAction::DecodeRequested(r) => {
                self.decode_error = None;
                self.decoding = true;
                self.sent = Some(r);
            }
            TranslateAction::Event(e) => self.on_event(e),
        }
    }

    fn edit(&mut self, f: TranslateField) {
        let num = |v: &str| v.trim().parse::<usize>().ok();
        let locked = self.has_run;
        let form = &mut self.form;
        // the decoding fields can be edited any time; the training settings only before a run
        match f {
            TranslateField::Source(v) => form.source = v,
            TranslateField::Method(m) => form.method = m,
            TranslateField::Temperature(v) => {
                form.temperature = v.trim().parse::<f32>().ok().filter(|t| t.is_finite() && *t > 0.0).unwrap_or(form.temperature)
            }
            TranslateField::TopK(v) => form.top_k = num(&v).unwrap_or(form.top_k),
            TranslateField::Beams(v) => form.beams = num(&v).filter(|k| (1..=8).contains(k)).unwrap_or(form.beams),
            TranslateField::SampleSeed(v) => form.sample_seed = v.trim().parse().unwrap_or(form.sample_seed),
            _ if locked => {}
            TranslateField::Dataset(name) => {
                let s = &form.setup;
                let keep = (s.batch, s.seed);
                form.setup = TranslateSetup::defaults(&name, s.data.clone());
                (form.setup.batch, form.setup.seed) = keep;
                if let Some(d) = DATASETS.iter().find(|d| d.0 == name) {
                    form.source = d.2.into();
                }
                form.dataset = name;
            }
            TranslateField::Custom(t) => form.custom = Rc::new(t),
            TranslateField::Steps(v) => {
                form.setup.steps = num(&v).filter(|&n| n > 0).unwrap_or(form.setup.steps);
                form.setup.eval_every = eval_every(form.setup.steps);
            }
            TranslateField::Batch(v) => form.setup.batch = num(&v).unwrap_or(form.setup.batch),
            TranslateField::Lr(v) => form.setup.lr = v.trim().parse::<f64>().ok().filter(|x| x.is_finite()).unwrap_or(form.setup.lr),
            TranslateField::Seed(v) => form.setup.seed = v.trim().parse().unwrap_or(form.setup.seed),
        }
    }

    fn fresh(&mut self) {
        let form = self.form.clone();
        *self = TranslateView { form, ..TranslateView::default() };
    }

    fn on_event(&mut self, e: TranslateEvent) {
        match e {
            TranslateEvent::Preparing(m) => {
                self.phase = Phase::Preparing(m);
                self.error = None;
            }
            TranslateEvent::Ready { info, train_pairs, eval_pairs, scores, setup_ms } => {
                self.fresh();
                self.has_run = true;
                self.info = Some(info);
                (self.train_pairs, self.eval_pairs, self.setup_ms) = (train_pairs, eval_pairs, setup_ms);
                self.steps = self.form.setup.steps;
                self.phase = Phase::Paused;
                Rc::make_mut(&mut self.exact).push(0.0, scores.exact_match as f64);
                self.scores = Some(Rc::new(*scores));
            }
            TranslateEvent::Progress { points, step, total, running, pairs_per_s } => {
                if !self.has_run {
                    return;
                }
                for p in &points {
                    let x = p.step as f64;
                    Rc::make_mut(&mut self.loss).push(x, p.loss as f64);
                    Rc::make_mut(&mut self.acc).push(x, p.acc as f64);
                    if let Some(e) = p.exact_match {
                        Rc::make_mut(&mut self.exact).push(x, e as f64);
                    }
                }
                if pairs_per_s > 0.0 {
                    self.pairs_per_s = pairs_per_s;
                }
                (self.step, self.steps) = (step, total);
                self.phase = match (step >= total && total > 0, running) {
                    (true, _) => Phase::Finished,
                    (false, true) => Phase::Running,
                    (false, false) => Phase::Paused,
                };
            }
            TranslateEvent::Scores(s) => {
                if self.has_run {
                    self.scores = Some(Rc::new(*s));
                }
            }
            TranslateEvent::Decoded { view, ms } => {
                self.decode = Some(Rc::new(*view));
                self.step_ms = Some(ms);
                (self.decoding, self.decode_error, self.answers) = (false, None, self.answers + 1);
            }
            TranslateEvent::DecodeFailed(m) => (self.decoding, self.decode_error, self.answers) = (false, Some(m), self.answers + 1),
            TranslateEvent::Saved { step, links } => {
                if self.has_run {
                    (self.saved_step, self.links) = (step, links);
                }
            }
            TranslateEvent::Failed(m) => {
                self.error = Some(m);
                self.phase = match &self.phase {
                    _ if !self.has_run => Phase::Idle,
                    Phase::Running => Phase::Paused,
                    p => p.clone(),
                };
            }
            TranslateEvent::Reset => self.fresh(),
        }
    }
}

#[cfg(test)]
#[path = "translate_state_tests.rs"]
mod tests;
