//! Which model answers: the bundled models in a select (your own, once loaded, shown as a third
//! choice), and one line saying what the model is, with a link to its card.

use crate::explain::models::{bundled, BUNDLED};
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
        </div>
    }
}
