//! The engine's Web Worker (a yew-agent reactor): loads a model folder from the page's origin with
//! progress, answers each request with a snapshot computed on the CPU path, and trains in slices:
//! a few steps (about `SLICE_MS`), then back to the event loop, so Pause, Step and explainer
//! requests are answered while a run goes on.

use super::engine_gpu::Gpu;
use super::fetch::{content_length, js_text, now_ms, response, span_end, span_start, start, Body};
use super::protocol::{FromEngine, ToEngine, TrainCmd, TrainEvent};
use crate::bundle::{Bert, ModelFiles};
use crate::error::BertError;
use crate::explain::embeddings::position_view;
use crate::explain::snapshot::{finish, prepare};
use crate::explain::training::{CorpusSource, LogPoint, TrainMode, TrainSession, TrainSetup};
use crate::explain::{build, ModelInfo, Request};
use crate::model::forward::forward;
use futures::{FutureExt, SinkExt, StreamExt};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew_agent::reactor::{reactor, ReactorScope};

type Scope = ReactorScope<ToEngine, FromEngine>;

/// Training runs this long (at least one step) before the worker reads its messages again.
const SLICE_MS: f64 = 100.0;
/// Progress goes to the page at most this often.
const PROGRESS_MS: f64 = 150.0;
/// The masking view of the current batch is refreshed this often while running.
const BATCH_MS: f64 = 1000.0;
/// Sequences of the batch shown in the masking view, and guesses at each chosen position.
const BATCH_ROWS: usize = 4;
const BATCH_TOP_K: usize = 3;

#[reactor]
pub async fn Engine(mut scope: ReactorScope<ToEngine, FromEngine>) {
    console_error_panic_hook::set_once();
    let mut w = Worker::default();
    loop {
        // While training, take what is waiting without blocking; otherwise wait for a message.
        let msg = if w.running {
            match scope.next().now_or_never() {
                Some(Some(m)) => Some(m),
                Some(None) => break,
                None => None,
            }
        } else {
            match scope.next().await {
                Some(m) => Some(m),
                None => break,
            }
        };
        let ok = match msg {
            Some(m) => w.handle(m, &mut scope).await,
            None => {
                let ok = w.slice(&mut scope).await;
                yield_now().await;
                ok
            }
        };
        if !ok {
            break;
        }
    }
}

/// Lets the worker's event loop run (incoming messages are queued by it).
async fn yield_now() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let g: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
        let _ = g.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = JsFuture::from(p).await;
}

#[derive(Default)]
struct Worker {
    /// The model loaded from the page's origin.
    bert: Option<Bert>,
    run: Option<TrainSession>,
    running: bool,
    /// The explainer answers with the run's model.
    use_trained: bool,
    /// Steps since the last progress message, and that window's start, tokens and compute time.
    pending: Vec<LogPoint>,
    window_t0: f64,
    window_tokens: usize,
    window_ms: f64,
    last_batch: f64,
    /// The blob URLs of the last save (revoked at the next).
    links: Vec<(String, usize, String)>,
    /// (end time, tokens) of the steps of the last couple of seconds: the throughput shown.
    recent: std::collections::VecDeque<(f64, usize)>,
    /// WebGPU for the explainer's forward, when chosen and available.
    gpu: Gpu,
    /// A model was loaded and its position views are not sent yet (they follow its first answer).
    positions_due: bool,
}

/// The least milliseconds between two load-progress messages.
const LOAD_PROGRESS_MS: f64 = 100.0;

/// Throughput is averaged over about this long.
const RATE_MS: f64 = 2000.0;

impl Worker {
    /// The model the explainer uses.
    fn active(&self) -> Option<&Bert> {
        match (&self.run, self.use_trained) {
            (Some(r), true) => Some(&r.trainer.bert),
            _ => self.bert.as_ref(),
        }
    }

