//! The explainer page's Web Worker: the engine, answering the page with snapshots (built for wasm32
//! by scripts/build_web.sh; see www/index.html).

#[cfg(target_arch = "wasm32")]
fn main() {
    use yew_agent::Registrable;
    console_error_panic_hook::set_once();
    bertscope::worker::engine::Engine::registrar().register();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the engine's worker is built for wasm32: bash scripts/serve.sh");
}
