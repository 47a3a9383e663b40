//! The second half of a layer for one token: its vectors as strips (x, + attention output,
//! LayerNorm, FFN pre-activation, GELU, FFN out, + residual, LayerNorm), the activation curve with
//! the token's units on it, and the formulas of a picked dimension with their live numbers. The
//! numbers come from `explain::ffn_detail`.

use crate::components::mat::Mat;
use crate::components::matrix_canvas::{MatrixCanvas, Scale};
use crate::components::{show_token, SnapRef};
use crate::explain::ffn_detail::FfnDetail;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    /// Another (layer, token) was picked.
    pub on_focus: Callback<(usize, usize)>,
}

/// Width of a strip in CSS pixels.
const STRIP_W: f64 = 400.0;

/// (key, label, the vector, intermediate-sized) of each strip, in the order of the layer.
fn strips(d: &FfnDetail) -> Vec<(&'static str, &'static str, &Vec<f32>, bool)> {
    vec![
        ("x", "x: the layer's input", &d.x, false),
        ("attn", "+ attention output (W_O)", &d.attn_dense, false),
        ("res1", "= attn_res", &d.ln1.input, false),
        ("ln1", "LayerNorm 1", &d.ln1.out, false),
        ("pre", "FFN pre-activation (W_1)", &d.ffn_pre, true),
        ("act", "GELU", &d.ffn_act, true),
        ("ffn_out", "FFN out (W_2)", &d.ffn_out, false),
        ("res2", "+ residual (LayerNorm 1)", &d.ln2.input, false),
        ("ln2", "LayerNorm 2 = layer output", &d.ln2.out, false),
    ]
}

