//! The explainer page's UI thread: mounts the yew app (built for wasm32 by scripts/build_web.sh; see www/index.html).

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    yew::Renderer::<bertscope_ui::app::Root>::new().render();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("the page is built for wasm32: bash scripts/serve.sh");
}
