//! The page's header: the title, the backend badge (with the snapshot's JSON export), the model
//! line (its download, then what was loaded) with "Load your own model", and under them the
//! message box (a model that failed to load, an input the model cannot take).

use super::{PageDispatch, Shared};
use crate::browser::absolute;
use crate::components::{download_text, Badge, ErrorBox, LoadProgress, ModelChoice, ModelPicker};
use crate::engine::use_engine;
use crate::model_files::PickedFile;
use crate::protocol::ToEngine;
use crate::state::{model_label, Action, AppState, Load};
use crate::url::safe_model_path;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: Shared<AppState>,
    pub dispatch: PageDispatch,
}

#[component]
pub fn Header(p: &Props) -> Html {
    let engine = use_engine();
    let state = &p.state;
    let on_device = {
        let d = p.dispatch.clone();
        Callback::from(move |pref| d.dispatch(Action::SetDevice(pref)))
    };
    let on_export = state.snapshot.clone().map(|s| Callback::from(move |()| export_json(&s)));
    let on_files = {
        let (d, engine) = (p.dispatch.clone(), engine.clone());
        Callback::from(move |(files, label): (Vec<PickedFile>, String)| {
            d.dispatch(Action::LoadModel { label, path: None });
            engine.send(ToEngine::LoadFiles(files));
        })
    };
    let on_url = {
        let (d, engine) = (p.dispatch.clone(), engine);
        Callback::from(move |u: String| {
            let folder = if u.ends_with('/') { u.clone() } else { format!("{u}/") };
            // a same-origin folder is kept in the URL; another origin's is loaded once, as asked
            let path = safe_model_path(&folder);
            d.dispatch(Action::LoadModel { label: model_label(&folder), path });
            engine.send(ToEngine::Load { base_url: absolute(&folder) });
        })
    };
    let on_model_error = {
        let d = p.dispatch.clone();
        Callback::from(move |m: String| d.dispatch(Action::ModelError(m)))
    };
    let snap = state.snapshot.as_ref();
    html! {
        <>
            <header class="top">
                <div>
                    <h1>{ "bertscope" }</h1>
                    <p class="tagline">{ "Type a sentence and watch BERT read it: tokens, attention, and its guesses for [MASK]." }</p>
                </div>
                <Badge ms={snap.map(|s| s.forward_ms)} device={snap.map(|s| AttrValue::from(s.device.clone()))}
                    pref={state.device_pref} status={state.device.clone()} on_pref={on_device} {on_export} />
            </header>
            <ModelChoice folder={AttrValue::from(state.pending.as_ref().and_then(|q| q.path.clone()).unwrap_or_else(|| state.model.clone()))}
                label={AttrValue::from(state.pending.as_ref().map_or_else(|| state.model_label.clone(), |q| q.label.clone()))}
                on_choose={on_url.clone()} pending={state.pending.clone()} />
            <div class="model-bar">
                <LoadProgress load={state.load.clone()} model={AttrValue::from(state.model_label.clone())} />
                <ModelPicker {on_files} {on_url} on_error={on_model_error} />
            </div>
            <ErrorBox message={error_message(state)} />
        </>
    }
}

/// What the message box says: why the model could not be loaded, else why the one asked for
/// could not, else what is wrong with the input.
fn error_message(state: &AppState) -> Option<AttrValue> {
    match (&state.load, &state.error) {
        (Load::Failed(m), _) => Some(AttrValue::from(format!("The model could not be loaded: {m}"))),
        _ if state.model_error.is_some() => state.model_error.clone().map(AttrValue::from),
        (_, Some(m)) => Some(AttrValue::from(m.clone())),
        _ => None,
    }
}

/// Downloads the snapshot as `bertscope-snapshot.json` (the numbers the page draws, as computed).
fn export_json(s: &crate::explain::Snapshot) {
    if let Ok(json) = serde_json::to_string_pretty(s) {
        download_text("bertscope-snapshot.json", &json, "application/json");
    }
}
