//! The page's one labelled matrix: an N x N attention matrix (a `MatrixCanvas` in viridis, 0 to 1)
//! with the query tokens down the side and the key tokens across the top, the selected cell's
//! labels marked, and PNG / SVG export. Hovering, a click or the arrow keys select a cell. Two
//! frames: a figure with its title and note (the head average, the rollout), and the enlarged head
//! (heading, close button, the hovered cell's readout under it).

use crate::components::export::ExportButtons;
pub use crate::components::mat::Mat;
use crate::components::matrix_canvas::{MatrixCanvas, Pick, Scale};
use std::rc::Rc;
use yew::prelude::*;

/// The smallest cell that gets labels, in CSS pixels.
const MIN_LABELLED_CELL: usize = 10;
/// Up to this many tokens the canvas carries every value in `data-values` (for tests and tools).
pub const DATA_VALUES_MAX: usize = 64;

/// The values as `data-values` text (comma-separated, row-major), when small enough.
pub fn data_values(values: &[f32], n: usize) -> Option<String> {
    (n <= DATA_VALUES_MAX).then(|| values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(","))
}

/// What frames the matrix.
#[derive(Clone, Debug, PartialEq)]
pub enum Frame {
    /// A figure: the title and the exports above the matrix, the note under it.
    Figure,
    /// The enlarged head (`layer`, `head`): a section with `heading`, the exports and a close
    /// button (Escape closes too), a line on the axes, and the children under the matrix. Opened
    /// from a thumbnail, it scrolls into sight.
    Detail { heading: AttrValue, layer: usize, head: usize, on_close: Callback<()> },
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub testid: AttrValue,
    #[prop_or(Frame::Figure)]
    pub frame: Frame,
    /// The matrix's title (of the figure, and written on the exported pictures).
    pub title: AttrValue,
    /// Export file name without extension.
    pub file: AttrValue,
    /// What the numbers are (under the figure, and on the exported pictures).
    pub note: AttrValue,
    pub tokens: Rc<Vec<String>>,
    /// (N*N) row-major values in [0, 1].
    pub values: Mat,
    /// The selected (query row, key column).
    pub cell: Option<(usize, usize)>,
    pub on_cell: Callback<(usize, usize)>,
    /// Under the matrix, in the `Detail` frame.
    #[prop_or_default]
    pub children: Html,
}

#[component]
pub fn MatrixView(p: &Props) -> Html {
    let n = p.tokens.len();
    let frame_ref = use_node_ref();
    let detail = match &p.frame {
        Frame::Detail { layer, head, .. } => Some((*layer, *head)),
        Frame::Figure => None,
    };
    {
        // an enlarged head opened from a thumbnail (it has the focus): bring it into sight
        let frame_ref = frame_ref.clone();
        use_effect_with(detail, move |detail| {
            let from_thumb = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element())
                .is_some_and(|e| e.get_attribute("data-testid").as_deref() == Some("heatmap"));
            if let (Some(_), true, Some(el)) = (detail, from_thumb, frame_ref.cast::<web_sys::Element>()) {
                let opts = web_sys::ScrollIntoViewOptions::new();
                opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
                el.scroll_into_view_with_scroll_into_view_options(&opts);
            }
        });
    }
    // side of the matrix in CSS pixels (at most) and the largest cell
    let (most, max_cell) = if detail.is_some() { (560, 28) } else { (380, 24) };
    let cell = (most / n.max(1)).clamp(1, max_cell);
    let side = cell * n;
    let labelled = cell >= MIN_LABELLED_CELL;
    let at = p.cell.filter(|&(r, c)| r < n && c < n);
    let labels = |class: &'static str, axis: usize, style: String| {
        let items = p.tokens.iter().enumerate().map(|(i, t)| {
            let hot = at.map(|a| if axis == 0 { a.0 } else { a.1 }) == Some(i);
            html! { <span key={i} class={classes!(hot.then_some("hot"))}>{ t.clone() }</span> }
        });
        html! { <div class={class} {style}>{ for items }</div> }
    };
    let (label, on_escape) = match &p.frame {
        Frame::Figure => (format!("{}; arrow keys move the selected cell", p.title), None),
        Frame::Detail { on_close, .. } => ("attention matrix; arrow keys move, Escape closes".to_string(), Some(on_close.clone())),
    };
    let matrix = html! {
        <div class="matrix">
            <div class="corner" />
            { for labelled.then(|| labels("col-labels", 1, format!("width: {side}px; --cell: {cell}px"))) }
            { for labelled.then(|| labels("row-labels", 0, format!("height: {side}px; --cell: {cell}px"))) }
            <MatrixCanvas values={p.values.clone()} rows={n} cols={n} scale={Scale::PROBABILITY} size={Some((side as f64, side as f64))}
                wrap="canvas-wrap" class="big" data_values={data_values(&p.values.0, n).map(AttrValue::from)} label={AttrValue::from(label)}
                selected={at} on_select={p.on_cell.clone()} pick={Pick::Hover} pick_on_focus={detail.is_some()} {on_escape} />
        </div>
    };
    let export = html! {
        <ExportButtons title={p.title.clone()} file={p.file.clone()} note={p.note.clone()} tokens={p.tokens.clone()} values={p.values.clone()} />
    };
    match &p.frame {
        Frame::Figure => html! {
            <figure class="matrix-view" data-testid={p.testid.clone()} data-n={n.to_string()}>
                <figcaption>
                    <span class="matrix-title">{ p.title.clone() }</span>
                    { export }
                </figcaption>
                { matrix }
                <p class="legend-note">{ p.note.clone() }</p>
            </figure>
        },
        Frame::Detail { heading, layer, head, on_close } => {
            let close = on_close.reform(|_: MouseEvent| ());
            html! {
                <section ref={frame_ref} class="detail" data-testid={p.testid.clone()} data-n={n.to_string()}
                    data-layer={layer.to_string()} data-head={head.to_string()}>
                    <header>
                        <h3>{ heading.clone() }</h3>
                        <span class="detail-actions">
                            { export }
                            <button class="close" onclick={close} aria-label="close the enlarged heatmap">{ "×" }</button>
                        </span>
                    </header>
                    <p class="axes">{ "Rows: the token that looks (query). Columns: the token it looks at (key)." }</p>
                    { matrix }
                    { p.children.clone() }
                </section>
            }
        }
    }
}
