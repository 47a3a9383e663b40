//! The explainer page's Web Worker: the engine (built by Trunk for wasm32).
fn main() {}
