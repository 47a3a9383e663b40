//! The attention section: the "hide [CLS]/[SEP]" switch, the layer x head grid (with the enlarged
//! head), the selected head as lines, the head average and the rollout, all drawn from one view of
//! the snapshot (specials dropped and rows renormalised when the switch is on).

use crate::components::attention_lines::AttentionLines;
use crate::components::attention_rollout::AttentionRollout;
use crate::components::head_average::HeadAverage;
use crate::components::matrix_view::Mat;
use crate::components::{show_token, AttentionGrid, Fold, SnapRef};
use crate::explain::attention_views::without_specials;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

pub const NOTE_ALL: &str = "attention probability, 0 to 1; each row sums to 1";
pub const NOTE_HIDDEN: &str = "[CLS]/[SEP] hidden: their rows and columns are dropped and each row is renormalised to sum 1";

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    pub selected: Option<(usize, usize)>,
    pub on_select: Callback<Option<(usize, usize)>>,
    /// [CLS]/[SEP] hidden (kept by the page, so it is in the URL).
    pub hide: bool,
    pub on_hide: Callback<bool>,
    /// The head average and rollout fold is open.
    pub derived_open: bool,
    pub on_derived: Callback<bool>,
    /// A word whose row the enlarged head opens on (the coreference probe's "he").
    #[prop_or_default]
    pub word: Option<AttrValue>,
}

#[component]
pub fn AttentionPanel(p: &Props) -> Html {
    let hide = p.hide;
    // the view every picture below draws from; computed here from the engine's numbers (see
    // explain::attention_views for why not in the worker)
    let view = use_memo((p.snapshot.clone(), hide), |(s, hide)| match hide {
        true => SnapRef(Rc::new(without_specials(s))),
        false => s.clone(),
    });
    let view = (*view).clone();
    let tokens = use_memo(view.clone(), |v| Rc::new(v.tokens.iter().map(|t| show_token(&t.text)).collect::<Vec<_>>()));
    let tokens = (*tokens).clone();
    let note = AttrValue::from(if hide { NOTE_HIDDEN } else { NOTE_ALL });
    let onchange = {
        let on_hide = p.on_hide.clone();
        Callback::from(move |e: Event| on_hide.emit(e.target_unchecked_into::<HtmlInputElement>().checked()))
    };
    let selected = p.selected.filter(|&(l, h)| l < view.layers && h < view.heads);
    let head_values = use_memo((view.clone(), selected), |(v, sel)| sel.map(|(l, h)| Mat::new(v.head(l, h).to_vec())));
    let lines = match (selected, (*head_values).clone()) {
        (Some((l, h)), Some(values)) => html! {
            <div class="head-lines" data-testid="head-lines" data-layer={l.to_string()} data-head={h.to_string()}>
                <h3>{ format!("Layer {l} · head {h} as lines") }</h3>
                <p class="hint">{ "Left: the token that looks (query); right: the token it looks at (key). Darker, thicker lines carry more attention." }</p>
                <AttentionLines label={format!("layer {l} · head {h}")} tokens={tokens.clone()} {values} />
            </div>
        },
        _ => html! {
            <p class="hint head-lines" data-testid="head-lines">{ "Select a head in the grid to see it as lines (bertviz's head view)." }</p>
        },
    };
    html! {
        <div class="attention-panel">
            <label class="toggle">
                <input type="checkbox" data-testid="hide-specials" checked={hide} {onchange} />
                { " hide [CLS]/[SEP] (drops their rows and columns; each row is renormalised to sum 1)" }
            </label>
            <AttentionGrid snapshot={view.clone()} selected={p.selected} on_select={p.on_select.clone()} note={note.clone()} word={p.word.clone()} />
            { lines }
            <Fold label="Head average and attention rollout (heatmaps and lines)" testid="fold-derived"
                open={p.derived_open} on_toggle={p.on_derived.clone()}>
                <div class="derived-row">
                    <HeadAverage snapshot={view.clone()} tokens={tokens.clone()} note={note.clone()} />
                    <AttentionRollout snapshot={view} {tokens} {note} />
                </div>
            </Fold>
        </div>
    }
}
