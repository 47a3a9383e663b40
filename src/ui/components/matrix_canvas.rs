//! A (rows x cols) matrix on a canvas, one pixel per cell scaled up by CSS, in a diverging (signed
//! values) or sequential (0..max) colour scale. Hovering, clicking or the arrow keys (when focused)
//! select a cell; the parent shows that cell's formula. Follows heatmap.rs / heatmap_detail.rs.

use super::canvas_px::{is_drawn, put_pixels};
use crate::explain::{colormap, diverging};
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// How values become colours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// PuOr from -max to +max (0 is near white).
    Diverging(f32),
    /// Viridis from 0 to max.
    Sequential(f32),
}

impl Scale {
    fn pixels(self, values: &[f32]) -> Vec<u8> {
        match self {
            Scale::Diverging(m) => diverging::rgba(values, m),
            Scale::Sequential(m) => {
                let inv = if m > 0.0 { 1.0 / m } else { 0.0 };
                colormap::pixels(values, |v| colormap::viridis(v * inv))
            }
        }
    }
}

/// Draws `values` (rows * cols) unless `only_if_blank` and the canvas already has that size.
fn draw(canvas: &NodeRef, values: &[f32], rows: usize, cols: usize, scale: Scale, only_if_blank: bool) -> Option<()> {
    let c = canvas.cast::<HtmlCanvasElement>()?;
    if rows == 0 || cols == 0 || values.len() != rows * cols {
        return None;
    }
    if only_if_blank && is_drawn(&c, rows, cols) {
        return Some(());
    }
    put_pixels(&c, &scale.pixels(values), rows, cols)
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// (rows * cols) row-major.
    pub values: Rc<Vec<f32>>,
    pub rows: usize,
    pub cols: usize,
    pub scale: Scale,
    /// CSS size in pixels.
    pub width: f64,
    pub height: f64,
    /// What the matrix is, for screen readers.
    pub label: AttrValue,
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    /// (row, col) of the selected cell, marked.
    pub selected: Option<(usize, usize)>,
    pub on_select: Callback<(usize, usize)>,
}

#[component]
pub fn MatrixCanvas(p: &Props) -> Html {
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        use_effect_with((p.values.clone(), p.rows, p.cols, p.scale), move |(v, r, c, s)| {
            draw(&canvas, v, *r, *c, *s, false);
        });
    }
    {
        let (canvas, v, r, c, s) = (canvas.clone(), p.values.clone(), p.rows, p.cols, p.scale);
        use_effect(move || {
            draw(&canvas, &v, r, c, s, true);
        });
    }
    let (rows, cols) = (p.rows, p.cols);
    let onmousemove = super::grid_events::on_pointer(rows, cols, p.on_select.clone());
    let onkeydown = super::grid_events::on_arrows(rows, cols, p.selected, p.on_select.clone());
    let marker = match p.selected.filter(|&(r, c)| r < rows && c < cols) {
        Some((r, c)) => {
            let (cw, ch) = (p.width / cols.max(1) as f64, p.height / rows.max(1) as f64);
            // at least 4 px, so a 2 px column still shows where it is
            let (w, h) = (cw.max(4.0), ch.max(4.0));
            format!("left: {}px; top: {}px; width: {w}px; height: {h}px", c as f64 * cw - (w - cw) / 2.0, r as f64 * ch - (h - ch) / 2.0)
        }
        None => "display: none".into(),
    };
    html! {
        <div class="mx-wrap" style={format!("width: {}px; height: {}px", p.width, p.height)}>
            <canvas ref={canvas} class="mx" style={format!("width: {}px; height: {}px", p.width, p.height)}
                data-testid={p.testid.clone()} data-rows={rows.to_string()} data-cols={cols.to_string()}
                tabindex="0" aria-label={format!("{}; hover or use the arrow keys to read a cell", p.label)}
                onclick={onmousemove.clone()} {onmousemove} {onkeydown} />
            <span class="cell-marker" style={marker} />
        </div>
    }
}
