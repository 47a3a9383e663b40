//! The worker's side of fine-tuning in the page: a run set up from the fine-tune tab's settings
//! (the data fetched, the start model chosen), stepped in slices of about `SLICE_MS`, with progress,
//! held-out scores and the current batch sent as they fall due; a sentence before and after; the
//! fine-tuned model for the explainer and for download.

use super::train::{fetch_text, offer_files};
use super::*;
use crate::explain::finetune::{TuneData, TuneStart};

/// Examples of the current batch shown with the model's answers.
const TUNE_ROWS: usize = 6;

impl Worker {
    pub(super) async fn tune(&mut self, cmd: TuneCmd, scope: &mut Scope) -> bool {
        let ev = match cmd {
            TuneCmd::Start(setup) => {
                if self.tune.is_none() && !self.tune_prepare(&setup, scope).await {
                    return true;
                }
                if self.tune.as_ref().is_some_and(|t| t.finished()) {
                    TuneEvent::Failed("The run is complete: press Reset to fine-tune again.".into())
                } else {
                    self.tuning = true;
                    self.tune_window = (now_ms(), 0);
                    self.tune_progress()
                }
            }
            TuneCmd::Pause => {
                self.tuning = false;
                if !self.tune_batch(scope).await {
                    return false;
                }
                self.tune_progress()
            }
            TuneCmd::Reset => {
                self.tuning = false;
                self.tune = None;
                self.tune_pending.clear();
                if self.use_tuned {
                    self.use_tuned = false;
                    let _ = self.announce_model(false, scope).await;
                }
                TuneEvent::Reset
            }
            TuneCmd::UseTuned(on) => {
                let on = on && self.tune.is_some();
                self.use_tuned = on;
                if on {
                    self.use_trained = false;
                }
                return self.announce_model(on, scope).await;
            }
            TuneCmd::Save => match self.tune.as_mut() {
                None => TuneEvent::Failed("Nothing fine-tuned yet: start a run first.".into()),
                Some(t) => {
                    let _ = t.sync().await;
                    match offer_files(&mut self.links, t.main.bert.to_files()) {
                        Ok(links) => TuneEvent::Saved(links),
                        Err(m) => TuneEvent::Failed(m),
                    }
                }
            },
            TuneCmd::Probe { text, pair } => match self.tune.as_mut() {
                None => TuneEvent::Failed("Start a run first: the sentence is compared before and after fine-tuning.".into()),
                Some(t) => {
                    let _ = t.sync().await;
                    match t.probe(&text, pair.as_deref()) {
                        Ok(p) => TuneEvent::Probe(Box::new(p)),
                        Err(e) => TuneEvent::Failed(message(e)),
                    }
                }
            },
        };
        scope.send(FromEngine::Tune(ev)).await.is_ok()
    }

    /// Sets up a run (fetching a bundled set first); false (after telling the page) on error.
    async fn tune_prepare(&mut self, setup: &crate::explain::finetune::TuneSetup, scope: &mut Scope) -> bool {
        let t0 = now_ms();
        let fail = |m: String| FromEngine::Tune(TuneEvent::Failed(m));
        if let Err(m) = setup.check() {
            let _ = scope.send(fail(m)).await;
            return false;
        }
        let (train, test) = match &setup.data {
            TuneData::Text { train, test } => (train.clone(), test.clone()),
            TuneData::Urls { train, test } => {
                let _ = scope.send(FromEngine::Tune(TuneEvent::Preparing("fetching the data set…".into()))).await;
                match (fetch_text(train, "the training data").await, fetch_text(test, "the held-out data").await) {
                    (Ok(a), Ok(b)) => (a, Some(b)),
                    (Err(m), _) | (_, Err(m)) => {
                        let _ = scope.send(fail(m)).await;
                        return false;
                    }
                }
            }
        };
        if let (true, Some(r)) = (setup.start == TuneStart::Trained, self.run.as_mut()) {
            let _ = r.sync().await;
        }
        if setup.start == TuneStart::Tiny && self.tiny.is_none() {
            let _ = scope.send(FromEngine::Tune(TuneEvent::Preparing("fetching the bundled bert-tiny…".into()))).await;
            match super::load::load(&setup.tiny_base, scope).await {
                Ok((b, _, _)) => self.tiny = Some(b),
                Err(m) => {
                    let _ = scope.send(fail(format!("The bundled bert-tiny could not be loaded: {m}"))).await;
                    return false;
                }
            }
        }
        let start = match setup.start {
            TuneStart::Tiny => self.tiny.as_ref().expect("fetched above"),
            TuneStart::Trained => match &self.run {
                Some(r) => &r.trainer.bert,
                None => {
                    let _ = scope
                        .send(fail(
                            "No model was pre-trained in the train tab yet: train one there, or start from the loaded model.".into(),
                        ))
                        .await;
                    return false;
                }
            },
            _ => match &self.bert {
                Some(b) => b,
                None => {
                    let _ = scope.send(fail("The model is not loaded yet.".into())).await;
                    return false;
                }
            },
        };
        let what = if setup.compare {
            "adding the task head, encoding the data (two runs: this start and random weights)…"
        } else {
            "adding the task head, encoding the data…"
        };
        let _ = scope.send(FromEngine::Tune(TuneEvent::Preparing(what.into()))).await;
        yield_now().await;
        // the run trains where the explainer runs its forward (the badge's choice); a device
        // failure falls back to the CPU path
        let cpu = || TuneSession::new(start, &train, test.as_deref(), setup, &Backend::cpu());
        let (made, device, gpu_failed) = match self.gpu.usable() {
            Some(b) => match TuneSession::new(start, &train, test.as_deref(), setup, b) {
                Ok(r) => (Ok(r), self.gpu.label(), None),
                Err(BertError::Gpu(e)) => (cpu(), "CPU (wasm)".to_string(), Some(e)),
                Err(e) => (Err(e), String::new(), None),
            },
            None => (cpu(), "CPU (wasm)".to_string(), None),
        };
        if let Some(e) = gpu_failed {
            self.gpu.fail(e);
            let _ = scope.send(FromEngine::Device(self.gpu.status())).await;
        }
        let run = match made {
            Ok(r) => r,
            Err(e) => {
                let _ = scope.send(fail(message(e))).await;
                return false;
            }
        };
        let scores = match run.score().await {
            Ok(s) => s,
            Err(e) => {
                let _ = scope.send(fail(message(e))).await;
                return false;
            }
        };
        let ready = TuneEvent::Ready {
            info: run.info(),
            train_examples: run.train_examples(),
            eval_examples: run.eval_examples(),
            scores: Box::new(scores),
            setup_ms: now_ms() - t0,
            device,
        };
        self.tune = Some(run);
        self.explainer.forget();
        self.index = None;
        self.tune_pending.clear();
        scope.send(FromEngine::Tune(ready)).await.is_ok()
    }

