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
    Fetching {
        loaded: u64,
        total: u64,
    },
    Ready {
        info: ModelInfo,
        bytes: u64,
        ms: f64,
    },
    Failed(String),
}

/// A model the user asked for, on its way.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    pub label: String,
    /// The folder to keep in the URL once it loads.
    pub path: Option<String>,
    pub loaded: u64,
    pub total: u64,
}

/// `models/default/` -> `default`.
pub fn short_name(model: &str) -> &str {
    let m = model.trim_end_matches('/');
    m.rsplit('/').next().filter(|s| !s.is_empty()).unwrap_or(m)
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
    /// The (layer, head) shown step by step, and the (layer, token) of the FFN view: the worker
    /// sends only their details.
    pub head_focus: (usize, usize),
    pub ffn_focus: (usize, usize),
    /// "One head, step by step" and the FFN detail are open (closed: not computed, not sent).
    pub head_steps: bool,
    pub ffn_steps: bool,
    /// The head average and rollout fold is open.
    pub derived_open: bool,
    /// [CLS]/[SEP] hidden in the attention views (a view of the same snapshot: no new request).
    pub hide_specials: bool,
    /// The model folder (relative to the page), as kept in the URL.
    pub model: String,
    /// What the page calls the loaded model (the folder's name, a URL, "your files").
    pub model_label: String,
    pub load: Load,
    /// A model the user asked for that is still loading, while the previous one keeps answering.
    pub pending: Option<Pending>,
    /// Why the model the user asked for could not be loaded (the previous one stays).
    pub model_error: Option<String>,
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
    /// Presenter mode: everything larger, for a projector (`?present=1`).
    pub presenter: bool,
    /// The position views of the model in use (sent once per model).
    pub positions: Option<Rc<PositionView>>,
    /// Milliseconds the page spent downloading the files it handed to the worker (the early
    /// download of the default model), added to the worker's load time when it answers.
    pub fetched_ms: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    SetText(String),
    SetPair(String),
    /// Mask or unmask the token at this position.
    ToggleMask(usize),
    /// Switch a head on or off.
    ToggleHead(usize, usize),
    /// Enlarge a heatmap (None closes the enlarged view); an enlarged head is also shown step by step.
    Select(Option<(usize, usize)>),
    /// Show this (layer, head) step by step.
    FocusHead(usize, usize),
    /// Show the FFN half of this (layer, token).
    FocusFfn(usize, usize),
    /// Open or close "one head, step by step" (`head`) or the FFN detail.
    ShowSteps {
        head: bool,
        open: bool,
    },
    /// Hide [CLS]/[SEP] in the attention views.
    HideSpecials(bool),
    /// Open or close the head average and rollout.
    ShowDerived(bool),
    /// Run the forward on this backend (the current input is asked for again).
    SetDevice(DevicePref),
    /// The user asked for another model: its label, and its folder when it can be kept in the URL
    /// (a same-origin path; None for picked files or another origin's URL).
    LoadModel {
        label: String,
        path: Option<String>,
    },
    /// The picked files are not a model (said before anything is sent to the worker).
    ModelError(String),
    SetPresenter(bool),
    /// The page downloaded the model's files itself in this many ms (sent to the worker next).
    Fetched(f64),
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
            head_focus: url.focus.or(url.selected).unwrap_or((0, 0)),
            ffn_focus: url.ffn.unwrap_or((0, 0)),
            head_steps: url.open.iter().any(|f| f == "steps"),
            ffn_steps: url.open.iter().any(|f| f == "ffn"),
            derived_open: url.open.iter().any(|f| f == "derived"),
            hide_specials: url.hide,
            model: url.model.clone().unwrap_or_else(|| "models/default/".to_string()),
            model_label: short_name(url.model.as_deref().unwrap_or("models/default/")).to_string(),
            load: Load::Fetching { loaded: 0, total: 0 },
            pending: None,
            model_error: None,
            snapshot: None,
            error: None,
            edit: 1,
            shown: 0,
            trained: false,
            compare: None,
            device_pref: url.device.unwrap_or_default(),
            device: None,
            presenter: url.present,
            positions: None,
            fetched_ms: 0.0,
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
            present: self.presenter,
            focus: (self.head_focus != self.selected.unwrap_or((0, 0))).then_some(self.head_focus),
            ffn: (self.ffn_focus != (0, 0)).then_some(self.ffn_focus),
            hide: self.hide_specials,
            open: [(self.head_steps, "steps"), (self.ffn_steps, "ffn"), (self.derived_open, "derived")]
                .into_iter()
                .filter(|(on, _)| *on)
                .map(|(_, f)| f.to_string())
                .collect(),
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
            head_focus: self.head_focus,
            ffn_focus: self.ffn_focus,
            head_steps: self.head_steps,
            ffn_steps: self.ffn_steps,
        }
    }

    pub fn apply(&mut self, action: Action) {
        match action {
            Action::SetText(t) => {
                if t != self.text {
                    self.text = t;
                    self.model_error = None; // said once; typing moves on
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
            Action::LoadModel { label, path } => {
                self.pending = Some(Pending { label, path, loaded: 0, total: 0 });
                self.model_error = None;
            }
            Action::SetPresenter(on) => self.presenter = on,
            Action::Fetched(ms) => self.fetched_ms = ms,
            Action::ModelError(m) => {
                self.pending = None;
                self.model_error = Some(m);
            }
            Action::Select(s) => {
                self.selected = s;
                if let Some((l, h)) = s {
                    self.apply(Action::FocusHead(l, h));
                }
            }
            Action::FocusHead(l, h) => {
                if (l, h) != self.head_focus {
                    self.head_focus = (l, h);
                    self.edit += 1;
                }
            }
            Action::ShowSteps { head, open } => {
                let shown = if head { &mut self.head_steps } else { &mut self.ffn_steps };
                if *shown != open {
                    *shown = open;
                    if open {
                        self.edit += 1; // ask for the details now shown
                    }
                }
            }
            Action::HideSpecials(on) => self.hide_specials = on,
            Action::ShowDerived(open) => self.derived_open = open,
            Action::FocusFfn(l, t) => {
                if (l, t) != self.ffn_focus {
                    self.ffn_focus = (l, t);
                    self.edit += 1;
                }
            }
            Action::SetDevice(d) => {
                if d != self.device_pref {
                    self.device_pref = d;
                    self.edit += 1;
                }
            }
            Action::Engine(msg) => self.on_engine(msg),
        }
    }

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

    fn on_engine(&mut self, msg: FromEngine) {
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
                    self.model = p.path.unwrap_or_else(|| "models/default/".to_string());
                    self.model_label = p.label;
                }
                self.model_error = None;
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
            head_detail: None,
            ffn_detail: None,
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
        s.apply(Action::Fetched(40.0)); // the page's early download, then the worker's 5 ms
        s.apply(Action::Engine(FromEngine::Loaded { info, bytes: 100, ms: 5.0 }));
        assert!(s.ready());
        assert!(matches!(s.load, Load::Ready { ms, .. } if ms == 45.0), "{:?}", s.load);
        assert_eq!(s.fetched_ms, 0.0, "counted once");
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
        let small = ModelInfo { layers: 1, heads: 1, ..Default::default() };
        s.apply(Action::Select(Some((1, 1))));
        let e = s.edit;
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
    fn a_model_the_user_loads_replaces_the_old_one_only_when_it_loads() {
        let mut s = AppState::from_url(&UrlState::parse("?text=a+b&mask=1"));
        assert_eq!(s.model_label, "default");
        let info = ModelInfo { layers: 2, heads: 2, ..Default::default() };
        s.apply(Action::Engine(FromEngine::Loaded { info: info.clone(), bytes: 10, ms: 1.0 }));
        let e = s.edit;
        // a bad one: said, and the old model stays (no new request, nothing cleared)
        s.apply(Action::LoadModel { label: "mine (your files)".into(), path: None });
        s.apply(Action::Engine(FromEngine::Progress { loaded: 5, total: 9 }));
        assert_eq!(s.pending.as_ref().map(|p| (p.loaded, p.total)), Some((5, 9)));
        assert!(matches!(s.load, Load::Ready { bytes: 10, .. }), "progress of another model leaves the old one shown");
        s.apply(Action::Engine(FromEngine::LoadFailed("model.safetensors: truncated".into())));
        let m = s.model_error.clone().unwrap();
        assert!(m.contains("mine (your files)") && m.contains("\"default\" stays") && m.contains("truncated"), "{m}");
        assert!(s.ready() && s.pending.is_none() && s.edit == e && s.masked == [1]);
        s.apply(Action::SetText("a c".into()));
        assert!(s.model_error.is_none(), "typing moves on");
        // a good one from a same-origin folder: kept in the URL, and the input is asked again
        s.apply(Action::LoadModel { label: "tiny".into(), path: Some("models/tiny/".into()) });
        s.apply(Action::ToggleMask(2));
        let e = s.edit;
        s.apply(Action::Engine(FromEngine::Positions(Box::default())));
        assert!(s.positions.is_some());
        s.apply(Action::Engine(FromEngine::Loaded { info, bytes: 20, ms: 1.0 }));
        assert_eq!((s.model.as_str(), s.model_label.as_str(), s.edit), ("models/tiny/", "tiny", e + 1));
        assert!(s.positions.is_none(), "the old model's position views go (the new ones follow its first answer)");
        assert!(s.masked.is_empty() && s.pending.is_none());
        assert_eq!(s.to_url().model.as_deref(), Some("models/tiny/"));
        s.apply(Action::ModelError("not a model".into()));
        assert_eq!(s.model_error.as_deref(), Some("not a model"));
    }

    #[test]
    fn view_choices_live_in_the_url() {
        let s = AppState::from_url(&UrlState::parse("?text=hi&head=1.0&focus=0.1&ffn=1.3&hide=1&open=ffn,derived"));
        assert_eq!((s.selected, s.head_focus, s.ffn_focus), (Some((1, 0)), (0, 1), (1, 3)));
        assert!(s.hide_specials && s.ffn_steps && s.derived_open && !s.head_steps);
        assert!(s.request().ffn_steps && !s.request().head_steps, "an open fold from the URL is asked for");
        let q = s.to_url().to_query();
        assert_eq!(AppState::from_url(&UrlState::parse(&q)).to_url(), s.to_url(), "{q}");
        // the defaults stay out of the URL; an enlarged head is the focus without `focus=`
        let mut d = AppState::from_url(&UrlState::parse("?text=hi"));
        assert_eq!(d.to_url().to_query(), "?text=hi");
        d.apply(Action::Select(Some((1, 1))));
        assert_eq!(d.to_url().to_query(), "?text=hi&head=1.1");
        d.apply(Action::HideSpecials(true));
        d.apply(Action::ShowDerived(true));
        d.apply(Action::ShowSteps { head: true, open: true });
        assert_eq!(d.to_url().to_query(), "?text=hi&head=1.1&hide=1&open=steps,derived");
    }

    #[test]
    fn focus_changes_ask_again_and_an_enlarged_head_is_focused() {
        let mut s = AppState::from_url(&UrlState::parse("?text=hi"));
        let e = s.edit;
        s.apply(Action::FocusHead(0, 0));
        assert_eq!(s.edit, e, "same focus, no request");
        s.apply(Action::Select(Some((1, 1))));
        assert_eq!((s.head_focus, s.edit, s.request().head_focus), ((1, 1), e + 1, (1, 1)));
        s.apply(Action::Select(None));
        assert_eq!(s.head_focus, (1, 1), "closing the enlarged view keeps the focus");
        s.apply(Action::FocusFfn(1, 4));
        assert_eq!((s.request().ffn_focus, s.edit), ((1, 4), e + 2));
        // closed views are not asked for; opening one asks again, closing does not
        assert!(!s.request().head_steps && !s.request().ffn_steps);
        s.apply(Action::ShowSteps { head: true, open: true });
        assert_eq!((s.request().head_steps, s.request().ffn_steps, s.edit), (true, false, e + 3));
        s.apply(Action::ShowSteps { head: true, open: false });
        assert_eq!((s.request().head_steps, s.edit), (false, e + 3));
        s.apply(Action::Engine(FromEngine::Loaded { info: ModelInfo { layers: 1, heads: 1, ..Default::default() }, bytes: 0, ms: 0.0 }));
        assert_eq!((s.head_focus, s.ffn_focus), ((0, 0), (0, 4)));
    }

    #[test]
    fn url_round_trip() {
        let mut s = AppState::from_url(&UrlState::parse("?text=hi&pair=there&model=models/x"));
        s.apply(Action::Select(Some((1, 0))));
        s.apply(Action::SetPresenter(true));
        let back = AppState::from_url(&UrlState::parse(&s.to_url().to_query()));
        assert_eq!(
            (back.text, back.pair, back.selected, back.model, back.presenter),
            (s.text.clone(), s.pair.clone(), s.selected, s.model.clone(), true)
        );
        s.apply(Action::SetPresenter(false));
        assert!(!s.to_url().to_query().contains("present"));
    }
}
