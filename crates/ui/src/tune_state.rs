//! The fine-tune tab's state: the form (data set, task, start, comparison, settings), the run
//! (`run_state`), the curves of the run and of the random-weights run, the
//! latest held-out scores, the batch with the model's answers, the sentence before and after, saved
//! files. Pure Rust (tested natively); `components/tune_*.rs` render it.

use crate::config::TaskKind;
use crate::explain::chart::Series;
use crate::explain::finetune::{eval_every, TuneBatch, TuneData, TuneProbe, TuneScores, TuneSetup, TuneStart, TuneStep, DATASETS};
use crate::explain::ModelInfo;
use crate::protocol::{TuneEvent, TuneReady, TuneShow};
use crate::run_state::{JobAction, JobView, Own, RunState};
use std::rc::Rc;

/// A field of the form, as typed.
#[derive(Clone, Debug, PartialEq)]
pub enum TuneField {
    /// A bundled set by name, or "custom".
    Dataset(String),
    /// The task of pasted / uploaded data.
    Task(TaskKind),
    Custom(String),
    Start(TuneStart),
    Compare(bool),
    Steps(String),
    Batch(String),
    Lr(String),
    Seed(String),
    ProbeText(String),
    ProbePair(String),
}

pub type TuneAction = JobAction<TuneField, TuneEvent>;

#[derive(Clone, Debug, PartialEq)]
pub struct TuneForm {
    /// A name in `DATASETS`, or "custom".
    pub dataset: String,
    pub custom: Rc<String>,
    /// The settings (`task` follows the data set; `data` is filled in by `setup`).
    pub setup: TuneSetup,
    /// Your own sentence (and a context, for questions), before and after.
    pub probe_text: String,
    pub probe_pair: String,
}

/// A sentence to try, per task: (text, pair).
pub fn probe_example(task: TaskKind) -> (&'static str, &'static str) {
    match task {
        TaskKind::SequenceClassification => ("The staff were friendly and the food was wonderful.", ""),
        TaskKind::TokenClassification => ("Maria Lopez works for Northwind in Lisbon.", ""),
        TaskKind::QuestionAnswering => ("Where does Maria work?", "Maria Lopez works for Northwind in Lisbon."),
    }
}

impl Default for TuneForm {
    fn default() -> Self {
        let (t, p) = probe_example(TaskKind::SequenceClassification);
        TuneForm {
            dataset: DATASETS[0].0.into(),
            custom: Rc::new(String::new()),
            setup: TuneSetup::defaults(TaskKind::SequenceClassification, TuneData::Text { train: String::new(), test: None }),
            probe_text: t.into(),
            probe_pair: p.into(),
        }
    }
}

impl TuneForm {
    /// The settings to send, a bundled set resolved to absolute URLs by `resolve`.
    pub fn setup(&self, resolve: impl Fn(&str) -> String) -> TuneSetup {
        let data = if self.dataset == "custom" {
            TuneData::Text { train: (*self.custom).clone(), test: None }
        } else {
            let url = |f: &str| resolve(&format!("datasets/{}/{f}", self.dataset));
            TuneData::Urls { train: url("train.jsonl"), test: url("test.jsonl") }
        };
        TuneSetup { data, tiny_base: resolve(crate::explain::models::TINY.folder), ..self.setup.clone() }
    }

