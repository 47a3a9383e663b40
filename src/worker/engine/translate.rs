//! The Translate tab's long job: a new encoder-decoder (`TranslateSession`) set up from the tab's
//! settings (the pairs fetched or pasted), run by `job::Runner` on the CPU (WebAssembly); and
//! decoding a sentence with the run's model: one step, back to the start, or "run to the end" a
//! slice of steps at a time, so the page sees each token arrive and Pause or another step is
//! answered in between, each answer with the milliseconds its step took in the worker.

use super::*;
use crate::explain::decode::{DecodeAction, DecodeRequest};
use crate::explain::translate::{TranslateData, TranslateSetup};
use crate::worker::protocol::{DecodeAsk, JobCmd, TranslateReady, TranslateShow};
use crate::worker::translate_session::TranslateSession;

fn send(ev: TranslateShow) -> FromEngine {
    FromEngine::Translate(TranslateEvent::Show(ev))
}

impl Worker {
    pub(super) async fn translate(&mut self, cmd: TranslateCmd, scope: &mut Scope) -> bool {
        match &cmd {
            JobCmd::Start(s) | JobCmd::Step(s) if self.tr.job.is_none() => {
                if !self.translate_prepare(s, scope).await {
                    return true;
                }
            }
            JobCmd::Reset => self.to_end = None,
            JobCmd::Ask(DecodeAsk { req, action }) => {
                self.to_end = None;
                let ev = match self.tr.job.as_mut() {
                    None => TranslateShow::DecodeFailed("Train a model first: press Start above (the numbers take a few seconds).".into()),
                    Some(r) => {
                        let first = if *action == DecodeAction::RunToEnd { DecodeAction::Step } else { *action };
                        let t0 = now_ms();
                        match r.decode(req, first) {
                            Ok(v) => {
                                if *action == DecodeAction::RunToEnd && !r.decode_done() {
                                    self.to_end = Some(req.clone());
                                }
                                TranslateShow::Decoded { view: Box::new(v), ms: now_ms() - t0 }
                            }
                            Err(e) => TranslateShow::DecodeFailed(message(e)),
                        }
                    }
                };
                return scope.send(send(ev)).await.is_ok();
            }
            _ => {}
        }
        self.tr.control(&cmd, scope).await
    }

    /// Sets up a run (fetching a bundled set first); false (after telling the page) on error.
    async fn translate_prepare(&mut self, setup: &TranslateSetup, scope: &mut Scope) -> bool {
        type R = Runner<TranslateSession>;
        let t0 = now_ms();
        if let Err(m) = setup.check() {
            return R::failed(scope, m).await;
        }
        let (train, test) = match &setup.data {
            TranslateData::Text(t) => (t.clone(), None),
            TranslateData::Urls { train, test } => {
                R::preparing(scope, "fetching the pairs…").await;
                match (fetch_text(train, "the training pairs").await, fetch_text(test, "the held-out pairs").await) {
                    (Ok(a), Ok(b)) => (a, Some(b)),
                    (Err(m), _) | (_, Err(m)) => return R::failed(scope, m).await,
                }
            }
        };
        R::preparing(scope, "learning a WordPiece vocabulary from both sides of the pairs, making the model…").await;
        let (run, scores) = match TranslateSession::new(&train, test.as_deref(), setup).and_then(|r| r.score().map(|s| (r, s))) {
            Ok(x) => x,
            Err(e) => return R::failed(scope, message(e)).await,
        };
        let ready = TranslateReady { info: run.info(), train_pairs: run.train_pairs(), eval_pairs: run.eval_pairs(), scores };
        self.tr.ready(run, ready, t0, "CPU (wasm)".into(), None, scope).await
    }

    /// "Run to the end": decoding steps for about `SLICE_MS`, then the view. False when the page
    /// has gone.
    pub(super) async fn decode_slice(&mut self, scope: &mut Scope) -> bool {
        let (Some(req), Some(r)) = (self.to_end.clone(), self.tr.job.as_mut()) else {
            self.to_end = None;
            return true;
        };
        let t0 = now_ms();
        let ev = loop {
            let s0 = now_ms();
            match r.decode(&req, DecodeAction::Step) {
                Ok(v) if r.decode_done() || now_ms() - t0 >= SLICE_MS => {
                    break TranslateShow::Decoded { view: Box::new(v), ms: now_ms() - s0 }
                }
                Ok(_) => {}
                Err(e) => break TranslateShow::DecodeFailed(message(e)),
            }
        };
        if r.decode_done() || matches!(ev, TranslateShow::DecodeFailed(_)) {
            self.to_end = None;
        }
        scope.send(send(ev)).await.is_ok()
    }
}

/// Which decoding "run to the end" is doing, if any.
pub(super) type ToEnd = Option<DecodeRequest>;
