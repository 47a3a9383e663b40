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
mod explain;
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

    /// A model was loaded (`bytes` in `ms`): it replaces the loaded one, and what was kept for the
    /// old one goes.
    fn loaded(&mut self, b: Bert, bytes: u64, ms: f64) -> FromEngine {
        let info = crate::explain::snapshot::model_info(&b);
        self.bert = Some(b);
        self.gpu.forget_model();
        self.explainer.forget();
        self.index = None;
        self.positions_due = true;
        FromEngine::Loaded { info, bytes, ms }
    }

    /// Handles one message; false when the page has gone.
    async fn handle(&mut self, msg: ToEngine, scope: &mut Scope) -> bool {
        let reply = match msg {
            ToEngine::Load { base_url } => match load(&base_url, scope).await {
                Ok((b, bytes, ms)) => self.loaded(b, bytes, ms),
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
                    Ok((b, bytes)) => self.loaded(b, bytes, now_ms() - t0),
                    // the model loaded before stays
                    Err(e) => FromEngine::LoadFailed(e),
                }
            }
            ToEngine::Explain(req) => return self.answer(req, scope).await,
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
}