    /// The probe's context (None when empty).
    pub fn pair(&self) -> Option<String> {
        Some(self.probe_pair.trim().to_string()).filter(|p| !p.is_empty())
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TuneView {
    pub form: TuneForm,
    pub run: RunState,
    pub info: Option<ModelInfo>,
    pub train_examples: usize,
    pub eval_examples: usize,
    /// The run's training loss and held-out accuracy; the random-weights run's beside them.
    pub loss: Rc<Series>,
    pub eval_acc: Rc<Series>,
    pub random_loss: Rc<Series>,
    pub random_eval_acc: Rc<Series>,
    /// The latest held-out scores (of both runs).
    pub scores: Option<Rc<TuneScores>>,
    pub batch: Option<Rc<TuneBatch>>,
    pub probe: Option<Rc<TuneProbe>>,
    /// The run compares with random weights (as set up).
    pub comparing: bool,
}

impl TuneView {
    /// The latest held-out accuracy of the run (0 to 1).
    pub fn accuracy(&self) -> Option<f64> {
        self.eval_acc.last().map(|p| p.1)
    }
}

impl JobView for TuneView {
    type Field = TuneField;
    type Ready = TuneReady;
    type Point = TuneStep;
    type Show = TuneShow;

    fn run(&mut self) -> &mut RunState {
        &mut self.run
    }

    fn planned(&self) -> usize {
        self.form.setup.steps
    }

    fn edit(&mut self, f: TuneField) {
        // the probe can be edited any time; the settings only before a run
        match &f {
            TuneField::ProbeText(v) => return self.form.probe_text = v.clone(),
            TuneField::ProbePair(v) => return self.form.probe_pair = v.clone(),
            _ if self.run.has_run => return,
            _ => {}
        }
        let s = &mut self.form.setup;
        let num = |v: &str| v.trim().parse::<usize>().ok();
        let task_changed = |s: &mut TuneSetup, form_probe: (&mut String, &mut String), task: TaskKind| {
            if s.task != task {
                let d = TuneSetup::defaults(task, s.data.clone());
                *s = TuneSetup { start: s.start, compare: s.compare, seed: s.seed, ..d };
                let (t, p) = probe_example(task);
                (*form_probe.0, *form_probe.1) = (t.into(), p.into());
            }
        };
        match f {
            TuneField::Dataset(name) => {
                if let Some((_, task, _)) = DATASETS.iter().find(|d| d.0 == name) {
                    task_changed(s, (&mut self.form.probe_text, &mut self.form.probe_pair), *task);
                }
                self.form.dataset = name;
            }
            TuneField::Task(t) => task_changed(s, (&mut self.form.probe_text, &mut self.form.probe_pair), t),
            TuneField::Custom(t) => self.form.custom = Rc::new(t),
            TuneField::Start(st) => s.start = st,
            TuneField::Compare(on) => s.compare = on,
            TuneField::Steps(v) => {
                s.steps = num(&v).unwrap_or(s.steps);
                s.eval_every = eval_every(s.steps);
            }
            TuneField::Batch(v) => s.batch = num(&v).unwrap_or(s.batch),
            TuneField::Lr(v) => s.lr = v.trim().parse::<f64>().ok().filter(|x| x.is_finite()).unwrap_or(s.lr),
            TuneField::Seed(v) => s.seed = v.trim().parse::<u64>().unwrap_or(s.seed),
            TuneField::ProbeText(_) | TuneField::ProbePair(_) => {}
        }
    }

    fn own(&mut self, o: Own<TuneReady, TuneStep, TuneShow>) {
        match o {
            Own::Ready(r) => {
                *self = TuneView { form: self.form.clone(), run: self.run.clone(), ..TuneView::default() };
                (self.info, self.train_examples, self.eval_examples) = (Some(r.info), r.train, r.held_out);
                self.comparing = r.scores.random.is_some();
                Rc::make_mut(&mut self.eval_acc).push(0.0, r.scores.main.accuracy as f64);
                if let Some(m) = &r.scores.random {
                    Rc::make_mut(&mut self.random_eval_acc).push(0.0, m.accuracy as f64);
                }
                self.scores = Some(Rc::new(r.scores));
            }
            Own::Points(steps) => {
                for s in &steps {
                    let x = s.main.step as f64;
                    Rc::make_mut(&mut self.loss).push(x, s.main.loss as f64);
                    if let Some(a) = s.main.eval_acc {
                        Rc::make_mut(&mut self.eval_acc).push(x, a as f64);
                    }
                    if let Some(r) = &s.random {
                        Rc::make_mut(&mut self.random_loss).push(x, r.loss as f64);
                        if let Some(a) = r.eval_acc {
                            Rc::make_mut(&mut self.random_eval_acc).push(x, a as f64);
                        }
                    }
                }
            }
            Own::Show(TuneShow::Scores(s)) if self.run.has_run => self.scores = Some(Rc::new(*s)),
            Own::Show(TuneShow::Scores(_)) => {}
            Own::Show(TuneShow::Batch(b)) => self.batch = Some(Rc::new(*b)),
            Own::Show(TuneShow::Probe(p)) => self.probe = Some(Rc::new(*p)),
            Own::Reset => *self = TuneView { form: self.form.clone(), ..TuneView::default() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::finetune::TaskMetrics;
    use crate::explain::finetune::TunePoint;
    use crate::protocol::Progress;
    use crate::run_state::Phase;

    fn metrics(acc: f32) -> TaskMetrics {
        TaskMetrics {
            kind: TaskKind::SequenceClassification,
            examples: 10,
            loss: 0.7,
            accuracy: acc,
            labels: vec!["negative".into(), "positive".into()],
            confusion: vec![vec![5, 0], vec![5, 0]],
            per_tag: vec![],
            f1: None,
        }
    }

    fn ready(random: bool) -> TuneEvent {
        TuneEvent::Ready {
            ready: Box::new(TuneReady {
                info: ModelInfo::default(),
                train: 90,
                held_out: 10,
                scores: TuneScores { step: 0, main: metrics(0.5), random: random.then(|| metrics(0.4)) },
            }),
            setup_ms: 5.0,
            device: "CPU (wasm)".into(),
        }
    }

    fn point(step: usize, eval: Option<f32>) -> TunePoint {
        TunePoint { step, loss: 1.0 / step as f32, eval_acc: eval, ..Default::default() }
    }

    #[test]
    fn a_data_set_sets_the_task_and_the_form_locks_while_a_run_exists() {
        let mut v = TuneView::default();
        v.apply(TuneAction::Edit(TuneField::Dataset("entities".into())));
        assert_eq!(v.form.setup.task, TaskKind::TokenClassification);
        assert_eq!(v.form.probe_text, probe_example(TaskKind::TokenClassification).0);
        let s = v.form.setup(|p| format!("http://h/{p}"));
        assert_eq!(
            s.data,
            TuneData::Urls { train: "http://h/datasets/entities/train.jsonl".into(), test: "http://h/datasets/entities/test.jsonl".into() }
        );
        v.apply(TuneAction::Edit(TuneField::Steps("120".into())));
        assert_eq!((v.form.setup.steps, v.form.setup.eval_every), (120, 10));
        v.apply(TuneAction::Edit(TuneField::Lr("not a number".into())));
        assert_eq!(v.form.setup.lr, TuneSetup::defaults(TaskKind::TokenClassification, s.data).lr, "a bad number keeps the old one");
        v.apply(TuneAction::Event(ready(true)));
        assert!(v.run.has_run && v.comparing && v.run.phase == Phase::Paused);
        v.apply(TuneAction::Edit(TuneField::Steps("5".into())));
        assert_eq!(v.form.setup.steps, 120, "locked");
        v.apply(TuneAction::Edit(TuneField::ProbeText("mine".into())));
        assert_eq!(v.form.probe_text, "mine", "the probe stays editable");
    }

    #[test]
    fn progress_fills_both_runs_curves_and_reset_keeps_the_form() {
        let mut v = TuneView::default();
        v.apply(TuneAction::Edit(TuneField::Compare(true)));
        v.apply(TuneAction::Event(ready(true)));
        assert_eq!(v.accuracy(), Some(0.5));
        let steps = (1..=4)
            .map(|i| TuneStep { main: point(i, (i == 4).then_some(0.8)), random: Some(point(i, (i == 4).then_some(0.55))) })
            .collect();
        v.apply(TuneAction::Event(TuneEvent::Progress(Progress {
            points: steps,
            step: 4,
            total: 300,
            running: true,
            per_s: 40.0,
            ..Default::default()
        })));
        assert_eq!((v.loss.len(), v.random_loss.len(), v.run.step, v.run.phase.clone()), (4, 4, 4, Phase::Running));
        assert_eq!(v.accuracy(), Some(0.800000011920929));
        assert_eq!(v.random_eval_acc.last().map(|p| p.0), Some(4.0));
        v.apply(TuneAction::Event(TuneEvent::Failed("lost".into())));
        assert_eq!((v.run.phase.clone(), v.run.error.as_deref()), (Phase::Paused, Some("lost")));
        v.apply(TuneAction::Event(TuneEvent::Reset));
        assert!(!v.run.has_run && v.loss.is_empty() && v.form.setup.compare);
    }
}
