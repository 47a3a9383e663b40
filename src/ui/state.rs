//! The page's state as a reducer over `Action`s (as yew's `function_todomvc`), and the coalescing of
//! requests to the worker: at most one forward in flight, and of the inputs typed meanwhile only
//! the latest is sent. Pure Rust: tested natively; `app.rs` wires it to yew.

use super::protocol::{DevicePref, DeviceStatus, FromEngine};
use super::url::UrlState;
use crate::explain::embeddings::PositionView;
use crate::explain::snapshot::MaskPredictions;
use crate::explain::{ModelInfo, Request, Snapshot};
use std::rc::Rc;

/// Predictions kept at each [MASK].
pub const TOP_K: usize = 10;

/// The sentence the page opens with when the URL has none.
pub const DEFAULT_TEXT: &str = "the cat sat on the [MASK].";

#[derive(Clone, Debug, PartialEq)]
pub enum Load {
    /// Bytes received of the model files (total 0 while unknown).
    Fetching { loaded: u64, total: u64 },
    Ready { info: ModelInfo, bytes: u64, ms: f64 },
    Failed(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct AppState {
    pub text: String,
    pub pair: String,
    /// Token positions masked by a click.
    pub masked: Vec<usize>,
    /// (layer, head) switched off.
    pub heads_off: Vec<(usize, usize)>,
    /// The enlarged heatmap.
    pub selected: Option<(usize, usize)>,
    /// The model folder (relative to the page).
    pub model: String,
    pub load: Load,
    /// The latest snapshot received (None after an input error).
    pub snapshot: Option<Rc<Snapshot>>,
    /// A message about the current input (empty text, ...), shown in the error box.
    pub error: Option<String>,
    /// Sequence number of the latest edit; a reply for an older one is stale.
    pub edit: u64,
    /// Sequence number of the latest reply shown (snapshot or message); equals `edit` once the
    /// page shows the current input.
    pub shown: u64,
    /// The explainer answers with the model trained in the page.
    pub trained: bool,
    /// Then: the loaded model's guesses for the same request (seq, groups), side by side.
    pub compare: Option<(u64, Rc<Vec<MaskPredictions>>)>,
    /// The backend the user chose (`?device=`), and what the worker reports about it.
    pub device_pref: DevicePref,
    pub device: Option<DeviceStatus>,
    /// The position views of the model in use (sent once per model).
    pub positions: Option<Rc<PositionView>>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    SetText(String),
    SetPair(String),
    /// Mask or unmask the token at this position.
    ToggleMask(usize),
    /// Switch a head on or off.
    ToggleHead(usize, usize),
    /// Enlarge a heatmap (None closes the enlarged view).
    Select(Option<(usize, usize)>),
    /// Run the forward on this backend (the current input is asked for again).
    SetDevice(DevicePref),
    /// A message from the worker.
    Engine(FromEngine),
}

impl AppState {
    pub fn from_url(url: &UrlState) -> Self {
        AppState {
            text: url.text.clone().unwrap_or_else(|| DEFAULT_TEXT.to_string()),
            pair: url.pair.clone(),
            masked: url.masked.clone(),
            heads_off: url.heads_off.clone(),
            selected: url.selected,
            model: url.model.clone().unwrap_or_else(|| "models/default/".to_string()),
            load: Load::Fetching { loaded: 0, total: 0 },
            snapshot: None,
            error: None,
            edit: 1,
            shown: 0,
            trained: false,
            compare: None,
            device_pref: url.device.unwrap_or_default(),
            device: None,
            positions: None,
        }
    }

    pub fn to_url(&self) -> UrlState {
        UrlState {
            text: Some(self.text.clone()),
            pair: self.pair.clone(),
            masked: self.masked.clone(),
            heads_off: self.heads_off.clone(),
            selected: self.selected,
            model: (self.model != "models/default/").then(|| self.model.clone()),
            device: (self.device_pref != DevicePref::Auto).then_some(self.device_pref),
        }
    }

    pub fn ready(&self) -> bool {
        matches!(self.load, Load::Ready { .. })
    }

    /// The request for the current inputs.
    pub fn request(&self) -> Request {
        Request {
            seq: self.edit,
            text: self.text.clone(),
            pair: Some(self.pair.clone()).filter(|p| !p.trim().is_empty()),
            heads_off: self.heads_off.clone(),
            masked: self.masked.clone(),
            top_k: TOP_K,
        }
    }

    pub fn apply(&mut self, action: Action) {
        match action {
            Action::SetText(t) => {
                if t != self.text {
                    self.text = t;
                    self.masked.clear(); // positions refer to the old tokens
                    self.edit += 1;
                }
            }
            Action::SetPair(p) => {
                if p != self.pair {
                    self.pair = p;
                    self.masked.clear();
                    self.edit += 1;
                }
            }
            Action::ToggleMask(i) => {
                match self.masked.iter().position(|&m| m == i) {
                    Some(k) => {
                        self.masked.remove(k);
                    }
                    None => {
                        self.masked.push(i);
                        self.masked.sort_unstable();
                    }
                }
                self.edit += 1;
            }
            Action::ToggleHead(l, h) => {
                match self.heads_off.iter().position(|&x| x == (l, h)) {
                    Some(k) => {
                        self.heads_off.remove(k);
                    }
                    None => {
                        self.heads_off.push((l, h));
                        self.heads_off.sort_unstable();
                    }
                }
                self.edit += 1;
            }
            Action::Select(s) => self.selected = s,
            Action::SetDevice(d) => {
                if d != self.device_pref {
                    self.device_pref = d;
                    self.edit += 1;
                }
            }
            Action::Engine(msg) => self.on_engine(msg),
        }
    }

    fn on_engine(&mut self, msg: FromEngine) {
        match msg {
            FromEngine::Progress { loaded, total } => {
                if !self.ready() {
                    self.load = Load::Fetching { loaded, total };
                }
            }
            FromEngine::Loaded { info, bytes, ms } => {
                // drop what does not exist in this model
                self.heads_off.retain(|&(l, h)| l < info.layers && h < info.heads);
                if self.selected.is_some_and(|(l, h)| l >= info.layers || h >= info.heads) {
                    self.selected = None;
                }
                self.load = Load::Ready { info, bytes, ms };
            }
            FromEngine::LoadFailed(m) => self.load = Load::Failed(m),
            FromEngine::ModelChanged { info, trained } => {
                if let Load::Ready { bytes, ms, .. } = self.load {
                    self.heads_off.retain(|&(l, h)| l < info.layers && h < info.heads);
                    if self.selected.is_some_and(|(l, h)| l >= info.layers || h >= info.heads) {
                        self.selected = None;
                    }
                    self.load = Load::Ready { info, bytes, ms };
                    self.trained = trained;
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
            FromEngine::Train(_) => {} // the training panel's reducer takes these
            FromEngine::Positions(p) => self.positions = Some(Rc::new(*p)),
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

/// At most one request in flight; while it runs, newer requests replace each other and only the
/// last is sent when the reply comes.
#[derive(Clone, Debug, Default)]
pub struct Coalescer {
    in_flight: Option<u64>,
    pending: Option<Request>,
    /// The seq of the last request sent or queued: the same edit is not sent twice.
    last: Option<u64>,
}

impl Coalescer {
    /// Returns the request to send now, or None when it waits (or was already sent).
    pub fn submit(&mut self, req: Request) -> Option<Request> {
        if self.last == Some(req.seq) {
            return None;
        }
        self.last = Some(req.seq);
        if self.in_flight.is_some() {
            self.pending = Some(req);
            None
        } else {
            self.in_flight = Some(req.seq);
            Some(req)
        }
    }

    /// The reply for `seq` came: returns the waiting request to send next, if any.
    pub fn done(&mut self, seq: u64) -> Option<Request> {
        if self.in_flight != Some(seq) {
            return None;
        }
        self.in_flight = None;
        let next = self.pending.take()?;
        self.in_flight = Some(next.seq);
        Some(next)
    }

    pub fn busy(&self) -> bool {
        self.in_flight.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(seq: u64) -> Request {
        Request { seq, text: format!("edit {seq}"), ..Default::default() }
    }

    #[test]
    fn only_the_latest_waiting_request_is_sent() {
        let mut c = Coalescer::default();
        assert_eq!(c.submit(req(1)).map(|r| r.seq), Some(1));
        assert!(c.busy());
        for s in 2..=9 {
            assert_eq!(c.submit(req(s)), None, "queued while 1 runs");
        }
        assert_eq!(c.done(1).map(|r| r.seq), Some(9), "2..8 are dropped");
        assert_eq!(c.done(5), None, "a reply for something not in flight changes nothing");
        assert_eq!(c.done(9), None);
        assert!(!c.busy());
        assert_eq!(c.submit(req(9)), None, "the same edit is not sent twice");
        assert_eq!(c.submit(req(10)).map(|r| r.seq), Some(10));
    }

    #[test]
    fn edits_bump_the_sequence_and_clear_stale_masks() {
        let mut s = AppState::from_url(&UrlState::parse("?text=a+b&mask=1"));
        assert_eq!(s.masked, [1]);
        let e = s.edit;
        s.apply(Action::SetText("a b".into()));
        assert_eq!(s.edit, e, "no change, no new request");
        s.apply(Action::SetText("a c".into()));
        assert_eq!((s.edit, s.masked.len()), (e + 1, 0));
        s.apply(Action::ToggleMask(2));
        s.apply(Action::ToggleMask(1));
        assert_eq!(s.masked, [1, 2]);
        s.apply(Action::ToggleMask(2));
        assert_eq!(s.masked, [1]);
        s.apply(Action::ToggleHead(1, 0));
        s.apply(Action::ToggleHead(0, 1));
        assert_eq!(s.request().heads_off, [(0, 1), (1, 0)]);
        s.apply(Action::ToggleHead(0, 1));
        assert_eq!(s.request().heads_off, [(1, 0)]);
        assert_eq!(s.request().seq, s.edit);
        assert_eq!(s.request().pair, None);
    }

    fn snap(seq: u64) -> Box<Snapshot> {
        Box::new(Snapshot {
            seq,
            tokens: vec![],
            layers: 0,
            heads: 0,
            attention: vec![],
            hidden: vec![],
            predictions: vec![],
            is_next: None,
            heads_off: vec![],
            truncated: false,
            forward_ms: 1.0,
            device: String::new(),
            embeddings: Default::default(),
        })
    }

    #[test]
    fn replies_errors_and_loading() {
        let mut s = AppState::from_url(&UrlState::parse("?off=5.5&head=3.0"));
        assert_eq!(s.text, DEFAULT_TEXT);
        s.apply(Action::Engine(FromEngine::Progress { loaded: 10, total: 100 }));
        assert_eq!(s.load, Load::Fetching { loaded: 10, total: 100 });
        let info = ModelInfo { layers: 2, heads: 2, ..Default::default() };
        s.apply(Action::Engine(FromEngine::Loaded { info, bytes: 100, ms: 5.0 }));
        assert!(s.ready());
        assert!(s.heads_off.is_empty() && s.selected.is_none(), "out-of-range state from the URL is dropped");

        let e = s.edit;
        s.apply(Action::Engine(FromEngine::Snapshot(snap(e))));
        assert_eq!(s.snapshot.as_ref().unwrap().seq, e);
        s.apply(Action::SetText(String::new()));
        s.apply(Action::Engine(FromEngine::Failed { seq: s.edit, message: "empty".into() }));
        assert_eq!(s.error.as_deref(), Some("empty"));
        assert!(s.snapshot.is_none());
        assert_eq!(s.shown, s.edit);
        s.apply(Action::SetText("x".into()));
        s.apply(Action::Engine(FromEngine::Failed { seq: s.edit - 1, message: "stale".into() }));
        assert_eq!(s.error.as_deref(), Some("empty"), "a stale failure is ignored");
        s.apply(Action::Engine(FromEngine::Snapshot(snap(s.edit))));
        assert_eq!(s.error, None);
        s.apply(Action::Engine(FromEngine::Snapshot(snap(1))));
        assert_eq!(s.snapshot.as_ref().unwrap().seq, s.edit, "an older snapshot does not replace a newer one");
        let e = s.edit;
        let small = ModelInfo { layers: 1, heads: 1, ..Default::default() };
        s.apply(Action::Select(Some((1, 1))));
        s.apply(Action::Engine(FromEngine::ModelChanged { info: small.clone(), trained: true }));
        assert_eq!((s.edit, s.trained, s.selected), (e + 1, true, None), "another model: a new request");
        assert!(matches!(&s.load, Load::Ready { info, .. } if *info == small));
        s.apply(Action::Engine(FromEngine::Compare { seq: s.edit, predictions: vec![] }));
        s.apply(Action::Engine(FromEngine::Compare { seq: s.edit - 1, predictions: vec![MaskPredictions { position: 1, top: vec![] }] }));
        assert_eq!(s.compare.as_ref().map(|c| (c.0, c.1.len())), Some((s.edit, 0)), "an older comparison does not replace a newer one");
        s.apply(Action::Engine(FromEngine::ModelChanged { info: small.clone(), trained: false }));
        assert!(s.compare.is_none() && !s.trained);
        s.apply(Action::Engine(FromEngine::Compare { seq: s.edit, predictions: vec![] }));
        assert!(s.compare.is_none(), "no comparison with the loaded model itself");
        s.apply(Action::Engine(FromEngine::LoadFailed("bad".into())));
        assert_eq!(s.load, Load::Failed("bad".into()));
    }

    #[test]
    fn url_round_trip() {
        let mut s = AppState::from_url(&UrlState::parse("?text=hi&pair=there&model=models/x"));
        s.apply(Action::Select(Some((1, 0))));
        let back = AppState::from_url(&UrlState::parse(&s.to_url().to_query()));
        assert_eq!((back.text, back.pair, back.selected, back.model), (s.text, s.pair, s.selected, s.model));
    }
}
