//! The attention filmstrip: the probe sentence's attention in every head at step A and step B
//! (two sliders over the frames kept), the difference B − A per head on a diverging scale, and the
//! probe's fill-mask guesses at both steps side by side.

use crate::explain::colormap::viridis;
use crate::explain::filmstrip::{abs_max, diverging, head_diff};
use crate::explain::training::Frame;
use crate::train_state::TrainView;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

/// Cell size and label margin of a matrix, in CSS pixels.
const CELL: f64 = 20.0;
const MARGIN: f64 = 74.0;

/// Draws an n x n matrix with token labels on both axes; `color` maps a value to RGB.
fn draw_matrix(canvas: &HtmlCanvasElement, values: &[f32], labels: &[String], color: &dyn Fn(f32) -> [u8; 3]) -> Option<()> {
    let n = labels.len();
    if values.len() != n * n || n == 0 {
        return None;
    }
    let dpr = web_sys::window()?.device_pixel_ratio().max(1.0);
    let size = MARGIN + n as f64 * CELL + 2.0;
    let px = (size * dpr).round() as u32;
    canvas.set_width(px);
    canvas.set_height(px);
    let _ = canvas.set_attribute("style", &format!("width:{size}px;height:{size}px"));
    let ctx: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0).ok()?;
    ctx.clear_rect(0.0, 0.0, size, size);
    for i in 0..n {
        for j in 0..n {
            let [r, g, b] = color(values[i * n + j]);
            ctx.set_fill_style_str(&format!("rgb({r},{g},{b})"));
            ctx.fill_rect(MARGIN + j as f64 * CELL, MARGIN + i as f64 * CELL, CELL, CELL);
        }
    }
    ctx.set_fill_style_str("#1d2330");
    ctx.set_font("13px system-ui, sans-serif");
    let short = |s: &str| if s.chars().count() > 9 { format!("{}…", s.chars().take(8).collect::<String>()) } else { s.to_string() };
    ctx.set_text_align("right");
    ctx.set_text_baseline("middle");
    for (i, l) in labels.iter().enumerate() {
        let _ = ctx.fill_text(&short(l), MARGIN - 4.0, MARGIN + (i as f64 + 0.5) * CELL);
    }
    for (j, l) in labels.iter().enumerate() {
        ctx.save();
        let _ = ctx.translate(MARGIN + (j as f64 + 0.5) * CELL, MARGIN - 4.0);
        let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
        ctx.set_text_align("left");
        let _ = ctx.fill_text(&short(l), 0.0, 0.0);
        ctx.restore();
    }
    Some(())
}

#[derive(Properties, PartialEq)]
struct MatrixProps {
    values: Rc<Vec<f32>>,
    labels: Rc<Vec<String>>,
    /// None: attention (viridis, 0 to its largest weight); Some(m): a difference, -m..m on the
    /// diverging scale.
    diff: Option<f32>,
    caption: AttrValue,
    #[prop_or_default]
    testid: Option<AttrValue>,
}

#[component]
fn Matrix(p: &MatrixProps) -> Html {
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        // drawn when the numbers, the labels or the scale change
        use_effect_with((p.values.clone(), p.labels.clone(), p.diff), move |(values, labels, diff)| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                match *diff {
                    // each head scaled to its own largest weight: spread-out heads stay visible
                    None => {
                        let m = abs_max(values);
                        draw_matrix(&c, values, labels, &|v| viridis(v / m))
                    }
                    Some(m) => draw_matrix(&c, values, labels, &|v| diverging(v / m)),
                };
            }
        });
    }
    html! {
        <figure class="fmat">
            <canvas ref={canvas} data-testid={p.testid.clone()} role="img" aria-label={p.caption.clone()} />
            <figcaption>{ p.caption.clone() }</figcaption>
        </figure>
    }
}