    /// Handles one message; false when the page has gone.
    async fn handle(&mut self, msg: ToEngine, scope: &mut Scope) -> bool {
        let reply = match msg {
            ToEngine::Load { base_url } => match load(&base_url, scope).await {
                Ok((b, bytes, ms)) => {
                    let info = ModelInfo::of(&b);
                    self.bert = Some(b);
                    self.gpu.forget_model();
                    self.positions_due = true;
                    FromEngine::Loaded { info, bytes, ms }
                }
                // the model loaded before (if any) stays
                Err(e) => FromEngine::LoadFailed(e),
            },
            ToEngine::LoadFiles(picked) => {
                let t0 = now_ms();
                span_start("load-parse");
                let made = super::model_files::model_files(picked)
                    .and_then(|(files, bytes)| Bert::from_files(&files).map(|b| (b, bytes)).map_err(|e| e.to_string()));
                span_end("load-parse");
                match made {
                    Ok((b, bytes)) => {
                        let info = ModelInfo::of(&b);
                        self.bert = Some(b);
                        self.gpu.forget_model();
                        self.positions_due = true;
                        FromEngine::Loaded { info, bytes, ms: now_ms() - t0 }
                    }
                    // the model loaded before stays
                    Err(e) => FromEngine::LoadFailed(e),
                }
            }
            ToEngine::Explain(req) => {
                // the loaded model's guesses next to the trained model's (typed [MASK]s only: the
                // two vocabularies may cut the text differently)
                if self.use_trained && self.run.is_some() {
                    if let Some(b) = &self.bert {
                        let plain = Request { masked: vec![], heads_off: vec![], ..req.clone() };
                        let predictions = build(b, &plain).map(|s| s.predictions).unwrap_or_default();
                        if scope.send(FromEngine::Compare { seq: req.seq, predictions }).await.is_err() {
                            return false;
                        }
                    }
                }
                let (reply, status) = self.explain(req.clone()).await;
                // WebGPU just failed: the badge says why before the (CPU) answer arrives
                if let Some(st) = status {
                    if scope.send(FromEngine::Device(st)).await.is_err() {
                        return false;
                    }
                }
                span_start("send");
                if scope.send(reply).await.is_err() {
                    return false;
                }
                span_end("send");
                // The position views (folded at first) and Auto's one-off timing race wait until
                // the answer is on its way: yield first, so the reply is posted before they run.
                let positions = std::mem::take(&mut self.positions_due);
                if positions || self.gpu.init_due() || self.gpu.needs_race().is_some() {
                    yield_now().await;
                }
                if positions && !self.send_positions(scope).await {
                    return false;
                }
                let searched = self.gpu.init_if_due().await;
                return match self.race(&req).await {
                    Some(st) => scope.send(FromEngine::Device(st)).await.is_ok(),
                    None if searched => scope.send(FromEngine::Device(self.gpu.status())).await.is_ok(),
                    None => true,
                };
            }
            ToEngine::Train(cmd) => return self.train(cmd, scope).await,
            ToEngine::Device(pref) => {
                self.gpu.set_pref(pref).await;
                FromEngine::Device(self.gpu.status())
            }
        };
        scope.send(reply).await.is_ok()
    }

    /// The position views of the model the explainer uses (once per model: they do not depend on
    /// the text). False when the page has gone.
    async fn send_positions(&self, scope: &mut Scope) -> bool {
        match self.active().map(position_view) {
            Some(p) => scope.send(FromEngine::Positions(Box::new(p))).await.is_ok(),
            None => true,
        }
    }

    /// Auto: times one forward of `req` on each backend (WebGPU's second, after its pipelines
    /// compiled), after the first answer went out, so the page is interactive first. Returns the
    /// status to show.
    async fn race(&mut self, req: &Request) -> Option<super::protocol::DeviceStatus> {
        let ctx = self.gpu.needs_race()?;
        let trained = self.use_trained && self.run.is_some();
        let (b, key) = match (&self.run, trained) {
            (Some(r), true) => (&r.trainer.bert, (true, r.step_count())),
            _ => (self.bert.as_ref()?, (false, 0)),
        };
        let prep = prepare(b, req).ok()?;
        let warm = self.gpu.forward(&ctx, key, b, &prep.batch, &prep.opts).await;
        let g0 = now_ms();
        let timed = match warm {
            Ok(_) => self.gpu.forward(&ctx, key, b, &prep.batch, &prep.opts).await,
            Err(e) => Err(e),
        };
        let gpu_ms = now_ms() - g0;
        let c0 = now_ms();
        let _ = forward(&b.params, &b.cfg, &prep.batch, &prep.opts);
        let cpu_ms = now_ms() - c0;
        match timed {
            Ok(_) => self.gpu.set_race(cpu_ms, gpu_ms),
            Err(e) => self.gpu.fail(e.to_string()),
        }
        Some(self.gpu.status())
    }

