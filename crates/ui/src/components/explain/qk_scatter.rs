//! AttentionViz's view of one head: the surveyed sentences' queries (blue) and keys (orange) in
//! one scatter, the current sentence's over them, and one of its queries joined to the keys it
//! attends to most. Points close together mean a large query·key score: the picture shows why the
//! head attends where it does. Drag to pan, the wheel (or + and -) to zoom, hover a point for its
//! token in its line; focused, the left and right arrows pick the sentence's query.

use super::corpus_search::words;
use super::qk_canvas::{draw, LINKS};
use crate::components::{show_token, SnapRef};
use crate::engine::use_engine;
use crate::explain::qk_scatter::{Frame, QkPick, QkRequest, QkView};
use crate::explain::Request;
use crate::protocol::ToEngine;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    pub req: Request,
    pub view: Option<Rc<QkView>>,
    pub error: Option<String>,
    /// The head enlarged above (layer, head from 0), the one drawn first.
    pub selected: Option<(usize, usize)>,
}

/// The canvas's pixels.
const W: f64 = 720.0;
const H: f64 = 460.0;
/// Pieces shown on each side of a hovered token.
const CONTEXT: usize = 6;

fn value(e: &Event) -> usize {
    e.target_unchecked_into::<HtmlSelectElement>().value().parse().unwrap_or(0)
}

/// The canvas pixel under a mouse event (the canvas may be drawn smaller than its pixels).
fn pixel(c: &HtmlCanvasElement, x: i32, y: i32) -> (f64, f64) {
    let r = c.get_bounding_client_rect();
    let (sx, sy) = (c.width() as f64 / r.width().max(1.0), c.height() as f64 / r.height().max(1.0));
    ((x as f64 - r.left()) * sx, (y as f64 - r.top()) * sy)
}

/// What a hovered point is, in words: its kind, its token and its line around it.
fn describe(v: &QkView, pick: QkPick) -> String {
    let corpus = |i: usize, kind: &str| {
        v.context(i).map_or(String::new(), |(line, p, pieces)| {
            let left = words(&pieces[p.saturating_sub(CONTEXT)..p]);
            let right = words(&pieces[(p + 1).min(pieces.len())..(p + 1 + CONTEXT).min(pieces.len())]);
            format!(
                "{kind} of \u{201c}{}\u{201d}, line {line}: \u{2026} {left} [{}] {right} \u{2026}",
                show_token(&pieces[p]),
                show_token(&pieces[p])
            )
        })
    };
    match pick {
        QkPick::Query(i) => corpus(i, "query"),
        QkPick::Key(i) => corpus(i, "key"),
        QkPick::SentenceQuery(i) => format!("query of \u{201c}{}\u{201d} in your sentence (token {i})", show_token(&v.sentence[i].text)),
        QkPick::SentenceKey(i) => format!("key of \u{201c}{}\u{201d} in your sentence (token {i})", show_token(&v.sentence[i].text)),
    }
}

