//! A derived N x N attention matrix (head average, rollout) as a labelled heatmap: queries down the
//! side, keys across the top, hover or arrow keys select a cell (the parent shows its formula), and
//! PNG / SVG export underneath.

use super::export::ExportButtons;
use super::heatmap::draw;
pub use super::mat::Mat;
use std::rc::Rc;
use yew::prelude::*;

/// Side of the matrix in CSS pixels (at most), and the smallest cell that gets labels.
const SIDE: usize = 380;
const MIN_LABELLED_CELL: usize = 10;
/// Up to this many tokens the canvas carries every value in `data-values` (for tests and tools).
pub const DATA_VALUES_MAX: usize = 64;

/// The values as `data-values` text (comma-separated, row-major), when small enough.
pub fn data_values(values: &[f32], n: usize) -> Option<String> {
    (n <= DATA_VALUES_MAX).then(|| values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(","))
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub testid: AttrValue,
    /// Heading of the picture (and of its exports).
    pub title: AttrValue,
    /// Export file name without extension.
    pub file: AttrValue,
    pub note: AttrValue,
    pub tokens: Rc<Vec<String>>,
    pub values: Mat,
    /// The selected (query row, key column).
    pub cell: Option<(usize, usize)>,
    pub on_cell: Callback<(usize, usize)>,
}

#[component]
pub fn MatrixView(p: &Props) -> Html {
    let n = p.tokens.len();
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        use_effect_with(p.values.clone(), move |v| {
            draw(&canvas, &v.0, n, false);
        });
    }
    {
        // drawn again when the DOM diff has replaced the canvas by a blank one
        let (canvas, v) = (canvas.clone(), p.values.clone());
        use_effect(move || {
            draw(&canvas, &v.0, n, true);
        });
    }
    let cell = (SIDE / n.max(1)).clamp(1, 24);
    let side = cell * n;
    let labelled = cell >= MIN_LABELLED_CELL;
    let at = p.cell.filter(|&(r, c)| r < n && c < n);

    let onmousemove = super::grid_events::on_pointer(n, n, p.on_cell.clone());
    let onkeydown = super::grid_events::on_arrows(n, n, at, p.on_cell.clone());
    let pct = 100.0 / n.max(1) as f64;
    let marker_style = match at {
        Some((r, c)) => format!("left: {}%; top: {}%; width: {pct}%; height: {pct}%", c as f64 * pct, r as f64 * pct),
        None => "display: none".to_string(),
    };
    let labels = |class: &'static str, axis: usize, style: String| {
        let items = p.tokens.iter().enumerate().map(|(i, t)| {
            let hot = at.map(|a| if axis == 0 { a.0 } else { a.1 }) == Some(i);
            html! { <span class={classes!(hot.then_some("hot"))}>{ t.clone() }</span> }
        });
        html! { <div class={class} {style}>{ for items }</div> }
    };
    html! {
        <figure class="matrix-view" data-testid={p.testid.clone()} data-n={n.to_string()}>
            <figcaption>
                <span class="matrix-title">{ p.title.clone() }</span>
                <ExportButtons title={p.title.clone()} file={p.file.clone()} note={p.note.clone()} tokens={p.tokens.clone()} values={p.values.clone()} />
            </figcaption>
            <div class="matrix">
                <div class="corner" />
                { for labelled.then(|| labels("col-labels", 1, format!("width: {side}px; --cell: {cell}px"))) }
                { for labelled.then(|| labels("row-labels", 0, format!("height: {side}px; --cell: {cell}px"))) }
                <div class="canvas-wrap" style={format!("width: {side}px; height: {side}px")}>
                    <canvas ref={canvas} class="big" style={format!("width: {side}px; height: {side}px")}
                        data-values={data_values(&p.values.0, n)} tabindex="0"
                        aria-label={format!("{}; arrow keys move the selected cell", p.title)}
                        {onmousemove} {onkeydown} />
                    <span class="cell-marker" style={marker_style} />
                </div>
            </div>
            <p class="legend-note">{ p.note.clone() }</p>
        </figure>
    }
}
