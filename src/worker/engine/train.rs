//! The worker's side of training in the page: a run set up from the panel's settings, stepped in
//! slices of about `SLICE_MS`, with progress, filmstrip frames and the masking view sent as they
//! fall due, and the trained model's files offered for download.

use super::*;

impl Worker {
    pub(super) async fn train(&mut self, cmd: TrainCmd, scope: &mut Scope) -> bool {
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
                    let _ = self.announce_model(false, scope).await;
                }
                TrainEvent::Reset
            }
            TrainCmd::Reroll(seed) => {
                return self.send_batch(seed, scope).await;
            }
            TrainCmd::UseTrained(on) => {
                let on = on && self.run.is_some();
                self.use_trained = on;
                if on {
                    self.use_tuned = false;
                }
                return self.announce_model(on, scope).await;
            }
            TrainCmd::Save => {
                if let Some(r) = self.run.as_mut() {
                    let _ = r.sync().await; // the GPU's weights, when the run trains there
                }
                match &self.run {
                    None => TrainEvent::Failed("Nothing trained yet: start a run first.".into()),
                    Some(r) => match offer_files(&mut self.links, r.trainer.bert.to_files()) {
                        Ok(links) => TrainEvent::Saved(links),
                        Err(m) => TrainEvent::Failed(m),
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
                match fetch_text(u, "the corpus").await {
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
        if let Some(backend) = self.gpu.usable() {
            match run.use_backend(backend).await {
                Ok(()) => device = self.gpu.label(),
                Err(e) => {
                    self.gpu.fail(e.to_string());
                    let _ = scope.send(FromEngine::Device(self.gpu.status())).await;
                }
            }
        }
        let (eval_loss, eval_acc) = run.evaluate_now().await.unwrap_or((f32::NAN, f32::NAN));
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
        self.explainer.forget();
        self.index = None;
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
            match run.step().await {
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
    pub(super) async fn slice(&mut self, scope: &mut Scope) -> bool {
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

/// A model folder's `files` (`Bert::to_files`, `Seq2Seq::to_files`) behind blob URLs, the last
/// ones offered (in `links`) revoked: the links to send to the page.
pub(super) fn offer_files(
    links: &mut Vec<(String, usize, String)>,
    files: crate::error::Result<ModelFiles>,
) -> Result<Vec<(String, usize, String)>, String> {
    let f = files.map_err(|e| format!("cannot save the model: {e}"))?;
    revoke(links);
    *links = download_links(&[
        ("config.json", f.config_json.into_bytes()),
        ("model.safetensors", f.weights),
        ("tokenizer.json", f.tokenizer_json.unwrap_or_default()),
    ]);
    Ok(links.clone())
}

/// Frees the blob URLs of `links` (the page's links to them stop working).
pub(super) fn revoke(links: &mut Vec<(String, usize, String)>) {
    for (_, _, url) in links.drain(..) {
        let _ = web_sys::Url::revoke_object_url(&url);
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

/// A text file from the page's origin (`what` it is, for the messages).
pub(super) async fn fetch_text(url: &str, what: &str) -> Result<String, String> {
    let r = response(start(url), url).await?;
    if !r.ok() {
        return Err(format!("cannot fetch {what} {url}: HTTP {}", r.status()));
    }
    let p = r.text().map_err(|e| js_text(&e))?;
    let v = JsFuture::from(p).await.map_err(|e| format!("cannot read {what} {url}: {}", js_text(&e)))?;
    v.as_string().ok_or_else(|| format!("{what} {url} is not text"))
}
