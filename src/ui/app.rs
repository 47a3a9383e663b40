//! The page: state in a reducer (`state.rs`), the engine in a Web Worker (`crate::worker::engine`)
//! reached through a yew-agent reactor bridge, the URL kept in step, and the views laid out. The
//! browser calls it makes (URL, tour pointer, performance marks) are in `browser.rs`.
//! It is over 400 lines because `App` still holds the whole page: the worker bridge, three reducers,
//! the tour and both tabs. Splitting it into header / explain / train components with the bridge in
//! a yew context is the next step.

use super::browser::{absolute, location_search, mark, point_at, replace_url_soon, tour_key, WORKER_PATH};
use super::components::download_text;
use super::components::{
    Ablation, AttentionPanel, Badge, BeforePredictions, Control, EmbedSection, ErrorBox, Filmstrip, Layers, LoadProgress, MaskingPanel,
    ModelPicker, Predictions, SnapRef, TextInput, Tokens, TourPanel, TrainCharts, TrainPanel,
};
use super::components::{FfnPanel, Fold, HeadSteps, LayerTrajectory};
use super::state::{Action, AppState, Coalescer, Load};
use super::tour::{on_key, Tab, Tour};
use super::train_state::{TrainAction, TrainView};
use super::url::UrlState;
use crate::worker::engine::Engine;
use crate::worker::protocol::{FromEngine, ToEngine, TrainCmd, TrainEvent};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;
use yew_agent::reactor::{use_reactor_bridge, ReactorEvent, ReactorProvider, UseReactorBridgeHandle};

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.apply(action);
        Rc::new(next)
    }
}

impl Reducible for TrainView {
    type Action = TrainAction;

    fn reduce(self: Rc<Self>, action: TrainAction) -> Rc<Self> {
        let mut next = (*self).clone();
        next.apply(action);
        Rc::new(next)
    }
}

/// The tour moves by key names.
pub struct TourKey(&'static str);

impl Reducible for Tour {
    type Action = TourKey;

    fn reduce(self: Rc<Self>, k: TourKey) -> Rc<Self> {
        Rc::new(match k.0 {
            "open" => Tour { at: Some(0) },
            key => on_key(*self, key),
        })
    }
}

/// A callback that hands `f(value)` to the page's state.
fn to_state<T: 'static>(state: &UseReducerHandle<AppState>, f: impl Fn(T) -> Action + 'static) -> Callback<T> {
    let d = state.dispatcher();
    Callback::from(move |v: T| d.dispatch(f(v)))
}

#[component]
pub fn Root() -> Html {
    html! {
        <ReactorProvider<Engine> path={WORKER_PATH}>
            <App />
        </ReactorProvider<Engine>>
    }
}

type Bridge = UseReactorBridgeHandle<Engine>;

