//! The page's parts, as `App` (app.rs) lays them out: the header, the tab bar with the guided tour,
//! the train, fine-tune, translate and explain tabs, and the link to the engine they share through a yew context.

mod engine_link;
mod explain_tab;
mod header;
mod tabs;
mod train_tab;
mod translate_tab;
mod tune_tab;

pub use engine_link::use_engine_link;
pub use explain_tab::ExplainTab;
pub use header::Header;
pub use tabs::{use_tour, TabBar};
pub use train_tab::TrainTab;
pub use translate_tab::TranslateTab;
pub use tune_tab::TuneTab;

use super::engine::EngineLink;
use super::protocol::{JobCmd, JobEvent, ToEngine};
use super::run_state::{Control, JobAction, JobView};
use super::state::AppState;
use super::train_state::TrainView;
use super::translate_state::TranslateView;
use super::tune_state::TuneView;
use std::rc::Rc;
use yew::prelude::*;

/// A reducer's state as the views get it in their props: two are equal when they are the same
/// version of the state (no deep compare of a snapshot or a run's series on every render).
#[derive(Debug)]
pub struct Shared<T>(Rc<T>);

impl<T> Shared<T> {
    pub fn new(v: T) -> Self {
        Shared(Rc::new(v))
    }

    /// The state itself, for the views that take an `Rc`.
    pub fn rc(&self) -> Rc<T> {
        self.0.clone()
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl Reducible for Shared<AppState> {
    type Action = super::state::Action;

    fn reduce(self: Rc<Self>, action: Self::Action) -> Rc<Self> {
        let mut next = (*self.0).clone();
        next.apply(action);
        Rc::new(Shared::new(next))
    }
}

/// A long job's state (train, fine-tune, translate) takes its actions through its one reducer.
impl<T: JobView> Reducible for Shared<T> {
    type Action = JobAction<T::Field, JobEvent<T::Ready, T::Point, T::Show>>;

    fn reduce(self: Rc<Self>, action: Self::Action) -> Rc<Self> {
        let mut next = (*self.0).clone();
        next.apply(action);
        Rc::new(Shared::new(next))
    }
}

/// A long job's buttons as worker commands (`wrap`), with the form's settings (`setup`) for Start
/// and Step; the tab's state hears of Start and Step (the worker is on it) and of Reset (its model
/// leaves the explainer).
pub fn on_control<T: JobView + 'static, S: 'static, A: 'static>(
    engine: EngineLink,
    d: UseReducerDispatcher<Shared<T>>,
    setup: impl Fn() -> S + 'static,
    wrap: fn(JobCmd<S, A>) -> ToEngine,
) -> Callback<Control> {
    Callback::from(move |c: Control| {
        match c {
            Control::Start | Control::Step => d.dispatch(JobAction::Requested),
            Control::Reset => d.dispatch(JobAction::Use(false)),
            _ => {}
        }
        engine.send(wrap(c.cmd(&setup)));
    })
}

/// A run's "use this model in the explainer" switch (one run's model at a time: `other`'s goes
/// off when this one goes on).
pub fn on_use<T: JobView + 'static, U: JobView + 'static, S: 'static, A: 'static>(
    engine: EngineLink,
    d: UseReducerDispatcher<Shared<T>>,
    other: UseReducerDispatcher<Shared<U>>,
    wrap: fn(JobCmd<S, A>) -> ToEngine,
) -> Callback<bool> {
    Callback::from(move |on: bool| {
        d.dispatch(JobAction::Use(on));
        if on {
            other.dispatch(JobAction::Use(false));
        }
        engine.send(wrap(JobCmd::Use(on)));
    })
}

/// The explainer's state, the trainer's, the fine-tuner's and the Translate tab's, as the views hold them.
pub type PageState = UseReducerHandle<Shared<AppState>>;
pub type PageDispatch = UseReducerDispatcher<Shared<AppState>>;
pub type TrainDispatch = UseReducerDispatcher<Shared<TrainView>>;
pub type TuneDispatch = UseReducerDispatcher<Shared<TuneView>>;
pub type TranslateDispatch = UseReducerDispatcher<Shared<TranslateView>>;
