//! Before / after: the loaded model's guesses at the typed [MASK]s, shown next to those of the
//! model trained in the page.

use crate::components::fmt_prob;
use crate::explain::snapshot::MaskPredictions;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub groups: Rc<Vec<MaskPredictions>>,
}

#[component]
pub fn BeforePredictions(p: &Props) -> Html {
    let groups = p.groups.iter().enumerate().take(12).map(|(i, m)| {
        html! {
            <div key={m.position} class="mask-group" data-position={m.position.to_string()}>
                <h3>{ format!("[MASK] #{}", i + 1) }</h3>
                <ol>
                    { for m.top.iter().map(|x| html! {
                        <li key={x.id} data-token={x.token.clone()} data-prob={x.prob.to_string()}>
                            <span class="word">{ x.token.clone() }</span>
                            <span class="bar"><span class="fill" style={format!("width: {:.1}%", (x.prob * 100.0).clamp(0.0, 100.0))} /></span>
                            <span class="prob">{ fmt_prob(x.prob) }</span>
                        </li>
                    }) }
                </ol>
            </div>
        }
    });
    html! {
        <div class="predictions before" data-testid="predictions-before">
            if p.groups.is_empty() { <p class="hint">{ "Type [MASK] in the sentence to compare the two models." }</p> }
            { for groups }
        </div>
    }
}
