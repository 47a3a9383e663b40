//! An explain request in the worker: the snapshot (`app::Explainer`: a cached forward when only
//! the views changed, WebGPU's failure reported before the CPU path's answer), then what follows
//! it: the loaded model's guesses beside a model trained in the page, the attribution ("why"), the
//! position views of a new model, and Auto's one-off timing race, each after the answer went out.

use super::*;
use crate::worker::protocol::DeviceStatus;

impl Worker {
    /// Answers `req` with its snapshot and what follows it; false when the page has gone.
    pub(super) async fn answer(&mut self, req: Request, scope: &mut Scope) -> bool {
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

    /// The attribution of `prep` with the explainer's model, where its forward runs.
    async fn attribute(&mut self, prep: crate::explain::why::WhyPrep) -> Option<crate::error::Result<crate::explain::why::WhyView>> {
        let (b, key) = pick(&self.bert, &self.train, &self.tune, self.using)?;
        Some(crate::explain::why::finish_or_cpu(self.gpu.usable_mut(), b, key, prep).await)
    }

    /// Auto: times one forward of `req` on each backend (WebGPU's second, after its pipelines
    /// compiled), after the first answer went out, so the page is interactive first. Returns the
    /// status to show.
    async fn race(&mut self, req: &Request) -> Option<DeviceStatus> {
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
    async fn explain(&mut self, req: Request) -> (FromEngine, Option<DeviceStatus>) {
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
