//! The logit lens: at each [MASK], what the model would guess if it stopped after each layer (the
//! masked-LM head applied to that layer's vector), with the probability of its final answer along
//! the layers, so one sees at which layer it settles.

use crate::components::{show_token, SnapRef};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
}

#[component]
pub fn LogitLens(p: &Props) -> Html {
    let s = &p.snapshot;
    if s.lens.is_empty() {
        let why = if s.predictions.is_empty() {
            "Put a [MASK] in the sentence (or click a token) to see the guesses after each layer."
        } else {
            "Computing…"
        };
        return html! { <p class="placeholder" data-testid="lens-empty">{ why }</p> };
    }
    let tables = s.lens.iter().map(|m| {
        let answer = m.layers.last().and_then(|l| l.top.first()).map(|p| p.token.clone()).unwrap_or_default();
        let rows = m.layers.iter().map(|row| {
            let name = if row.layer == 0 { "embeddings".to_string() } else { format!("after layer {}", row.layer - 1) };
            let guesses = row.top.iter().map(|g| html! { <span class="lens-guess">{ format!("{} {:.0}%", show_token(&g.token), 100.0 * g.prob) }</span> });
            let pct = 100.0 * row.answer_prob;
            html! {
                <tr key={row.layer} data-testid="lens-row" data-layer={row.layer.to_string()} data-answer-prob={row.answer_prob.to_string()}>
                    <th scope="row">{ name }</th>
                    <td>{ for guesses }</td>
                    <td class="lens-bar-cell" title={format!("P({answer}) = {:.4}", row.answer_prob)}>
                        <span class="lens-bar" style={format!("width: {:.1}px", 1.5 * pct.max(0.5))} />
                        <span class="lens-pct">{ format!("{pct:.1}%") }</span>
                    </td>
                </tr>
            }
        });
        html! {
            <div key={m.position} class="lens" data-testid="lens" data-position={m.position.to_string()}>
                <h4>{ format!("At position {} ([MASK]): final answer \u{201c}{}\u{201d}", m.position, show_token(&answer)) }</h4>
                <table>
                    <thead><tr><th scope="col">{ "from the vector" }</th><th scope="col">{ "top guesses" }</th>
                        <th scope="col">{ format!("P(\u{201c}{}\u{201d})", show_token(&answer)) }</th></tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
        }
    });
    html! {
        <div class="lens-panel">
            <p class="hint">{ "The masked-LM head reads only the last layer's vector; here it reads each layer's instead (the \u{201c}logit lens\u{201d}). Early rows are rough guesses, since the head was trained on the last layer; where the bar grows is where the model settles on its answer." }</p>
            { for tables }
        </div>
    }
}