    /// A snapshot of `req` from the model the explainer uses, on WebGPU when chosen (and the
    /// device status when WebGPU failed and the CPU path answered instead).
    async fn explain(&mut self, req: Request) -> (FromEngine, Option<super::protocol::DeviceStatus>) {
        let trained = self.use_trained && self.run.is_some();
        if trained {
            if let Some(r) = self.run.as_mut() {
                let _ = r.sync().await;
            }
        }
        let (b, key) = match (&self.run, trained) {
            (Some(r), true) => (&r.trainer.bert, (true, r.step_count())),
            _ => match &self.bert {
                Some(b) => (b, (false, 0)),
                None => return (FromEngine::Failed { seq: req.seq, message: "The model is not loaded yet.".into() }, None),
            },
        };
        let failed = |e: BertError| match e {
            BertError::Input(m) => FromEngine::Failed { seq: req.seq, message: m },
            e => FromEngine::Failed { seq: req.seq, message: e.to_string() },
        };
        span_start("prepare");
        let prep = match prepare(b, &req) {
            Ok(p) => p,
            Err(e) => return (failed(e), None),
        };
        span_end("prepare");
        span_start("forward");
        let mut fell_back = None;
        let t0 = now_ms();
        let mut on_gpu = None;
        if let Some(ctx) = self.gpu.usable() {
            match self.gpu.forward(&ctx, key, b, &prep.batch, &prep.opts).await {
                Ok(t) => on_gpu = Some(t),
                Err(e) => {
                    self.gpu.fail(e.to_string());
                    fell_back = Some(self.gpu.status());
                }
            }
        }
        let (trace, device) = match on_gpu {
            Some(t) => (t, self.gpu.label()),
            None => match forward(&b.params, &b.cfg, &prep.batch, &prep.opts) {
                Ok(t) => (t, "CPU (wasm)".to_string()),
                Err(e) => return (failed(e), fell_back),
            },
        };
        span_end("forward");
        span_start("finish");
        let mut s = finish(b, &req, prep, &trace);
        span_end("finish");
        s.forward_ms = now_ms() - t0;
        s.device = device;
        (FromEngine::Snapshot(Box::new(s)), fell_back)
    }

    async fn train(&mut self, cmd: TrainCmd, scope: &mut Scope) -> bool {
        let ev = match cmd {
            TrainCmd::Start(setup) => {
                if self.run.is_none() && !self.prepare(&setup, scope).await {
                    return true;
                }
                if self.run.as_ref().is_some_and(|r| r.finished()) {
                    TrainEvent::Failed("The run is complete: press Reset to train again.".into())
                } else {
                    self.running = true;
                    self.window_t0 = now_ms();
                    self.recent.clear();
                    self.progress()
                }
            }
            TrainCmd::Step(setup) => {
                if self.run.is_none() && !self.prepare(&setup, scope).await {
                    return true;
                }
                self.running = false;
                self.window_t0 = now_ms();
                self.recent.clear();
                if !self.steps(scope, 0.0).await {
                    return false;
                }
                let _ = self.send_batch(None, scope).await;
                self.progress()
            }
            TrainCmd::Pause => {
                self.running = false;
                let _ = self.send_batch(None, scope).await;
                self.progress()
            }
            TrainCmd::Reset => {
                self.running = false;
                self.run = None;
                self.pending.clear();
                if self.use_trained {
                    self.use_trained = false;
                    if let Some(info) = self.bert.as_ref().map(ModelInfo::of) {
                        let _ = self.send_positions(scope).await;
                        let _ = scope.send(FromEngine::ModelChanged { info, trained: false }).await;
                    }
                }
                TrainEvent::Reset
            }
            TrainCmd::Reroll(seed) => {
                return self.send_batch(seed, scope).await;
            }
            TrainCmd::UseTrained(on) => {
                let on = on && self.run.is_some();
                self.use_trained = on;
                if let (true, Some(r)) = (on, self.run.as_mut()) {
                    let _ = r.sync().await; // the learned positions of a run training on WebGPU
                }
                let Some(info) = self.active().map(ModelInfo::of) else { return true };
                if !self.send_positions(scope).await {
                    return false;
                }
                return scope.send(FromEngine::ModelChanged { info, trained: on }).await.is_ok();
            }
            TrainCmd::Save => {
                if let Some(r) = self.run.as_mut() {
                    let _ = r.sync().await; // the GPU's weights, when the run trains there
                }
                match &self.run {
                    None => TrainEvent::Failed("Nothing trained yet: start a run first.".into()),
                    Some(r) => match r.trainer.bert.to_files() {
                        Ok(f) => {
                            for (_, _, url) in self.links.drain(..) {
                                let _ = web_sys::Url::revoke_object_url(&url);
                            }
                            self.links = download_links(&[
                                ("config.json", f.config_json.into_bytes()),
                                ("model.safetensors", f.weights),
                                ("tokenizer.json", f.tokenizer_json.unwrap_or_default()),
                            ]);
                            TrainEvent::Saved(self.links.clone())
                        }
                        Err(e) => TrainEvent::Failed(format!("cannot save the model: {e}")),
                    },
                }
            }
        };
        scope.send(FromEngine::Train(ev)).await.is_ok()
    }

