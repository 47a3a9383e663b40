//! The explainer page's UI thread: it renders the worker's snapshots and sends the user's requests.
//! It depends on `bertscope-view` (the messages and view-models) and never on the engine: the model,
//! the backend and the GPU live in the Web Worker (`bertscope::worker`). `state`, `url`, `tour` and
//! `grid_nav` are plain Rust (tested natively); the yew app (`app.rs` wires the parts in `page/`)
//! and its components are built for wasm32.

pub use bertscope_view::{config, explain, model_files, protocol};

pub mod coalescer;
pub mod grid_nav;
pub mod run_state;
pub mod state;
pub mod survey_state;
pub mod tour;
pub mod train_state;
pub mod translate_state;
pub mod tune_state;
pub mod url;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
mod browser;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
mod early;
#[cfg(target_arch = "wasm32")]
pub mod engine;
#[cfg(target_arch = "wasm32")]
mod page;
