//! The engine's Web Worker (a yew-agent reactor): loads a model folder from the page's origin with
//! progress, answers each request with a snapshot computed through `crate::backend` (the CPU path,
//! or WebGPU as `device` decides), and trains in slices:
//! a few steps (about `SLICE_MS`), then back to the event loop, so Pause, Step and explainer
//! requests are answered while a run goes on. The Translate tab's encoder-decoder trains and
//! decodes the same way (`translate.rs`).

use super::device::{loaded_key, run_key, tune_key, Gpu};
use super::fetch::{content_length, fetch_text, now_ms, response, span_end, span_start, start, Body};
use super::session::TrainSession;
use super::tune_session::TuneSession;
use crate::backend::Backend;
use crate::backend::WeightsKey;
use crate::bundle::{Bert, ModelFiles};
use crate::error::BertError;
use crate::explain::embeddings::position_view;
use crate::explain::snapshot::prepare;
use crate::explain::training::{CorpusSource, TrainMode, TrainSetup};
use crate::explain::{build, Request};
use crate::worker::protocol::{FromEngine, ToEngine, TrainCmd, TrainEvent, TranslateCmd, TranslateEvent, TuneCmd, TuneEvent};
use futures::{FutureExt, SinkExt, StreamExt};
use job::Runner;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew_agent::reactor::{reactor, ReactorScope};

type Scope = ReactorScope<ToEngine, FromEngine>;

mod job;
mod load;
use load::load;
mod corpus;
mod survey;
mod train;
mod translate;
mod tune;

/// A long job runs this long (at least one step) before the worker reads its messages again.
const SLICE_MS: f64 = 100.0;

