//! What a long job's set-up finds in the worker (`app::jobs::Host`): messages to the page, texts
//! from the page's origin, the models (the loaded one, the one pre-trained in the page, the bundled
//! bert-tiny fetched on first use) and the explainer's backend.

use super::{load, Scope, Worker};
use crate::app::jobs::{Host, StartModel};
use crate::backend::Backend;
use crate::bundle::Bert;
use crate::worker::fetch::fetch_text;
use crate::worker::protocol::FromEngine;
use futures::SinkExt;

pub(super) struct WorkerHost<'a> {
    pub w: &'a mut Worker,
    pub scope: &'a mut Scope,
    /// The kind's "preparing" message.
    pub preparing: fn(String) -> FromEngine,
}

impl Host for WorkerHost<'_> {
    async fn preparing(&mut self, what: &str) {
        let _ = self.scope.send((self.preparing)(what.into())).await;
        super::yield_now().await; // let that message go out before the long synchronous part
    }

    async fn fetch_text(&mut self, url: &str, what: &str) -> Result<String, String> {
        fetch_text(url, what).await
    }

    async fn ready_model(&mut self, which: &StartModel) -> Result<(), String> {
        match which {
            StartModel::Tiny(url) if self.w.tiny.is_none() => match load(url, self.scope).await {
                Ok((b, _, _)) => self.w.tiny = Some(b),
                Err(m) => return Err(format!("The bundled bert-tiny could not be loaded: {m}")),
            },
            StartModel::Pretrained => match self.w.train.job.as_mut() {
                Some(r) => crate::app::jobs::Job::sync(r).await,
                None => {
                    return Err("No model was pre-trained in the train tab yet: train one there, or start from the loaded model.".into())
                }
            },
            StartModel::Loaded if self.w.bert.is_none() => return Err("The model is not loaded yet.".into()),
            _ => {}
        }
        Ok(())
    }

    fn model(&self, which: &StartModel) -> Option<&Bert> {
        match which {
            StartModel::Loaded => self.w.bert.as_ref(),
            StartModel::Pretrained => self.w.train.job.as_ref().map(|r| &r.trainer.bert),
            StartModel::Tiny(_) => self.w.tiny.as_ref(),
        }
    }

    fn backend(&self) -> Option<(&Backend, String)> {
        self.w.gpu.usable().map(|b| (b, self.w.gpu.label()))
    }

    async fn backend_failed(&mut self, why: String) {
        self.w.gpu.fail(why);
        let _ = self.scope.send(FromEngine::Device(self.w.gpu.status())).await;
    }
}