#[component]
fn App() -> Html {
    let state = use_reducer(|| AppState::from_url(&UrlState::parse(&location_search())));
    let coalescer = use_mut_ref(Coalescer::default);
    let bridge_cell: Rc<RefCell<Option<Bridge>>> = use_mut_ref(|| None);

    let train = use_reducer(TrainView::default);
    let tab_train = use_state(|| location_search().contains("view=train"));
    let tour = use_reducer(Tour::default);
    // the tour's keys, on the whole page
    {
        let d = tour.dispatcher();
        use_effect_with((), move |_| {
            let cb = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::KeyboardEvent)>::new(move |e: web_sys::KeyboardEvent| {
                if let Some(k) = tour_key(&e) {
                    d.dispatch(TourKey(k));
                }
            });
            let doc = web_sys::window().and_then(|w| w.document());
            if let Some(doc) = &doc {
                let _ = doc.add_event_listener_with_callback("keydown", wasm_bindgen::JsCast::unchecked_ref(cb.as_ref()));
            }
            move || {
                if let Some(doc) = doc {
                    let _ = doc.remove_event_listener_with_callback("keydown", wasm_bindgen::JsCast::unchecked_ref(cb.as_ref()));
                }
            }
        });
    }
    // a step shows its tab and points at its view
    let shown_train = tour.step().map_or(*tab_train, |s| s.tab == Tab::Train);
    {
        let tab_train = tab_train.clone();
        use_effect_with(tour.at, move |at| {
            let step = at.and(Tour { at: *at }.step());
            if let Some(s) = step {
                tab_train.set(s.tab == Tab::Train);
            }
            point_at(step.map(|s| s.target));
        });
    }

    let bridge = {
        let dispatcher = state.dispatcher();
        let train_d = train.dispatcher();
        let coalescer = coalescer.clone();
        let cell = bridge_cell.clone();
        use_reactor_bridge::<Engine, _>(move |ev| match ev {
            ReactorEvent::Output(FromEngine::Train(ev)) => {
                if let TrainEvent::Saved(links) = &ev {
                    train_d.dispatch(TrainAction::Links(links.clone()));
                }
                train_d.dispatch(TrainAction::Event(ev));
            }
            ReactorEvent::Output(msg) => {
                let done = match &msg {
                    FromEngine::Snapshot(s) => Some(s.seq),
                    FromEngine::Failed { seq, .. } => Some(*seq),
                    _ => None,
                };
                dispatcher.dispatch(Action::Engine(msg));
                // the reply frees the worker: send the latest input that waited, if any
                if let Some(next) = done.and_then(|seq| coalescer.borrow_mut().done(seq)) {
                    if let Some(b) = cell.borrow().as_ref() {
                        b.send(ToEngine::Explain(next));
                    }
                }
            }
            ReactorEvent::Finished => {
                dispatcher.dispatch(Action::Engine(FromEngine::LoadFailed("The engine's worker stopped; reload the page.".into())))
            }
        })
    };
    *bridge_cell.borrow_mut() = Some(bridge.clone());

    // Load the model once: from the page's early download of the default model when there is
    // one (src/ui/early.rs), otherwise the worker fetches the folder.
    {
        let bridge = bridge.clone();
        let base_url = absolute(&state.model);
        let d = state.dispatcher();
        use_effect_with((), move |_| match super::early::take(&base_url) {
            Some(early) => wasm_bindgen_futures::spawn_local(async move {
                match early.files(|p| d.dispatch(Action::Engine(p))).await {
                    Some((files, ms)) => {
                        d.dispatch(Action::Fetched(ms));
                        bridge.send(ToEngine::LoadFiles(files));
                    }
                    None => bridge.send(ToEngine::Load { base_url }),
                }
            }),
            None => bridge.send(ToEngine::Load { base_url }),
        });
    }
    // Tell the worker which backend to use (before the request that the change triggers).
    {
        let bridge = bridge.clone();
        use_effect_with(state.device_pref, move |d| bridge.send(ToEngine::Device(*d)));
    }
    // Ask for a snapshot whenever the inputs change (and once the model is ready).
    {
        let bridge = bridge.clone();
        let req = state.request();
        let coalescer = coalescer.clone();
        use_effect_with((state.edit, state.ready()), move |(_, ready)| {
            if *ready {
                if let Some(r) = coalescer.borrow_mut().submit(req) {
                    bridge.send(ToEngine::Explain(r));
                }
            }
        });
    }
    // Keep the URL in step with the state (a moment after the last change).
    {
        let timer = use_mut_ref(|| None);
        use_effect_with(state.to_url(), move |u| replace_url_soon(&timer, u.to_query()));
    }
    // Mark the first snapshot on screen (the e2e suite reads it as "interactive").
    {
        let has = state.snapshot.is_some();
        use_effect_with(has, |has| {
            if *has {
                mark("bertscope:snapshot");
            }
        });
    }

    let on = |f: fn(String) -> Action| to_state(&state, f);
    let on_text = on(Action::SetText);
    let on_device = {
        let d = state.dispatcher();
        Callback::from(move |p| d.dispatch(Action::SetDevice(p)))
    };
    let on_export = state.snapshot.clone().map(|s| Callback::from(move |()| export_json(&s)));
    let on_pair = on(Action::SetPair);
    let on_files = {
        let (d, bridge) = (state.dispatcher(), bridge.clone());
        Callback::from(move |(files, label): (Vec<crate::worker::model_files::PickedFile>, String)| {
            d.dispatch(Action::LoadModel { label, path: None });
            bridge.send(ToEngine::LoadFiles(files));
        })
    };
    let on_url = {
        let (d, bridge) = (state.dispatcher(), bridge.clone());
        Callback::from(move |u: String| {
            let folder = if u.ends_with('/') { u.clone() } else { format!("{u}/") };
            // a same-origin folder is kept in the URL; another origin's is loaded once, as asked
            let path = crate::ui::url::safe_model_path(&folder);
            d.dispatch(Action::LoadModel { label: crate::ui::state::short_name(&folder).to_string(), path });
            bridge.send(ToEngine::Load { base_url: absolute(&folder) });
        })
    };
    let on_model_error = {
        let d = state.dispatcher();
        Callback::from(move |m: String| d.dispatch(Action::ModelError(m)))
    };
    let on_mask = {
        let d = state.dispatcher();
        Callback::from(move |i: usize| d.dispatch(Action::ToggleMask(i)))
    };
    let on_head = {
        let d = state.dispatcher();
        Callback::from(move |(l, h): (usize, usize)| d.dispatch(Action::ToggleHead(l, h)))
    };
    let on_select = {
        let d = state.dispatcher();
        Callback::from(move |s: Option<(usize, usize)>| d.dispatch(Action::Select(s)))
    };

    let on_head_focus = {
        let d = state.dispatcher();
        Callback::from(move |(l, h): (usize, usize)| d.dispatch(Action::FocusHead(l, h)))
    };
    let on_ffn_focus = {
        let d = state.dispatcher();
        Callback::from(move |(l, t): (usize, usize)| d.dispatch(Action::FocusFfn(l, t)))
    };
    let on_train_action = {
        let d = train.dispatcher();
        Callback::from(move |a: TrainAction| d.dispatch(a))
    };
    let on_control = {
        let (bridge, d, form) = (bridge.clone(), train.dispatcher(), train.form.clone());
        Callback::from(move |c: Control| {
            let setup = || form.setup(absolute);
            let cmd = match c {
                Control::Start => TrainCmd::Start(setup()),
                Control::Step => TrainCmd::Step(setup()),
                Control::Pause => TrainCmd::Pause,
                Control::Reset => TrainCmd::Reset,
                Control::Save => TrainCmd::Save,
                Control::UseTrained(on) => {
                    d.dispatch(TrainAction::UseTrained(on));
                    TrainCmd::UseTrained(on)
                }
            };
            if matches!(c, Control::Start | Control::Step) {
                d.dispatch(TrainAction::Requested);
            }
            if c == Control::Reset {
                d.dispatch(TrainAction::UseTrained(false));
            }
            bridge.send(ToEngine::Train(cmd));
        })
    };
    let on_reroll = {
        let (bridge, d, seed) = (bridge.clone(), train.dispatcher(), train.reroll_seed);
        Callback::from(move |s: Option<u64>| {
            if s.is_some() {
                d.dispatch(TrainAction::RerollSeed(seed + 1));
            }
            bridge.send(ToEngine::Train(TrainCmd::Reroll(s)));
        })
    };
    let on_scrub_a = {
        let d = train.dispatcher();
        Callback::from(move |i: Option<usize>| d.dispatch(TrainAction::ScrubA(i)))
    };
    let on_scrub_b = {
        let d = train.dispatcher();
        Callback::from(move |i: Option<usize>| d.dispatch(TrainAction::ScrubB(i)))
    };
    let train_view = Rc::new((*train).clone());
    let tab = |train_tab: bool, label: &'static str, testid: &'static str| {
        let t = tab_train.clone();
        html! {
            <button role="tab" class={classes!("tab", (shown_train == train_tab).then_some("active"))} aria-selected={(shown_train == train_tab).to_string()}
                data-testid={testid} onclick={Callback::from(move |_: MouseEvent| t.set(train_tab))}>{ label }</button>
        }
    };

    let info = match &state.load {
        Load::Ready { info, .. } => Some(info.clone()),
        _ => None,
    };
    let error = match (&state.load, &state.error) {
        (Load::Failed(m), _) => Some(AttrValue::from(format!("The model could not be loaded: {m}"))),
        _ if state.model_error.is_some() => state.model_error.clone().map(AttrValue::from),
        (_, Some(m)) => Some(AttrValue::from(m.clone())),
        _ => None,
    };
    let snap = state.snapshot.clone().map(SnapRef);
    let placeholder = |what: &str| -> Html {
        let msg = match (&state.load, &state.error) {
            (Load::Fetching { .. }, _) => format!("{what} appear once the model has loaded."),
            (Load::Failed(_), _) => format!("No {} without a model.", what.to_lowercase()),
            (_, Some(_)) => "See the message above.".to_string(),
            _ => "Computing…".to_string(),
        };
        html! { <p class="placeholder">{ msg }</p> }
    };
    let notice = snap.as_ref().filter(|s| s.truncated).map(|s| {
        html! {
            <p class="notice" data-testid="notice">
                { format!("The text is longer than the model can read at once: it was cut to the first {} tokens (the model's maximum).", s.len()) }
            </p>
        }
    });

    html! {
        <div class={classes!("app", state.presenter.then_some("presenter"))} id="app">
            // for scripts (the e2e suite): the latest edit, the latest one shown, model ready; kept
            // off the root so a keystroke does not restyle the whole page
            <span id="status" hidden=true data-edit={state.edit.to_string()} data-shown={state.shown.to_string()} data-ready={state.ready().to_string()} />
            <header class="top">
                <div>
                    <h1>{ "bertscope" }</h1>
                    <p class="tagline">{ "Type a sentence and watch BERT read it: tokens, attention, and its guesses for [MASK]." }</p>
                </div>
                <Badge ms={snap.as_ref().map(|s| s.forward_ms)} device={snap.as_ref().map(|s| AttrValue::from(s.device.clone()))}
                    pref={state.device_pref} status={state.device.clone()} on_pref={on_device} on_export={on_export} />
            </header>
            <div class="model-bar">
                <LoadProgress load={state.load.clone()} model={AttrValue::from(state.model_label.clone())} />
                <ModelPicker pending={state.pending.clone()} {on_files} {on_url} on_error={on_model_error} />
            </div>
            <ErrorBox message={error} />
            <nav class="tabs" role="tablist">
                { tab(false, "Explain a sentence", "tab-explain") }
                { tab(true, "Train a BERT", "tab-train") }
                { if state.trained { html! { <span class="trained-note" data-testid="trained-note">{ "The explainer uses the model trained in this page." }</span> } } else { html! {} } }
                <button class="presenter-toggle" data-testid="presenter" aria-pressed={state.presenter.to_string()}
                    title="Everything larger, for a projector (kept in the link as ?present=1)"
                    onclick={{ let (d, on) = (state.dispatcher(), !state.presenter); Callback::from(move |_: MouseEvent| d.dispatch(Action::SetPresenter(on))) }}>
                    { if state.presenter { "Presenter mode: on" } else { "Presenter mode" } }</button>
                <button class="tour-start" data-testid="tour-start" onclick={{ let d = tour.dispatcher(); Callback::from(move |_: MouseEvent| d.dispatch(TourKey("open"))) }}>
                    { "Guided tour" }</button>
            </nav>
            <TourPanel tour={*tour} on_key={{ let d = tour.dispatcher(); Callback::from(move |k: &'static str| d.dispatch(TourKey(k))) }} />

            <div class="train-view" hidden={!shown_train} data-testid="train-view">
                <section class="card">
                    <h2>{ "Train a BERT in your browser" }</h2>
                    <p class="hint">{ "Masked-language-model training (+ next-sentence prediction from scratch), step by step, in this page's Web Worker, on the backend chosen at the top right (CPU in WebAssembly, or WebGPU). Choose a model and a corpus, press Start, and watch it learn." }</p>
                    <TrainPanel view={train_view.clone()} on_action={on_train_action} {on_control} />
                </section>
                <section class="card">
                    <h2>{ "Learning curves" }</h2>
                    <TrainCharts view={train_view.clone()} visible={shown_train} />
                </section>
                <section class="card">
                    <h2>{ "The masking pipeline, current batch" }</h2>
                    <p class="hint">{ "BERT chooses 15% of the tokens; of those 80% become [MASK], 10% a random piece, 10% stay as they are. The model is scored only at the chosen positions." }</p>
                    <MaskingPanel view={train.masking.clone()} seed={train.reroll_seed} {on_reroll} />
                </section>
                <section class="card">
                    <h2>{ "Attention filmstrip" }</h2>
                    <p class="hint">{ "The probe sentence through the model every few steps: drag the sliders to watch the heads specialise, and compare any two steps." }</p>
                    <Filmstrip view={train_view.clone()} {on_scrub_a} {on_scrub_b} />
                </section>
            </div>

            <div class="explain-view" hidden={shown_train}>
            <section class="card inputs">
                <TextInput label="Sentence" testid="text-input" value={AttrValue::from(state.text.clone())}
                    placeholder="the capital of france is [MASK]." on_change={on_text} />
                <TextInput label="Second sentence (optional, for a pair)" testid="pair-input" value={AttrValue::from(state.pair.clone())}
                    placeholder="leave empty for one sentence" on_change={on_pair} />
                { for notice }
            </section>

            <section class="card">
                <h2>{ "1. Tokens" }</h2>
                <p class="hint">{ "WordPiece splits the text into pieces from a fixed vocabulary; ## marks a piece that continues a word. [CLS] opens, [SEP] ends each sentence; the underline is the segment (blue: sentence A, orange: sentence B). Click a piece to mask it." }</p>
                { match &snap { Some(s) => html! { <Tokens snapshot={s.clone()} on_toggle={on_mask} /> }, None => placeholder("Tokens") } }
            </section>

            <section class="card">
                <h2>{ "2. Embeddings: what layer 0 reads" }</h2>
                <EmbedSection snapshot={snap.clone()} positions={state.positions.clone()} placeholder={placeholder("Embeddings")} />
            </section>

            <section class="card">
                <h2>{ "3. Masked-word predictions" }</h2>
                { match &snap {
                    Some(s) => {
                        let after = html! {
                            <Predictions snapshot={s.clone()} has_pair={!state.pair.trim().is_empty()}
                                has_mlm={info.as_ref().is_none_or(|i| i.has_mlm)} has_nsp={info.as_ref().is_some_and(|i| i.has_nsp)} />
                        };
                        match (&state.compare, state.trained) {
                            (Some((_, before)), true) => html! {
                                <div class="before-after">
                                    <div><h3 class="side">{ "After: the model trained in this page" }</h3>{ after }</div>
                                    <div><h3 class="side">{ "Before: the loaded model" }</h3><BeforePredictions groups={before.clone()} /></div>
                                </div>
                            },
                            _ => after,
                        }
                    }
                    None => placeholder("Predictions"),
                } }
            </section>

            <section class="card">
                <h2>{ "4. Switch heads off" }</h2>
                { match &info {
                    Some(i) => html! { <Ablation layers={i.layers} heads={i.heads} off={state.heads_off.clone()} on_toggle={on_head} /> },
                    None => placeholder("Head switches"),
                } }
            </section>

            <section class="card">
                <h2>{ "5. Attention, every layer × head" }</h2>
                <p class="hint">{ "Each square is one head: row i shows how much token i attends to every token (softmax of scaled query·key scores). Click one to enlarge it." }</p>
                { match &snap {
                    Some(s) => html! { <AttentionPanel snapshot={s.clone()} selected={state.selected} on_select={on_select}
                        hide={state.hide_specials} on_hide={to_state(&state, Action::HideSpecials)}
                        derived_open={state.derived_open} on_derived={to_state(&state, Action::ShowDerived)} /> },
                    None => placeholder("Heatmaps"),
                } }
            </section>

            <section class="card">
                <h2>{ "6. One head, step by step" }</h2>
                <p class="hint">{ "The head picked here (or enlarged above), from the token vectors X to its share of the layer's output. Click a cell (or focus a matrix and use the arrow keys) for its formula with the numbers." }</p>
                <Fold label="Show Q, K, V, the scores, softmax and the output, step by step" testid="fold-head-steps"
                    open={state.head_steps} on_toggle={to_state(&state, |open| Action::ShowSteps { head: true, open })}>
                    { match &snap { Some(s) => html! { <HeadSteps snapshot={s.clone()} on_focus={on_head_focus} /> }, None => placeholder("Head steps") } }
                </Fold>
            </section>

            <section class="card">
                <h2>{ "7. FFN, residual + LayerNorm" }</h2>
                <p class="hint">{ "The second half of a layer for one token: add the attention output to the input (residual), LayerNorm, the feed-forward network (expand, GELU, project back), add again, LayerNorm." }</p>
                <Fold label="Show the residual, LayerNorm, FFN and GELU for one token" testid="fold-ffn"
                    open={state.ffn_steps} on_toggle={to_state(&state, |open| Action::ShowSteps { head: false, open })}>
                { match &snap {
                    Some(s) => html! { <>
                        <FfnPanel snapshot={s.clone()} on_focus={on_ffn_focus} />
                        <h3>{ "Each token's vector, layer by layer" }</h3>
                        <LayerTrajectory snapshot={s.clone()} token={s.ffn_detail.as_ref().map_or(0, |d| d.token)} />
                    </> },
                    None => placeholder("FFN detail"),
                } }
                </Fold>
            </section>

            <section class="card">
                <h2>{ "8. Layer by layer" }</h2>
                { match &snap { Some(s) => html! { <Layers snapshot={s.clone()} /> }, None => placeholder("Layers") } }
            </section>

            </div>

            <footer class="foot">
                { "bertscope: every number computed in your browser by the same Rust engine the tests check against PyTorch." }
            </footer>
        </div>
    }
}

/// Downloads the snapshot as `bertscope-snapshot.json` (the numbers the page draws, as computed).
fn export_json(s: &crate::explain::Snapshot) {
    if let Ok(json) = serde_json::to_string_pretty(s) {
        download_text("bertscope-snapshot.json", &json, "application/json");
    }
}
