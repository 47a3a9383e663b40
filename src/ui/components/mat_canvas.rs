//! A small matrix (or a vector, one row) as a canvas, one pixel per cell in viridis over [lo, hi],
//! scaled by CSS; "dead" columns (padding keys, -inf) in grey. Click a cell, or focus the canvas and
//! use the arrow keys, to pick it; the picked cell is outlined.

use super::canvas_px::put_pixels;
use crate::explain::colormap::viridis;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub values: Rc<Vec<f32>>, // (rows * cols) row-major
    pub rows: usize,
    pub cols: usize,
    /// The colour scale's ends (the legend shows them).
    pub lo: f32,
    pub hi: f32,
    /// (cols) columns drawn grey (e.g. masked padding keys); empty = none.
    #[prop_or_default]
    pub dead: Rc<Vec<bool>>,
    /// Display size in CSS pixels.
    pub width: usize,
    pub height: usize,
    pub picked: Option<(usize, usize)>,
    pub on_pick: Callback<(usize, usize)>,
    pub label: AttrValue,
}

fn draw(c: &HtmlCanvasElement, values: &[f32], (r, cc): (usize, usize), (lo, hi): (f32, f32), dead: &[bool]) -> Option<()> {
    if r == 0 || cc == 0 || values.len() != r * cc {
        return None;
    }
    let span = if hi > lo { hi - lo } else { 1.0 };
    let mut px = Vec::with_capacity(r * cc * 4);
    for (i, &v) in values.iter().enumerate() {
        let rgb = if dead.get(i % cc).copied().unwrap_or(false) { [0xbb, 0xbb, 0xbb] } else { viridis((v - lo) / span) };
        px.extend_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
    }
    put_pixels(c, &px, r, cc)
}

#[component]
pub fn MatCanvas(p: &Props) -> Html {
    let canvas = use_node_ref();
    {
        // drawn when the numbers change (a new snapshot, another head)
        let canvas = canvas.clone();
        let key = (p.values.clone(), p.rows, p.cols, p.lo.to_bits(), p.hi.to_bits(), p.dead.clone());
        use_effect_with(key, move |(values, rows, cols, lo, hi, dead)| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                draw(&c, values, (*rows, *cols), (f32::from_bits(*lo), f32::from_bits(*hi)), dead);
            }
        });
    }
    let (rows, cols) = (p.rows, p.cols);
    let onclick = super::grid_events::on_pointer(rows, cols, p.on_pick.clone());
    let onkeydown = super::grid_events::on_arrows(rows, cols, p.picked, p.on_pick.clone());
    let (pw, ph) = (100.0 / cols.max(1) as f64, 100.0 / rows.max(1) as f64);
    let marker = match p.picked.filter(|&(r, c)| r < rows && c < cols) {
        Some((r, c)) => format!("left: {}%; top: {}%; width: {pw}%; height: {ph}%", c as f64 * pw, r as f64 * ph),
        None => "display: none".into(),
    };
    let size = format!("width: {}px; height: {}px", p.width, p.height);
    html! {
        <div class="canvas-wrap mat" style={size.clone()}>
            <canvas ref={canvas} style={size} tabindex="0" role="button" aria-label={p.label.clone()} {onclick} {onkeydown} />
            <span class="cell-marker" style={marker} />
        </div>
    }
}
