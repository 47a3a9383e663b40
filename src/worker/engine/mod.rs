//! The engine's Web Worker (a yew-agent reactor): loads a model folder from the page's origin with
//! progress, answers each request with a snapshot computed through `crate::backend` (the CPU path,
//! or WebGPU as `device` decides), and trains in slices:
//! a few steps (about `SLICE_MS`), then back to the event loop, so Pause, Step and explainer
//! requests are answered while a run goes on. The Translate tab's encoder-decoder trains and
//! decodes the same way (`translate.rs`).

use super::device::{loaded_key, run_key, tune_key, Gpu};
use super::fetch::{content_length, now_ms, response, span_end, span_start, start, Body};
use crate::app::jobs::finetune::TuneSession;
use crate::app::jobs::pretrain::TrainSession;
use crate::app::jobs::translate::TranslateSession;
use crate::app::jobs::{Job, JobKind};
use crate::backend::Backend;
use crate::backend::WeightsKey;
use crate::bundle::{Bert, ModelFiles};
use crate::error::BertError;
use crate::explain::embeddings::position_view;
use crate::explain::snapshot::prepare;
use crate::explain::{build, Request};
use crate::worker::protocol::{FromEngine, JobCmd, JobEvent, ToEngine};
use futures::{FutureExt, SinkExt, StreamExt};
use job::Runner;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew_agent::reactor::{reactor, ReactorScope};

type Scope = ReactorScope<ToEngine, FromEngine>;

mod corpus;
mod host;
mod job;
mod load;
mod survey;
use load::load;

/// A long job runs this long (at least one step) before the worker reads its messages again.
const SLICE_MS: f64 = 100.0;

#[reactor]
pub async fn Engine(mut scope: ReactorScope<ToEngine, FromEngine>) {
    console_error_panic_hook::set_once();
    let mut w = Worker::default();
    loop {
        // While training, take what is waiting without blocking; otherwise wait for a message.
        let surveying = w.surveying.as_ref().is_some_and(|s| s.running());
        let msg = if w.train.busy() || w.tune.busy() || w.tr.busy() || surveying {
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
                let ok = if w.tune.busy() {
                    w.tune.slice(&mut scope).await
                } else if surveying {
                    w.survey_slice(&mut scope).await
                } else if w.tr.busy() {
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
    tr: Runner<TranslateSession>,
    /// The explainer answers with the model trained (or fine-tuned) in the page.
    using: Option<JobKind>,
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

/// The model the explainer uses (`Worker::explainer`), from the fields, so the GPU can be borrowed
/// beside it.
fn pick<'a>(
    bert: &'a Option<Bert>,
    train: &'a Runner<TrainSession>,
    tune: &'a Runner<TuneSession>,
    using: Option<JobKind>,
) -> Option<(&'a Bert, WeightsKey)> {
    let trained = match using {
        Some(JobKind::Finetune) => tune.job.as_ref().map(|t| (&t.main.bert, tune_key(t.steps().0))),
        Some(JobKind::Pretrain) => train.job.as_ref().map(|r| (&r.trainer.bert, run_key(r.steps().0))),
        _ => None,
    };
    trained.or_else(|| bert.as_ref().map(|b| (b, loaded_key())))
}

/// The least milliseconds between two load-progress messages.
const LOAD_PROGRESS_MS: f64 = 100.0;

impl Worker {
    /// The model the explainer uses: the fine-tuned one, the one trained in the page, or the loaded
    /// one; with its key for the GPU's weights.
    fn explainer(&self) -> Option<(&Bert, WeightsKey)> {
        pick(&self.bert, &self.train, &self.tune, self.using)
    }

    fn active(&self) -> Option<&Bert> {
        self.explainer().map(|(b, _)| b)
    }

    /// The weights of the model the explainer uses into its `BertParams` (a run on the GPU).
    async fn sync_explainer(&mut self) {
        match (self.using, self.train.job.as_mut(), self.tune.job.as_mut()) {
            (Some(JobKind::Pretrain), Some(r), _) => r.sync().await,
            (Some(JobKind::Finetune), _, Some(t)) => t.sync().await,
            _ => {}
        }
    }

    /// A long job's command: its run set up first for Start and Step (through `host::WorkerHost`),
    /// the explainer's model switched for Use and Reset, its own requests, then `job::Runner`.
    /// False when the page has gone.
    async fn job<J: Job>(&mut self, cmd: JobCmd<J::Setup, J::Ask>, scope: &mut Scope, runner: fn(&mut Worker) -> &mut Runner<J>) -> bool {
        match cmd {
            JobCmd::Start(ref s) | JobCmd::Step(ref s) if runner(self).job.is_none() => {
                let t0 = now_ms();
                let preparing = |m| J::wrap(JobEvent::Preparing(m));
                match J::prepare(s, &mut host::WorkerHost { w: self, scope, preparing }).await {
                    Err(m) => return scope.send(J::wrap(JobEvent::Failed(m))).await.is_ok(),
                    Ok((job, ready, device)) => {
                        self.explainer.forget(); // a new run's keys start again at step 0
                        self.index = None;
                        if !runner(self).ready(job, ready, t0, device, scope).await {
                            return false;
                        }
                    }
                }
            }
            JobCmd::Use(on) => {
                let on = on && runner(self).job.as_ref().is_some_and(|j| j.bert().is_some());
                self.using = on.then_some(J::KIND).or(self.using.filter(|&k| k != J::KIND));
                return self.announce_model(on, scope).await;
            }
            JobCmd::Reset if self.using == Some(J::KIND) => {
                self.using = None;
                let _ = self.announce_model(false, scope).await;
            }
            JobCmd::Ask(a) => return runner(self).ask(a, scope).await,
            _ => {}
        }
        runner(self).control(&cmd, scope).await
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
                if self.using == Some(JobKind::Pretrain) && self.train.job.is_some() {
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
            ToEngine::Train(cmd) => return self.job(cmd, scope, |w| &mut w.train).await,
            ToEngine::Tune(cmd) => return self.job(cmd, scope, |w| &mut w.tune).await,
            ToEngine::Translate(cmd) => return self.job(cmd, scope, |w| &mut w.tr).await,
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
        let (b, key) = pick(&self.bert, &self.train, &self.tune, self.using)?;
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
        let (b, key) = pick(&self.bert, &self.train, &self.tune, self.using)?;
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
        let Some((b, key)) = pick(&self.bert, &self.train, &self.tune, self.using) else {
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
