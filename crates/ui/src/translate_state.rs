//! The Translate tab's state: the training form (data set, pasted pairs, settings), the run
//! (`run_state`), its curves (loss, teacher-forced accuracy, held-out
//! exact match), the latest held-out translations; the decoding form (source, method, temperature,
//! top-k, beams, seed) and the latest decoding step; the saved model's download links. Pure Rust (tested natively);
//! `components/translate_*.rs` and `decode_*.rs` render it.

use crate::explain::chart::Series;
use crate::explain::decode::Method;
use crate::explain::decode::{DecodeRequest, DecodeView};
use crate::explain::translate::TranslatePoint;
use crate::explain::translate::{eval_every, Seq2SeqInfo, TranslateData, TranslateScores, TranslateSetup, DATASETS};
use crate::protocol::{TranslateEvent, TranslateReady, TranslateShow};
use crate::run_state::{JobAction, JobView, Own, Phase, RunState};
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
    /// A decoding button was pressed, for this request.
    Decode(DecodeRequest),
}

pub type TranslateAction = JobAction<TranslateField, TranslateEvent>;

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

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TranslateView {
    pub form: TranslateForm,
    pub run: RunState,
    pub info: Option<Seq2SeqInfo>,
    pub train_pairs: usize,
    pub eval_pairs: usize,
    pub loss: Rc<Series>,
    pub acc: Rc<Series>,
    /// Held-out exact match (0 to 1), at each evaluation.
    pub exact: Rc<Series>,
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
}

impl TranslateView {
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
        match (&self.run.phase, self.run.has_run, self.run.step) {
            (Phase::Preparing(_), _, _) => Some("Wait until the run is set up."),
            (_, false, _) => Some("Nothing to save yet: train a model first (Start training above)."),
            (_, true, 0) => Some("Nothing learnt yet: Save works after the first training step."),
            _ => None,
        }
    }
}

impl JobView for TranslateView {
    type Field = TranslateField;
    type Ready = TranslateReady;
    type Point = TranslatePoint;
    type Show = TranslateShow;

    fn run(&mut self) -> &mut RunState {
        &mut self.run
    }

    fn planned(&self) -> usize {
        self.form.setup.steps
    }

    fn edit(&mut self, f: TranslateField) {
        let num = |v: &str| v.trim().parse::<usize>().ok();
        let locked = self.run.has_run;
        let form = &mut self.form;
        // the decoding fields can be edited any time; the training settings only before a run
        match f {
            TranslateField::Decode(r) => (self.decode_error, self.decoding, self.sent) = (None, true, Some(r)),
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

    fn own(&mut self, o: Own<TranslateReady, TranslatePoint, TranslateShow>) {
        match o {
            Own::Ready(r) => {
                *self = TranslateView { form: self.form.clone(), run: self.run.clone(), ..TranslateView::default() };
                (self.info, self.train_pairs, self.eval_pairs) = (Some(r.info), r.train, r.held_out);
                Rc::make_mut(&mut self.exact).push(0.0, r.scores.exact_match as f64);
                self.scores = Some(Rc::new(r.scores));
            }
            Own::Points(points) => {
                for p in &points {
                    let x = p.step as f64;
                    Rc::make_mut(&mut self.loss).push(x, p.loss as f64);
                    Rc::make_mut(&mut self.acc).push(x, p.acc as f64);
                    if let Some(e) = p.exact_match {
                        Rc::make_mut(&mut self.exact).push(x, e as f64);
                    }
                }
            }
            Own::Show(TranslateShow::Scores(s)) if self.run.has_run => self.scores = Some(Rc::new(*s)),
            Own::Show(TranslateShow::Scores(_)) => {}
            Own::Show(TranslateShow::Decoded { view, ms }) => {
                (self.decode, self.step_ms) = (Some(Rc::new(*view)), Some(ms));
                (self.decoding, self.decode_error, self.answers) = (false, None, self.answers + 1);
            }
            Own::Show(TranslateShow::DecodeFailed(m)) => {
                (self.decoding, self.decode_error, self.answers) = (false, Some(m), self.answers + 1)
            }
            Own::Reset => *self = TranslateView { form: self.form.clone(), ..TranslateView::default() },
        }
    }
}

#[cfg(test)]
#[path = "translate_state_tests.rs"]
mod tests;