#[reactor]
pub async fn Engine(mut scope: ReactorScope<ToEngine, FromEngine>) {
    console_error_panic_hook::set_once();
    let mut w = Worker::default();
    loop {
        // While training, take what is waiting without blocking; otherwise wait for a message.
        let surveying = w.surveying.as_ref().is_some_and(|s| s.running());
        let msg = if w.train.running || w.tune.running || w.tr.running || w.to_end.is_some() || surveying {
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
                let ok = if w.tune.running {
                    w.tune.slice(&mut scope).await
                } else if surveying {
                    w.survey_slice(&mut scope).await
                } else if w.to_end.is_some() {
                    w.decode_slice(&mut scope).await
                } else if w.tr.running {
                    w.tr.slice(&mut scope).await
                } else {
                    w.train.slice(&mut scope).await
                };
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
    /// The bundled bert-tiny, fetched when fine-tuning starts from it.
    tiny: Option<Bert>,
    /// The long jobs: pre-training, fine-tuning, the Translate tab's encoder-decoder.
    train: Runner<TrainSession>,
    tune: Runner<TuneSession>,
    tr: Runner<super::translate_session::TranslateSession>,
    /// The Translate tab's "run to the end" decoding, while it goes on.
    to_end: translate::ToEnd,
    /// The explainer answers with the model trained (or fine-tuned) in the page.
    use_trained: bool,
    use_tuned: bool,
    /// WebGPU for the explainer's forward, when chosen and available.
    gpu: Gpu,
    /// A model was loaded and its position views are not sent yet (they follow its first answer).
    positions_due: bool,
    /// The explainer's last forwards.
    explainer: crate::app::Explainer,
    /// The head survey, while one runs or is paused.
    surveying: Option<survey::Surveying>,
    /// The last finished survey's search index, with the weights it was made with.
    index: Option<(crate::backend::WeightsKey, crate::app::corpus_index::CorpusIndex)>,
}

/// An error as the page shows it (an input error without its prefix).
fn message(e: BertError) -> String {
    match e {
        BertError::Input(m) => m,
        e => e.to_string(),
    }
}

/// The model the explainer uses (`Worker::explainer`), from the fields, so the GPU can be borrowed
/// beside it.
fn pick<'a>(
    bert: &'a Option<Bert>,
    run: &'a Runner<TrainSession>,
    tune: &'a Runner<TuneSession>,
    use_trained: bool,
    use_tuned: bool,
) -> Option<(&'a Bert, WeightsKey)> {
    if let (true, Some(t)) = (use_tuned, &tune.job) {
        return Some((&t.main.bert, tune_key(t.step_count())));
    }
    match (&run.job, use_trained) {
        (Some(r), true) => Some((&r.trainer.bert, run_key(r.step_count()))),
        _ => bert.as_ref().map(|b| (b, loaded_key())),
    }
}

/// The least milliseconds between two load-progress messages.
const LOAD_PROGRESS_MS: f64 = 100.0;

impl Worker {
    /// The model the explainer uses: the fine-tuned one, the one trained in the page, or the loaded
    /// one; with its key for the GPU's weights.
    fn explainer(&self) -> Option<(&Bert, WeightsKey)> {
        pick(&self.bert, &self.train, &self.tune, self.use_trained, self.use_tuned)
    }

    fn active(&self) -> Option<&Bert> {
        self.explainer().map(|(b, _)| b)
    }

    /// The weights of the model the explainer uses into its `BertParams` (a run on the GPU).
    async fn sync_explainer(&mut self) {
        if let (true, Some(r)) = (self.use_trained, self.train.job.as_mut()) {
            let _ = r.sync().await;
        }
        if let (true, Some(t)) = (self.use_tuned, self.tune.job.as_mut()) {
            let _ = t.sync().await;
        }
    }

    /// Handles one message; false when the page has gone.
    async fn handle(&mut self, msg: ToEngine, scope: &mut Scope) -> bool {
        let reply = match msg {
            ToEngine::Load { base_url } => match load(&base_url, scope).await {
                Ok((b, bytes, ms)) => {
                    let info = crate::explain::snapshot::model_info(&b);
                    self.bert = Some(b);
                    self.gpu.forget_model();
                    self.explainer.forget();
                    self.index = None;
                    self.positions_due = true;
                    FromEngine::Loaded { info, bytes, ms }
                }
                // the model loaded before (if any) stays
                Err(e) => FromEngine::LoadFailed(e),
            },
            ToEngine::LoadFiles(picked) => {
                let t0 = now_ms();
                span_start("load-parse");
                let made = crate::worker::model_files::model_files(picked)
                    .and_then(|(files, bytes)| Bert::from_files(&files).map(|b| (b, bytes)).map_err(|e| e.to_string()));
                span_end("load-parse");
                match made {
                    Ok((b, bytes)) => {
                        let info = crate::explain::snapshot::model_info(&b);
                        self.bert = Some(b);
                        self.gpu.forget_model();
                        self.explainer.forget();
                        self.index = None;
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
                if self.use_trained && self.train.job.is_some() {
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
                // "why": the cheap part (options, rollout) from the snapshot before it goes
                let why = match (&reply, &req.why) {
                    (FromEngine::Snapshot(s), Some(w)) => Some(self.active().and_then(|b| crate::explain::why::prepare(b, s, w))),
                    _ => None,
                };
                span_start("send");
                if scope.send(reply).await.is_err() {
                    return false;
                }
                span_end("send");
                // then the attribution (a forward + backward; N + 1 for integrated gradients)
                if let Some(None) = why {
                    let message = "Nothing here to explain: put a [MASK] in the text (or load a fine-tuned model).".to_string();
                    if scope.send(FromEngine::WhyFailed { seq: req.seq, message }).await.is_err() {
                        return false;
                    }
                }
                if let Some(Some(prep)) = why {
                    yield_now().await;
                    let t0 = now_ms();
                    let msg = match self.attribute(prep).await {
                        Some(Ok(mut v)) => {
                            v.ms = now_ms() - t0;
                            FromEngine::Why(Box::new(v))
                        }
                        Some(Err(e)) => FromEngine::WhyFailed { seq: req.seq, message: e.to_string() },
                        None => FromEngine::WhyFailed { seq: req.seq, message: "The model is not loaded yet.".into() },
                    };
                    if scope.send(msg).await.is_err() {
                        return false;
                    }
                }
                // The position views (folded at first) and Auto's one-off timing race wait until
                // the answer is on its way: yield first, so the reply is posted before they run.
                let positions = std::mem::take(&mut self.positions_due);
                if positions || self.gpu.init_due() || self.gpu.needs_race() {
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
            ToEngine::Tune(cmd) => return self.tune(cmd, scope).await,
            ToEngine::Translate(cmd) => return self.translate(cmd, scope).await,
            ToEngine::Survey(cmd) => return self.survey(cmd, scope).await,
            ToEngine::Search(sr) => FromEngine::Search(self.search(sr).await),
            ToEngine::QueriesKeys(qr) => FromEngine::QueriesKeys(self.queries_and_keys(qr).await),
            ToEngine::Device(pref) => {
                self.gpu.set_pref(pref).await;
                FromEngine::Device(self.gpu.status())
            }
            ToEngine::BenchAttribution { rounds } => FromEngine::Bench(match &self.bert {
                Some(b) => crate::explain::attribute_bench::attribution_timings(b, rounds.max(1), &now_ms).await.map_err(|e| e.to_string()),
                None => Err("The model is not loaded yet.".into()),
            }),
        };
        scope.send(reply).await.is_ok()
    }

    /// The attribution of `prep` with the explainer's model, where its forward runs (WebGPU when
    /// chosen; the CPU path when WebGPU fails, e.g. with heads switched off).
    async fn attribute(&mut self, prep: crate::explain::why::WhyPrep) -> Option<crate::error::Result<crate::explain::why::WhyView>> {
        let (b, key) = pick(&self.bert, &self.train, &self.tune, self.use_trained, self.use_tuned)?;
        if let Some(gpu) = self.gpu.usable_mut() {
            match crate::explain::why::finish(gpu, b, key, prep.clone()).await {
                Err(BertError::Gpu(_)) => {} // the CPU path below
                r => return Some(r),
            }
        }
        Some(crate::explain::why::finish(&mut Backend::cpu(), b, key, prep).await)
    }

    /// Tells the page the explainer now answers with another model (`trained`: one trained or
    /// fine-tuned in the page): its weights brought back from the GPU, its position views, its info.
    /// False when the page has gone.
    async fn announce_model(&mut self, trained: bool, scope: &mut Scope) -> bool {
        self.sync_explainer().await;
        let Some(info) = self.active().map(crate::explain::snapshot::model_info) else { return true };
        if !self.send_positions(scope).await {
            return false;
        }
        scope.send(FromEngine::ModelChanged { info, trained }).await.is_ok()
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
    async fn race(&mut self, req: &Request) -> Option<crate::worker::protocol::DeviceStatus> {
        if !self.gpu.needs_race() {
            return None;
        }
        let (b, key) = pick(&self.bert, &self.train, &self.tune, self.use_trained, self.use_tuned)?;
        let prep = prepare(b, req).ok()?;
        let warm = self.gpu.forward(key, b, &prep.batch, &prep.opts).await;
        let g0 = now_ms();
        let timed = match warm {
            Ok(_) => self.gpu.forward(key, b, &prep.batch, &prep.opts).await,
            Err(e) => Err(e),
        };
        let gpu_ms = now_ms() - g0;
        let c0 = now_ms();
        let _ = Backend::cpu().forward(b, key, &prep.batch, &prep.opts).await;
        let cpu_ms = now_ms() - c0;
        match timed {
            Ok(_) => self.gpu.set_race(cpu_ms, gpu_ms),
            Err(e) => self.gpu.fail(e.to_string()),
        }
        Some(self.gpu.status())
    }

    /// A snapshot of `req` from the model the explainer uses (`app::Explainer`: on WebGPU when
    /// chosen, from a cached forward when only the views changed), and the device status when
    /// WebGPU failed and the CPU path answered instead.
    async fn explain(&mut self, req: Request) -> (FromEngine, Option<crate::worker::protocol::DeviceStatus>) {
        self.sync_explainer().await;
        let Some((b, key)) = pick(&self.bert, &self.train, &self.tune, self.use_trained, self.use_tuned) else {
            return (FromEngine::Failed { seq: req.seq, message: "The model is not loaded yet.".into() }, None);
        };
        let label = self.gpu.label();
        let gpu = self.gpu.usable_mut().map(|g| (g, label));
        span_start("explain");
        let answered = self.explainer.explain(gpu, b, key, &req, &now_ms).await;
        span_end("explain");
        match answered {
            Ok(a) => {
                let fell_back = a.gpu_error.map(|e| {
                    self.gpu.fail(e.to_string());
                    self.gpu.status()
                });
                (FromEngine::Snapshot(Box::new(a.snapshot)), fell_back)
            }
            Err(BertError::Input(m)) => (FromEngine::Failed { seq: req.seq, message: m }, None),
            Err(e) => (FromEngine::Failed { seq: req.seq, message: e.to_string() }, None),
        }
    }
}
