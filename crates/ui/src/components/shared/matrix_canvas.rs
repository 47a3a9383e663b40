//! The page's one matrix picture: a (rows x cols) matrix on a canvas, one pixel per cell in its
//! colour scale, scaled up by CSS; columns marked dead (padding keys) in grey, and cells marked
//! masked (a decoder's future tokens) in a lighter grey. It draws only when
//! its numbers, shape or scale change (`Mat` compares by pointer). The selected cell is outlined;
//! a click (or hovering, or the arrow keys when focused) selects another (`grid_events.rs`). Every
//! heatmap of the page is one: the attention thumbnails, the labelled views (`matrix_view.rs`), the
//! head's steps, the FFN strips, the embeddings and the position encodings.

use crate::components::mat::Mat;
use crate::explain::{colormap, diverging};
use std::rc::Rc;
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};
use yew::prelude::*;

/// How values become colours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// PuOr from -max to +max (0 is near white).
    Diverging(f32),
    /// Viridis from 0 to max.
    Sequential(f32),
    /// Viridis from lo to hi (`PROBABILITY`: 0 to 1, the attention heatmaps).
    Range(f32, f32),
}

impl Scale {
    pub const PROBABILITY: Scale = Scale::Range(0.0, 1.0);

    /// The colour of one value.
    fn colour(self) -> impl Fn(f32) -> [u8; 3] {
        move |v| match self {
            Scale::Diverging(m) => diverging::puor(v * if m > 0.0 { 1.0 / m } else { 0.0 }),
            Scale::Sequential(m) => colormap::viridis(v * if m > 0.0 { 1.0 / m } else { 0.0 }),
            Scale::Range(lo, hi) => colormap::viridis((v - lo) / if hi > lo { hi - lo } else { 1.0 }),
        }
    }
}

/// Grey of a dead column, and of a masked cell.
const DEAD: [u8; 3] = [0xbb, 0xbb, 0xbb];
const MASKED: [u8; 3] = [0xdc, 0xdc, 0xdc];

/// The (rows x cols) picture as RGBA bytes, row-major.
fn pixels(values: &[f32], cols: usize, scale: Scale, dead: &[bool], masked: &[bool]) -> Vec<u8> {
    let colour = scale.colour();
    let mut px = Vec::with_capacity(values.len() * 4);
    for (i, &v) in values.iter().enumerate() {
        let [r, g, b] = if dead.get(i % cols).copied().unwrap_or(false) {
            DEAD
        } else if masked.get(i).copied().unwrap_or(false) {
            MASKED
        } else {
            colour(v)
        };
        px.extend_from_slice(&[r, g, b, 255]);
    }
    px
}

/// Sizes the canvas to cols x rows and puts the picture on it.
fn draw(c: &HtmlCanvasElement, values: &[f32], (rows, cols): (usize, usize), scale: Scale, dead: &[bool], masked: &[bool]) -> Option<()> {
    if rows == 0 || cols == 0 || values.len() != rows * cols {
        return None;
    }
    let rgba = pixels(values, cols, scale, dead, masked);
    c.set_width(cols as u32);
    c.set_height(rows as u32);
    let ctx: CanvasRenderingContext2d = c.get_context("2d").ok()??.dyn_into().ok()?;
    let img = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&rgba), cols as u32, rows as u32).ok()?;
    ctx.put_image_data(&img, 0.0, 0.0).ok()
}

