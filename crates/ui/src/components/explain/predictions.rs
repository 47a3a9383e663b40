//! Masked-word predictions: the top-k tokens at each [MASK] with their probabilities, and the
//! next-sentence probability when there are two sentences.

use crate::components::{fmt_prob, SnapRef};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    pub has_pair: bool,
    pub has_mlm: bool,
    pub has_nsp: bool,
    /// A guess was clicked (or picked with Enter): explain it (a `mask:POS:TOKEN` spec).
    #[prop_or_default]
    pub on_pick: Option<Callback<String>>,
}

/// At most this many [MASK] positions are listed (a pasted text can hold hundreds).
const MAX_GROUPS: usize = 12;

#[component]
pub fn Predictions(p: &Props) -> Html {
    let s = &p.snapshot;
    let hidden = s.predictions.len().saturating_sub(MAX_GROUPS);
    let groups = s.predictions.iter().take(MAX_GROUPS).map(|m| {
        let was = s.tokens.get(m.position).and_then(|t| t.masked_from.clone());
        let head = match was {
            Some(w) => format!("[MASK] at position {} (was \"{w}\")", m.position),
            None => format!("[MASK] at position {}", m.position),
        };
        let rows = m.top.iter().map(|x| {
            let width = format!("width: {:.1}%", (x.prob * 100.0).clamp(0.0, 100.0));
            let spec = format!("mask:{}:{}", m.position, x.token);
            let (onclick, onkeydown) = match &p.on_pick {
                Some(cb) => {
                    let (a, b, s1, s2) = (cb.clone(), cb.clone(), spec.clone(), spec);
                    (
                        Some(Callback::from(move |_: MouseEvent| a.emit(s1.clone()))),
                        Some(Callback::from(move |e: KeyboardEvent| {
                            if e.key() == "Enter" {
                                b.emit(s2.clone())
                            }
                        })),
                    )
                }
                None => (None, None),
            };
            let pickable = p.on_pick.is_some();
            html! {
                <li key={x.id} data-token={x.token.clone()} data-prob={x.prob.to_string()} data-id={x.id.to_string()}
                    class={classes!(pickable.then_some("pickable"))} tabindex={pickable.then_some("0")} {onclick} {onkeydown}
                    title={pickable.then(|| format!("why \"{}\"? (show which words this guess depended on)", x.token))}>
                    <span class="word">{ x.token.clone() }</span>
                    <span class="bar"><span class="fill" style={width} /></span>
                    <span class="prob">{ fmt_prob(x.prob) }</span>
                </li>
            }
        });
        html! {
            <div key={m.position} class="mask-group" data-position={m.position.to_string()}>
                <h3>{ head }</h3>
                <ol>{ for rows }</ol>
            </div>
        }
    });
    let hint = if !p.has_mlm {
        Some("This model has no masked-LM head, so it cannot predict words.")
    } else if s.predictions.is_empty() {
        Some("No [MASK] yet: type [MASK] in the sentence, or click a token above to mask it.")
    } else {
        None
    };
    let nsp = match (p.has_pair, s.is_next, p.has_nsp) {
        (true, Some(q), _) => {
            html! { <p class="nsp" data-testid="nsp" data-prob={q.to_string()}>{ format!("P(sentence B follows A) = {}", fmt_prob(q)) }</p> }
        }
        (true, None, false) => {
            let why = match s.family.as_str() {
                "DistilBERT" => "DistilBERT was trained without next-sentence prediction (by distillation and masked LM), so it has no NSP head and gives no NSP probability.",
                "RoBERTa" => "RoBERTa dropped next-sentence prediction (its authors found training on full sentences without it did as well or better), so it has no NSP head and gives no NSP probability.",
                _ => "This model has no next-sentence head, so no NSP probability.",
            };
            html! { <p class="nsp muted" data-testid="no-nsp">{ why }</p> }
        }
        _ => html! {},
    };
    html! {
        <div class="predictions" data-testid="predictions" data-seq={s.seq.to_string()}>
            if let Some(h) = hint { <p class="hint">{ h }</p> }
            { for groups }
            if hidden > 0 { <p class="hint">{ format!("… and {hidden} more [MASK] positions, not listed.") }</p> }
            { nsp }
        </div>
    }
}