    /// One slice of a running fine-tuning run: steps for about `SLICE_MS` (scores sent as they fall
    /// due), then progress (and the batch) when due.
    pub(super) async fn tune_slice(&mut self, scope: &mut Scope) -> bool {
        let t0 = now_ms();
        loop {
            let Some(t) = self.tune.as_mut() else {
                self.tuning = false;
                return true;
            };
            if t.finished() {
                self.tuning = false;
                break;
            }
            match t.step().await {
                Ok((st, scores)) => {
                    self.tune_window.1 += self.tune.as_ref().map_or(0, |t| t.setup.batch);
                    self.tune_pending.push(st);
                    if let Some(sc) = scores {
                        if scope.send(FromEngine::Tune(TuneEvent::Scores(Box::new(sc)))).await.is_err() {
                            return false;
                        }
                    }
                }
                Err(e) => {
                    self.tuning = false;
                    return scope.send(FromEngine::Tune(TuneEvent::Failed(message(e)))).await.is_ok();
                }
            }
            if self.tune.as_ref().is_some_and(|t| t.finished()) {
                self.tuning = false;
            }
            if now_ms() - t0 >= SLICE_MS || !self.tuning {
                break;
            }
        }
        let now = now_ms();
        if (now - self.tune_last_batch >= BATCH_MS || !self.tuning) && !self.tune_batch(scope).await {
            return false;
        }
        if now - self.tune_window.0 >= PROGRESS_MS || !self.tuning {
            return scope.send(FromEngine::Tune(self.tune_progress())).await.is_ok();
        }
        true
    }

    /// The current batch with the model's answers.
    async fn tune_batch(&mut self, scope: &mut Scope) -> bool {
        let Some(t) = &self.tune else { return true };
        if t.main.last_batch.is_empty() {
            return true;
        }
        self.tune_last_batch = now_ms();
        match t.batch_view(TUNE_ROWS).await {
            Ok(v) => scope.send(FromEngine::Tune(TuneEvent::Batch(Box::new(v)))).await.is_ok(),
            Err(e) => scope.send(FromEngine::Tune(TuneEvent::Failed(e.to_string()))).await.is_ok(),
        }
    }

    /// The steps since the last progress message and the examples per second over that window.
    fn tune_progress(&mut self) -> TuneEvent {
        let now = now_ms();
        let steps = std::mem::take(&mut self.tune_pending);
        let secs = ((now - self.tune_window.0) / 1000.0).max(1e-9);
        let examples_per_s = if steps.is_empty() { 0.0 } else { self.tune_window.1 as f64 / secs };
        self.tune_window = (now, 0);
        let (step, total) = self.tune.as_ref().map(|t| (t.step_count(), t.setup.steps)).unwrap_or((0, 0));
        TuneEvent::Progress { steps, step, total, running: self.tuning, examples_per_s }
    }
}

/// An error as the page shows it (an input error without its prefix).
pub(super) fn message(e: BertError) -> String {
    match e {
        BertError::Input(m) => m,
        e => e.to_string(),
    }
}
