//! The train tab's long job: a pre-training run (`TrainSession`) set up from the panel's settings
//! (a bundled corpus fetched first), run by `job::Runner`; the masking view re-rolled; the
//! trained model put into the explainer.

use super::*;
use crate::worker::protocol::{JobCmd, TrainAsk, TrainReady, TrainShow};

impl Worker {
    pub(super) async fn train(&mut self, cmd: TrainCmd, scope: &mut Scope) -> bool {
        match &cmd {
            JobCmd::Start(s) | JobCmd::Step(s) if self.train.job.is_none() => {
                if !self.train_prepare(s, scope).await {
                    return true;
                }
            }
            JobCmd::Reset if self.use_trained => {
                self.use_trained = false;
                let _ = self.announce_model(false, scope).await;
            }
            JobCmd::Ask(TrainAsk::Reroll(seed)) => {
                let Some(run) = self.train.job.as_mut() else { return true };
                let _ = run.sync().await;
                let ev = match run.masking_view(4, *seed, 3) {
                    Ok(v) => TrainEvent::Show(TrainShow::Batch(Box::new(v))),
                    Err(e) => TrainEvent::Failed(e.to_string()),
                };
                return scope.send(FromEngine::Train(ev)).await.is_ok();
            }
            JobCmd::Ask(TrainAsk::UseTrained(on)) => {
                self.use_trained = *on && self.train.job.is_some();
                if self.use_trained {
                    self.use_tuned = false;
                }
                return self.announce_model(self.use_trained, scope).await;
            }
            _ => {}
        }
        self.train.control(&cmd, scope).await
    }

    /// Sets up a run (fetching a bundled corpus first); false (after telling the page) on error.
    async fn train_prepare(&mut self, setup: &TrainSetup, scope: &mut Scope) -> bool {
        type R = Runner<TrainSession>;
        let t0 = now_ms();
        if let Err(m) = setup.check() {
            return R::failed(scope, m).await;
        }
        let text = match &setup.corpus {
            CorpusSource::Text(t) => t.clone(),
            CorpusSource::Url(u) => {
                R::preparing(scope, "fetching the corpus…").await;
                match fetch_text(u, "the corpus").await {
                    Ok(t) => t,
                    Err(m) => return R::failed(scope, m).await,
                }
            }
        };
        let what = match setup.mode {
            TrainMode::Scratch => {
                format!("training a {}-piece WordPiece vocabulary on the corpus, initialising a tiny BERT…", setup.vocab_size)
            }
            TrainMode::Continue => "copying the loaded model, tokenising the corpus…".into(),
        };
        R::preparing(scope, &what).await;
        let mut run = match TrainSession::new(self.bert.as_ref(), &text, setup) {
            Ok(r) => r,
            Err(e) => return R::failed(scope, e.to_string()).await,
        };
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
        let ready = TrainReady { info: run.info(), train_tokens: run.trainer.train_tokens(), eval_loss, eval_acc };
        let frame = run.frame().ok().map(|f| TrainShow::Frame(Box::new(f)));
        self.explainer.forget();
        self.index = None;
        self.train.ready(run, ready, t0, device, frame, scope).await
    }
}
