//! The one runner of every long job in the page (`app::jobs::Job`): a run is stepped in slices
//! of about `SLICE_MS`, so Pause, Step and the explainer's requests are answered while it goes on;
//! progress with its throughput at most every `PROGRESS_MS`; what the kind shows (the current
//! batch) about every `SHOWN_MS` and at each pause; Save offers its files behind blob URLs.

use super::{now_ms, Scope, SLICE_MS};
use crate::app::jobs::{message, Job};
use crate::bundle::ModelFiles;
use crate::worker::protocol::{JobCmd, JobEvent, Link, Progress};
use futures::SinkExt;
use std::collections::VecDeque;
use wasm_bindgen::JsCast;

/// Progress goes to the page at most this often.
const PROGRESS_MS: f64 = 150.0;
/// What a running job shows (the current batch) is refreshed this often.
const SHOWN_MS: f64 = 1000.0;
/// Throughput is averaged over about this long.
const RATE_MS: f64 = 2000.0;

type Event<J> = JobEvent<<J as Job>::Ready, <J as Job>::Point, <J as Job>::Show>;

pub(super) struct Runner<J: Job> {
    pub job: Option<J>,
    pub running: bool,
    /// Points since the last progress message.
    pending: Vec<J::Point>,
    meter: Meter,
    /// The blob URLs of the last save (revoked at the next, and at Reset).
    links: Vec<Link>,
}

impl<J: Job> Default for Runner<J> {
    fn default() -> Self {
        Runner { job: None, running: false, pending: vec![], meter: Meter::default(), links: vec![] }
    }
}

/// A run's clock (the same for every kind, so not generic): the progress window's start and
/// compute milliseconds, the (end time, units) of the last couple of seconds' steps, and when
/// the run last showed what it shows.
#[derive(Default)]
struct Meter {
    window_t0: f64,
    window_ms: f64,
    recent: VecDeque<(f64, usize)>,
    last_shown: f64,
}

impl Meter {
    /// A step that began at `s0` took `units` (tokens, examples, pairs).
    fn stepped(&mut self, s0: f64, units: usize) {
        let now = now_ms();
        self.window_ms += now - s0;
        self.recent.push_back((now, units));
        while self.recent.len() > 2 && now - self.recent[0].0 > RATE_MS {
            self.recent.pop_front();
        }
    }

    /// The window's throughput (units a second) and milliseconds a step over its `steps`, and the
    /// worker's memory; a new window starts (and, stopped, the rate's history goes).
    fn window(&mut self, steps: usize, running: bool) -> (f64, f64, u64) {
        let now = now_ms();
        let rate = match (self.recent.front(), self.recent.back()) {
            (Some(a), Some(b)) if b.0 - a.0 > 200.0 => {
                self.recent.iter().skip(1).map(|r| r.1).sum::<usize>() as f64 / ((b.0 - a.0) / 1000.0)
            }
            // a step or two: its units over the window
            _ => self.recent.iter().map(|r| r.1).sum::<usize>() as f64 / ((now - self.window_t0) / 1000.0).max(1e-9),
        };
        let (per_s, ms) = if steps == 0 { (0.0, 0.0) } else { (rate, self.window_ms / steps as f64) };
        (self.window_t0, self.window_ms) = (now, 0.0);
        if !running {
            self.recent.clear();
        }
        let memory = wasm_bindgen::memory()
            .unchecked_into::<js_sys::WebAssembly::Memory>()
            .buffer()
            .unchecked_into::<js_sys::ArrayBuffer>()
            .byte_length() as u64;
        (per_s, ms, memory)
    }
}

async fn send<J: Job>(scope: &mut Scope, ev: Event<J>) -> bool {
    scope.send(J::wrap(ev)).await.is_ok()
}

impl<J: Job> Runner<J> {
    /// Something to do between messages: steps, or what a request left (decoding to the end).
    pub fn busy(&self) -> bool {
        self.running || self.job.as_ref().is_some_and(|j| j.pending())
    }

    /// A run set up since `t0` (now_ms) on `device`: it replaces any other; the page hears
    /// `ready`, then what the run shows at step 0.
    pub async fn ready(&mut self, job: J, ready: J::Ready, t0: f64, device: String, scope: &mut Scope) -> bool {
        revoke(&mut self.links);
        *self = Runner { job: Some(job), ..Runner::default() };
        let ev = JobEvent::Ready { ready: Box::new(ready), setup_ms: now_ms() - t0, device };
        send::<J>(scope, ev).await && self.show(true, scope).await
    }

    /// The kind's own request (with or without a run).
    pub async fn ask(&mut self, ask: J::Ask, scope: &mut Scope) -> bool {
        match J::ask(self.job.as_mut(), ask, &now_ms).await {
            Ok(None) => true,
            Ok(Some(v)) => send::<J>(scope, JobEvent::Show(v)).await,
            Err(e) => send::<J>(scope, JobEvent::Failed(message(e))).await,
        }
    }

