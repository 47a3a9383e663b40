//! The explainer page's UI thread: mounts the yew app (built by Trunk for wasm32).
fn main() {}
