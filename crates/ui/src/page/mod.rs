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

impl Reducible for Shared<TrainView> {
    type Action = super::train_state::TrainAction;

    fn reduce(self: Rc<Self>, action: Self::Action) -> Rc<Self> {
        let mut next = (*self.0).clone();
        next.apply(action);
        Rc::new(Shared::new(next))
    }
}

impl Reducible for Shared<TuneView> {
    type Action = super::tune_state::TuneAction;

    fn reduce(self: Rc<Self>, action: Self::Action) -> Rc<Self> {
        let mut next = (*self.0).clone();
        next.apply(action);
        Rc::new(Shared::new(next))
    }
}

impl Reducible for Shared<TranslateView> {
    type Action = super::translate_state::TranslateAction;

    fn reduce(self: Rc<Self>, action: Self::Action) -> Rc<Self> {
        let mut next = (*self.0).clone();
        next.apply(action);
        Rc::new(Shared::new(next))
    }
}

/// The explainer's state, the trainer's, the fine-tuner's and the Translate tab's, as the views hold them.
pub type PageState = UseReducerHandle<Shared<AppState>>;
pub type PageDispatch = UseReducerDispatcher<Shared<AppState>>;
pub type TrainDispatch = UseReducerDispatcher<Shared<TrainView>>;
pub type TuneDispatch = UseReducerDispatcher<Shared<TuneView>>;
pub type TranslateDispatch = UseReducerDispatcher<Shared<TranslateView>>;
