//! Which model answers: the bundled models in a select (your own, once loaded, shown as a third
//! choice), and one line saying what the model is, with a link to its card.

use crate::explain::models::{bundled, BUNDLED};
use crate::state::Pending;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The folder of the model answering (or asked for), as the page keeps it.
    pub folder: AttrValue,
    /// What the page calls it: a bundled model's name, or your own model's.
    pub label: AttrValue,
    /// A bundled model chosen: its folder.
    pub on_choose: Callback<String>,
    /// A model on its way (bundled or your own), while the current one keeps answering.
    pub pending: Option<Pending>,
}

#[component]
pub fn ModelChoice(p: &Props) -> Html {
    // picked files keep the default's folder in the URL, so the label says whose model it is
    let current = bundled(&p.folder).filter(|b| b.name == p.label.as_str());
    let onchange = {
        let cb = p.on_choose.clone();
        Callback::from(move |e: Event| {
            if let Some(b) = bundled(&e.target_unchecked_into::<HtmlSelectElement>().value()) {
                cb.emit(b.folder.to_string());
            }
        })
    };
    let about = match current {
        Some(b) => html! {
            <>{ b.about }{ " " }<a href={b.card()} target="_blank" rel="noopener" data-testid="model-card">{ "Its model card." }</a></>
        },
        None => html! { { format!("Your own model, \"{}\": nothing about it is known but what it holds (below).", p.label) } },
    };
    let busy = p.pending.as_ref().map(|q| {
        let mb = |b: u64| format!("{:.1} MB", b as f64 / 1e6);
        let of = if q.total > 0 { format!("{} / {}", mb(q.loaded), mb(q.total)) } else { mb(q.loaded) };
        html! {
            <p class="picker-status" data-testid="model-pending" role="status">
                { format!("Loading \"{}\" ", q.label) }
                <progress max={q.total.max(1).to_string()} value={q.loaded.to_string()} />
                { format!(" {of}. The current model keeps answering until it has loaded.") }
            </p>
        }
    });
    html! {
        <div class="model-choice">
            <label class="model-select">{ "Model " }
                <select data-testid="model-select" {onchange} aria-label="the model that answers">
                    { for BUNDLED.iter().map(|b| html! {
                        <option value={b.key} selected={current == Some(*b)}>{ format!("{} ({})", b.name, b.shape) }</option>
                    }) }
                    if current.is_none() {
                        <option value="" selected=true disabled=true>{ format!("your own: {}", p.label) }</option>
                    }
                </select>
            </label>
            <p class="model-about" data-testid="model-about">{ about }</p>
            { busy.unwrap_or_default() }
        </div>
    }
}
