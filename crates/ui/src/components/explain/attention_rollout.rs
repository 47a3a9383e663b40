//! Attention rollout (Abnar & Zuidema 2020): how much of each input token reaches each position after
//! layer ℓ, if every layer mixes by its head-averaged attention plus the residual. Heatmap, lines,
//! the recurrence and the numbers of the selected cell.

use crate::components::attention_lines::AttentionLines;
use crate::components::derived::{use_cell, use_layer_choice, DerivedProps};
use crate::components::fmt_prob;
use crate::components::matrix_view::{Mat, MatrixView};
use crate::explain::attention_views::{head_terms, rollout_terms, snapshot_rollout, ROLLOUT_MAX_TOKENS};
use yew::prelude::*;

/// Terms written out in the formula (the largest products); the rest are summed.
const SHOWN_TERMS: usize = 3;

#[component]
pub fn AttentionRollout(p: &DerivedProps) -> Html {
    let s = &p.snapshot;
    let n = s.len();
    let (upto, onchange) = use_layer_choice(); // None = the last layer
    let ((r, c), on_cell) = use_cell(n);
    // computed here from the snapshot by the explain crate (see explain::attention_views); L
    // products of T x T, so bounded by ROLLOUT_MAX_TOKENS
    let steps = use_memo(p.snapshot.clone(), |s| {
        (s.len() <= ROLLOUT_MAX_TOKENS)
            .then(|| snapshot_rollout(s).into_iter().map(|st| (Mat::new(st.mixed), Mat::new(st.rollout))).collect::<Vec<_>>())
    });
    let Some(steps) = steps.as_ref().as_ref().filter(|st| !st.is_empty()) else {
        return html! {
            <div class="derived" data-testid="attention-rollout">
                <h3>{ "Attention rollout" }</h3>
                <p class="hint">{ format!("Rollout multiplies {} matrices of {n} x {n}: shown for inputs of up to {ROLLOUT_MAX_TOKENS} tokens.", s.layers) }</p>
            </div>
        };
    };
    let l = upto.filter(|&l| l < steps.len()).unwrap_or(steps.len() - 1);
    let (mixed, roll) = &steps[l];
    let v = roll.0[r * n + c];

    // the live numbers: for layer 0 the residual mix itself, above it the sum over k
    let formula = if l == 0 {
        let heads = head_terms(s, 0, r, c);
        let a = heads.iter().sum::<f32>() / heads.len().max(1) as f32; // Ā_0[r, c]
        format!(
            "R_0[{r}, {c}] = Â_0[{r}, {c}] = 0.5 · Ā_0[{r}, {c}] + 0.5 · [{r} = {c}] = 0.5 · {} + 0.5 · {} = {}",
            fmt_prob(a),
            if r == c { 1 } else { 0 },
            fmt_prob(v)
        )
    } else {
        let prev = &steps[l - 1].1;
        let mut terms = rollout_terms(&mixed.0, &prev.0, n, r, c);
        terms.sort_by(|x, y| (y.1 * y.2).total_cmp(&(x.1 * x.2)));
        let shown: Vec<String> =
            terms.iter().take(SHOWN_TERMS).map(|(k, a, b)| format!("{}·{} (k={k})", fmt_prob(*a), fmt_prob(*b))).collect();
        let rest: f32 = terms.iter().skip(SHOWN_TERMS).map(|(_, a, b)| a * b).sum();
        let rest = if terms.len() > SHOWN_TERMS {
            format!(" + {} ({} smaller terms)", fmt_prob(rest), terms.len() - SHOWN_TERMS)
        } else {
            String::new()
        };
        format!("R_{l}[{r}, {c}] = Σ_k Â_{l}[{r}, k] · R_{}[k, {c}] = {}{rest} = {}", l - 1, shown.join(" + "), fmt_prob(v))
    };
    let tok = |i: usize| p.tokens.get(i).cloned().unwrap_or_default();
    let title = format!("Attention rollout up to layer {l}");
    let options =
        (0..steps.len()).map(|k| html! { <option key={k} value={k.to_string()} selected={k == l}>{ format!("layer {k}") }</option> });
    html! {
        <div class="derived" data-testid="attention-rollout" data-layer={l.to_string()}>
            <h3>{ "Attention rollout" }</h3>
            <p class="hint">{ "Each layer adds its input back (the residual), so the flow through a layer is taken as half its head-averaged attention plus half the identity; rollout multiplies these through the layers. Row i: how much of each input token has reached position i." }</p>
            <label class="scope">{ "up to " }
                <select data-testid="rollout-layer" {onchange}>{ for options }</select>
            </label>
            <div class="derived-views">
                <MatrixView testid="rollout-matrix" title={title.clone()} file={format!("bertscope-attention-rollout-L{l}")} note={p.note.clone()}
                    tokens={p.tokens.clone()} values={roll.clone()} cell={Some((r, c))} {on_cell} />
                <AttentionLines label={title} tokens={p.tokens.clone()} values={roll.clone()} highlight={Some((r, c))} />
            </div>
            <p class="readout" data-testid="rollout-value" data-row={r.to_string()} data-col={c.to_string()} data-value={v.to_string()}>
                { format!("after layer {l}, position {r} \"{}\" holds {} of input token {c} \"{}\"", tok(r), fmt_prob(v), tok(c)) }
            </p>
            <p class="formula">{ "Â_ℓ = rownorm(0.5 · Ā_ℓ + 0.5 · I), R_0 = Â_0, R_ℓ = Â_ℓ · R_ℓ₋₁ (Ā_ℓ: mean over the heads of layer ℓ)" }</p>
            <p class="formula">{ formula }</p>
        </div>
    }
}
