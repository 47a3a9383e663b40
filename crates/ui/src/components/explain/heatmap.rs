//! One head's attention as a thumbnail: its T x T matrix in viridis (a `MatrixCanvas` sized by the
//! stylesheet). Click it, or press Enter, to enlarge it.

use crate::components::mat::Mat;
use crate::components::matrix_canvas::{MatrixCanvas, Pick, Scale};
use crate::components::SnapRef;
use yew::prelude::*;

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
    let (l, h) = (p.layer, p.head);
    // copied once per snapshot and head (the canvas draws when this changes)
    let values = use_memo((p.snapshot.clone(), l, h), |(s, l, h)| Mat::new(s.head(*l, *h).to_vec()));
    let n = p.snapshot.len();
    let on_select = {
        let cb = p.on_select.clone();
        Callback::from(move |_| cb.emit((l, h)))
    };
    let label = format!("layer {l} · head {h}{}", if p.off { " (off)" } else { "" });
    let attrs = vec![
        ("data-layer", AttrValue::from(l.to_string())),
        ("data-head", AttrValue::from(h.to_string())),
        ("role", AttrValue::from("button")),
        ("title", AttrValue::from("click to enlarge")),
    ];
    html! {
        <figure class={classes!("thumb", p.off.then_some("off"), p.selected.then_some("selected"))}>
            <MatrixCanvas values={(*values).clone()} rows={n} cols={n} scale={Scale::PROBABILITY} size={None} pick={Pick::Button}
                testid="heatmap" {attrs} label={format!("attention of {label}; press Enter to enlarge")} {on_select} />
            <figcaption>{ label }</figcaption>
        </figure>
    }
}
