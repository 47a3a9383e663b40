//! "Load your own model": pick a folder or its files, or give the URL of a model folder. The page
//! reads the picked files (only the ones a model needs) and hands their bytes to the worker; the
//! model loaded before keeps answering until the new one has loaded, and stays if it fails.

use crate::model_files::{base_name, label, wanted, PickedFile, WANTED};
use js_sys::Uint8Array;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, HtmlInputElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The files, read, and what to call them.
    pub on_files: Callback<(Vec<PickedFile>, String)>,
    /// A model folder's URL, as typed.
    pub on_url: Callback<String>,
    /// The picked files cannot be a model (said before anything is loaded).
    pub on_error: Callback<String>,
}

/// The file's path inside a picked folder ("my-bert/config.json"), or its name.
fn path_of(f: &File) -> String {
    js_sys::Reflect::get(f, &JsValue::from_str("webkitRelativePath"))
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| f.name())
}

async fn read(files: Vec<File>) -> Result<Vec<PickedFile>, String> {
    let mut out = Vec::new();
    for f in files {
        let buf = JsFuture::from(f.array_buffer()).await.map_err(|e| format!("{} could not be read: {e:?}", f.name()))?;
        out.push(PickedFile { name: base_name(&f.name()).to_string(), bytes: Uint8Array::new(&buf).to_vec() });
    }
    Ok(out)
}

#[component]
pub fn ModelPicker(p: &Props) -> Html {
    let url = use_state(String::new);
    let on_pick = {
        let (on_files, on_error) = (p.on_files.clone(), p.on_error.clone());
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            let Some(list) = input.files() else { return };
            let all: Vec<File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
            input.set_value(""); // the same folder can be picked again
            if all.is_empty() {
                return;
            }
            let paths: Vec<String> = all.iter().map(path_of).collect();
            let keep: Vec<File> = all.into_iter().filter(|f| wanted(&f.name())).collect();
            if keep.is_empty() {
                on_error.emit(format!("None of the chosen files is part of a BERT model folder ({}).", WANTED.join(", ")));
                return;
            }
            let (on_files, on_error) = (on_files.clone(), on_error.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match read(keep).await {
                    Ok(files) => on_files.emit((files, label(&paths))),
                    Err(m) => on_error.emit(m),
                }
            });
        })
    };
    let on_url_input = {
        let url = url.clone();
        Callback::from(move |e: InputEvent| url.set(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let submit = {
        let (url, cb) = (url.clone(), p.on_url.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let u = url.trim().to_string();
            if !u.is_empty() {
                cb.emit(u);
            }
        })
    };
    html! {
        <details class="model-picker" data-testid="model-picker">
            <summary>{ "Load your own model" }</summary>
            <p class="hint">{ "A BERT in Hugging Face layout: config.json, model.safetensors, and tokenizer.json or vocab.txt (+ tokenizer_config.json). It is read in this page only: nothing is uploaded. If it cannot be loaded, the current model stays." }</p>
            <div class="picker-row">
                <label class="file-button">{ "Choose a folder… " }
                    <input type="file" webkitdirectory=true multiple=true onchange={on_pick.clone()} data-testid="model-folder" aria-label="choose a model folder" />
                </label>
                <label class="file-button">{ "or its files… " }
                    <input type="file" multiple=true accept=".json,.safetensors,.txt" onchange={on_pick} data-testid="model-files" aria-label="choose the model's files" />
                </label>
            </div>
            <form class="picker-row" onsubmit={submit}>
                <label>{ "or a URL: " }
                    <input type="text" value={(*url).clone()} oninput={on_url_input} placeholder="models/bert-tiny-base/ or https://…/my-bert/" size="36" data-testid="model-url" aria-label="the URL of a model folder" />
                </label>
                <button type="submit" data-testid="model-url-load">{ "Load" }</button>
            </form>
        </details>
    }
}
