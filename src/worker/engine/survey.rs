//! The head map's long jobs in the page: the head survey (`app::head_survey`) and the coreference
//! probe (`app::coref_probe`), one at a time, with the explainer's model, a few sentences at a time
//! (about `SLICE_MS`), then back to the event loop, so the page answers meanwhile; progress after
//! each slice; pause, resume, cancel; the report when done. A model change stops it (its numbers
//! would mix two models).

use super::{pick, Scope, Worker, SLICE_MS};
use crate::app::coref_probe::{parse_items, CorefProbe};
use crate::app::head_survey::HeadSurvey;
use crate::backend::{Backend, WeightsKey};
use crate::bundle::Bert;
use crate::error::Result;
use crate::worker::fetch::fetch_text;
use crate::worker::fetch::now_ms;
use crate::worker::protocol::{FromEngine, SurveyCmd, SurveyEvent};
use futures::SinkExt;

/// Example sentences kept per head.
const EXAMPLES: usize = 3;

enum Job {
    Survey(HeadSurvey),
    Coref(CorefProbe),
}

impl Job {
    fn progress(&self) -> (usize, usize) {
        match self {
            Job::Survey(j) => j.progress(),
            Job::Coref(j) => j.progress(),
        }
    }

    fn finished(&self) -> bool {
        match self {
            Job::Survey(j) => j.finished(),
            Job::Coref(j) => j.finished(),
        }
    }

    async fn run(&mut self, b: &mut Backend, bert: &Bert, key: WeightsKey) -> Result<usize> {
        match self {
            Job::Survey(j) => j.run(b, bert, key, 1).await,
            Job::Coref(j) => j.run(b, bert, key, 1).await,
        }
    }

    fn done(&self, bert: &Bert, ms: f64) -> SurveyEvent {
        match self {
            Job::Survey(j) => SurveyEvent::Done { report: Box::new(j.report()), ms, index_bytes: 0, memory: 0 },
            Job::Coref(j) => SurveyEvent::CorefDone { report: Box::new(j.report(bert).expect("finished")), ms },
        }
    }
}

pub(super) struct Surveying {
    job: Job,
    running: bool,
    /// The model it runs on (another one answering stops it).
    key: WeightsKey,
    ms: f64,
}

impl Surveying {
    pub(super) fn running(&self) -> bool {
        self.running
    }
}

/// Bytes of the worker's wasm memory.
fn wasm_memory() -> u64 {
    use wasm_bindgen::JsCast;
    wasm_bindgen::memory().unchecked_into::<js_sys::WebAssembly::Memory>().buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length()
        as u64
}

async fn send(scope: &mut Scope, ev: SurveyEvent) -> bool {
    scope.send(FromEngine::Survey(ev)).await.is_ok()
}

/// Lines of the user's own text surveyed at most (the bundled sample's 1,000 take about 35 s for
/// MiniLM-L6, and the index grows by about 137 kB a line).
const OWN_LINES: usize = 2_000;

/// A survey of the user's own text.
fn own_text(bert: &Bert, text: &str) -> std::result::Result<Job, String> {
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    if lines > OWN_LINES {
        return Err(format!("Your text has {lines} sentences; the page surveys at most {OWN_LINES}: keep the first {OWN_LINES} lines."));
    }
    HeadSurvey::new(bert, text, EXAMPLES).map(|j| Job::Survey(j.with_index(bert))).map_err(|e| format!("Your text: {e}"))
}

/// The coreference probe's two sets, fetched.
async fn coref_job(dev_url: &str, test_url: &str) -> std::result::Result<Job, String> {
    let dev = parse_items(&fetch_text(dev_url, "the probe's sentences").await?).map_err(|e| format!("{dev_url}: {e}"))?;
    let test = parse_items(&fetch_text(test_url, "the probe's sentences").await?).map_err(|e| format!("{test_url}: {e}"))?;
    Ok(Job::Coref(CorefProbe::new(dev, test)))
}

impl Worker {
    /// A command of the head map; false when the page has gone.
    pub(super) async fn survey(&mut self, cmd: SurveyCmd, scope: &mut Scope) -> bool {
        let start = match &cmd {
            SurveyCmd::Start { .. } | SurveyCmd::Text { .. } | SurveyCmd::Coref { .. } => true,
            _ => false,
        };
        if start {
            self.surveying = None;
            let Some((bert, key)) = pick(&self.bert, &self.train, &self.tune, self.using) else {
                return send(scope, SurveyEvent::Stopped(Some("The model is not loaded yet.".into()))).await;
            };
            let job = match &cmd {
                SurveyCmd::Start { url } => match fetch_text(url, "the survey's text").await {
                    Ok(text) => HeadSurvey::new(bert, &text, EXAMPLES).map(|j| Job::Survey(j.with_index(bert))).map_err(|e| e.to_string()),
                    Err(e) => Err(e),
                },
                SurveyCmd::Text { text } => own_text(bert, text),
                SurveyCmd::Coref { dev_url, test_url } => coref_job(dev_url, test_url).await,
                _ => unreachable!("a start"),
            };
            return match job {
                Ok(job) => {
                    let (done, total) = job.progress();
                    self.surveying = Some(Surveying { job, running: true, key, ms: 0.0 });
                    send(scope, SurveyEvent::Progress { done, total, ms: 0.0, running: true }).await
                }
                Err(e) => send(scope, SurveyEvent::Stopped(Some(e))).await,
            };
        }
        match cmd {
            SurveyCmd::Pause | SurveyCmd::Resume => match &mut self.surveying {
                Some(s) => {
                    s.running = cmd == SurveyCmd::Resume;
                    let (done, total) = s.job.progress();
                    let ev = SurveyEvent::Progress { done, total, ms: s.ms, running: s.running };
                    send(scope, ev).await
                }
                None => true,
            },
            _ => {
                let had = self.surveying.take().is_some();
                !had || send(scope, SurveyEvent::Stopped(None)).await
            }
        }
    }

    /// A few sentences of the running job; false when the page has gone.
    pub(super) async fn survey_slice(&mut self, scope: &mut Scope) -> bool {
        let model = pick(&self.bert, &self.train, &self.tune, self.using);
        let Some(s) = self.surveying.as_mut() else { return true };
        let Some((bert, key)) = model.filter(|&(_, k)| k == s.key) else {
            self.surveying = None;
            let why = "The model changed, so the run stopped: start it again for this model.";
            return send(scope, SurveyEvent::Stopped(Some(why.into()))).await;
        };
        let t0 = now_ms();
        let mut cpu = Backend::cpu();
        while now_ms() - t0 < SLICE_MS && !s.job.finished() {
            if let Err(e) = s.job.run(&mut cpu, bert, key).await {
                self.surveying = None;
                return send(scope, SurveyEvent::Stopped(Some(e.to_string()))).await;
            }
        }
        s.ms += now_ms() - t0;
        let (done, total) = s.job.progress();
        if s.job.finished() {
            let mut ev = s.job.done(bert, s.ms);
            if let Job::Survey(j) = &mut s.job {
                self.index = j.take_index().map(|i| (key, i));
            }
            if let SurveyEvent::Done { index_bytes, memory, .. } = &mut ev {
                *index_bytes = self.index.as_ref().map_or(0, |(_, i)| i.bytes() as u64);
                *memory = wasm_memory();
            }
            self.surveying = None;
            return send(scope, ev).await;
        }
        let ev = SurveyEvent::Progress { done, total, ms: s.ms, running: true };
        send(scope, ev).await
    }
}
