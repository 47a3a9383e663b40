//! The one reducer of every long job's run (pre-training, fine-tuning, translation training): its
//! phase, error, step counter, throughput, device and saved files, from the shared `JobEvent`s. A
//! kind's state (`JobView`) holds a `RunState` and handles only what is its own: its form, what
//! it reports when ready, its points (charts) and what it shows. Pure Rust (tested natively).

pub use crate::explain::chart::SERIES_CAP;
use crate::protocol::{JobCmd, JobEvent, Link, Progress};

#[derive(Clone, Debug, Default, PartialEq)]
pub enum Phase {
    /// No run yet (the form is editable).
    #[default]
    Idle,
    /// The worker prepares the run (message).
    Preparing(String),
    Running,
    Paused,
    Finished,
}

/// What a long job's buttons ask for (the tab turns them into the worker's commands).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Control {
    Start,
    Step,
    Pause,
    Reset,
    Save,
}

impl Control {
    /// The command for this button; `setup` gives the form's settings (for Start and Step).
    pub fn cmd<S, A>(self, setup: impl FnOnce() -> S) -> JobCmd<S, A> {
        match self {
            Control::Start => JobCmd::Start(setup()),
            Control::Step => JobCmd::Step(setup()),
            Control::Pause => JobCmd::Pause,
            Control::Reset => JobCmd::Reset,
            Control::Save => JobCmd::Save,
        }
    }
}

/// What a long job's tab does to its state.
#[derive(Clone, Debug, PartialEq)]
pub enum JobAction<F, E> {
    /// A change of the kind's own: its form, or how it shows the run.
    Edit(F),
    /// Start or Step was pressed: show that the worker is on it.
    Requested,
    Event(E),
    /// The explainer uses this run's model (or not).
    Use(bool),
}

/// What only the kind handles, handed on by `RunState::on`.
pub enum Own<R, P, V> {
    /// A new run is set up: the kind starts its charts afresh.
    Ready(R),
    Points(Vec<P>),
    Show(V),
    /// The run was dropped.
    Reset,
}

/// The run's part of a long job's state, the same for every kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunState {
    pub phase: Phase,
    pub error: Option<String>,
    /// A run exists in the worker (the form is locked until Reset).
    pub has_run: bool,
    /// What the run trains on, and the milliseconds its set-up took.
    pub device: String,
    pub setup_ms: f64,
    pub step: usize,
    pub steps: usize,
    /// The latest throughput (units a second) and milliseconds a step.
    pub per_s: f64,
    pub ms_per_step: f64,
    /// The worker's WebAssembly memory (bytes), as last reported.
    pub memory: u64,
    /// The saved model's files, and the step they hold.
    pub links: Vec<Link>,
    pub saved_step: usize,
    /// The explainer uses this run's model.
    pub used: bool,
}

impl RunState {
    pub fn running(&self) -> bool {
        self.phase == Phase::Running
    }

    pub fn preparing(&self) -> bool {
        matches!(self.phase, Phase::Preparing(_))
    }

    /// The settings cannot change: a run exists or is being set up.
    pub fn locked(&self) -> bool {
        self.has_run || self.preparing()
    }

    /// Fraction of the planned steps done.
    pub fn fraction(&self) -> f64 {
        if self.steps == 0 {
            0.0
        } else {
            (self.step as f64 / self.steps as f64).min(1.0)
        }
    }

    /// The shared part of event `e` (`planned`: the form's steps); what is the kind's comes back.
    pub fn on<R, P, V>(&mut self, e: JobEvent<R, P, V>, planned: usize) -> Option<Own<R, P, V>> {
        match e {
            JobEvent::Preparing(m) => {
                self.phase = Phase::Preparing(m);
                self.error = None;
            }
            JobEvent::Ready { ready, setup_ms, device } => {
                let used = self.used;
                *self = RunState { has_run: true, setup_ms, device, steps: planned, phase: Phase::Paused, used, ..RunState::default() };
                return Some(Own::Ready(*ready));
            }
            JobEvent::Progress(Progress { points, step, total, running, per_s, ms_per_step, memory }) => {
                if !self.has_run {
                    return None;
                }
                self.memory = memory;
                if per_s > 0.0 {
                    (self.per_s, self.ms_per_step) = (per_s, ms_per_step);
                }
                (self.step, self.steps) = (step, total);
                self.phase = match (step >= total && total > 0, running) {
                    (true, _) => Phase::Finished,
                    (false, true) => Phase::Running,
                    (false, false) => Phase::Paused,
                };
                return Some(Own::Points(points));
            }
            JobEvent::Show(v) => return Some(Own::Show(v)),
            JobEvent::Saved { step, links } if self.has_run => (self.saved_step, self.links) = (step, links),
            JobEvent::Saved { .. } => {} // the links of a dropped run
            JobEvent::Failed(m) => {
                self.error = Some(m);
                if !self.has_run {
                    self.phase = Phase::Idle;
                } else if self.phase == Phase::Running {
                    self.phase = Phase::Paused;
                }
            }
            JobEvent::Reset => {
                *self = RunState::default();
                return Some(Own::Reset);
            }
        }
        None
    }
}

/// A long job's state in the page: a `RunState` and what only this kind holds.
pub trait JobView: Clone {
    type Field;
    type Ready;
    type Point;
    type Show;

    fn run(&mut self) -> &mut RunState;
    /// The steps the form plans.
    fn planned(&self) -> usize;
    fn edit(&mut self, f: Self::Field);
    fn own(&mut self, o: Own<Self::Ready, Self::Point, Self::Show>);

    fn apply(&mut self, a: JobAction<Self::Field, JobEvent<Self::Ready, Self::Point, Self::Show>>) {
        match a {
            JobAction::Edit(f) => self.edit(f),
            JobAction::Requested => {
                let run = self.run();
                run.error = None;
                if !run.has_run {
                    run.phase = Phase::Preparing("starting…".into());
                }
            }
            JobAction::Use(on) => self.run().used = on,
            JobAction::Event(e) => {
                let planned = self.planned();
                if let Some(o) = self.run().on(e, planned) {
                    self.own(o);
                }
            }
        }
    }
}
