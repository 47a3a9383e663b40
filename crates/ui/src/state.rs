//! The page's state as a reducer over `Action`s (as yew's `function_todomvc`), and the coalescing of
//! requests to the worker: at most one forward in flight, and of the inputs typed meanwhile only
//! the latest is sent (`Coalescer`, in its own file). The worker's messages are taken in
//! `state/from_engine.rs`. Pure Rust: tested natively; `page/` wires it to yew.

use super::url::UrlState;
use crate::explain::attribute_bench::AttributionTimings;
use crate::explain::attribution::Method;
use crate::explain::embeddings::PositionView;
use crate::explain::models::{bundled, DEFAULT};
use crate::explain::snapshot::MaskPredictions;
use crate::explain::why::{WhyRequest, WhyView};
use crate::explain::{ModelInfo, Request, Snapshot};
use crate::protocol::{DevicePref, DeviceStatus, FromEngine};
use std::rc::Rc;

pub use super::coalescer::Coalescer;

mod from_engine;

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

/// What the page calls the model in `folder`: a bundled model's name, else the folder's own
/// (`models/my-bert/` -> `my-bert`).
pub fn model_label(folder: &str) -> String {
    bundled(folder).map_or_else(|| short_name(folder).to_string(), |b| b.name.to_string())
}

/// `models/bert-tiny/` -> `default`.
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
    /// "Why this prediction": open (each request then asks for it), the output picked (None: the
    /// first listed), the method, the latest attribution and why it failed.
    pub why_open: bool,
    pub why_target: Option<String>,
    pub why_method: Method,
    pub why: Option<Rc<WhyView>>,
    pub why_error: Option<String>,
    /// `?bench=attribution`: asked for, and the worker's answer.
    pub bench_asked: bool,
    pub bench: Option<Result<AttributionTimings, String>>,
    /// The head map: the survey's progress and report.
    pub survey: super::survey_state::SurveyView,
    /// The logit lens is open (each request then asks for it).
    pub lens_open: bool,
    /// A word whose row the enlarged head opens on (set by the coreference probe's button; any
    /// other selection clears it).
    pub select_word: Option<String>,
    /// The last corpus search's answer, or why there is none.
    pub search: Option<Rc<crate::explain::corpus_search::SearchView>>,
    pub search_error: Option<String>,
    /// The last queries-and-keys scatter, or why there is none.
    pub qk: Option<Rc<crate::explain::qk_scatter::QkView>>,
    pub qk_error: Option<String>,
}

/// Integrated-gradient steps the page asks for.
pub const WHY_STEPS: usize = 32;

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
    /// Open or close the logit lens.
    ShowLens(bool),
    /// Open or close "why this prediction"; explain this output (a target spec); by this method.
    ShowWhy(bool),
    WhyTarget(String),
    /// A clicked output: open "why" on it.
    Explain(String),
    WhyMethod(Method),
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
    /// Open head (layer, head) on `text`, with `word`'s row selected in it.
    OpenOn {
        text: String,
        head: (usize, usize),
        word: Option<String>,
    },
    /// The head map's own state (filter, focus, a survey started).
    Survey(super::survey_state::SurveyAction),
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
            model: url.model.clone().unwrap_or_else(|| DEFAULT.folder.to_string()),
            model_label: model_label(url.model.as_deref().unwrap_or(DEFAULT.folder)),
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
            why_open: url.open.iter().any(|f| f == "why"),
            why_target: None,
            why_method: Method::Grad,
            why: None,
            why_error: None,
            bench_asked: url.bench,
            bench: None,
            survey: Default::default(),
            lens_open: url.open.iter().any(|f| f == "lens"),
            search: None,
            search_error: None,
            qk: None,
            qk_error: None,
            select_word: None,
        }
    }

    pub fn to_url(&self) -> UrlState {
        UrlState {
            text: Some(self.text.clone()),
            pair: self.pair.clone(),
            masked: self.masked.clone(),
            heads_off: self.heads_off.clone(),
            selected: self.selected,
            model: (self.model != DEFAULT.folder).then(|| self.model.clone()),
            device: (self.device_pref != DevicePref::Auto).then_some(self.device_pref),
            present: self.presenter,
            focus: (self.head_focus != self.selected.unwrap_or((0, 0))).then_some(self.head_focus),
            ffn: (self.ffn_focus != (0, 0)).then_some(self.ffn_focus),
            hide: self.hide_specials,
            open: [
                (self.head_steps, "steps"),
                (self.ffn_steps, "ffn"),
                (self.derived_open, "derived"),
                (self.why_open, "why"),
                (self.lens_open, "lens"),
            ]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, f)| f.to_string())
            .collect(),
            bench: false,
        }
    }

    /// The model the head map's survey is for: the loaded one, or the one trained in the page.
    pub fn survey_key(&self) -> String {
        match self.trained {
            true => format!("{} (trained in this page)", self.model_label),
            false => self.model_label.clone(),
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
            why: self.why_open.then(|| WhyRequest { target: self.why_target.clone(), method: Some(self.why_method), steps: WHY_STEPS }),
            lens: self.lens_open,
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
            Action::OpenOn { text, head, word } => {
                self.apply(Action::SetText(text));
                self.apply(Action::Select(Some(head)));
                self.select_word = word;
            }
            Action::Select(s) => {
                self.select_word = None;
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
            Action::ShowLens(open) => {
                if open != self.lens_open {
                    self.lens_open = open;
                    if open {
                        self.edit += 1; // ask again, with the lens
                    }
                }
            }
            Action::ShowWhy(open) => {
                if open != self.why_open {
                    self.why_open = open;
                    if open {
                        self.edit += 1; // ask again, with the attribution
                    }
                }
            }
            Action::Explain(spec) => {
                self.why_open = true;
                self.why_target = Some(spec);
                self.edit += 1;
            }
            Action::WhyTarget(spec) => {
                if self.why_target.as_deref() != Some(spec.as_str()) {
                    self.why_target = Some(spec);
                    self.edit += 1;
                }
            }
            Action::WhyMethod(m) => {
                if m != self.why_method {
                    self.why_method = m;
                    self.edit += 1;
                }
            }
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
            Action::Survey(a) => self.survey.apply(a),
            Action::Engine(msg) => self.on_engine(msg),
        }
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
