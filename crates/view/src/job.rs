//! One shape for every long job in the page (pre-training, fine-tuning, translation training):
//! the same commands (start, one step, pause, reset, save) and the same events (preparing, ready,
//! progress, saved, failed, reset). A kind brings only its set-up `S`, its own requests `A`, what
//! it says once ready `R`, one point per step `P` (its charts) and what it shows as it goes `V`.

use serde::{Deserialize, Serialize};

/// A saved file behind a blob URL made by the worker (the bytes never cross to the page):
/// (name, bytes, URL).
pub type Link = (String, usize, String);

/// Page -> worker, for one kind of long job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum JobCmd<S, A> {
    /// Run steps until paused or done; the run is prepared from these settings if there is none.
    Start(S),
    /// One step (the run is prepared first if there is none), then stop.
    Step(S),
    Pause,
    /// Drop the run (the explainer goes back to the loaded model when it used this one).
    Reset,
    /// Reply with the model's files in HF layout (`Saved`).
    Save,
    /// The explainer views use this run's model (true) or the loaded one (false).
    Use(bool),
    /// What only this kind does.
    Ask(A),
}

/// Worker -> page, for one kind of long job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum JobEvent<R, P, V> {
    /// What the worker is doing before the first step (fetching the data, making a vocabulary).
    Preparing(String),
    /// The run is set up: what this kind reports, the milliseconds that took, and what it trains
    /// on ("CPU (wasm)", "WebGPU (…)").
    Ready {
        ready: Box<R>,
        setup_ms: f64,
        device: String,
    },
    Progress(Progress<P>),
    /// Something this kind shows as it goes (a filmstrip frame, held-out scores, the batch).
    Show(V),
    /// The model after step `step`, as an HF folder's files.
    Saved {
        step: usize,
        links: Vec<Link>,
    },
    Failed(String),
    /// The run was dropped.
    Reset,
}

/// A run that learns from examples (fine-tuning, translation) is set up: its model (`I`: its
/// info), how many examples it trains on and holds out, and the held-out scores before any step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReady<I, S> {
    pub info: I,
    pub train: usize,
    pub held_out: usize,
    pub scores: S,
}

/// The steps since the last progress message, and the throughput over that window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress<P> {
    pub points: Vec<P>,
    pub step: usize,
    pub total: usize,
    /// Still stepping (false: paused, or done).
    pub running: bool,
    /// Units (tokens, examples, pairs) per second of wall clock, and milliseconds of compute a
    /// step; 0 when the window took no step.
    pub per_s: f64,
    pub ms_per_step: f64,
    /// The worker's WebAssembly memory in bytes.
    pub memory: u64,
}

impl<P> Default for Progress<P> {
    fn default() -> Self {
        Progress { points: vec![], step: 0, total: 0, running: false, per_s: 0.0, ms_per_step: 0.0, memory: 0 }
    }
}
