//! The fine-tune tab's long job: a run (`TuneSession`) set up from the tab's settings (the data
//! fetched, the start model chosen), run by `job::Runner`; a sentence before and after; the
//! fine-tuned model put into the explainer.

use super::*;
use crate::explain::finetune::{TuneData, TuneSetup, TuneStart};
use crate::worker::protocol::{JobCmd, TuneAsk, TuneReady, TuneShow};

impl Worker {
    pub(super) async fn tune(&mut self, cmd: TuneCmd, scope: &mut Scope) -> bool {
        match &cmd {
            JobCmd::Start(s) | JobCmd::Step(s) if self.tune.job.is_none() => {
                if !self.tune_prepare(s, scope).await {
                    return true;
                }
            }
            JobCmd::Reset if self.use_tuned => {
                self.use_tuned = false;
                let _ = self.announce_model(false, scope).await;
            }
            JobCmd::Ask(TuneAsk::UseTuned(on)) => {
                self.use_tuned = *on && self.tune.job.is_some();
                if self.use_tuned {
                    self.use_trained = false;
                }
                return self.announce_model(self.use_tuned, scope).await;
            }
            JobCmd::Ask(TuneAsk::Probe { text, pair }) => {
                let ev = match self.tune.job.as_mut() {
                    None => TuneEvent::Failed("Start a run first: the sentence is compared before and after fine-tuning.".into()),
                    Some(t) => {
                        let _ = t.sync().await;
                        match t.probe(text, pair.as_deref()) {
                            Ok(p) => TuneEvent::Show(TuneShow::Probe(Box::new(p))),
                            Err(e) => TuneEvent::Failed(message(e)),
                        }
                    }
                };
                return scope.send(FromEngine::Tune(ev)).await.is_ok();
            }
            _ => {}
        }
        self.tune.control(&cmd, scope).await
    }

    /// Sets up a run (fetching a bundled set first); false (after telling the page) on error.
    async fn tune_prepare(&mut self, setup: &TuneSetup, scope: &mut Scope) -> bool {
        type R = Runner<TuneSession>;
        let t0 = now_ms();
        if let Err(m) = setup.check() {
            return R::failed(scope, m).await;
        }
        let (train, test) = match &setup.data {
            TuneData::Text { train, test } => (train.clone(), test.clone()),
            TuneData::Urls { train, test } => {
                R::preparing(scope, "fetching the data set…").await;
                match (fetch_text(train, "the training data").await, fetch_text(test, "the held-out data").await) {
                    (Ok(a), Ok(b)) => (a, Some(b)),
                    (Err(m), _) | (_, Err(m)) => return R::failed(scope, m).await,
                }
            }
        };
        if let (TuneStart::Trained, Some(r)) = (setup.start, self.train.job.as_mut()) {
            let _ = r.sync().await;
        }
        if setup.start == TuneStart::Tiny && self.tiny.is_none() {
            R::preparing(scope, "fetching the bundled bert-tiny…").await;
            match super::load::load(&setup.tiny_base, scope).await {
                Ok((b, _, _)) => self.tiny = Some(b),
                Err(m) => return R::failed(scope, format!("The bundled bert-tiny could not be loaded: {m}")).await,
            }
        }
        let start = match setup.start {
            TuneStart::Tiny => self.tiny.as_ref(),
            TuneStart::Trained => self.train.job.as_ref().map(|r| &r.trainer.bert),
            _ => self.bert.as_ref(),
        };
        let Some(start) = start else {
            let why = match setup.start {
                TuneStart::Trained => "No model was pre-trained in the train tab yet: train one there, or start from the loaded model.",
                _ => "The model is not loaded yet.",
            };
            return R::failed(scope, why.into()).await;
        };
        R::preparing(
            scope,
            match setup.compare {
                true => "adding the task head, encoding the data (two runs: this start and random weights)…",
                false => "adding the task head, encoding the data…",
            },
        )
        .await;
        // the run trains where the explainer runs its forward (the badge's choice); a device
        // failure falls back to the CPU path
        let cpu = || TuneSession::new(start, &train, test.as_deref(), setup, &Backend::cpu());
        let (made, device) = match self.gpu.usable().map(|b| TuneSession::new(start, &train, test.as_deref(), setup, b)) {
            Some(Err(BertError::Gpu(e))) => {
                self.gpu.fail(e);
                let _ = scope.send(FromEngine::Device(self.gpu.status())).await;
                (cpu(), "CPU (wasm)".to_string())
            }
            Some(made) => (made, self.gpu.label()),
            None => (cpu(), "CPU (wasm)".to_string()),
        };
        let made = match made {
            Ok(run) => run.score().await.map(|s| (run, s)),
            Err(e) => Err(e),
        };
        let (run, scores) = match made {
            Ok(x) => x,
            Err(e) => return R::failed(scope, message(e)).await,
        };
        let ready = TuneReady { info: run.info(), train_examples: run.train_examples(), eval_examples: run.eval_examples(), scores };
        self.explainer.forget();
        self.index = None;
        self.tune.ready(run, ready, t0, device, None, scope).await
    }
}
