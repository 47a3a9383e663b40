//! One head, step by step: pickers for (layer, head), then Q, K, V, the scores, scaled, masked,
//! softmax, context, the concat of all heads and W_O, each a small heatmap with its formula; a
//! picked cell shows its formula with the live numbers, and the scaled row and its softmax side by
//! side ("before and after"). The numbers and formulas come from `explain::head_detail`.

use crate::components::mat::Mat;
use crate::components::matrix_canvas::{MatrixCanvas, Scale};
use crate::components::{show_token, SnapRef};
use crate::explain::colormap::{text_on, viridis_hex};
use crate::explain::head_detail::{self, HeadDetail};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    /// Another (layer, head) was picked.
    pub on_focus: Callback<(usize, usize)>,
}

/// Each step's caption: (step, title, formula).
const CAPTIONS: [(&str, &str, &str); 10] = [
    ("q", "Q", "Q = X W_Qᵀ + b_Q"),
    ("k", "K", "K = X W_Kᵀ + b_K"),
    ("v", "V", "V = X W_Vᵀ + b_V"),
    ("scores", "scores", "S = Q Kᵀ"),
    ("scaled", "scaled", "S / √d_k"),
    ("masked", "masked", "+ mask (−∞ at padding)"),
    ("softmax", "softmax", "P = softmax(row)"),
    ("context", "context", "C_h = P V"),
    ("concat", "concat", "[C_0 … C_NH−1]"),
    ("output", "output", "concat W_Oᵀ + b_O"),
];

/// Display size of a (rows, cols) matrix: cells at most 16 px, the whole within about 220 x 180.
fn size(rows: usize, cols: usize) -> (usize, usize) {
    let cw = (220 / cols.max(1)).clamp(1, 16);
    let ch = (180 / rows.max(1)).clamp(3, 16);
    (cw * cols, ch * rows)
}

fn select(label: &str, testid: &str, n: usize, value: usize, word: &str, on: Callback<usize>) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        if let Ok(v) = el.value().parse() {
            on.emit(v);
        }
    });
    html! {
        <label>{ label }
            <select data-testid={testid.to_string()} {onchange}>
                { for (0..n).map(|i| html! { <option key={i} value={i.to_string()} selected={i == value}>{ format!("{word} {i}") }</option> }) }
            </select>
        </label>
    }
}

