//! The three shapes of the Transformer side by side (`explain::decode::shapes`): who sees whom in
//! an encoder-only model (BERT), a decoder-only model (GPT) and an encoder-decoder, each as a small
//! grid (a row per token that looks, a column per token it could look at) with a paragraph.

use crate::explain::decode::{shapes, ShapeGrid};
use yew::prelude::*;

fn grid(g: &ShapeGrid) -> Html {
    let cols = g.cols.len();
    let head = g.cols.iter().enumerate().map(|(j, c)| {
        let src = j < g.source_cols;
        html! { <th key={j} scope="col" class={classes!(src.then_some("src"), (j == g.source_cols && j > 0).then_some("split"))}>{ *c }</th> }
    });
    let rows = g.rows.iter().enumerate().map(|(i, r)| {
        let cells = (0..cols).map(|j| {
            let sees = g.sees[i * cols + j];
            let class = classes!(if sees { "sees" } else { "hidden" }, (j < g.source_cols).then_some("src"), (j == g.source_cols && j > 0).then_some("split"));
            html! { <td key={j} {class} title={if sees { "sees it" } else { "cannot see it (masked)" }}>{ if sees { "●" } else { "" } }</td> }
        });
        html! { <tr key={i}><th scope="row">{ *r }</th>{ for cells }</tr> }
    });
    html! {
        <figure class="shape">
            <figcaption><b>{ g.name }</b><span class="muted">{ format!(" ({})", g.example) }</span></figcaption>
            <table class="sees-grid">
                <thead><tr><th />{ for head }</tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
            { if g.source_cols > 0 { html! { <p class="muted small">{ "Columns on the left: the source (the encoder's output); on the right: the decoder's own tokens." }</p> } } else { html! {} } }
            <p>{ g.what }</p>
        </figure>
    }
}

#[component]
pub fn Shapes() -> Html {
    let s = shapes();
    html! {
        <div class="shapes" data-testid="three-shapes">
            <p class="hint">{ "The same building block (attention + feed-forward, with residuals and LayerNorm) in three arrangements. Rows: the token that looks; columns: the tokens it may look at; ● = visible." }</p>
            <div class="shape-row">{ for s.iter().map(grid) }</div>
        </div>
    }
}
