//! The engine's reactor as the UI thread names it. The real one (`bertscope::worker::engine::Engine`)
//! runs in the Web Worker, built from the engine crate; the UI thread only spawns that worker
//! (`WORKER_PATH`) and talks to it, so it needs the reactor's type (its messages,
//! `bertscope_view::protocol`, and yew-agent's default codec, the same on both sides), not its body.

use crate::protocol::{FromEngine, ToEngine};
use yew_agent::reactor::{reactor, ReactorScope};

/// Never run on the UI thread: the worker script runs the engine's.
#[reactor]
pub async fn Engine(scope: ReactorScope<ToEngine, FromEngine>) {
    drop(scope);
}
