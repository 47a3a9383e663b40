//! One head enlarged: the T x T attention with the query tokens down the side and the key tokens
//! across the top; hovering (or moving with the arrow keys) shows the exact value of a cell and the
//! formula it comes from.

use super::export::ExportButtons;
use super::heatmap::use_head_canvas;
use super::matrix_view::Mat;
use super::{fmt_prob, show_token, SnapRef};
use std::rc::Rc;
use yew::prelude::*;

/// Side of the enlarged matrix in CSS pixels (at most), and the smallest cell that gets labels.
const SIDE: usize = 560;
const MIN_LABELLED_CELL: usize = 10;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    pub layer: usize,
    pub head: usize,
    pub off: bool,
    pub on_close: Callback<()>,
    /// The legend's note written into exported pictures.
    #[prop_or_default]
    pub note: Option<AttrValue>,
}

#[component]
pub fn HeatmapDetail(p: &Props) -> Html {
    let s = &p.snapshot;
    let n = s.len();
    let canvas = use_head_canvas(&p.snapshot, p.layer, p.head);
    let cell_at = use_state(|| None::<(usize, usize)>); // (query row, key column)
    let section = use_node_ref();
    {
        // opened from a thumbnail (it has the focus): bring the enlarged view into sight
        let section = section.clone();
        use_effect_with((p.layer, p.head), move |_| {
            let from_thumb = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element())
                .is_some_and(|e| e.get_attribute("data-testid").as_deref() == Some("heatmap"));
            if let (true, Some(el)) = (from_thumb, section.cast::<web_sys::Element>()) {
                let opts = web_sys::ScrollIntoViewOptions::new();
                opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
                el.scroll_into_view_with_scroll_into_view_options(&opts);
            }
        });
    }
    let cell = (SIDE / n.max(1)).clamp(1, 28);
    let side = cell * n;
    let labelled = cell >= MIN_LABELLED_CELL;

    let onmousemove = super::grid_events::on_pointer(n, n, {
        let cell_at = cell_at.clone();
        Callback::from(move |cell| cell_at.set(Some(cell)))
    });
    let onkeydown = {
        let cell_at = cell_at.clone();
        let close = p.on_close.clone();
        Callback::from(move |e: KeyboardEvent| {
            let (r, c) = cell_at.unwrap_or((0, 0));
            if e.key() == "Escape" {
                return close.emit(());
            }
            let Some(next) = crate::ui::grid_nav::step(&e.key(), (r, c), n, n) else { return };
            e.prevent_default();
            cell_at.set(Some(next));
        })
    };
    let onfocus = {
        let cell_at = cell_at.clone();
        Callback::from(move |_: FocusEvent| {
            if cell_at.is_none() {
                cell_at.set(Some((0, 0)));
            }
        })
    };
    let close = {
        let cb = p.on_close.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };

    let values = s.head(p.layer, p.head);
    let export = use_memo((p.snapshot.clone(), p.layer, p.head), |(s, l, h)| {
        (Rc::new(s.tokens.iter().map(|t| show_token(&t.text)).collect::<Vec<_>>()), Mat::new(s.head(*l, *h).to_vec()))
    });
    let (export_tokens, export_values) = (*export).clone();
    let tok = |i: usize| s.tokens.get(i).map(|t| show_token(&t.text)).unwrap_or_default();
    let at = (*cell_at).filter(|&(r, c)| r < n && c < n);
    let readout = match at {
        Some((r, c)) => {
            let v = values[r * n + c];
            let row_sum: f32 = values[r * n..(r + 1) * n].iter().sum();
            html! {
                <div class="readouts">
                    <p class="readout" data-testid="hover-value" data-row={r.to_string()} data-col={c.to_string()} data-value={v.to_string()}>
                        { format!("query {r} \"{}\" attends to key {c} \"{}\": {}", tok(r), tok(c), fmt_prob(v)) }
                    </p>
                    <p class="formula">
                        { format!("P[{r}, {c}] = softmax over j of (q{r} · kj / √d_k) at j = {c} = {}; row {r} sums to {:.4}", fmt_prob(v), row_sum) }
                    </p>
                </div>
            }
        }
        None => html! {
            <div class="readouts">
                <p class="readout muted" data-testid="hover-value">{ "Hover over a cell (or focus the matrix and use the arrow keys) to read its value." }</p>
                <p class="formula">{ "P[i, j] = softmax over j of (qi · kj / √d_k): how much token i takes from token j." }</p>
            </div>
        },
    };
    let pct = 100.0 / n.max(1) as f64;
    let marker_style = match at {
        Some((r, c)) => format!("left: {}%; top: {}%; width: {pct}%; height: {pct}%", c as f64 * pct, r as f64 * pct),
        None => "display: none".to_string(),
    };
    let col_labels = labelled.then(|| {
        let items = (0..n).map(|i| html! { <span class={classes!((at.map(|a| a.1) == Some(i)).then_some("hot"))}>{ tok(i) }</span> });
        html! { <div class="col-labels" style={format!("width: {side}px; --cell: {cell}px")}>{ for items }</div> }
    });
    let row_labels = labelled.then(|| {
        let items = (0..n).map(|i| html! { <span class={classes!((at.map(|a| a.0) == Some(i)).then_some("hot"))}>{ tok(i) }</span> });
        html! { <div class="row-labels" style={format!("height: {side}px; --cell: {cell}px")}>{ for items }</div> }
    });
    html! {
        <section ref={section} class="detail" data-testid="heatmap-detail" data-layer={p.layer.to_string()} data-head={p.head.to_string()}>
            <header>
                <h3>{ format!("Layer {} · head {}{}", p.layer, p.head, if p.off { " (switched off: its output is multiplied by 0)" } else { "" }) }</h3>
                <span class="detail-actions">
                    <ExportButtons title={format!("bertscope attention, layer {} · head {}", p.layer, p.head)}
                        file={format!("bertscope-attention-L{}-H{}", p.layer, p.head)}
                        note={p.note.clone().unwrap_or_else(|| AttrValue::from("attention probability, 0 to 1; each row sums to 1"))}
                        tokens={export_tokens} values={export_values} />
                    <button class="close" onclick={close} aria-label="close the enlarged heatmap">{ "×" }</button>
                </span>
            </header>
            <p class="axes">{ "Rows: the token that looks (query). Columns: the token it looks at (key)." }</p>
            <div class="matrix">
                <div class="corner" />
                { for col_labels }
                { for row_labels }
                <div class="canvas-wrap" style={format!("width: {side}px; height: {side}px")}>
                    <canvas ref={canvas} class="big" style={format!("width: {side}px; height: {side}px")}
                        tabindex="0" aria-label="attention matrix; arrow keys move, Escape closes"
                        {onmousemove} {onkeydown} {onfocus} />
                    <span class="cell-marker" style={marker_style} />
                </div>
            </div>
            { readout }
        </section>
    }
}
