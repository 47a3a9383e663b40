//! Learned vs sinusoidal, side by side: the cosine similarity of every pair of positions' vectors,
//! for the fixed sinusoidal encoding and for the model's learned position table.

use crate::components::embeddings::term;
use crate::components::embeddings::MARKER_MIN;
use crate::components::mat::Mat;
use crate::components::matrix_canvas::{MatrixCanvas, Pick, Scale};
use crate::components::value_legend::ValueLegend;
use crate::explain::embeddings::PositionView;
use std::rc::Rc;
use yew::prelude::*;

const SIDE: f64 = 256.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub positions: Rc<PositionView>,
}

#[component]
pub fn PositionSimilarity(p: &Props) -> Html {
    let v = &p.positions;
    let n = v.positions;
    let selected = use_state(|| (4usize, 8usize));
    let mats = use_memo(p.positions.clone(), |v| (Mat::new(v.pe_similarity.clone()), v.learned_similarity.clone().map(Mat::new)));
    if n == 0 {
        return html! {};
    }
    let (i, j) = (selected.0.min(n - 1), selected.1.min(n - 1));
    let on_select = {
        let selected = selected.clone();
        Callback::from(move |rc: (usize, usize)| selected.set(rc))
    };
    let scale = Scale::Diverging(1.0);
    let learned = match &mats.1 {
        Some(m) => html! {
            <figure class="sim">
                <figcaption>{ "learned: the model's position table" }</figcaption>
                <MatrixCanvas values={m.clone()} rows={n} cols={n} {scale} size={Some((SIDE, SIDE))} wrap="mx-wrap" class="mx"
                    label="cosine similarity of learned position embeddings; hover or use the arrow keys to read a cell" testid="learned-similarity"
                    selected={Some((i, j))} on_select={on_select.clone()} pick={Pick::Hover} marker_min={MARKER_MIN} />
                <p class="formula">{ format!("cos(E_pos[{i}], E_pos[{j}]) = {}", term(m.0[i * n + j])) }</p>
            </figure>
        },
        None => html! {
            <figure class="sim">
                <figcaption>{ "learned" }</figcaption>
                <p class="placeholder">{ "This model adds the sinusoidal encoding itself: it has no learned position table to compare." }</p>
            </figure>
        },
    };
    html! {
        <div class="position-similarity" data-testid="position-similarity" data-positions={n.to_string()} data-row={i.to_string()} data-col={j.to_string()}>
            <p class="hint">{ format!("Row i, column j: the cosine similarity of position i's vector with position j's (positions 0 to {}, all {} dimensions). The sinusoidal one is fixed by its formula: smooth bands, near positions alike, and the same pattern at every offset. BERT learns its own table from data; it often finds a similar band near the diagonal.", n - 1, v.hidden) }</p>
            <div class="sims">
                <figure class="sim">
                    <figcaption>{ "sinusoidal: cos(PE[i], PE[j])" }</figcaption>
                    <MatrixCanvas values={mats.0.clone()} rows={n} cols={n} {scale} size={Some((SIDE, SIDE))} wrap="mx-wrap" class="mx"
                        label="cosine similarity of sinusoidal position encodings; hover or use the arrow keys to read a cell" testid="sinusoidal-similarity"
                        selected={Some((i, j))} on_select={on_select.clone()} pick={Pick::Hover} marker_min={MARKER_MIN} />
                    <p class="formula">{ format!("cos(PE[{i}], PE[{j}]) = {}", term(mats.0 .0[i * n + j])) }</p>
                </figure>
                { learned }
            </div>
            <ValueLegend {scale} title="cosine similarity" />
        </div>
    }
}
