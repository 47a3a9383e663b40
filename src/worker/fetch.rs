//! Fetching the model files inside the worker, chunk by chunk, so the page can show bytes / total.

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStreamDefaultReader, ReadableStreamReadResult, Response, WorkerGlobalScope};

fn global() -> WorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Milliseconds since the worker started (performance.now), or the wall clock.
pub fn now_ms() -> f64 {
    global().performance().map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

/// Starts a named span on the worker's performance timeline (see `span_end`): a keystroke's
/// milliseconds can then be split into prepare / forward / finish / send in a browser trace
/// (tests/e2e/profile_keystroke.mjs). Costs two timeline entries; they are cleared at the end.
pub fn span_start(name: &str) {
    if let Some(p) = global().performance() {
        let _ = p.mark(&format!("{name}:start"));
    }
}

/// Ends the span `name` started by `span_start` as a `bertscope:<name>` measure.
pub fn span_end(name: &str) {
    if let Some(p) = global().performance() {
        let start = format!("{name}:start");
        let _ = p.measure_with_start_mark(&format!("bertscope:{name}"), &start);
        p.clear_marks_with_mark_name(&start);
        p.clear_measures();
    }
}

/// A JS error as one line of text.
pub fn js_text(e: &JsValue) -> String {
    e.as_string().or_else(|| e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message()))).unwrap_or_else(|| format!("{e:?}"))
}

/// Starts a GET now; await the promise with `response`.
pub fn start(url: &str) -> Promise {
    global().fetch_with_str(url)
}

/// The response of a started GET (an HTTP error status is not an error here: see `ok`).
pub async fn response(p: Promise, url: &str) -> Result<Response, String> {
    let r = JsFuture::from(p).await.map_err(|e| format!("cannot fetch {url}: {}", js_text(&e)))?;
    Ok(r.unchecked_into())
}

pub fn content_length(r: &Response) -> Option<u64> {
    r.headers().get("content-length").ok().flatten()?.trim().parse().ok()
}

/// Reads a response body chunk by chunk.
pub struct Body {
    reader: Option<ReadableStreamDefaultReader>,
    pub bytes: Vec<u8>,
}

impl Body {
    pub fn new(r: &Response) -> Self {
        let reader = r.body().map(|b| b.get_reader().unchecked_into::<ReadableStreamDefaultReader>());
        Body { reader, bytes: Vec::with_capacity(content_length(r).unwrap_or(0) as usize) }
    }

    /// Appends the next chunk to `bytes`; returns its length, or None at the end.
    pub async fn next(&mut self) -> Result<Option<usize>, String> {
        let Some(reader) = &self.reader else { return Ok(None) };
        let r: ReadableStreamReadResult =
            JsFuture::from(reader.read()).await.map_err(|e| format!("download interrupted: {}", js_text(&e)))?.unchecked_into();
        if r.get_done().unwrap_or(false) {
            self.reader = None;
            return Ok(None);
        }
        let chunk = Uint8Array::new(&r.get_value());
        let n = chunk.length() as usize;
        let start = self.bytes.len();
        self.bytes.resize(start + n, 0);
        chunk.copy_to(&mut self.bytes[start..]);
        Ok(Some(n))
    }
}

/// A text file from the page's origin (`what` it is, for the messages).
pub async fn fetch_text(url: &str, what: &str) -> Result<String, String> {
    let r = response(start(url), url).await?;
    if !r.ok() {
        return Err(format!("cannot fetch {what} {url}: HTTP {}", r.status()));
    }
    let p = r.text().map_err(|e| js_text(&e))?;
    let v = JsFuture::from(p).await.map_err(|e| format!("cannot read {what} {url}: {}", js_text(&e)))?;
    v.as_string().ok_or_else(|| format!("{what} {url} is not text"))
}