    /// Start, Step, Pause, Reset and Save on the run there is (the kind prepared it for Start and
    /// Step, and answers its own requests). False when the page has gone.
    pub async fn control<S, A>(&mut self, cmd: &JobCmd<S, A>, scope: &mut Scope) -> bool {
        let ev = match (cmd, self.job.as_mut()) {
            (JobCmd::Reset, _) => {
                revoke(&mut self.links);
                *self = Runner::default();
                JobEvent::Reset
            }
            (JobCmd::Ask(_) | JobCmd::Use(_), _) => return true,
            (_, None) => JobEvent::Failed("Nothing to do yet: start a run first.".into()),
            (JobCmd::Start(_) | JobCmd::Step(_), Some(j)) if j.finished() => {
                JobEvent::Failed("The run is complete: press Reset to start again.".into())
            }
            (JobCmd::Start(_), Some(_)) => {
                self.running = true;
                self.meter.window_t0 = now_ms();
                self.progress()
            }
            (JobCmd::Step(_), Some(_)) => {
                self.running = false;
                self.meter.window_t0 = now_ms();
                if !self.steps(scope, 0.0).await || !self.show(false, scope).await {
                    return false;
                }
                self.progress()
            }
            (JobCmd::Pause, Some(_)) => {
                self.running = false;
                if !self.show(false, scope).await {
                    return false;
                }
                self.progress()
            }
            (JobCmd::Save, Some(j)) => {
                let step = j.steps().0;
                match offer_files(&mut self.links, j.files().await) {
                    Ok(links) => JobEvent::Saved { step, links },
                    Err(m) => JobEvent::Failed(m),
                }
            }
        };
        send::<J>(scope, ev).await
    }

    /// One slice: what a request left to do, then steps of a running run, then progress (and what
    /// it shows) when due.
    pub async fn slice(&mut self, scope: &mut Scope) -> bool {
        if let Some(v) = self.job.as_mut().and_then(|j| j.more(SLICE_MS, &now_ms)) {
            if !send::<J>(scope, JobEvent::Show(v)).await {
                return false;
            }
        }
        if !self.running {
            return true;
        }
        if !self.steps(scope, SLICE_MS).await {
            return false;
        }
        let now = now_ms();
        if (now - self.meter.last_shown >= SHOWN_MS || !self.running) && !self.show(false, scope).await {
            return false;
        }
        if now - self.meter.window_t0 >= PROGRESS_MS || !self.running {
            let p = self.progress();
            return send::<J>(scope, p).await;
        }
        true
    }

    /// Steps for about `budget_ms` (at least one), sending what falls due. False when the page
    /// has gone.
    async fn steps(&mut self, scope: &mut Scope, budget_ms: f64) -> bool {
        let t0 = now_ms();
        loop {
            let Some(job) = self.job.as_mut() else { return true };
            if job.finished() {
                self.running = false;
                return true;
            }
            let s0 = now_ms();
            let shown = match job.step().await {
                Ok((p, units, shown)) => {
                    self.pending.push(p);
                    self.meter.stepped(s0, units);
                    shown
                }
                Err(e) => {
                    self.running = false;
                    return send::<J>(scope, JobEvent::Failed(message(e))).await;
                }
            };
            if let Some(v) = shown {
                if !send::<J>(scope, JobEvent::Show(v)).await {
                    return false;
                }
            }
            if job.finished() {
                self.running = false;
            }
            if now_ms() - t0 >= budget_ms || !self.running {
                return true;
            }
        }
    }

    /// What the run shows now (the current batch; at step 0, `first`), if anything.
    async fn show(&mut self, first: bool, scope: &mut Scope) -> bool {
        let Some(job) = self.job.as_mut() else { return true };
        self.meter.last_shown = now_ms();
        match job.shown(first).await {
            Ok(None) => true,
            Ok(Some(v)) => send::<J>(scope, JobEvent::Show(v)).await,
            Err(e) => send::<J>(scope, JobEvent::Failed(e.to_string())).await,
        }
    }

    /// The points since the last progress message, and the throughput over that window.
    fn progress(&mut self) -> Event<J> {
        let points = std::mem::take(&mut self.pending);
        let (per_s, ms_per_step, memory) = self.meter.window(points.len(), self.running);
        let (step, total) = self.job.as_ref().map(|j| j.steps()).unwrap_or((0, 0));
        JobEvent::Progress(Progress { points, step, total, running: self.running, per_s, ms_per_step, memory })
    }
}

/// A model folder's `files` behind blob URLs, the last ones offered (in `links`) revoked: the
/// links to send to the page.
fn offer_files(links: &mut Vec<Link>, files: crate::error::Result<ModelFiles>) -> Result<Vec<Link>, String> {
    let f = files.map_err(|e| format!("cannot save the model: {e}"))?;
    revoke(links);
    *links = download_links(&[
        ("config.json", f.config_json.into_bytes()),
        ("model.safetensors", f.weights),
        ("tokenizer.json", f.tokenizer_json.unwrap_or_default()),
    ]);
    Ok(links.clone())
}

/// Frees the blob URLs of `links` (the page's links to them stop working).
fn revoke(links: &mut Vec<Link>) {
    for (_, _, url) in links.drain(..) {
        let _ = web_sys::Url::revoke_object_url(&url);
    }
}

/// Blob URLs (same origin as the page) for downloading files: (name, bytes, URL).
fn download_links(files: &[(&str, Vec<u8>)]) -> Vec<Link> {
    files
        .iter()
        .filter_map(|(name, bytes)| {
            let arr = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes.as_slice()));
            let opts = web_sys::BlobPropertyBag::new();
            opts.set_type(if name.ends_with(".json") { "application/json" } else { "application/octet-stream" });
            let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&arr, &opts).ok()?;
            let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
            Some((name.to_string(), bytes.len(), url))
        })
        .collect()
}