#[component]
pub fn QkScatter(p: &Props) -> Html {
    let engine = use_engine();
    let s = &p.snapshot;
    let layer = use_state(|| p.selected.map_or(0, |x| x.0));
    let head = use_state(|| p.selected.map_or(0, |x| x.1));
    let first_word = s.tokens.iter().position(|t| !t.special).unwrap_or(0);
    let chosen = use_state(|| first_word);
    let frame = use_state(|| None::<Frame>);
    // what is drawn now, for the wheel's listener (outside yew)
    let drawn = use_mut_ref(|| None::<Frame>);
    let dragging = use_mut_ref(|| None::<(f64, f64, Frame)>);
    let hover = use_state(|| None::<String>);
    let canvas = use_node_ref();
    let view_id = p.view.as_ref().map(|v| Rc::as_ptr(v) as usize);
    let n = p.view.as_ref().map_or(0, |v| v.sentence.len());
    let chosen_at = (*chosen).min(n.saturating_sub(1));
    {
        // a new scatter is seen whole
        let frame = frame.clone();
        use_effect_with(view_id, move |_| frame.set(None));
    }
    {
        let (canvas, view, drawn) = (canvas.clone(), p.view.clone(), drawn.clone());
        use_effect_with((view_id, *frame, chosen_at), move |(_, f, chosen)| {
            if let (Some(c), Some(v)) = (canvas.cast::<HtmlCanvasElement>(), view) {
                let f = f.unwrap_or_else(|| Frame::fit(&v, W, H));
                let t0 = crate::browser::now();
                draw(&c, &v, &f, *chosen);
                let ms = crate::browser::now() - t0;
                let draws = c.get_attribute("data-draws").and_then(|d| d.parse::<u32>().ok()).unwrap_or(0) + 1;
                let _ = c.set_attribute("data-draw-ms", &format!("{ms:.2}"));
                let _ = c.set_attribute("data-draws", &draws.to_string());
                // where the chosen query is drawn, in canvas pixels (the e2e suite points at it)
                if let Some(t) = v.sentence.get(*chosen) {
                    let (x, y) = f.to_px(t.query);
                    let _ = c.set_attribute("data-chosen", &format!("{x:.1},{y:.1}"));
                }
                *drawn.borrow_mut() = Some(f);
            }
        });
    }
    {
        // the wheel zooms the scatter, not the page: a listener that may cancel the scroll
        let (canvas, drawn, frame) = (canvas.clone(), drawn.clone(), frame.setter());
        use_effect_with(view_id.is_some(), move |_| {
            let c = canvas.cast::<HtmlCanvasElement>();
            let cc = c.clone();
            let cb = Closure::<dyn Fn(web_sys::WheelEvent)>::new(move |e: web_sys::WheelEvent| {
                let (Some(c), Some(f)) = (cc.as_ref(), *drawn.borrow()) else { return };
                e.prevent_default();
                let (x, y) = pixel(c, e.client_x(), e.client_y());
                frame.set(Some(f.zoomed((-e.delta_y() * 0.002).exp(), x, y)));
            });
            let opts = web_sys::AddEventListenerOptions::new();
            opts.set_passive(false);
            if let Some(c) = &c {
                let _ = c.add_event_listener_with_callback_and_add_event_listener_options("wheel", cb.as_ref().unchecked_ref(), &opts);
            }
            move || {
                if let Some(c) = c {
                    let _ = c.remove_event_listener_with_callback("wheel", cb.as_ref().unchecked_ref());
                }
            }
        });
    }
    let ondraw = {
        let (engine, req, layer, head) = (engine.clone(), p.req.clone(), *layer, *head);
        Callback::from(move |_: MouseEvent| engine.send(ToEngine::QueriesKeys(QkRequest { req: req.clone(), layer: layer + 1, head })))
    };
    let on_layer = {
        let layer = layer.clone();
        Callback::from(move |e: Event| layer.set(value(&e)))
    };
    let on_head = {
        let head = head.clone();
        Callback::from(move |e: Event| head.set(value(&e)))
    };
    let zoom = |factor: f64| {
        let (frame, drawn) = (frame.clone(), drawn.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(f) = *drawn.borrow() {
                frame.set(Some(f.zoomed(factor, W / 2.0, H / 2.0)));
            }
        })
    };
    let reset = {
        let frame = frame.clone();
        Callback::from(move |_: MouseEvent| frame.set(None))
    };
    let onmousedown = {
        let (canvas, drawn, dragging) = (canvas.clone(), drawn.clone(), dragging.clone());
        Callback::from(move |e: MouseEvent| {
            if let (Some(c), Some(f)) = (canvas.cast::<HtmlCanvasElement>(), *drawn.borrow()) {
                let (x, y) = pixel(&c, e.client_x(), e.client_y());
                *dragging.borrow_mut() = Some((x, y, f));
            }
        })
    };
    let onmouseup = {
        let dragging = dragging.clone();
        Callback::from(move |_: MouseEvent| *dragging.borrow_mut() = None)
    };
    let onmousemove = {
        let (canvas, drawn, dragging, frame, hover, view) =
            (canvas.clone(), drawn.clone(), dragging.clone(), frame.clone(), hover.clone(), p.view.clone());
        Callback::from(move |e: MouseEvent| {
            let (Some(c), Some(v)) = (canvas.cast::<HtmlCanvasElement>(), view.as_ref()) else { return };
            let (x, y) = pixel(&c, e.client_x(), e.client_y());
            if let Some((x0, y0, f)) = *dragging.borrow() {
                if e.buttons() & 1 == 1 {
                    frame.set(Some(f.panned(x - x0, y - y0)));
                    return;
                }
            }
            if let Some(f) = *drawn.borrow() {
                let [dx, dy] = f.to_data(x, y);
                let found = v.nearest(dx, dy, (6.0 / f.scale) as f32).map(|pick| describe(v, pick));
                if *hover != found {
                    hover.set(found);
                }
            }
        })
    };
    let onkeydown = {
        let (chosen, frame, drawn) = (chosen.clone(), frame.clone(), drawn.clone());
        Callback::from(move |e: KeyboardEvent| {
            let f = *drawn.borrow();
            match (e.key().as_str(), f) {
                ("ArrowRight", _) if n > 0 => chosen.set((chosen_at + 1) % n),
                ("ArrowLeft", _) if n > 0 => chosen.set((chosen_at + n - 1) % n),
                ("+" | "=", Some(f)) => frame.set(Some(f.zoomed(1.25, W / 2.0, H / 2.0))),
                ("-", Some(f)) => frame.set(Some(f.zoomed(0.8, W / 2.0, H / 2.0))),
                ("0" | "Home", _) => frame.set(None),
                _ => return,
            }
            e.prevent_default();
        })
    };
    let layers =
        (0..s.layers).map(|l| html! { <option key={l} value={l.to_string()} selected={l == *layer}>{ format!("layer {l}") }</option> });
    let heads =
        (0..s.heads).map(|h| html! { <option key={h} value={h.to_string()} selected={h == *head}>{ format!("head {h}") }</option> });
    let error = p.error.as_ref().map(|e| html! { <p class="error" role="alert" data-testid="qk-error">{ e.clone() }</p> });
    let body = p.view.as_ref().map(|v| {
        let stale = v.sentence.len() != s.tokens.len() || v.sentence.iter().zip(&s.tokens).any(|(a, b)| a.text != b.text);
        let links = v
            .top_keys(chosen_at, LINKS)
            .iter()
            .map(|&(k, w)| format!("\u{201c}{}\u{201d} {:.0}%", show_token(&v.sentence[k].text), 100.0 * w))
            .collect::<Vec<_>>()
            .join(", ");
        let q = v.sentence.get(chosen_at).map_or(String::new(), |t| show_token(&t.text));
        html! { <>
            <p class="hint" data-testid="qk-summary" data-points={(v.queries.len() + v.keys.len()).to_string()}>
                { format!("Head {} of layer {}: {} queries and {} keys of the surveyed sentences ({:.0} ms). The two axes explain {:.0}% and {:.0}% of their variance.",
                    v.head, v.layer - 1, v.queries.len(), v.keys.len(), v.ms, 100.0 * v.explained[0], 100.0 * v.explained[1]) }
            </p>
            if stale { <p class="hint" data-testid="qk-stale">{ "Drawn for an earlier sentence: press Draw for this one." }</p> }
            <div class="qk-zoom">
                <button onclick={zoom(1.25)} aria-label="Zoom in">{ "+" }</button>
                <button onclick={zoom(0.8)} aria-label="Zoom out">{ "\u{2212}" }</button>
                <button onclick={reset}>{ "See all" }</button>
                <span class="legend-dot" style="background: rgb(31,119,180)"></span>{ " queries " }
                <span class="legend-dot" style="background: rgb(255,127,14)"></span>{ " keys" }
            </div>
            <p class="qk-caption" aria-live="polite" data-testid="qk-caption">
                { format!("The query of \u{201c}{q}\u{201d} (large blue dot) attends most to {links}. \u{2190} \u{2192} pick another token of the sentence.") }
            </p>
            <p class="qk-hover" data-testid="qk-hover">{ hover.as_ref().cloned().unwrap_or_else(|| "Hover a point for its token and its line.".into()) }</p>
        </> }
    });
    html! {
        <div class="qk-scatter" data-testid="qk-scatter">
            <p class="hint">{ "One head's queries and keys of every surveyed token, in one picture (AttentionViz). A query attends to the keys its dot product with is largest: here, roughly, the keys near it. The keys are shifted so their mean meets the queries' (the softmax does not change), then both are projected on the same two principal axes. The surveyed points come from the 8-bit index (within about a pixel); your sentence's are exact." }</p>
            <div class="search-form">
                <label>{ "layer " }<select data-testid="qk-layer" onchange={on_layer}>{ for layers }</select></label>
                <label>{ "head " }<select data-testid="qk-head" onchange={on_head}>{ for heads }</select></label>
                <button data-testid="qk-go" onclick={ondraw}>{ "Draw" }</button>
            </div>
            { for error }
            <canvas ref={canvas} class="qk-canvas" data-testid="qk-canvas" tabindex="0" hidden={p.view.is_none()}
                aria-label="Scatter of the head's queries and keys: arrows pick a token, + and - zoom, 0 shows all"
                {onmousedown} {onmouseup} {onmousemove} {onkeydown} />
            { for body }
        </div>
    }
}
