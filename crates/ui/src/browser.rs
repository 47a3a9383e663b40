//! What the page asks of the browser besides drawing: the URL (read, and written a moment after the
//! last change), the tour's keys and pointer, and performance marks the e2e suite reads.

use std::cell::RefCell;

/// Keys the tour takes (when it is open and the focus is not in a text field).
pub(crate) fn tour_key(e: &web_sys::KeyboardEvent) -> Option<&'static str> {
    let typing = e
        .target()
        .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
    if typing || e.alt_key() || e.ctrl_key() || e.meta_key() {
        return None;
    }
    ["ArrowRight", "ArrowLeft", "Home", "End", "Escape", "PageDown", "PageUp"].into_iter().find(|k| *k == e.key())
}

/// Marks the view a tour step points at (and unmarks the others), scrolled into view.
pub(crate) fn point_at(selector: Option<&str>) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    if let Ok(old) = doc.query_selector_all("[data-tour]") {
        for i in 0..old.length() {
            if let Some(el) = old.item(i).and_then(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok()) {
                let _ = el.remove_attribute("data-tour");
            }
        }
    }
    let Some(sel) = selector else { return };
    if let Ok(Some(el)) = doc.query_selector(sel) {
        let _ = el.set_attribute("data-tour", "on");
        let opts = web_sys::ScrollIntoViewOptions::new();
        opts.set_block(web_sys::ScrollLogicalPosition::Start);
        el.scroll_into_view_with_scroll_into_view_options(&opts);
    }
}

/// The worker script scripts/build_web.sh writes next to index.html (its wasm: worker_bg.wasm).
pub(crate) const WORKER_PATH: &str = "worker.js";

pub(crate) fn location_search() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// `path` resolved against the page (the worker runs from a blob: URL, so it needs absolute URLs).
pub(crate) fn absolute(path: &str) -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    web_sys::Url::new_with_base(path, &href).map(|u| u.href()).unwrap_or_else(|_| path.to_string())
}

fn replace_url(query: &str) {
    let Some(w) = web_sys::window() else { return };
    let path = w.location().pathname().unwrap_or_else(|_| "/".into());
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}{query}")));
    }
}

/// How long the URL waits after the last change before it is written.
const URL_DELAY_MS: i32 = 250;

/// A pending URL write: the timer and the closure it calls (dropped, and so freed, when replaced).
pub(crate) type UrlTimer = Option<(i32, wasm_bindgen::closure::Closure<dyn FnMut()>)>;

/// Writes the URL `URL_DELAY_MS` after the last change, so typing does not pay on every keystroke
/// for history.replaceState and the favicon request Chromium makes after each.
pub(crate) fn replace_url_soon(timer: &RefCell<UrlTimer>, query: String) {
    use wasm_bindgen::JsCast;
    let Some(w) = web_sys::window() else { return };
    if let Some((h, _)) = timer.borrow_mut().take() {
        w.clear_timeout_with_handle(h);
    }
    let q = query.clone();
    let f = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || replace_url(&q));
    match w.set_timeout_with_callback_and_timeout_and_arguments_0(f.as_ref().unchecked_ref(), URL_DELAY_MS) {
        Ok(h) => *timer.borrow_mut() = Some((h, f)),
        Err(_) => replace_url(&query),
    }
}

pub(crate) fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// Milliseconds since the page opened (0 where there is no clock).
pub(crate) fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}
