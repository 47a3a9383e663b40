//! The head survey in the page (`app::head_survey`): the text through the explainer's model a few
//! sentences at a time (about `SLICE_MS`), then back to the event loop, so the page answers
//! meanwhile; progress after each slice; pause, resume, cancel; the report when done. A model
//! change stops it (its numbers would mix two models).

use super::train::fetch_text;
use super::{pick, Scope, Worker, SLICE_MS};
use crate::app::head_survey::HeadSurvey;
use crate::backend::{Backend, WeightsKey};
use crate::worker::fetch::now_ms;
use crate::worker::protocol::{FromEngine, SurveyCmd, SurveyEvent};
use futures::SinkExt;

/// Example sentences kept per head.
const EXAMPLES: usize = 3;

pub(super) struct Surveying {
    job: HeadSurvey,
    running: bool,
    /// The model it surveys (another one answering stops it).
    key: WeightsKey,
    ms: f64,
}

impl Surveying {
    pub(super) fn running(&self) -> bool {
        self.running
    }
}

async fn send(scope: &mut Scope, ev: SurveyEvent) -> bool {
    scope.send(FromEngine::Survey(ev)).await.is_ok()
}

impl Worker {
    /// A command of the head map; false when the page has gone.
    pub(super) async fn survey(&mut self, cmd: SurveyCmd, scope: &mut Scope) -> bool {
        match cmd {
            SurveyCmd::Start { url } => {
                self.surveying = None;
                let Some((bert, key)) = pick(&self.bert, &self.run, &self.tune, self.use_trained, self.use_tuned) else {
                    return send(scope, SurveyEvent::Stopped(Some("The model is not loaded yet.".into()))).await;
                };
                let text = match fetch_text(&url, "the survey's text").await {
                    Ok(t) => t,
                    Err(e) => return send(scope, SurveyEvent::Stopped(Some(e))).await,
                };
                match HeadSurvey::new(bert, &text, EXAMPLES) {
                    Ok(job) => {
                        let (done, total) = job.progress();
                        self.surveying = Some(Surveying { job, running: true, key, ms: 0.0 });
                        send(scope, SurveyEvent::Progress { done, total, ms: 0.0, running: true }).await
                    }
                    Err(e) => send(scope, SurveyEvent::Stopped(Some(e.to_string()))).await,
                }
            }
            SurveyCmd::Pause | SurveyCmd::Resume => match &mut self.surveying {
                Some(s) => {
                    s.running = cmd == SurveyCmd::Resume;
                    let (done, total) = s.job.progress();
                    let ev = SurveyEvent::Progress { done, total, ms: s.ms, running: s.running };
                    send(scope, ev).await
                }
                None => true,
            },
            SurveyCmd::Cancel => {
                let had = self.surveying.take().is_some();
                !had || send(scope, SurveyEvent::Stopped(None)).await
            }
        }
    }

    /// A few sentences of the running survey; false when the page has gone.
    pub(super) async fn survey_slice(&mut self, scope: &mut Scope) -> bool {
        let model = pick(&self.bert, &self.run, &self.tune, self.use_trained, self.use_tuned);
        let Some(s) = self.surveying.as_mut() else { return true };
        let Some((bert, key)) = model.filter(|&(_, k)| k == s.key) else {
            self.surveying = None;
            let why = "The model changed, so the survey stopped: start it again for this model.";
            return send(scope, SurveyEvent::Stopped(Some(why.into()))).await;
        };
        let t0 = now_ms();
        let mut cpu = Backend::cpu();
        while now_ms() - t0 < SLICE_MS && !s.job.finished() {
            if let Err(e) = s.job.run(&mut cpu, bert, key, 1).await {
                self.surveying = None;
                return send(scope, SurveyEvent::Stopped(Some(e.to_string()))).await;
            }
        }
        s.ms += now_ms() - t0;
        let (done, total) = s.job.progress();
        if s.job.finished() {
            let (report, ms) = (Box::new(s.job.report()), s.ms);
            self.surveying = None;
            return send(scope, SurveyEvent::Done { report, ms }).await;
        }
        let ev = SurveyEvent::Progress { done, total, ms: s.ms, running: true };
        send(scope, ev).await
    }
}
