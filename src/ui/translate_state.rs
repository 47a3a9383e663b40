//! The Translate tab's state as a reducer over `TranslateAction`s: the training form (data set,
//! pasted pairs, settings), the run's phase and curves (loss, teacher-forced accuracy, held-out
//! exact match), the latest held-out translations; the decoding form (source, method, temperature,
//! top-k, beams, seed) and the latest decoding step; the saved model's download links. Pure Rust (tested natively);
//! `components/translate_*.rs` and `decode_*.rs` render it.

use crate::explain::chart::Series;
use crate::explain::decode::{DecodeRequest, DecodeView};
use crate::explain::translate::{eval_every, Seq2SeqInfo, TranslateData, TranslateScores, TranslateSetup, DATASETS};
use crate::seq2seq::stepper::Method;
use crate::ui::train_state::{Phase, SERIES_CAP};
use crate::worker::protocol::TranslateEvent;
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
            TranslateEvent::Decoded(v) => {
                self.decode = Some(Rc::new(*v));
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
mod tests {
    use super::*;
    use crate::explain::translate::TranslatePoint;

    fn ready() -> TranslateEvent {
        let scores = TranslateScores { step: 0, exact_match: 0.0, pairs: 30, held_out: true, examples: vec![] };
        TranslateEvent::Ready { info: Seq2SeqInfo::default(), train_pairs: 900, eval_pairs: 30, scores: Box::new(scores), setup_ms: 12.0 }
    }

    #[test]
    fn a_data_set_sets_the_sizes_and_source_and_the_training_form_locks_during_a_run() {
        let mut v = TranslateView::default();
        assert_eq!((v.form.source.as_str(), v.form.setup.max_len), ("4 5 7", 24));
        v.apply(TranslateAction::Edit(TranslateField::Dataset("toy-translate".into())));
        assert_eq!((v.form.setup.max_len, v.form.setup.steps), (32, 1500));
        assert!(v.form.source.contains("bank"));
        let s = v.form.setup(|p| format!("http://h/{p}"));
        let urls = ("http://h/datasets/toy-translate/train.jsonl".to_string(), "http://h/datasets/toy-translate/test.jsonl".to_string());
        assert_eq!(s.data, TranslateData::Urls { train: urls.0, test: urls.1 });
        v.apply(TranslateAction::Edit(TranslateField::Steps("200".into())));
        assert_eq!((v.form.setup.steps, v.form.setup.eval_every), (200, 20));
        v.apply(TranslateAction::Edit(TranslateField::Lr("fast".into())));
        assert_eq!(v.form.setup.lr, 2e-3, "a bad number keeps the old one");
        v.apply(TranslateAction::Edit(TranslateField::Dataset("custom".into())));
        v.apply(TranslateAction::Edit(TranslateField::Custom("{}\n{}".into())));
        assert_eq!(v.form.setup(|p| p.to_string()).data, TranslateData::Text("{}\n{}".into()));
        v.apply(TranslateAction::Event(ready()));
        assert!(v.has_run && v.phase == Phase::Paused && v.exact_match() == Some(0.0));
        v.apply(TranslateAction::Edit(TranslateField::Steps("5".into())));
        assert_eq!(v.form.setup.steps, 1500, "locked during a run (the custom set's default)");
        v.apply(TranslateAction::Edit(TranslateField::Source("1 0".into())));
        v.apply(TranslateAction::Edit(TranslateField::Method(MethodKind::Beam)));
        v.apply(TranslateAction::Edit(TranslateField::Beams("20".into())));
        assert_eq!(v.form.request(), DecodeRequest { source: "1 0".into(), method: Method::Beam { k: 3, length_penalty: 1.0 } });
        v.apply(TranslateAction::Edit(TranslateField::Method(MethodKind::Sample)));
        v.apply(TranslateAction::Edit(TranslateField::Temperature("0".into())));
        v.apply(TranslateAction::Edit(TranslateField::TopK("0".into())));
        assert_eq!(v.form.request().method, Method::Sample { temperature: 0.8, top_k: 0, seed: 1 });
    }

    #[test]
    fn progress_fills_the_curves_and_decoding_keeps_its_own_errors() {
        let mut v = TranslateView::default();
        v.apply(TranslateAction::Event(ready()));
        let points = (1..=20)
            .map(|i| TranslatePoint {
                step: i,
                loss: 5.0 / i as f32,
                acc: i as f32 / 20.0,
                exact_match: (i == 20).then_some(0.6),
                ..Default::default()
            })
            .collect();
        v.apply(TranslateAction::Event(TranslateEvent::Progress { points, step: 20, total: 400, running: true, pairs_per_s: 300.0 }));
        assert_eq!((v.loss.len(), v.acc.len(), v.exact.len(), v.phase.clone()), (20, 20, 2, Phase::Running));
        assert!((v.exact_match().unwrap() - 0.6).abs() < 1e-6);
        v.apply(TranslateAction::DecodeRequested(v.form.request()));
        assert!(v.decoding && !v.decode_finished());
        v.apply(TranslateAction::Event(TranslateEvent::DecodeFailed("the source is empty".into())));
        assert_eq!((v.decoding, v.decode_error.as_deref(), v.error.as_deref()), (false, Some("the source is empty"), None));
        assert_eq!(v.answers, 1, "counted for scripts");
        v.apply(TranslateAction::Event(TranslateEvent::Failed("the loss is NaN".into())));
        assert_eq!((v.phase.clone(), v.error.as_deref()), (Phase::Paused, Some("the loss is NaN")));
        v.apply(TranslateAction::Event(TranslateEvent::Reset));
        assert!(!v.has_run && v.loss.is_empty() && v.decode_error.is_none() && v.form.source == "4 5 7");
        v.apply(TranslateAction::Event(TranslateEvent::Failed("line 3: not a pair".into())));
        assert_eq!(v.phase, Phase::Idle, "a failed start leaves no run");
    }

    #[test]
    fn save_says_why_it_waits_and_keeps_the_links_until_reset() {
        let mut v = TranslateView::default();
        assert!(v.save_blocked().is_some_and(|m| m.contains("train a model first")));
        v.apply(TranslateAction::Requested);
        assert!(v.save_blocked().is_some_and(|m| m.contains("set up")));
        v.apply(TranslateAction::Event(ready()));
        assert!(v.save_blocked().is_some_and(|m| m.contains("first training step")), "a run at step 0 has learnt nothing");
        v.apply(TranslateAction::Event(TranslateEvent::Progress { points: vec![], step: 30, total: 400, running: true, pairs_per_s: 0.0 }));
        assert_eq!(v.save_blocked(), None, "saving while training saves the current step");
        let links = vec![("config.json".to_string(), 900, "blob:a".to_string())];
        v.apply(TranslateAction::Event(TranslateEvent::Saved { step: 30, links: links.clone() }));
        assert_eq!((v.saved_step, &v.links), (30, &links));
        v.apply(TranslateAction::Event(TranslateEvent::Reset));
        assert!(v.links.is_empty() && v.saved_step == 0);
        v.apply(TranslateAction::Event(TranslateEvent::Saved { step: 30, links }));
        assert!(v.links.is_empty(), "links of a dropped run are not shown");
    }
}
