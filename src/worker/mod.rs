//! The engine's side of the page, in a Web Worker: it holds the model, runs it through
//! `crate::backend` (CPU or WebGPU) and answers the page with snapshots. `protocol` is the only
//! contract between the two threads; `session` drives a training run; both are plain Rust, tested
//! natively. The worker itself (`engine`, `device`, `fetch`) is built for wasm32 with `web`.

pub mod model_files;
pub mod protocol;

#[cfg(all(target_arch = "wasm32", feature = "web"))]
mod device;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
pub mod engine;
#[cfg(all(target_arch = "wasm32", feature = "web"))]
mod fetch;
