//! The explainer page: it renders the worker's snapshots and sends the user's requests (it never
//! holds the model). `state`, `url`, `tour` and `grid_nav` are plain Rust (tested natively); the yew
//! app (`app.rs` wires the parts in `page/`) and its components are built for wasm32 with the `web`
//! feature.

pub mod coalescer;
pub mod grid_nav;
pub mod state;
pub mod survey_state;
pub mod tour;
pub mod train_state;
pub mod translate_state;
pub mod tune_state;
pub mod url;

#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod app;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
mod browser;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod components;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
mod early;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
mod page;
