//! What layer 0 reads, token by token: E_tok[id] + E_seg[s] + E_pos[t] = x, then LayerNorm(x), as
//! five heatmaps (tokens down, the first hidden dims across) with one selected cell whose formula
//! is written out with its numbers. The numbers come from the snapshot's `EmbeddingView`.

use crate::components::mat::Mat;
use crate::components::matrix_canvas::{MatrixCanvas, Pick, Scale};
use crate::components::value_legend::ValueLegend;
use crate::components::{show_token, SnapRef};
use crate::explain::diverging::quantile_abs;
use yew::prelude::*;

/// CSS width of each matrix (the columns shown share it).
const WIDTH: f64 = 256.0;

/// The selected cell's outline is at least this many CSS pixels (a 2 px row still shows it).
pub(crate) const MARKER_MIN: f64 = 4.0;

/// Colours run to this quantile of |v| (larger values are drawn as the ends of the scale).
const CLIP: f32 = 0.99;

/// A number in a sum: 6 decimals, negative ones in parentheses (so the terms read, and parse).
pub(crate) fn term(v: f32) -> String {
    if v < 0.0 {
        format!("({v:.6})")
    } else {
        format!("{v:.6}")
    }
}

/// Row height in CSS pixels for `t` rows, and whether token labels fit.
pub(crate) fn row_height(t: usize) -> (f64, bool) {
    let h = if t <= 24 { 14.0 } else { (336.0 / t as f64).max(2.0) };
    (h, h >= 10.0)
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
}