#[component]
pub fn HeadSteps(p: &Props) -> Html {
    let s = &p.snapshot;
    // (step, row, col) of the picked cell
    let picked = use_state(|| ("softmax", 1usize, 1usize));
    // each step's numbers and the padding columns, copied once per snapshot (the canvases draw
    // when these change, not on every pick)
    let mats = use_memo(p.snapshot.clone(), |s| {
        s.head_detail.as_ref().map(|d| {
            let values = CAPTIONS.map(|(step, ..)| Mat::new(d.step(step).expect("every step has a matrix").data.clone()));
            (values, Rc::new(d.padding.clone()))
        })
    });
    let (Some(d), Some((values, dead))) = (s.head_detail.as_ref(), mats.as_ref()) else {
        return html! { <p class="placeholder">{ "No head detail in this snapshot." }</p> };
    };
    let (layer, head) = (d.layer, d.head);
    let on_layer = {
        let cb = p.on_focus.clone();
        Callback::from(move |l: usize| cb.emit((l, head)))
    };
    let on_head = {
        let cb = p.on_focus.clone();
        Callback::from(move |h: usize| cb.emit((layer, h)))
    };
    let tok = |i: usize| s.tokens.get(i).map(|t| show_token(&t.text)).unwrap_or_default();
    let no_dead = Rc::new(vec![]);
    let figures = CAPTIONS.iter().zip(values).map(|(&(step, title, formula), values)| {
        let m: &head_detail::Mat = d.step(step).expect("every step has a matrix");
        let (lo, hi) = if step == "softmax" { (0.0, 1.0) } else { m.range() };
        let (w, h) = size(m.rows, m.cols);
        let on_pick = {
            let picked = picked.clone();
            Callback::from(move |(r, c): (usize, usize)| picked.set((step, r, c)))
        };
        let here = (picked.0 == step).then_some((picked.1, picked.2));
        let shape = if m.col0 > 0 || (step == "concat" || step == "output") && m.cols < d.hidden {
            format!("{} × {} (columns {}–{} of {})", m.rows, m.cols, m.col0, m.col0 + m.cols - 1, d.hidden)
        } else {
            format!("{} × {}", m.rows, m.cols)
        };
        let label = format!("{title} of layer {layer} head {head}, {shape}; arrow keys pick a cell");
        let dead = if step == "masked" || step == "softmax" { dead.clone() } else { no_dead.clone() };
        html! {
            <figure key={step} class={classes!("step", (picked.0 == step).then_some("on"))} data-step={step}>
                <figcaption><b>{ title }</b>{ " " }<span class="f">{ formula }</span></figcaption>
                <MatrixCanvas values={values.clone()} rows={m.rows} cols={m.cols} scale={Scale::Range(lo, hi)} {dead} size={Some((w as f64, h as f64))}
                    wrap="canvas-wrap mat" attrs={vec![("role", AttrValue::from("button"))]} selected={here} on_select={on_pick} label={AttrValue::from(label)} />
                <small class="shape">{ shape }</small>
                <small class="range">{ format!("{:.3} … {:.3}", lo, hi) }</small>
            </figure>
        }
    });

    let (step, i, j) = *picked;
    let formula = d.formula(step, i, j).or_else(|| d.formula("softmax", 0, 0));
    let (fi, fj, fstep) = if d.value(step, i, j).is_some() { (i, j, step) } else { (0, 0, "softmax") };
    let cell_names = match fstep {
        "q" | "k" | "v" | "context" => format!("token {fi} \"{}\", dimension {}", tok(fi), fj),
        "concat" | "output" => format!("token {fi} \"{}\", column {}", tok(fi), d.concat.col0 + fj),
        _ => format!("query {fi} \"{}\" → key {fj} \"{}\"", tok(fi), tok(fj)),
    };
    let formula_html = match formula {
        Some(f) => html! {
            <div class="readouts">
                <p class="readout">{ cell_names }</p>
                <p class="formula big" data-testid="head-formula" data-step={fstep} data-layer={layer.to_string()} data-head={head.to_string()}
                    data-row={fi.to_string()} data-col={fj.to_string()} data-value={f.value.to_string()}>{ f.text }</p>
            </div>
        },
        None => html! {},
    };
    let row = if matches!(fstep, "scores" | "scaled" | "masked" | "softmax") { fi } else { fi.min(d.t().saturating_sub(1)) };

    html! {
        <div class="head-steps-view">
            <div class="pickers">
                { select("Layer ", "head-layer", s.layers, layer, "layer", on_layer) }
                { select("Head ", "head-head", s.heads, head, "head", on_head) }
                <span class="muted">{ format!("d_k = {} (hidden {} / {} heads){}", d.hd, d.hidden, d.heads, if d.off { " · this head is switched off: its context is multiplied by 0" } else { "" }) }</span>
            </div>
            <div class="head-steps" data-testid="head-steps" data-layer={layer.to_string()} data-head={head.to_string()}>
                { for figures }
            </div>
            { formula_html }
            { before_after(d, row, &tok) }
        </div>
    }
}

/// Row `i` of the scaled scores and of the softmax, side by side, one cell per key.
fn before_after(d: &HeadDetail, i: usize, tok: &dyn Fn(usize) -> String) -> Html {
    let t = d.t();
    if i >= t {
        return html! {};
    }
    let (lo, hi) = d.scaled.range();
    let span = if hi > lo { hi - lo } else { 1.0 };
    let cells = |vals: Vec<Option<f32>>, norm: &dyn Fn(f32) -> f32| -> Html {
        let tds = vals.into_iter().enumerate().map(|(j, v)| match v {
            Some(v) => {
                let c = norm(v);
                html! { <td key={j} style={format!("background: {}; color: {}", viridis_hex(c), text_on(c))} title={v.to_string()}>{ format!("{v:.3}") }</td> }
            }
            None => html! { <td key={j} class="dead" title="padding: −∞">{ "−∞" }</td> },
        });
        html! { <>{ for tds }</> }
    };
    let scaled: Vec<Option<f32>> = (0..t).map(|j| (!d.padding[j]).then(|| d.scaled.at(i, j))).collect();
    let probs: Vec<Option<f32>> = (0..t).map(|j| Some(d.probs.at(i, j))).collect();
    html! {
        <div class="before-after-row" data-testid="softmax-row" data-row={i.to_string()}>
            <p class="hint">{ format!("Row {i} (\"{}\") before and after the softmax: the scaled scores become positive weights that sum to 1; the largest score takes the most.", tok(i)) }</p>
            <div class="table-wrap">
                <table>
                    <thead><tr><th />{ for (0..t).map(|j| html! { <th key={j} scope="col">{ tok(j) }</th> }) }</tr></thead>
                    <tbody>
                        <tr><th scope="row">{ "scaled scores" }</th>{ cells(scaled, &|v| (v - lo) / span) }</tr>
                        <tr><th scope="row">{ "softmax" }</th>{ cells(probs, &|v| v) }</tr>
                    </tbody>
                </table>
            </div>
        </div>
    }
}
