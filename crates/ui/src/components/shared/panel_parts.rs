//! What the training and fine-tuning panels both show: a number field, the status line of a run's
//! phase, a picked file read as text, and the saved files' download links.

use crate::run_state::Phase;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// A labelled text field for a number; `on_change` gets the text as typed.
pub fn number_field(
    label: &'static str,
    testid: &'static str,
    value: String,
    hint: &'static str,
    locked: bool,
    on_change: Callback<String>,
) -> Html {
    let onchange = Callback::from(move |e: Event| on_change.emit(e.target_unchecked_into::<HtmlInputElement>().value()));
    html! {
        <label class="field" title={hint}>
            <span>{ label }</span>
            <input type="text" inputmode="decimal" {value} disabled={locked} {onchange} data-testid={testid} />
        </label>
    }
}

/// The status text of a run's phase and its CSS class (also the `data-phase` the tests read).
pub fn phase_status(phase: &Phase, idle: &str, running: &str) -> (String, &'static str) {
    match phase {
        Phase::Idle => (idle.to_string(), "idle"),
        Phase::Preparing(m) => (format!("Preparing: {m}"), "preparing"),
        Phase::Running => (running.to_string(), "running"),
        Phase::Paused => ("Paused.".to_string(), "paused"),
        Phase::Finished => ("Done.".to_string(), "finished"),
    }
}

/// The text a run learns from, pasted or uploaded: a text box (`testid`, `label`, `placeholder`), a
/// file picker (`accept`) and `count` (words or lines) beside it, after `before` (a task's choice);
/// each new text goes to `on_text`.
pub fn own_text(
    text: &str,
    (testid, label, placeholder): (&'static str, &'static str, String),
    accept: &'static str,
    count: String,
    locked: bool,
    before: Html,
    on_text: Callback<String>,
) -> Html {
    let oninput = on_text.reform(|e: InputEvent| e.target_unchecked_into::<web_sys::HtmlTextAreaElement>().value());
    html! {
        <div class="custom-corpus">
            { before }
            <textarea rows="5" {placeholder} value={text.to_string()} disabled={locked} {oninput} data-testid={testid} aria-label={label} />
            <div class="row">
                <input type="file" {accept} disabled={locked} onchange={on_file_text(on_text)} aria-label={format!("upload {label}")} />
                <span class="muted">{ count }</span>
            </div>
        </div>
    }
}

/// A file input's change: the picked file's text goes to `on_text`.
pub fn on_file_text(on_text: Callback<String>) -> Callback<Event> {
    Callback::from(move |e: Event| {
        let input = e.target_unchecked_into::<HtmlInputElement>();
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        let on_text = on_text.clone();
        wasm_bindgen_futures::spawn_local(async move {
            if let Ok(t) = wasm_bindgen_futures::JsFuture::from(file.text()).await {
                if let Some(t) = t.as_string() {
                    on_text.emit(t);
                }
            }
        });
    })
}

/// The saved files as download links: (name, bytes, blob URL), after `lead`.
pub fn downloads(links: &[(String, usize, String)], testid: &'static str, lead: &str) -> Option<Html> {
    (!links.is_empty()).then(|| {
        html! {
            <p class="downloads" data-testid={testid}>
                { lead.to_string() }
                { for links.iter().map(|(name, size, url)| html! {
                    <a key={name.clone()} href={url.clone()} download={name.clone()}>{ format!("{name} ({:.1} KB)", *size as f64 / 1024.0) }</a>
                }) }
            </p>
        }
    })
}
