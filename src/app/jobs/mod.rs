//! The long jobs of the page (pre-training, fine-tuning, translation training), one shape for all:
//! a kind sets itself up from its settings (`prepare`, asking its `Host` for data and models),
//! steps, reports its steps, shows what falls due, answers its own requests and saves its model.
//! One runner (the worker's `engine::job`) starts, slices, pauses, saves and reports every kind
//! alike. No browser code here: each kind is tested natively.

pub mod finetune;
pub mod pretrain;
pub mod translate;

use crate::backend::Backend;
use crate::bundle::{Bert, ModelFiles};
use crate::error::Result;
use bertscope_view::protocol::{FromEngine, JobEvent};

/// Which long job (each has one run at a time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobKind {
    Pretrain,
    Finetune,
    Translate,
}

/// A model a run can start from.
#[derive(Clone, Debug, PartialEq)]
pub enum StartModel {
    /// The model loaded in the explainer.
    Loaded,
    /// The model pre-trained in the page (its weights brought back from the GPU first).
    Pretrained,
    /// The bundled bert-tiny, from this folder URL.
    Tiny(String),
}

/// What a run's set-up asks of where it runs (the page's worker).
// The worker is single-threaded (wasm): no `Send` bound is wanted on these futures.
#[allow(async_fn_in_trait)]
pub trait Host {
    /// Tells the user what the set-up does now (before a long synchronous part).
    async fn preparing(&mut self, what: &str);
    /// A text by URL (a bundled corpus or data set); `what` names it in the message on failure.
    async fn fetch_text(&mut self, url: &str, what: &str) -> std::result::Result<String, String>;
    /// Makes a model to start from ready (fetches the bundled bert-tiny, brings the pre-trained
    /// run's weights back from the GPU), or says why there is none.
    async fn ready_model(&mut self, which: &StartModel) -> std::result::Result<(), String>;
    /// That model, once ready.
    fn model(&self, which: &StartModel) -> Option<&Bert>;
    /// Where runs train (the explainer's choice of backend) and its name; None: the CPU path.
    fn backend(&self) -> Option<(&Backend, String)>;
    /// That backend failed: the explainer goes back to the CPU path, and the page is told.
    async fn backend_failed(&mut self, why: String);
}

#[allow(async_fn_in_trait)]
pub trait Job: Sized {
    const KIND: JobKind;
    /// Its settings and its own requests; what it reports once set up, one step's point for its
    /// charts, what it shows as it goes.
    type Setup;
    type Ask;
    type Ready;
    type Point;
    type Show;

    /// A run set up from `setup` (its data fetched through `host`): the run, what it reports, and
    /// what it trains on ("CPU (wasm)", "WebGPU (…)"). Err: the message for the page.
    async fn prepare(setup: &Self::Setup, host: &mut impl Host) -> std::result::Result<(Self, Self::Ready, String), String>;

    /// Steps taken, and planned.
    fn steps(&self) -> (usize, usize);

    fn finished(&self) -> bool {
        let (done, total) = self.steps();
        done >= total
    }

    /// One step: its point, the units it took (tokens, examples, pairs: the throughput) and what
    /// fell due to show after it (a filmstrip frame, held-out scores).
    async fn step(&mut self) -> Result<(Self::Point, usize, Option<Self::Show>)>;

    /// What to show at step 0, when the run pauses, and about once a second while it runs.
    async fn shown(&mut self, first: bool) -> Result<Option<Self::Show>> {
        let _ = first;
        Ok(None)
    }

    /// Its own request `ask` of run `run` (None: no run yet): what to show, or why not (`now`:
    /// a clock in milliseconds, for what reports its time).
    async fn ask(run: Option<&mut Self>, ask: Self::Ask, now: &dyn Fn() -> f64) -> Result<Option<Self::Show>>;

    /// Work a request left to do between messages (decoding to the end), for about `budget_ms`
    /// of `now` (milliseconds): what to show after it.
    fn more(&mut self, budget_ms: f64, now: &dyn Fn() -> f64) -> Option<Self::Show> {
        let _ = (budget_ms, now);
        None
    }

    /// `more` has work to do.
    fn pending(&self) -> bool {
        false
    }

    /// The model as it is now, as an HF folder's files.
    async fn files(&mut self) -> Result<ModelFiles>;

    /// The model the explainer can use (None: not a BERT).
    fn bert(&self) -> Option<&Bert> {
        None
    }

    /// Brings its weights back from the GPU (when it trains there).
    async fn sync(&mut self) {}

    /// The message that carries this kind's events to the page.
    fn wrap(ev: JobEvent<Self::Ready, Self::Point, Self::Show>) -> FromEngine;
}

/// An error as the page shows it (an input error without its prefix).
pub fn message(e: crate::error::BertError) -> String {
    match e {
        crate::error::BertError::Input(m) => m,
        e => e.to_string(),
    }
}
