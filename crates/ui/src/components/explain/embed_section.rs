//! The explainer's embeddings section: what layer 0 reads (per input), the sinusoidal position
//! encoding, its clock and the learned-vs-sinusoidal similarity (per model), and attention without
//! training (per input).

use crate::components::{Clock, CosineAttention, Embeddings, Fold, PositionSimilarity, Sinusoid, SnapRef};
use crate::explain::embeddings::PositionView;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: Option<SnapRef>,
    pub positions: Option<Rc<PositionView>>,
    /// Shown where a view has no data yet.
    pub placeholder: Html,
}

#[component]
pub fn EmbedSection(p: &Props) -> Html {
    let per_input = |f: &dyn Fn(&SnapRef) -> Html| match &p.snapshot {
        Some(s) => f(s),
        None => p.placeholder.clone(),
    };
    let positions = match &p.positions {
        Some(v) => html! {
            <Fold label="Positions as waves: the sinusoidal encoding, the clock analogy, learned vs sinusoidal" testid="fold-positions">
                <h3 class="sub">{ "Position as waves: the sinusoidal encoding" }</h3>
                <Sinusoid positions={v.clone()} />
                <h3 class="sub">{ "The clock analogy" }</h3>
                <Clock positions={v.clone()} />
                <h3 class="sub">{ "Learned vs sinusoidal, side by side" }</h3>
                <PositionSimilarity positions={v.clone()} />
            </Fold>
        },
        None => p.placeholder.clone(),
    };
    html! {
        <>
            { per_input(&|s| html! { <Embeddings snapshot={s.clone()} /> }) }
            { positions }
            <h3 class="sub">{ "Attention without training" }</h3>
            { per_input(&|s| html! { <CosineAttention snapshot={s.clone()} /> }) }
        </>
    }
}