#[component]
pub fn FfnPanel(p: &Props) -> Html {
    let s = &p.snapshot;
    let dim = use_state(|| 0usize); // picked hidden dimension
    let unit = use_state(|| 0usize); // picked intermediate unit
                                     // the strips' numbers, copied once per snapshot (the canvases draw when these change, not on
                                     // every pick), and the detail for the chart
    let mats = use_memo(p.snapshot.clone(), |s| {
        s.ffn_detail.as_ref().map(|d| (strips(d).into_iter().map(|(.., v, _)| Mat::new(v.clone())).collect::<Vec<_>>(), Rc::new(d.clone())))
    });
    let (Some(d), Some((values, detail))) = (s.ffn_detail.as_ref(), mats.as_ref()) else {
        return html! { <p class="placeholder">{ "No FFN detail in this snapshot." }</p> };
    };
    let (layer, token) = (d.layer, d.token);
    let on_layer = {
        let cb = p.on_focus.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Ok(l) = el.value().parse() {
                cb.emit((l, token));
            }
        })
    };
    let on_token = {
        let cb = p.on_focus.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Ok(t) = el.value().parse() {
                cb.emit((layer, t));
            }
        })
    };
    let c = (*dim).min(d.hidden().saturating_sub(1));
    let m = (*unit).min(d.intermediate().saturating_sub(1));
    let rows = strips(d).into_iter().zip(values).map(|((key, label, v, inter), values)| {
        let (lo, hi) = v.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        let on_pick = {
            let (dim, unit) = (dim.clone(), unit.clone());
            Callback::from(move |(_, col): (usize, usize)| if inter { unit.set(col) } else { dim.set(col) })
        };
        let picked = Some((0, if inter { m } else { c }));
        let at = if inter { m } else { c };
        html! {
            <div key={key} class="strip" data-strip={key}>
                <span class="strip-label">{ label }<small>{ format!(" ({})", v.len()) }</small></span>
                <MatrixCanvas values={values.clone()} rows={1} cols={v.len()} scale={Scale::Range(lo, hi)} size={Some((STRIP_W, 14.0))}
                    wrap="canvas-wrap mat" attrs={vec![("role", AttrValue::from("button"))]} selected={picked} on_select={on_pick}
                    label={AttrValue::from(format!("{label}, {} numbers; arrow keys pick one", v.len()))} />
                <span class="strip-value">{ format!("[{at}] = {:.4}", v.get(at).copied().unwrap_or(0.0)) }</span>
            </div>
        }
    });
    let formulas = d.hidden_formulas(c).into_iter().chain(d.unit_formulas(m)).map(|(key, f)| {
        let ln = match key {
            "ln1" => Some(&d.ln1),
            "ln2" => Some(&d.ln2),
            _ => None,
        };
        match ln {
            Some(ln) => html! {
                <li key={key} class="formula" data-testid="ln-formula" data-which={key} data-dim={c.to_string()} data-x={ln.input[c].to_string()}
                    data-mean={ln.mean.to_string()} data-rstd={ln.rstd.to_string()} data-gamma={ln.gamma[c].to_string()}
                    data-beta={ln.beta[c].to_string()} data-value={f.value.to_string()}>{ f.text }</li>
            },
            None => html! { <li key={key} class="formula" data-key={key}>{ f.text }</li> },
        }
    });
    let tok = |i: usize| s.tokens.get(i).map(|t| show_token(&t.text)).unwrap_or_default();
    html! {
        <div class="ffn-detail" data-testid="ffn-detail" data-layer={layer.to_string()} data-token={token.to_string()}>
            <div class="pickers">
                <label>{ "Layer " }
                    <select data-testid="ffn-layer" onchange={on_layer}>
                        { for (0..s.layers).map(|l| html! { <option key={l} value={l.to_string()} selected={l == layer}>{ format!("layer {l}") }</option> }) }
                    </select>
                </label>
                <label>{ "Token " }
                    <select data-testid="ffn-token" onchange={on_token}>
                        { for (0..s.len()).map(|i| html! { <option key={i} value={i.to_string()} selected={i == token}>{ format!("{i}: {}", tok(i)) }</option> }) }
                    </select>
                </label>
                <span class="muted">{ format!("hidden {} → intermediate {} → hidden {}", d.hidden(), d.intermediate(), d.hidden()) }</span>
            </div>
            <div class="ffn-body">
                <div class="strips">{ for rows }</div>
                <ActivationChart detail={detail.clone()} unit={m} />
            </div>
            <p class="hint">{ format!("Click a strip to pick a dimension (hidden: {c}, intermediate unit: {m}). {}", d.ln1.stats()) }</p>
            <ul class="formulas">{ for formulas }</ul>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ChartProps {
    detail: Rc<FfnDetail>,
    unit: usize,
}

/// The activation curve with the token's (pre, act) pairs on it, the picked unit ringed.
#[component]
fn ActivationChart(p: &ChartProps) -> Html {
    let d = &p.detail;
    let (w, h, pad) = (260.0f32, 200.0f32, 24.0f32);
    let (x0, x1) = (d.curve.first().map_or(-3.0, |c| c.0), d.curve.last().map_or(3.0, |c| c.0));
    let (y0, y1) = d.curve.iter().fold((0.0f32, 0.0f32), |(a, b), c| (a.min(c.1), b.max(c.1)));
    let (sx, sy) = ((w - 2.0 * pad) / (x1 - x0).max(1e-6), (h - 2.0 * pad) / (y1 - y0).max(1e-6));
    let px = |x: f32| pad + (x - x0) * sx;
    let py = |y: f32| h - pad - (y - y0) * sy;
    let curve: String =
        d.curve.iter().enumerate().map(|(i, &(x, y))| format!("{}{:.1},{:.1} ", if i == 0 { "M" } else { "L" }, px(x), py(y))).collect();
    // all units as one path of zero-length segments with round caps (one element for 3072 dots)
    let dots: String = d.ffn_pre.iter().zip(&d.ffn_act).map(|(&x, &y)| format!("M{:.1},{:.1}h0 ", px(x), py(y))).collect();
    let ring = d.ffn_pre.get(p.unit).zip(d.ffn_act.get(p.unit)).map(|(&x, &y)| {
        html! { <circle cx={format!("{:.1}", px(x))} cy={format!("{:.1}", py(y))} r="6" class="ring" /> }
    });
    html! {
        <figure class="act-chart">
            <svg viewBox={format!("0 0 {w} {h}")} width={w.to_string()} height={h.to_string()} role="img"
                aria-label={format!("{} curve with this token's {} pre-activations on it", d.activation, d.ffn_pre.len())}>
                <line x1={format!("{:.1}", px(x0))} x2={format!("{:.1}", px(x1))} y1={format!("{:.1}", py(0.0))} y2={format!("{:.1}", py(0.0))} class="axis" />
                <line x1={format!("{:.1}", px(0.0f32.clamp(x0, x1)))} x2={format!("{:.1}", px(0.0f32.clamp(x0, x1)))} y1={pad.to_string()} y2={(h - pad).to_string()} class="axis" />
                <path d={dots} class="dots" />
                <path d={curve} class="curve" />
                { for ring }
                <text x={pad.to_string()} y={(h - 6.0).to_string()} class="svg-tick">{ format!("{x0:.2}") }</text>
                <text x={(w - pad).to_string()} y={(h - 6.0).to_string()} class="svg-tick end">{ format!("{x1:.2}") }</text>
                <text x="4" y="14" class="svg-tick">{ format!("{} ≤ {y1:.2}", d.activation) }</text>
            </svg>
            <figcaption>{ format!("{}: each dot one of the {} units for this token; {:.0}% are nearly switched off (|act| < 1% of the largest)", d.activation, d.ffn_pre.len(), 100.0 * d.quiet_share()) }</figcaption>
        </figure>
    }
}