    /// Sets up a run (fetching a bundled corpus first); false (after telling the page) on error.
    async fn prepare(&mut self, setup: &TrainSetup, scope: &mut Scope) -> bool {
        let t0 = now_ms();
        let fail = |m: String| FromEngine::Train(TrainEvent::Failed(m));
        if let Err(m) = setup.check() {
            let _ = scope.send(fail(m)).await;
            return false;
        }
        let text = match &setup.corpus {
            CorpusSource::Text(t) => t.clone(),
            CorpusSource::Url(u) => {
                let _ = scope.send(FromEngine::Train(TrainEvent::Preparing("fetching the corpus…".into()))).await;
                match fetch_text(u).await {
                    Ok(t) => t,
                    Err(m) => {
                        let _ = scope.send(fail(m)).await;
                        return false;
                    }
                }
            }
        };
        let what = match setup.mode {
            TrainMode::Scratch => {
                format!("training a {}-piece WordPiece vocabulary on the corpus, initialising a tiny BERT…", setup.vocab_size)
            }
            TrainMode::Continue => "copying the loaded model, tokenising the corpus…".into(),
        };
        let _ = scope.send(FromEngine::Train(TrainEvent::Preparing(what))).await;
        yield_now().await; // let that message go out before the long synchronous part
        let run = match TrainSession::new(self.bert.as_ref(), &text, setup) {
            Ok(r) => r,
            Err(e) => {
                let _ = scope.send(fail(e.to_string())).await;
                return false;
            }
        };
        let mut run = run;
        // the run trains where the explainer runs its forward (the badge's choice)
        let mut device = "CPU (wasm)".to_string();
        if let Some(ctx) = self.gpu.usable() {
            match run.trainer.use_gpu(ctx) {
                Ok(()) => device = self.gpu.label(),
                Err(e) => {
                    self.gpu.fail(e.to_string());
                    let _ = scope.send(FromEngine::Device(self.gpu.status())).await;
                }
            }
        }
        let (eval_loss, eval_acc) = run.evaluate_now_async().await.unwrap_or((f32::NAN, f32::NAN));
        let ready = TrainEvent::Ready {
            info: run.info(),
            train_tokens: run.trainer.train_tokens(),
            eval_loss,
            eval_acc,
            setup_ms: now_ms() - t0,
            device,
        };
        let frame = run.frame();
        self.run = Some(run);
        self.pending.clear();
        let _ = scope.send(FromEngine::Train(ready)).await;
        if let Ok(f) = frame {
            let _ = scope.send(FromEngine::Train(TrainEvent::Frame(Box::new(f)))).await;
        }
        true
    }

