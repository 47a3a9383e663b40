//! The worker's side of the Translate tab: a run set up from the tab's settings (the pairs fetched
//! or pasted, a new encoder-decoder made), stepped in slices of about `SLICE_MS` with progress and
//! the held-out exact match sent as they fall due; and decoding a sentence with the run's model:
//! one step, back to the start, or "run to the end" a slice of steps at a time, so the page sees
//! each token arrive and Pause or another step is answered in between, each answer with the
//! milliseconds its step took in the worker (performance.now); the run's model offered for
//! download as an HF `EncoderDecoderModel` folder (the one `bertscope train --config seq2seq-tiny`
//! writes). CPU (WebAssembly) only.

use super::train::{fetch_text, offer_files, revoke};
use super::tune::message;
use super::*;
use crate::explain::decode::{DecodeAction, DecodeRequest};
use crate::explain::translate::{TranslateData, TranslatePoint, TranslateSetup};
use crate::worker::protocol::{TranslateCmd, TranslateEvent};
use crate::worker::translate_session::TranslateSession;

/// The Translate tab's share of the worker.
#[derive(Default)]
pub(super) struct Translating {
    run: Option<TranslateSession>,
    /// Training steps are being taken.
    running: bool,
    /// Steps since the last progress message; that window's start and pairs.
    pending: Vec<TranslatePoint>,
    window: (f64, usize),
    /// "Run to the end" in progress: this request, a slice of steps at a time.
    to_end: Option<DecodeRequest>,
    /// The blob URLs of the last save (revoked at the next, and at Reset).
    links: Vec<(String, usize, String)>,
}

impl Translating {
    /// Something to do between messages.
    pub(super) fn busy(&self) -> bool {
        self.running || self.to_end.is_some()
    }
}

fn send(ev: TranslateEvent) -> FromEngine {
    FromEngine::Translate(ev)
}

impl Worker {
    pub(super) async fn translate(&mut self, cmd: TranslateCmd, scope: &mut Scope) -> bool {
        let ev = match cmd {
            TranslateCmd::Start(setup) => {
                if self.tr.run.is_none() && !self.translate_prepare(&setup, scope).await {
                    return true;
                }
                if self.tr.run.as_ref().is_some_and(|r| r.finished()) {
                    TranslateEvent::Failed("The run is complete: press Reset to train again.".into())
                } else {
                    self.tr.running = true;
                    self.tr.window = (now_ms(), 0);
                    self.translate_progress()
                }
            }
            TranslateCmd::Pause => {
                self.tr.running = false;
                self.translate_progress()
            }
            TranslateCmd::Reset => {
                revoke(&mut self.tr.links);
                self.tr = Translating::default();
                TranslateEvent::Reset
            }
            TranslateCmd::Save => match &self.tr.run {
                None => TranslateEvent::Failed("Nothing trained yet: start a run first.".into()),
                Some(r) => match offer_files(&mut self.tr.links, r.trainer.model.to_files()) {
                    Ok(links) => TranslateEvent::Saved { step: r.step_count(), links },
                    Err(m) => TranslateEvent::Failed(m),
                },
            },
            TranslateCmd::Decode { req, action } => {
                self.tr.to_end = None;
                match self.tr.run.as_mut() {
                    None => TranslateEvent::DecodeFailed("Train a model first: press Start above (the numbers take a few seconds).".into()),
                    Some(r) => {
                        let first = if action == DecodeAction::RunToEnd { DecodeAction::Step } else { action };
                        let t0 = now_ms();
                        match r.decode(&req, first) {
                            Ok(v) => {
                                let ms = now_ms() - t0;
                                if action == DecodeAction::RunToEnd && !r.decode_done() {
                                    self.tr.to_end = Some(req);
                                }
                                TranslateEvent::Decoded { view: Box::new(v), ms }
                            }
                            Err(e) => TranslateEvent::DecodeFailed(message(e)),
                        }
                    }
                }
            }
        };
        scope.send(send(ev)).await.is_ok()
    }

