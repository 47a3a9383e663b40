//! The masking pipeline of the current batch: each sequence as tokens, the 15% chosen marked by
//! what became of them ([MASK] 80%, a random piece 10%, kept 10%), the model's guesses at the
//! positions that carry the loss, NSP pairs with IsNext / NotNext, and a re-roll with a new seed.

use crate::explain::training::MaskAction;
use crate::explain::training::{MaskCell, MaskRow, MaskingView};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Option<Rc<MaskingView>>,
    pub seed: u64,
    /// Re-mask the batch with a seed (None: back to the batch as trained).
    pub on_reroll: Callback<Option<u64>>,
}

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "–".into()
    } else {
        format!("{:.0}%", 100.0 * n as f64 / of as f64)
    }
}

fn cell(j: usize, c: &MaskCell) -> Html {
    let (class, tag) = match c.action {
        MaskAction::None => ("", None),
        MaskAction::Masked => ("masked", Some("[MASK]")),
        MaskAction::Random => ("random", Some("random")),
        MaskAction::Unchanged => ("kept", Some("kept")),
    };
    let guesses = c.guesses.iter().map(|g| {
        let hit = g.token == c.original;
        html! { <li key={g.id} class={classes!(hit.then_some("hit"))}>{ format!("{} {:.0}%", g.token, g.prob * 100.0) }</li> }
    });
    let title = match c.action {
        MaskAction::None => "not chosen: no loss here".to_string(),
        MaskAction::Masked => format!("chosen → replaced by [MASK]; the model must guess \"{}\"", c.original),
        MaskAction::Random => format!("chosen → replaced by a random piece \"{}\"; the model must still guess \"{}\"", c.input, c.original),
        MaskAction::Unchanged => format!("chosen → left as \"{}\"; the model must still guess it", c.original),
    };
    html! {
        <span key={j} class={classes!("mcell", class, c.special.then_some("special"), (c.segment == 1).then_some("seg1"))}
            data-action={format!("{:?}", c.action).to_lowercase()} title={title}>
            <span class="in">{ c.input.clone() }</span>
            { for tag.filter(|_| c.action != MaskAction::Masked || c.input != c.original).map(|_| html! {
                <span class="orig">{ if c.action == MaskAction::Unchanged { "kept".to_string() } else { format!("was {}", c.original) } }</span>
            }) }
            { if c.guesses.is_empty() { html! {} } else { html! { <ol class="guesses">{ for guesses }</ol> } } }
        </span>
    }
}

fn row(i: usize, r: &MaskRow) -> Html {
    let nsp = r.is_next.map(|n| {
        let label = if n { "IsNext: B follows A" } else { "NotNext: B is from another document" };
        let model = r.nsp_prob.map(|p| format!(" · model P(IsNext) = {:.2}", p)).unwrap_or_default();
        html! { <span class={classes!("nsp-tag", if n { "isnext" } else { "notnext" })}>{ format!("{label}{model}") }</span> }
    });
    html! {
        <div key={i} class="mrow" data-row={i.to_string()}>
            <div class="mrow-head"><b>{ format!("Sequence {}", i + 1) }</b>{ for nsp }</div>
            <div class="mcells">{ for r.cells.iter().enumerate().map(|(j, c)| cell(j, c)) }</div>
        </div>
    }
}

#[component]
pub fn MaskingPanel(p: &Props) -> Html {
    let Some(v) = &p.view else {
        return html! {
            <div data-testid="masking-view" class="masking empty">
                <p class="placeholder">{ "The first batch appears here after the first step." }</p>
            </div>
        };
    };
    let c = v.counts;
    let chosen = c.chosen();
    let reroll = {
        let (cb, seed) = (p.on_reroll.clone(), p.seed);
        Callback::from(move |_: MouseEvent| cb.emit(Some(seed)))
    };
    let as_trained = {
        let cb = p.on_reroll.clone();
        Callback::from(move |_: MouseEvent| cb.emit(None))
    };
    let which = match v.reroll_seed {
        None => format!("the batch of step {} as the model was trained on it", v.step),
        Some(s) => format!("the same sequences masked again with seed {s} (not trained on)"),
    };
    html! {
        <div data-testid="masking-view" class="masking" data-chosen={chosen.to_string()} data-candidates={c.candidates.to_string()}>
            <p class="counts">
                <b>{ format!("{} of {} tokens chosen ({})", chosen, c.candidates, pct(chosen, c.candidates)) }</b>
                { " → " }
                <span class="mk masked">{ format!("{} [MASK] ({})", c.masked, pct(c.masked, chosen)) }</span>
                <span class="mk random">{ format!("{} random ({})", c.random, pct(c.random, chosen)) }</span>
                <span class="mk kept">{ format!("{} kept ({})", c.kept, pct(c.kept, chosen)) }</span>
                <span class="muted">{ format!(" over all {} sequences; showing {}: {}.", v.sequences, v.rows.len(), which) }</span>
            </p>
            <p class="hint">{ "Only the chosen positions carry loss; under each, the model's top guesses now (green = the hidden word). [CLS] and [SEP] are never chosen. Orange underline: sentence B." }</p>
            <div class="mrows">{ for v.rows.iter().enumerate().map(|(i, r)| row(i, r)) }</div>
            <div class="controls">
                <button onclick={reroll} data-testid="mask-reroll">{ format!("Re-roll the masking (seed {})", p.seed) }</button>
                { if v.reroll_seed.is_some() { html! { <button onclick={as_trained}>{ "Back to the batch as trained" }</button> } } else { html! {} } }
            </div>
        </div>
    }
}
