//! Answers the explainer's requests (`explain::Request`) from a cache of the last forwards. A
//! request that differs from a cached one only in what the page looks at (the focused head, the
//! FFN's token, the number of guesses, "why") is answered from that forward's trace without
//! running the model again. A forward runs on the preferred backend (WebGPU when chosen) and on the
//! CPU reference when that fails (`backend::forward_or_cpu`).

use crate::backend::{forward_or_cpu, Backend, Ran, WeightsKey};
use crate::bundle::Bert;
use crate::error::{BertError, Result};
use crate::explain::snapshot::{finish, prepare, Prepared, Request, Snapshot};
use crate::model::forward::ForwardTrace;
use std::collections::VecDeque;
use std::rc::Rc;

/// Forwards kept: the sentence being read, with a head switched off and back, a word masked.
const KEEP: usize = 4;

/// What the CPU reference is called on the badge.
const CPU_LABEL: &str = if cfg!(target_arch = "wasm32") { "CPU (wasm)" } else { "CPU" };

/// What a forward depends on: the model, the device and the input; not the views.
#[derive(Clone, Debug, PartialEq)]
struct InputKey {
    generation: u64,
    weights: WeightsKey,
    device: String,
    text: String,
    pair: Option<String>,
    masked: Vec<usize>,
    heads_off: Vec<(usize, usize)>,
}

impl InputKey {
    fn of(generation: u64, weights: WeightsKey, device: &str, req: &Request) -> Self {
        let mut heads_off = req.heads_off.clone();
        heads_off.sort_unstable();
        heads_off.dedup();
        let mut masked = req.masked.clone();
        masked.sort_unstable();
        masked.dedup();
        InputKey {
            generation,
            weights,
            device: device.into(),
            text: req.text.clone(),
            pair: req.pair.clone().filter(|p| !p.trim().is_empty()),
            masked,
            heads_off,
        }
    }
}

struct Cached {
    key: InputKey,
    prep: Prepared,
    trace: Rc<ForwardTrace<f32>>,
    forward_ms: f64,
}

/// A snapshot, whether it came from a cached forward, and the preferred backend's error when the
/// forward fell back to the CPU.
pub struct Answer {
    pub snapshot: Snapshot,
    pub cached: bool,
    pub gpu_error: Option<BertError>,
}

/// The explainer's forwards, most recent first.
#[derive(Default)]
pub struct Explainer {
    cache: VecDeque<Cached>,
    generation: u64,
    forwards: usize,
}

impl Explainer {
    /// Drops every cached forward: the model behind a weights key changed (a model was loaded, a
    /// run was started again from step 0).
    pub fn forget(&mut self) {
        self.cache.clear();
        self.generation += 1;
    }

    /// Forwards run so far (cached answers run none).
    pub fn forwards(&self) -> usize {
        self.forwards
    }

    /// The trace of the last answer, for the views that query it.
    pub fn last_trace(&self) -> Option<Rc<ForwardTrace<f32>>> {
        self.cache.front().map(|c| c.trace.clone())
    }

    /// The snapshot of `req` from `bert` (its weights named by `weights`), on `gpu` (the backend
    /// and its badge label) when given. `now` is a clock in milliseconds (the forward is timed).
    pub async fn explain(
        &mut self,
        gpu: Option<(&mut Backend, String)>,
        bert: &Bert,
        weights: WeightsKey,
        req: &Request,
        now: &dyn Fn() -> f64,
    ) -> Result<Answer> {
        let device = gpu.as_ref().map_or(CPU_LABEL.to_string(), |(_, label)| label.clone());
        let key = InputKey::of(self.generation, weights, &device, req);
        if let Some(i) = self.cache.iter().position(|c| c.key == key) {
            let c = self.cache.remove(i).expect("found");
            let snapshot = self.snapshot(bert, req, &c, &device);
            self.cache.push_front(c);
            return Ok(Answer { snapshot, cached: true, gpu_error: None });
        }
        let prep = prepare(bert, req)?;
        let t0 = now();
        let (trace, ran) = forward_or_cpu(gpu.map(|(b, _)| b), bert, weights, &prep.batch, &prep.opts).await?;
        let forward_ms = now() - t0;
        self.forwards += 1;
        let (device, gpu_error) = match ran {
            Ran::Preferred => (device, None),
            Ran::Cpu { failed } => (CPU_LABEL.to_string(), failed),
        };
        let key = InputKey { device: device.clone(), ..key };
        let c = Cached { key, prep, trace: Rc::new(trace), forward_ms };
        let snapshot = self.snapshot(bert, req, &c, &device);
        self.cache.push_front(c);
        self.cache.truncate(KEEP);
        Ok(Answer { snapshot, cached: false, gpu_error })
    }

    fn snapshot(&self, bert: &Bert, req: &Request, c: &Cached, device: &str) -> Snapshot {
        let mut s = finish(bert, req, c.prep.clone(), &c.trace);
        s.forward_ms = c.forward_ms;
        s.device = device.to_string();
        s
    }
}

#[cfg(test)]
#[path = "explainer_tests.rs"]
mod tests;