    /// Runs steps for about `budget_ms` (at least one), sending frames as they fall due. False
    /// when the page has gone.
    async fn steps(&mut self, scope: &mut Scope, budget_ms: f64) -> bool {
        let t0 = now_ms();
        loop {
            let Some(run) = self.run.as_mut() else { return true };
            if run.finished() {
                self.running = false;
                return true;
            }
            let s0 = now_ms();
            match run.step_async().await {
                Ok(p) => {
                    self.window_tokens += p.tokens;
                    let now = now_ms();
                    self.recent.push_back((now, p.tokens));
                    while self.recent.len() > 2 && now - self.recent[0].0 > RATE_MS {
                        self.recent.pop_front();
                    }
                    self.pending.push(p);
                }
                Err(e) => {
                    self.running = false;
                    return scope.send(FromEngine::Train(TrainEvent::Failed(e.to_string()))).await.is_ok();
                }
            }
            self.window_ms += now_ms() - s0;
            if run.frame_due() {
                let _ = run.sync().await;
                if let Ok(f) = run.frame() {
                    if scope.send(FromEngine::Train(TrainEvent::Frame(Box::new(f)))).await.is_err() {
                        return false;
                    }
                }
            }
            if run.finished() {
                self.running = false;
            }
            if now_ms() - t0 >= budget_ms || !self.running {
                return true;
            }
        }
    }

    /// One slice of a running run, then progress (and the batch) when due.
    async fn slice(&mut self, scope: &mut Scope) -> bool {
        if !self.steps(scope, SLICE_MS).await {
            return false;
        }
        let now = now_ms();
        if (now - self.last_batch >= BATCH_MS || !self.running) && !self.send_batch(None, scope).await {
            return false;
        }
        if now - self.window_t0 >= PROGRESS_MS || !self.running {
            return scope.send(FromEngine::Train(self.progress())).await.is_ok();
        }
        true
    }

    /// The masking view of the last batch (as trained, or re-masked from `seed`).
    async fn send_batch(&mut self, seed: Option<u64>, scope: &mut Scope) -> bool {
        if let Some(r) = self.run.as_mut() {
            let _ = r.sync().await;
        }
        let Some(run) = &self.run else { return true };
        if run.trainer.last_batch.is_empty() {
            return true;
        }
        self.last_batch = now_ms();
        match run.masking_view(BATCH_ROWS, seed, BATCH_TOP_K) {
            Ok(v) => scope.send(FromEngine::Train(TrainEvent::Batch(Box::new(v)))).await.is_ok(),
            Err(e) => scope.send(FromEngine::Train(TrainEvent::Failed(e.to_string()))).await.is_ok(),
        }
    }

    /// The steps since the last progress message, and the throughput over that window.
    fn progress(&mut self) -> TrainEvent {
        let now = now_ms();
        let logs = std::mem::take(&mut self.pending);
        let secs = ((now - self.window_t0) / 1000.0).max(1e-9);
        let recent = match (self.recent.front(), self.recent.back()) {
            (Some(a), Some(b)) if b.0 - a.0 > 200.0 => {
                Some(self.recent.iter().skip(1).map(|r| r.1).sum::<usize>() as f64 / ((b.0 - a.0) / 1000.0))
            }
            _ => None,
        };
        let tokens_per_s = if logs.is_empty() { 0.0 } else { recent.unwrap_or(self.window_tokens as f64 / secs) };
        let ms_per_step = if logs.is_empty() { 0.0 } else { self.window_ms / logs.len() as f64 };
        self.window_t0 = now;
        self.window_tokens = 0;
        self.window_ms = 0.0;
        let (step, steps) = self.run.as_ref().map(|r| (r.step_count(), r.setup.steps)).unwrap_or((0, 0));
        let memory = wasm_bindgen::memory()
            .unchecked_into::<js_sys::WebAssembly::Memory>()
            .buffer()
            .unchecked_into::<js_sys::ArrayBuffer>()
            .byte_length() as u64;
        TrainEvent::Progress { logs, step, steps, running: self.running, tokens_per_s, ms_per_step, memory }
    }
}

/// Blob URLs (same origin as the page) for downloading files: (name, bytes, URL).
fn download_links(files: &[(&str, Vec<u8>)]) -> Vec<(String, usize, String)> {
    files
        .iter()
        .filter_map(|(name, bytes)| {
            let arr = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes.as_slice()));
            let opts = web_sys::BlobPropertyBag::new();
            opts.set_type(if name.ends_with(".json") { "application/json" } else { "application/octet-stream" });
            let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&arr, &opts).ok()?;
            let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
            Some((name.to_string(), bytes.len(), url))
        })
        .collect()
}

