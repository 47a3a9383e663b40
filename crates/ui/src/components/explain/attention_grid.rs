//! Attention of every layer x head as thumbnails (rows = layers, columns = heads), with the legend;
//! a click enlarges one below the grid.

use crate::components::{Heatmap, HeatmapDetail, Legend, SnapRef};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    pub selected: Option<(usize, usize)>,
    pub on_select: Callback<Option<(usize, usize)>>,
    /// The legend's note (e.g. that [CLS]/[SEP] were dropped and rows renormalised).
    #[prop_or_default]
    pub note: Option<AttrValue>,
    /// A word whose row the enlarged head opens on.
    #[prop_or_default]
    pub word: Option<AttrValue>,
}

#[component]
pub fn AttentionGrid(p: &Props) -> Html {
    let s = &p.snapshot;
    let max = s.attention.iter().flat_map(|a| a.iter().copied()).fold(0.0f32, f32::max);
    let select = {
        let cb = p.on_select.clone();
        Callback::from(move |lh: (usize, usize)| cb.emit(Some(lh)))
    };
    let close = {
        let cb = p.on_select.clone();
        Callback::from(move |_: ()| cb.emit(None))
    };
    // many heads (MiniLM's 12): small thumbnails numbered once above their column, so a layer
    // stays one row
    let dense = s.heads > 4;
    let header = dense.then(|| {
        html! {
            <div class="grid-row grid-head" aria-hidden="true">
                <span class="row-label">{ "head" }</span>
                { for (0..s.heads).map(|h| html! { <span key={h} class="head-num">{ h }</span> }) }
            </div>
        }
    });
    let rows = (0..s.layers).map(|l| {
        let cells = (0..s.heads).map(|h| {
            html! {
                <Heatmap key={h} snapshot={p.snapshot.clone()} layer={l} head={h} off={s.head_is_off(l, h)}
                    selected={p.selected == Some((l, h))} on_select={select.clone()} />
            }
        });
        html! { <div key={l} class="grid-row"><span class="row-label">{ format!("layer {l}") }</span>{ for cells }</div> }
    });
    let detail = p.selected.filter(|&(l, h)| l < s.layers && h < s.heads).map(|(l, h)| {
        html! { <HeatmapDetail snapshot={p.snapshot.clone()} layer={l} head={h} off={s.head_is_off(l, h)} on_close={close.clone()} note={p.note.clone()} word={p.word.clone()} /> }
    });
    html! {
        <div class="attention">
            <Legend {max} note={p.note.clone()} />
            <div class={classes!("attention-grid", dense.then_some("dense"))} data-testid="attention-grid" data-layers={s.layers.to_string()} data-heads={s.heads.to_string()}>
                { header.unwrap_or_default() }
                { for rows }
            </div>
            // one child whether or not a head is enlarged (a child that comes and goes would have the
            // DOM diff rebuild the grid above it)
            { detail.unwrap_or_default() }
        </div>
    }
}