    /// Sets up a run (fetching a bundled set first); false (after telling the page) on error.
    async fn translate_prepare(&mut self, setup: &TranslateSetup, scope: &mut Scope) -> bool {
        let t0 = now_ms();
        let fail = |m: String| send(TranslateEvent::Failed(m));
        if let Err(m) = setup.check() {
            let _ = scope.send(fail(m)).await;
            return false;
        }
        let (train, test) = match &setup.data {
            TranslateData::Text(t) => (t.clone(), None),
            TranslateData::Urls { train, test } => {
                let _ = scope.send(send(TranslateEvent::Preparing("fetching the pairs…".into()))).await;
                match (fetch_text(train, "the training pairs").await, fetch_text(test, "the held-out pairs").await) {
                    (Ok(a), Ok(b)) => (a, Some(b)),
                    (Err(m), _) | (_, Err(m)) => {
                        let _ = scope.send(fail(m)).await;
                        return false;
                    }
                }
            }
        };
        let what = "learning a WordPiece vocabulary from both sides of the pairs, making the model…";
        let _ = scope.send(send(TranslateEvent::Preparing(what.into()))).await;
        yield_now().await;
        let made = TranslateSession::new(&train, test.as_deref(), setup).and_then(|r| r.score().map(|s| (r, s)));
        let (run, scores) = match made {
            Ok(x) => x,
            Err(e) => {
                let _ = scope.send(fail(message(e))).await;
                return false;
            }
        };
        let ready = TranslateEvent::Ready {
            info: run.info(),
            train_pairs: run.train_pairs(),
            eval_pairs: run.eval_pairs(),
            scores: Box::new(scores),
            setup_ms: now_ms() - t0,
        };
        self.tr.run = Some(run);
        self.tr.pending.clear();
        scope.send(send(ready)).await.is_ok()
    }

    /// One slice: decoding steps of "run to the end" (then its view), and training steps (scores
    /// as they fall due, progress when due), about `SLICE_MS` each.
    pub(super) async fn translate_slice(&mut self, scope: &mut Scope) -> bool {
        if let Some(req) = self.tr.to_end.clone() {
            let t0 = now_ms();
            let Some(r) = self.tr.run.as_mut() else {
                self.tr.to_end = None;
                return true;
            };
            let ev = loop {
                let s0 = now_ms();
                match r.decode(&req, DecodeAction::Step) {
                    Ok(v) if r.decode_done() || now_ms() - t0 >= SLICE_MS => {
                        break TranslateEvent::Decoded { view: Box::new(v), ms: now_ms() - s0 };
                    }
                    Ok(_) => {}
                    Err(e) => break TranslateEvent::DecodeFailed(message(e)),
                }
            };
            if r.decode_done() || matches!(ev, TranslateEvent::DecodeFailed(_)) {
                self.tr.to_end = None;
            }
            if scope.send(send(ev)).await.is_err() {
                return false;
            }
        }
        if !self.tr.running {
            return true;
        }
        let t0 = now_ms();
        loop {
            let Some(r) = self.tr.run.as_mut() else {
                self.tr.running = false;
                return true;
            };
            if r.finished() {
                self.tr.running = false;
                break;
            }
            match r.step() {
                Ok((point, scores)) => {
                    self.tr.window.1 += r.setup.batch;
                    self.tr.pending.push(point);
                    if r.finished() {
                        self.tr.running = false;
                    }
                    if let Some(sc) = scores {
                        if scope.send(send(TranslateEvent::Scores(Box::new(sc)))).await.is_err() {
                            return false;
                        }
                    }
                }
                Err(e) => {
                    self.tr.running = false;
                    return scope.send(send(TranslateEvent::Failed(message(e)))).await.is_ok();
                }
            }
            if now_ms() - t0 >= SLICE_MS || !self.tr.running {
                break;
            }
        }
        if now_ms() - self.tr.window.0 >= PROGRESS_MS || !self.tr.running {
            return scope.send(send(self.translate_progress())).await.is_ok();
        }
        true
    }

    /// The steps since the last progress message and the pairs per second over that window.
    fn translate_progress(&mut self) -> TranslateEvent {
        let now = now_ms();
        let points = std::mem::take(&mut self.tr.pending);
        let secs = ((now - self.tr.window.0) / 1000.0).max(1e-9);
        let pairs_per_s = if points.is_empty() { 0.0 } else { self.tr.window.1 as f64 / secs };
        self.tr.window = (now, 0);
        let (step, total) = self.tr.run.as_ref().map(|r| (r.step_count(), r.setup.steps)).unwrap_or((0, 0));
        TranslateEvent::Progress { points, step, total, running: self.tr.running, pairs_per_s }
    }
}
