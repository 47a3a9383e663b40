//! The explainer page. `state`, `url` and `protocol` are plain Rust (tested natively); the yew app,
//! its components and the engine's worker are built for wasm32 with the `web` feature.

pub mod grid_nav;
pub mod model_files;
pub mod protocol;
pub mod state;
pub mod tour;
pub mod train_state;
pub mod url;

#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod app;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod components;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
mod early;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod engine;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
mod engine_gpu;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
mod fetch;
