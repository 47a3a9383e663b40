//! One head's attention as a thumbnail: a T x T canvas, one pixel per (query, key) cell in viridis,
//! scaled up by CSS. Click to enlarge.

use super::canvas_px::{is_drawn, put_pixels};
use super::SnapRef;
use crate::explain::colormap;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Draws `values` (n * n, row-major, in [0, 1]) into the canvas, one pixel per cell, unless
/// `only_if_blank` and the canvas already has that size (drawn).
pub(super) fn draw(canvas: &NodeRef, values: &[f32], n: usize, only_if_blank: bool) -> Option<()> {
    let c = canvas.cast::<HtmlCanvasElement>()?;
    if n == 0 || values.len() != n * n {
        return None;
    }
    if only_if_blank && is_drawn(&c, n, n) {
        return Some(());
    }
    put_pixels(&c, &colormap::rgba(values), n, n)
}

/// A canvas ref that always shows head (`layer`, `head`) of `snapshot`: drawn when they change,
/// and drawn again when the DOM diff has replaced the canvas with a blank one.
#[hook]
pub(super) fn use_head_canvas(snapshot: &SnapRef, layer: usize, head: usize) -> NodeRef {
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        use_effect_with((snapshot.clone(), layer, head), move |(s, l, h)| {
            draw(&canvas, s.head(*l, *h), s.len(), false);
        });
    }
    {
        let (canvas, s) = (canvas.clone(), snapshot.clone());
        use_effect(move || {
            draw(&canvas, s.head(layer, head), s.len(), true);
        });
    }
    canvas
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    pub layer: usize,
    pub head: usize,
    /// The head is switched off (ablation).
    pub off: bool,
    pub selected: bool,
    pub on_select: Callback<(usize, usize)>,
}

#[component]
pub fn Heatmap(p: &Props) -> Html {
    let canvas = use_head_canvas(&p.snapshot, p.layer, p.head);
    let (l, h) = (p.layer, p.head);
    let onclick = {
        let cb = p.on_select.clone();
        Callback::from(move |_: MouseEvent| cb.emit((l, h)))
    };
    let onkeydown = {
        let cb = p.on_select.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                cb.emit((l, h));
            }
        })
    };
    let label = format!("layer {l} · head {h}{}", if p.off { " (off)" } else { "" });
    html! {
        <figure class={classes!("thumb", p.off.then_some("off"), p.selected.then_some("selected"))}>
            <canvas ref={canvas} data-testid="heatmap" data-layer={l.to_string()} data-head={h.to_string()}
                tabindex="0" role="button" aria-label={format!("attention of {label}; press Enter to enlarge")}
                title="click to enlarge" {onclick} {onkeydown} />
            <figcaption>{ label }</figcaption>
        </figure>
    }
}
