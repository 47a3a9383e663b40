//! The engine's reactor as the UI thread names it, and the views' link to it (`use_engine`). The real one (`bertscope::worker::engine::Engine`)
//! runs in the Web Worker, built from the engine crate; the UI thread only spawns that worker
//! (`WORKER_PATH`) and talks to it, so it needs the reactor's type (its messages,
//! `bertscope_view::protocol`, and yew-agent's default codec, the same on both sides), not its body.

use crate::protocol::{FromEngine, ToEngine};
use yew::prelude::*;
use yew_agent::reactor::{reactor, ReactorScope, UseReactorBridgeHandle};

/// Never run on the UI thread: the worker script runs the engine's.
#[reactor]
pub async fn Engine(scope: ReactorScope<ToEngine, FromEngine>) {
    drop(scope);
}

/// The bridge to the engine's worker, as the views get it from the context (equal for the page's
/// whole life: the views that send do not render again because of it).
#[derive(Clone, PartialEq)]
pub struct EngineLink(pub(crate) UseReactorBridgeHandle<Engine>);

impl EngineLink {
    pub fn send(&self, msg: ToEngine) {
        self.0.send(msg);
    }
}

/// The page's link to the engine (a view inside `App`'s `ContextProvider<EngineLink>`).
#[hook]
pub fn use_engine() -> EngineLink {
    use_context::<EngineLink>().expect("the views that talk to the engine are inside App's ContextProvider<EngineLink>")
}
