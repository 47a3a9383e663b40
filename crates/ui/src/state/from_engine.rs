//! The page's state taking the worker's messages (`Action::Engine`): the model's download and
//! load (or why it failed, the previous model staying), a model trained in the page, snapshots
//! (an older edit's reply still shows until the newer one comes), the backend's status, a failed
//! request. Tested natively with the rest of `state.rs` (`state_tests.rs`).

use super::{AppState, Load};
use crate::explain::ModelInfo;
use crate::protocol::FromEngine;
use std::rc::Rc;

impl AppState {
    /// The focused head and layer within a (new) model.
    fn clamp_focus(&mut self, info: &ModelInfo) {
        let (l, h) = self.head_focus;
        if l >= info.layers || h >= info.heads {
            self.head_focus = (0, 0);
        }
        if self.ffn_focus.0 >= info.layers {
            self.ffn_focus.0 = 0;
        }
    }

    /// A message from the worker: the model's load, a snapshot, the backend, a failed request.
    pub(super) fn on_engine(&mut self, msg: FromEngine) {
        match msg {
            FromEngine::Progress { loaded, total } => {
                if let Some(p) = &mut self.pending {
                    (p.loaded, p.total) = (loaded, total);
                } else if !self.ready() {
                    self.load = Load::Fetching { loaded, total };
                }
            }
            FromEngine::Loaded { info, bytes, ms } => {
                // drop what does not exist in this model
                self.heads_off.retain(|&(l, h)| l < info.layers && h < info.heads);
                if self.selected.is_some_and(|(l, h)| l >= info.layers || h >= info.heads) {
                    self.selected = None;
                }
                let replaced = self.ready();
                self.positions = None; // the new model's follow its first answer
                self.clamp_focus(&info);
                let ms = ms + std::mem::take(&mut self.fetched_ms);
                self.load = Load::Ready { info, bytes, ms };
                if let Some(p) = self.pending.take() {
                    self.model = p.path.unwrap_or_else(|| super::DEFAULT.folder.to_string());
                    self.model_label = p.label;
                }
                self.model_error = None;
                let key = self.survey_key();
                self.survey.switch_model(&key);
                (self.search, self.search_error) = (None, None); // the index was the old model's
                (self.qk, self.qk_error) = (None, None);
                if replaced {
                    // another model: other tokens, so ask again with no clicked masks
                    self.masked.clear();
                    self.compare = None;
                    self.edit += 1;
                }
            }
            FromEngine::LoadFailed(m) => match self.pending.take() {
                // the model the user asked for failed: the one loaded before keeps answering
                Some(p) if self.ready() => {
                    self.model_error = Some(format!("\"{}\" could not be loaded; the model \"{}\" stays. {m}", p.label, self.model_label))
                }
                _ => self.load = Load::Failed(m),
            },
            FromEngine::ModelChanged { info, trained } => {
                if let Load::Ready { bytes, ms, .. } = self.load {
                    self.heads_off.retain(|&(l, h)| l < info.layers && h < info.heads);
                    if self.selected.is_some_and(|(l, h)| l >= info.layers || h >= info.heads) {
                        self.selected = None;
                    }
                    self.clamp_focus(&info);
                    self.load = Load::Ready { info, bytes, ms };
                    self.trained = trained;
                    let key = self.survey_key();
                    self.survey.switch_model(&key);
                    (self.search, self.search_error) = (None, None);
                    (self.qk, self.qk_error) = (None, None);
                    self.compare = None;
                    self.masked.clear(); // token positions differ under another vocabulary
                    self.edit += 1; // ask the new model
                }
            }
            FromEngine::Compare { seq, predictions } => {
                if self.trained && self.compare.as_ref().is_none_or(|c| seq >= c.0) {
                    self.compare = Some((seq, Rc::new(predictions)));
                }
            }
            FromEngine::Train(_) | FromEngine::Tune(_) | FromEngine::Translate(_) => {} // the training, fine-tuning and translation reducers take these
            FromEngine::Positions(p) => self.positions = Some(Rc::new(*p)),
            FromEngine::Survey(ev) => self.survey.on_event(ev),
            FromEngine::Search(Ok(v)) => {
                self.search = Some(Rc::new(*v));
                self.search_error = None;
            }
            FromEngine::Search(Err(e)) => self.search_error = Some(e),
            FromEngine::QueriesKeys(Ok(v)) => {
                self.qk = Some(Rc::new(*v));
                self.qk_error = None;
            }
            FromEngine::QueriesKeys(Err(e)) => self.qk_error = Some(e),
            FromEngine::Why(v) => {
                // an older request's attribution still shows until the newer one comes
                if self.why.as_ref().is_none_or(|old| v.seq >= old.seq) {
                    self.why_error = None;
                    self.why = Some(Rc::new(*v));
                }
            }
            FromEngine::Bench(r) => self.bench = Some(r),
            FromEngine::WhyFailed { seq, message } => {
                if seq == self.edit {
                    self.why = None; // an older input's attribution would mislead
                    self.why_error = Some(message);
                }
            }
            FromEngine::Snapshot(s) => {
                // a reply for an older edit still shows (better than nothing); the newer one follows
                if self.snapshot.as_ref().is_none_or(|old| s.seq >= old.seq) {
                    if s.seq == self.edit {
                        self.error = None;
                    }
                    self.shown = self.shown.max(s.seq);
                    self.snapshot = Some(Rc::new(*s));
                }
            }
            FromEngine::Device(st) => {
                // Auto's timing just chose WebGPU: ask again, so what is shown came from it
                let raced_to_gpu = st.on_gpu && st.race.is_some() && self.device.as_ref().is_some_and(|o| o.race.is_none());
                self.device = Some(st);
                if raced_to_gpu && self.ready() {
                    self.edit += 1;
                }
            }
            FromEngine::Failed { seq, message } => {
                if seq == self.edit {
                    self.error = Some(message);
                    self.snapshot = None;
                    self.shown = seq;
                }
            }
        }
    }
}