#[component]
pub fn Embeddings(p: &Props) -> Html {
    let s = &p.snapshot;
    let e = &s.embeddings;
    let (t, d) = (e.t, e.dims);
    let selected = use_state(|| (1usize, 0usize));
    // the matrices, copied once per snapshot (not on every hover)
    let mats = use_memo(p.snapshot.clone(), |s| {
        let e = &s.embeddings;
        let parts = [&e.word, &e.segment, &e.position, &e.sum].map(|v| Mat::new(v.clone()));
        // one colour range for the three parts and their sum, so they compare; clipped at the 99th
        // percentile of |v| (a few outlier dimensions would wash out the rest)
        let all: Vec<f32> = parts.iter().flat_map(|v| v.0.iter().copied()).collect();
        let scale = Scale::Diverging(quantile_abs(&all, CLIP));
        (parts, Mat::new(e.ln_out.clone()), scale, Scale::Diverging(quantile_abs(&e.ln_out, CLIP)))
    });
    let (parts, ln_out, scale, ln_scale) = (&mats.0, &mats.1, mats.2, mats.3);
    if t == 0 || d == 0 {
        return html! { <p class="placeholder">{ "No embeddings for this input." }</p> };
    }
    let (row, col) = (selected.0.min(t - 1), selected.1.min(d - 1));
    let on_select = {
        let selected = selected.clone();
        Callback::from(move |rc: (usize, usize)| selected.set(rc))
    };
    let (rh, labelled) = row_height(t);
    let height = rh * t as f64;
    let tok = |i: usize| s.tokens.get(i).map(|k| show_token(&k.text)).unwrap_or_default();
    let labels = || {
        let items = (0..t).map(|i| {
            html! { <span key={i} class={classes!("lab", (i == row).then_some("hot"))} style={format!("height: {rh}px")}>{ if labelled { tok(i) } else { String::new() } }</span> }
        });
        html! { <div class="emb-labels"><span class="cap" />{ for items }</div> }
    };
    let mat = |caption: &str, values: Mat, sc: Scale, testid: &str| {
        html! {
            <figure class="emb-mat">
                <figcaption>{ caption.to_string() }</figcaption>
                <MatrixCanvas {values} rows={t} cols={d} scale={sc} size={Some((WIDTH, height))} wrap="mx-wrap" class="mx"
                    label={AttrValue::from(format!("{caption}: {t} tokens x {d} dims; hover or use the arrow keys to read a cell"))} testid={AttrValue::from(testid.to_string())}
                    selected={Some((row, col))} on_select={on_select.clone()} pick={Pick::Hover} marker_min={MARKER_MIN} />
            </figure>
        }
    };
    let at = row * d + col;
    let k = &s.tokens[row.min(s.tokens.len() - 1)];
    let (a, b, c, x) = (e.word[at], e.segment[at], e.position[at], e.sum[at]);
    let (mu, rstd, g, beta, y) = (e.ln_mean[row], e.ln_rstd[row], e.gamma[col], e.beta[col], e.ln_out[at]);
    let pos_name = if e.sinusoidal { "PE" } else { "E_pos" };
    let capped = (e.dims < e.hidden).then(|| format!("Showing the first {} of the model's {} dimensions (columns).", e.dims, e.hidden));
    html! {
        <div class="embeddings" data-testid="embeddings" data-rows={t.to_string()} data-dims={d.to_string()} data-hidden={e.hidden.to_string()}>
            <p class="hint">
                if e.has_segments {
                    { format!("One row per token, one column per hidden dimension ({} of {}). Each token's vector is the sum of three rows looked up in tables the model learned: its token (by id), its segment (sentence A or B) and its position{}. LayerNorm then rescales each row to mean 0, variance 1 (times γ, plus β): that is what layer 0 reads. ",
                        d, e.hidden, if e.sinusoidal { " (here the fixed sinusoidal encoding, not learned)" } else { "" }) }
                } else {
                    { format!("One row per token, one column per hidden dimension ({} of {}). Each token's vector is the sum of two rows looked up in tables the model learned: its token (by id) and its position. This model (DistilBERT) has no segment embeddings: it was trained without BERT's next-sentence task, so nothing tells sentence A from sentence B except the separator token. LayerNorm then rescales each row to mean 0, variance 1 (times γ, plus β): that is what layer 0 reads. ", d, e.hidden) }
                }
                if e.first_position > 0 {
                    { format!("Positions start at {} (RoBERTa reserves the rows up to its padding id, {}): token t reads row t + {}. ", e.first_position, e.first_position - 1, e.first_position) }
                }
                { capped.unwrap_or_default() }
                { " Hover a cell, or focus a matrix and use the arrow keys." }
            </p>
            <div class="emb-eq">
                <div class="emb-row">
                    { labels() }
                    { mat("E_tok[id] · token", parts[0].clone(), scale, "emb-word") }
                    <span class="op">{ "+" }</span>
                    if e.has_segments {
                        { mat("E_seg[s] · segment", parts[1].clone(), scale, "emb-segment") }
                        <span class="op">{ "+" }</span>
                    }
                    { mat(&format!("{pos_name}[t] · position"), parts[2].clone(), scale, "emb-position") }
                </div>
                <div class="emb-row">
                    { labels() }
                    <span class="op">{ "=" }</span>
                    { mat("x · the sum", parts[3].clone(), scale, "emb-sum") }
                    <span class="op op-word">{ "LayerNorm →" }</span>
                    { mat("y = LayerNorm(x) · layer 0's input", ln_out.clone(), ln_scale, "emb-ln") }
                </div>
            </div>
            <div class="legends">
                <ValueLegend scale={scale} title={if e.has_segments { "E_tok, E_seg, E_pos, x" } else { "E_tok, E_pos, x" }} />
                <ValueLegend scale={ln_scale} title="LayerNorm(x)" />
                <span class="legend-note">{ "colours end at the 99th percentile of |value|; the few larger values get the end colours" }</span>
            </div>
            <div class="readouts" data-testid="embedding-formula" data-row={row.to_string()} data-col={col.to_string()}>
                <p class="readout">{ match e.has_segments {
                    true => format!("token {row} \"{}\" (id {}, segment {}), dimension {col}", tok(row), k.id, k.segment),
                    false => format!("token {row} \"{}\" (id {}), dimension {col}", tok(row), k.id),
                } }</p>
                <p class="formula" data-testid="embedding-sum">
                    { match e.has_segments {
                        true => format!("x[{row}, {col}] = E_tok[{}, {col}] + E_seg[{}, {col}] + {pos_name}[{}, {col}] = {} + {} + {} = {}", k.id, k.segment, row + e.first_position, term(a), term(b), term(c), term(x)),
                        false => format!("x[{row}, {col}] = E_tok[{}, {col}] + {pos_name}[{}, {col}] = {} + {} = {}", k.id, row + e.first_position, term(a), term(c), term(x)),
                    } }
                </p>
                <p class="formula" data-testid="embedding-ln">
                    { format!("y[{row}, {col}] = (x − μ) × rstd × γ[{col}] + β[{col}] = ({} − {}) × {} × {} + {} = {}", term(x), term(mu), term(rstd), term(g), term(beta), term(y)) }
                </p>
                <p class="formula">{ format!("μ, rstd = 1/√(var + ε): the mean and inverse deviation of token {row}'s x over all {} dimensions.", e.hidden) }</p>
            </div>
        </div>
    }
}