/// A text file from the page's origin.
async fn fetch_text(url: &str) -> Result<String, String> {
    let r = response(start(url), url).await?;
    if !r.ok() {
        return Err(format!("cannot fetch the corpus {url}: HTTP {}", r.status()));
    }
    let p = r.text().map_err(|e| js_text(&e))?;
    let v = JsFuture::from(p).await.map_err(|e| format!("cannot read the corpus {url}: {}", js_text(&e)))?;
    v.as_string().ok_or_else(|| format!("the corpus {url} is not text"))
}

/// Fetches config.json, model.safetensors, tokenizer.json (or vocab.txt) and tokenizer_config.json
/// from `base` (an absolute URL ending in `/`) and loads them. Returns the model, the bytes fetched
/// and the milliseconds it took.
async fn load(base: &str, scope: &mut Scope) -> Result<(Bert, u64, f64), String> {
    let t0 = now_ms();
    span_start("load-fetch");
    let names = ["config.json", "tokenizer_config.json", "tokenizer.json", "model.safetensors"];
    let urls: Vec<String> = names.iter().map(|n| format!("{base}{n}")).collect();
    let pending: Vec<_> = urls.iter().map(|u| start(u)).collect(); // all four in flight at once
    let mut responses = Vec::new();
    for (p, url) in pending.into_iter().zip(&urls) {
        responses.push(response(p, url).await?);
    }
    let [config, tok_config, tokenizer, weights] = <[_; 4]>::try_from(responses).map_err(|_| "fetch".to_string())?;
    for (r, name) in [(&config, "config.json"), (&weights, "model.safetensors")] {
        if !r.ok() {
            return Err(format!("{name}: HTTP {} at {base}{name}", r.status()));
        }
    }
    // vocab.txt only when there is no tokenizer.json
    let vocab = if tokenizer.ok() {
        None
    } else {
        let url = format!("{base}vocab.txt");
        let r = response(start(&url), &url).await?;
        if !r.ok() {
            return Err(format!("the model folder {base} has neither tokenizer.json nor vocab.txt"));
        }
        Some(r)
    };
    let parts: Vec<&web_sys::Response> =
        [Some(&config), tok_config.ok().then_some(&tok_config), tokenizer.ok().then_some(&tokenizer), vocab.as_ref(), Some(&weights)]
            .into_iter()
            .flatten()
            .collect();
    let mut total: u64 = parts.iter().map(|r| content_length(r).unwrap_or(0)).sum();
    // progress at most every LOAD_PROGRESS_MS: each message re-renders the page, which would take
    // the main thread's time from the load it reports on
    let (mut loaded, mut reported_at) = (0u64, now_ms());
    let mut bodies = Vec::new();
    for r in parts {
        let mut body = Body::new(r);
        while let Some(n) = body.next().await? {
            loaded += n as u64;
            total = total.max(loaded); // a compressed Content-Length undercounts
            if now_ms() - reported_at >= LOAD_PROGRESS_MS {
                reported_at = now_ms();
                let _ = scope.send(FromEngine::Progress { loaded, total }).await;
            }
        }
        bodies.push(body.bytes);
    }
    let _ = scope.send(FromEngine::Progress { loaded, total: loaded }).await;
    span_end("load-fetch");

    let text = |b: Vec<u8>, name: &str| String::from_utf8(b).map_err(|_| format!("{name} is not UTF-8 text"));
    let mut bodies = bodies.into_iter();
    let mut next = || bodies.next().unwrap_or_default();
    let config_json = text(next(), "config.json")?;
    let tokenizer_config_json = if tok_config.ok() { Some(text(next(), "tokenizer_config.json")?) } else { None };
    let tokenizer_json = if tokenizer.ok() { Some(next()) } else { None };
    let vocab_txt = if vocab.is_some() { Some(text(next(), "vocab.txt")?) } else { None };
    let files = ModelFiles { config_json, weights: next(), tokenizer_json, vocab_txt, tokenizer_config_json };
    span_start("load-parse");
    let bert = Bert::from_files(&files).map_err(|e| e.to_string())?;
    span_end("load-parse");
    Ok((bert, loaded, now_ms() - t0))
}
