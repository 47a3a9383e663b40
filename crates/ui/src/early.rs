//! The default model's files, downloaded by `www/index.html` from the first moment of the page
//! (`window.bertscopeEarly`), while the app's wasm and then the engine's worker start: the worker
//! gets them as bytes instead of fetching them after it has started (that fetch began ~300 ms into a
//! first load). When that download failed, or the page asks for another model, the worker fetches
//! as before (`ToEngine::Load`), with its own error messages.

use crate::model_files::PickedFile;
use crate::protocol::FromEngine;
use futures::future::{select, Either};
use js_sys::{Array, Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The early download of the folder at `base_url` (absolute), if the page started one for it.
pub struct Early {
    files: Promise,
    progress: JsValue,
}

/// Takes the page's early download when it is of `base_url` (it is used once).
pub fn take(base_url: &str) -> Option<Early> {
    let w = web_sys::window()?;
    let key = JsValue::from_str("bertscopeEarly");
    let early = Reflect::get(&w, &key).ok().filter(|v| v.is_object())?;
    let _ = Reflect::delete_property(&w, &key);
    let base = Reflect::get(&early, &"base".into()).ok()?.as_string()?;
    if base != base_url {
        return None;
    }
    let files = Reflect::get(&early, &"files".into()).ok()?.dyn_into::<Promise>().ok()?;
    let progress = Reflect::get(&early, &"progress".into()).ok()?;
    Some(Early { files, progress })
}

fn number(o: &JsValue, k: &str) -> u64 {
    Reflect::get(o, &k.into()).ok().and_then(|v| v.as_f64()).unwrap_or(0.0) as u64
}

fn sleep_ms(ms: i32) -> JsFuture {
    JsFuture::from(Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    }))
}

impl Early {
    /// The files once downloaded (None when any needed one failed) and the milliseconds the
    /// download took, reporting progress through `report` about every 100 ms meanwhile.
    pub async fn files(self, report: impl Fn(FromEngine)) -> Option<(Vec<PickedFile>, f64)> {
        let mut files = JsFuture::from(self.files);
        let done = loop {
            match select(&mut files, sleep_ms(100)).await {
                Either::Left((v, _)) => break v.ok()?,
                Either::Right(_) => {
                    report(FromEngine::Progress { loaded: number(&self.progress, "loaded"), total: number(&self.progress, "total") })
                }
            }
        };
        let list = done.dyn_into::<Array>().ok()?;
        let mut out = Vec::new();
        for f in list.iter() {
            let name = Reflect::get(&f, &"name".into()).ok()?.as_string()?;
            let bytes = Reflect::get(&f, &"bytes".into()).ok()?.dyn_into::<Uint8Array>().ok()?.to_vec();
            out.push(PickedFile { name, bytes });
        }
        let loaded = out.iter().map(|f| f.bytes.len() as u64).sum();
        report(FromEngine::Progress { loaded, total: loaded });
        let ms = Reflect::get(&self.progress, &"ms".into()).ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
        Some((out, ms))
    }
}