/// What selects a cell.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Pick {
    /// A click on it; the arrow keys (Home / End, Enter / Space) move from the selected one.
    #[default]
    Click,
    /// Hovering it, or a click; the keys as for `Click`.
    Hover,
    /// The canvas is one button (the attention thumbnails): a click, Enter or Space emits (0, 0).
    Button,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// (rows * cols) row-major.
    pub values: Mat,
    pub rows: usize,
    pub cols: usize,
    pub scale: Scale,
    /// (cols) columns drawn grey (masked padding keys); empty: none.
    #[prop_or_default]
    pub dead: Rc<Vec<bool>>,
    /// (rows * cols) cells drawn light grey (masked: a causal mask's future); empty: none.
    #[prop_or_default]
    pub masked: Rc<Vec<bool>>,
    /// CSS size in pixels; None: the stylesheet sizes the canvas (then it has no wrapper and no
    /// cell marker).
    pub size: Option<(f64, f64)>,
    /// The wrapper's classes (it holds the canvas and the cell marker).
    #[prop_or_default]
    pub wrap: Classes,
    /// The canvas's classes.
    #[prop_or_default]
    pub class: Classes,
    /// What the matrix is, for screen readers (`aria-label`, as given).
    pub label: AttrValue,
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    /// The values as text (`data-values`), for scripts.
    #[prop_or_default]
    pub data_values: Option<AttrValue>,
    /// Other attributes of the canvas: (name, value).
    #[prop_or_default]
    pub attrs: Vec<(&'static str, AttrValue)>,
    /// The selected (row, col), outlined.
    #[prop_or_default]
    pub selected: Option<(usize, usize)>,
    pub on_select: Callback<(usize, usize)>,
    #[prop_or_default]
    pub pick: Pick,
    /// The outline is at least this many CSS pixels wide and high (so a 2 px column still shows).
    #[prop_or_default]
    pub marker_min: f64,
    /// Focusing the canvas with no cell selected selects (0, 0).
    #[prop_or_default]
    pub pick_on_focus: bool,
    /// Escape, when focused.
    #[prop_or_default]
    pub on_escape: Option<Callback<()>>,
}

#[component]
pub fn MatrixCanvas(p: &Props) -> Html {
    let canvas = use_node_ref();
    {
        // drawn when the numbers change (a new snapshot, another head), not on every render
        let canvas = canvas.clone();
        let deps = (p.values.clone(), p.rows, p.cols, p.scale, p.dead.clone(), p.masked.clone());
        use_effect_with(deps, move |(values, rows, cols, scale, dead, masked)| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                draw(&c, &values.0, (*rows, *cols), *scale, dead, masked);
            }
        });
    }
    let (rows, cols) = (p.rows, p.cols);
    let at = p.selected.filter(|&(r, c)| r < rows && c < cols);
    let (onclick, onmousemove, onkeydown) = match p.pick {
        Pick::Button => {
            let cb = p.on_select.clone();
            (Callback::from(move |_: MouseEvent| cb.emit((0, 0))), None, crate::components::grid_events::on_press(p.on_select.clone()))
        }
        pick => {
            let onclick = crate::components::grid_events::on_pointer(rows, cols, p.on_select.clone());
            let hover = (pick == Pick::Hover).then(|| onclick.clone());
            (onclick, hover, crate::components::grid_events::on_keys(rows, cols, at, p.on_select.clone(), p.on_escape.clone()))
        }
    };
    let onfocus = p.pick_on_focus.then(|| {
        let (cb, none) = (p.on_select.clone(), p.selected.is_none());
        Callback::from(move |_: FocusEvent| {
            if none {
                cb.emit((0, 0));
            }
        })
    });
    let style = p.size.map(|(w, h)| format!("width: {w}px; height: {h}px"));
    let mut canvas = html! {
        <canvas ref={canvas} class={p.class.clone()} style={style.clone()} data-testid={p.testid.clone()}
            data-rows={rows.to_string()} data-cols={cols.to_string()} data-values={p.data_values.clone()}
            tabindex="0" aria-label={p.label.clone()} {onclick} {onmousemove} {onkeydown} {onfocus} />
    };
    if let Html::VTag(tag) = &mut canvas {
        for (name, value) in &p.attrs {
            Rc::make_mut(tag).add_attribute(name, value.clone());
        }
    }
    let Some((width, height)) = p.size else { return canvas };
    // always there (hidden when no cell is selected): a child that comes and goes would make the
    // DOM diff replace the canvas by a blank one
    let marker = match at {
        Some((r, c)) => {
            let (cw, ch) = (width / cols.max(1) as f64, height / rows.max(1) as f64);
            let (w, h) = (cw.max(p.marker_min), ch.max(p.marker_min));
            let (left, top) = (c as f64 * cw - (w - cw) / 2.0, r as f64 * ch - (h - ch) / 2.0);
            format!("left: {left}px; top: {top}px; width: {w}px; height: {h}px")
        }
        None => "display: none".into(),
    };
    html! {
        <div class={p.wrap.clone()} {style}>
            { canvas }
            <span class="cell-marker" style={marker} />
        </div>
    }
}
