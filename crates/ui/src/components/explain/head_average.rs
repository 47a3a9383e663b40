//! The head average: the mean over the heads of one layer (or over every head of every layer) as a
//! heatmap and as lines, with its formula and the numbers of the selected cell.

use crate::components::attention_lines::AttentionLines;
use crate::components::derived::{use_cell, use_layer_choice, DerivedProps};
use crate::components::fmt_prob;
use crate::components::matrix_view::{Mat, MatrixView};
use crate::explain::attention_views::{all_mean, head_terms, layer_mean};
use yew::prelude::*;

/// The most terms written out in the formula; more are summarised.
const MAX_TERMS: usize = 12;

#[component]
pub fn HeadAverage(p: &DerivedProps) -> Html {
    let s = &p.snapshot;
    let n = s.len();
    let (scope, onchange) = use_layer_choice(); // Some(layer) or None = every layer
    let layer = scope.filter(|&l| l < s.layers);
    let ((r, c), on_cell) = use_cell(n);
    // derived from the engine's numbers by the explain crate, here (see explain::attention_views)
    let values = use_memo((p.snapshot.clone(), layer), |(s, layer)| {
        Mat::new(match layer {
            Some(l) => layer_mean(s, *l),
            None => all_mean(s),
        })
    });
    let values = (*values).clone();

    let terms: Vec<f32> = match layer {
        Some(l) => head_terms(s, l, r, c),
        None => (0..s.layers).flat_map(|l| head_terms(s, l, r, c)).collect(),
    };
    let v = values.0.get(r * n + c).copied().unwrap_or(0.0);
    let shown: Vec<String> = terms.iter().take(MAX_TERMS).map(|t| fmt_prob(*t)).collect();
    let more = terms.len().saturating_sub(MAX_TERMS);
    let sum = format!("{}{}", shown.join(" + "), if more > 0 { format!(" + … ({more} more)") } else { String::new() });
    let tok = |i: usize| p.tokens.get(i).cloned().unwrap_or_default();
    let (title, file, formula) = match layer {
        Some(l) => (
            format!("Head average, layer {l}"),
            format!("bertscope-attention-average-L{l}"),
            format!("Ā[{r}, {c}] = (1/H) Σ_h A_h[{r}, {c}] = ({sum}) / {} = {}", s.heads, fmt_prob(v)),
        ),
        None => (
            "Head average, all layers".to_string(),
            "bertscope-attention-average-all".to_string(),
            format!("Ā[{r}, {c}] = (1/(L·H)) Σ_ℓ Σ_h A_ℓ,h[{r}, {c}] = ({sum}) / {} = {}", s.layers * s.heads, fmt_prob(v)),
        ),
    };
    let options = std::iter::once(html! { <option key="all" value="all" selected={layer.is_none()}>{ "all layers" }</option> }).chain(
        (0..s.layers)
            .map(|l| html! { <option key={l} value={l.to_string()} selected={layer == Some(l)}>{ format!("layer {l}") }</option> }),
    );
    let terms_attr = terms.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(",");
    html! {
        <div class="derived" data-testid="head-average" data-layer={layer.map_or("all".to_string(), |l| l.to_string())}>
            <h3>{ "Head average" }</h3>
            <p class="hint">{ "The mean over heads: what a layer (or the whole model) attends to when every head counts the same." }</p>
            <label class="scope">{ "over " }
                <select data-testid="average-scope" {onchange}>{ for options }</select>
            </label>
            <div class="derived-views">
                <MatrixView testid="average-matrix" title={title.clone()} {file} note={p.note.clone()} tokens={p.tokens.clone()}
                    values={values.clone()} cell={Some((r, c))} {on_cell} />
                <AttentionLines label={title} tokens={p.tokens.clone()} values={values} highlight={Some((r, c))} />
            </div>
            <p class="readout" data-testid="average-value" data-row={r.to_string()} data-col={c.to_string()} data-value={v.to_string()} data-terms={terms_attr}>
                { format!("query {r} \"{}\" → key {c} \"{}\": {}", tok(r), tok(c), fmt_prob(v)) }
            </p>
            <p class="formula">{ formula }</p>
        </div>
    }
}