fn guesses(f: &Frame) -> Html {
    if f.predictions.is_empty() {
        return html! { <p class="placeholder">{ "The probe has no [MASK]: add one to see guesses." }</p> };
    }
    html! {
        <ol class="fguesses">
            { for f.predictions.iter().map(|g| {
                let width = format!("width: {:.1}%", (g.prob * 100.0).clamp(0.0, 100.0));
                html! {
                    <li key={g.id} data-token={g.token.clone()}>
                        <span class="word">{ g.token.clone() }</span>
                        <span class="bar"><span class="fill" style={width} /></span>
                        <span class="prob">{ format!("{:.3}", g.prob) }</span>
                    </li>
                }
            }) }
        </ol>
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<TrainView>,
    pub on_scrub_a: Callback<Option<usize>>,
    pub on_scrub_b: Callback<Option<usize>>,
}

#[component]
pub fn Filmstrip(p: &Props) -> Html {
    let v = &p.view;
    let n = v.filmstrip.len();
    // Play: B steps through the frames, about 4 a second, then follows the latest again
    let playing = use_state(|| false);
    // a model of many heads (MiniLM's 72) shows one layer at a time (None: the last)
    let layer_pick = use_state(|| None::<usize>);
    let cursor = use_mut_ref(|| (0usize, 0usize)); // (B, frames) as last rendered
    *cursor.borrow_mut() = (v.scrubbed().map_or(0, |(_, b)| b), n);
    {
        let (cb, playing_h, cursor) = (p.on_scrub_b.clone(), playing.clone(), cursor.clone());
        use_effect_with(*playing, move |on| {
            let window = web_sys::window();
            let handle = match (*on, &window) {
                (true, Some(w)) => {
                    let tick = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
                        let (b, n) = *cursor.borrow();
                        if b + 1 >= n {
                            cb.emit(None);
                            playing_h.set(false);
                        } else {
                            cb.emit(Some(b + 1));
                        }
                    });
                    let id = w.set_interval_with_callback_and_timeout_and_arguments_0(tick.as_ref().unchecked_ref(), 250).ok();
                    Some((id, tick))
                }
                _ => None,
            };
            move || {
                if let (Some(w), Some((Some(id), _tick))) = (window, handle) {
                    w.clear_interval_with_handle(id);
                }
            }
        });
    }
    let Some((ia, ib)) = v.scrubbed() else {
        return html! {
            <div data-testid="filmstrip" class="filmstrip" data-frames="0">
                <p class="placeholder">{ "Frames of the probe sentence appear here once a run starts." }</p>
            </div>
        };
    };
    let (fa, fb) = (v.filmstrip.frames[ia].clone(), v.filmstrip.frames[ib].clone());
    let play = {
        let (playing, cb) = (playing.clone(), p.on_scrub_b.clone());
        Callback::from(move |_: MouseEvent| {
            if !*playing && ib + 1 >= n {
                cb.emit(Some(0)); // at the end: play from the start
            }
            playing.set(!*playing);
        })
    };
    let slider = |label: &'static str, idx: usize, cb: Callback<Option<usize>>, testid: &'static str| {
        let last = n - 1;
        let oninput = Callback::from(move |e: InputEvent| {
            let i: usize = e.target_unchecked_into::<HtmlInputElement>().value().parse().unwrap_or(0);
            // the right end follows new frames
            cb.emit(if i >= last && testid == "filmstrip-b" { None } else { Some(i) });
        });
        let step = v.filmstrip.frames[idx].step;
        html! {
            <label class="scrub">
                <span>{ format!("{label}: step {step}") }</span>
                <input type="range" min="0" max={last.to_string()} value={idx.to_string()} {oninput} data-testid={testid}
                    aria-label={format!("{label}: frame")} />
            </label>
        }
    };
    let labels_b = Rc::new(fb.tokens.clone());
    // one row per layer, one column per head; past 8 heads in all, one layer's heads, 3 a row
    let one_layer = fb.layers * fb.heads > 8;
    let shown_layer = layer_pick.unwrap_or(fb.layers.saturating_sub(1)).min(fb.layers.saturating_sub(1));
    let layers: Vec<usize> = if one_layer { vec![shown_layer] } else { (0..fb.layers).collect() };
    let grid = format!("grid-template-columns: repeat({}, max-content)", if one_layer { fb.heads.min(3) } else { fb.heads }.max(1));
    let pick = one_layer.then(|| {
        let lp = layer_pick.clone();
        let onchange = Callback::from(move |e: Event| {
            lp.set(e.target_unchecked_into::<web_sys::HtmlSelectElement>().value().parse().ok());
        });
        html! {
            <label class="scrub layer-pick">{ format!("{} heads a layer: show layer ", fb.heads) }
                <select {onchange} data-testid="filmstrip-layer" aria-label="the layer whose heads are shown">
                    { for (0..fb.layers).map(|l| html! { <option value={l.to_string()} selected={l == shown_layer}>{ l }</option> }) }
                </select>
            </label>
        }
    });
    let mut heads = vec![];
    let mut diffs = vec![];
    for l in layers {
        for h in 0..fb.heads {
            heads.push(html! {
                <Matrix key={format!("{l}-{h}")} values={Rc::new(fb.head(l, h).to_vec())} labels={labels_b.clone()} diff={None}
                    caption={AttrValue::from(format!("layer {l} · head {h} at step {} (brightest = {:.2})", fb.step, abs_max(fb.head(l, h))))} />
            });
            if let Some(d) = head_diff(&fa, &fb, l, h) {
                let m = abs_max(&d);
                diffs.push(html! {
                    <Matrix key={format!("{l}-{h}")} values={Rc::new(d)} labels={labels_b.clone()} diff={Some(m)}
                        caption={AttrValue::from(format!("layer {l} · head {h}: step {} − step {} (±{:.2})", fb.step, fa.step, m))} />
                });
            }
        }
    }
    html! {
        <div data-testid="filmstrip" class="filmstrip" data-frames={n.to_string()} data-step-a={fa.step.to_string()} data-step-b={fb.step.to_string()}>
            <div class="scrubs">
                { slider("A (before)", ia, p.on_scrub_a.clone(), "filmstrip-a") }
                { slider("B (after)", ib, p.on_scrub_b.clone(), "filmstrip-b") }
                <button class="play" onclick={play} data-testid="filmstrip-play">{ if *playing { "Stop" } else { "▶ Play" } }</button>
                <span class="muted">{ format!("{n} frames kept") }</span>
                { pick.unwrap_or_default() }
            </div>
            <h3>{ format!("{} attention at step {} (row = query token, column = key token; each head's colours run from 0 to its largest weight)", if one_layer { format!("Layer {shown_layer}'s heads'") } else { "Every head's".to_string() }, fb.step) }</h3>
            <div class="fmats" style={grid.clone()}>{ for heads }</div>
            <h3>{ format!("What changed from step {} to step {} (orange: more attention, purple: less)", fa.step, fb.step) }</h3>
            <div class="fmats" style={grid}>{ for diffs }</div>
            <h3>{ "The probe's [MASK], before and after" }</h3>
            <div class="compare">
                <div><h4>{ format!("step {}", fa.step) }</h4>{ guesses(&fa) }</div>
                <div><h4>{ format!("step {}", fb.step) }</h4>{ guesses(&fb) }</div>
            </div>
        </div>
    }
}
