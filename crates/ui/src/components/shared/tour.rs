//! The guided tour's panel: the current step's title and text, Back / Next / Close, and the keys
//! (← → Home End, Esc) handled by the page while it is open.

use crate::tour::{Tour, STEPS};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub tour: Tour,
    /// A key name, as `tour::on_key` takes it (the buttons send ArrowLeft / ArrowRight / Escape).
    pub on_key: Callback<&'static str>,
}

#[component]
pub fn TourPanel(p: &Props) -> Html {
    let (Some(i), Some(step)) = (p.tour.at, p.tour.step()) else { return html! {} };
    let key = |k: &'static str| {
        let cb = p.on_key.clone();
        Callback::from(move |_: MouseEvent| cb.emit(k))
    };
    let last = i + 1 == STEPS.len();
    html! {
        <aside class="tour" role="dialog" aria-label="guided tour" aria-live="polite" data-testid="tour" data-step={i.to_string()}>
            <p class="tour-count">{ format!("Guided tour · {} / {}", i + 1, STEPS.len()) }</p>
            <h3>{ step.title }</h3>
            <p>{ step.body }</p>
            <div class="tour-buttons">
                <button onclick={key("ArrowLeft")} disabled={i == 0}>{ "← Back" }</button>
                if last {
                    <button class="primary" onclick={key("Escape")}>{ "Finish" }</button>
                } else {
                    <button class="primary" onclick={key("ArrowRight")} data-testid="tour-next">{ "Next →" }</button>
                }
                <button onclick={key("Escape")} aria-label="close the tour">{ "✕" }</button>
            </div>
            <p class="tour-keys">{ "Keys: ← → to move, Esc to close." }</p>
        </aside>
    }
}
