//! "Attention without training": each token attends to the others by the cosine similarity of
//! their raw token embeddings, softmaxed over the row. No position, no query/key weights: the
//! contrast to the learned heads further down.

use crate::components::embeddings::MARKER_MIN;
use crate::components::embeddings::{row_height, term};
use crate::components::mat::Mat;
use crate::components::matrix_canvas::{MatrixCanvas, Pick, Scale};
use crate::components::value_legend::ValueLegend;
use crate::components::{show_token, SnapRef};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
}

#[component]
pub fn CosineAttention(p: &Props) -> Html {
    let s = &p.snapshot;
    let e = &s.embeddings;
    let t = e.t;
    let selected = use_state(|| (1usize, 1usize));
    let mats = use_memo(p.snapshot.clone(), |s| {
        let a = &s.embeddings.cos_attention;
        (Mat::new(a.clone()), a.iter().copied().fold(0.0f32, f32::max))
    });
    if t == 0 || e.cos_attention.len() != t * t {
        return html! {};
    }
    let (i, j) = (selected.0.min(t - 1), selected.1.min(t - 1));
    let on_select = {
        let selected = selected.clone();
        Callback::from(move |rc: (usize, usize)| selected.set(rc))
    };
    let (rh, labelled) = row_height(t);
    let side = rh * t as f64;
    let tok = |k: usize| s.tokens.get(k).map(|x| show_token(&x.text)).unwrap_or_default();
    let labels = (0..t).map(|k| {
        html! { <span key={k} class={classes!("lab", (k == i).then_some("hot"))} style={format!("height: {rh}px")}>{ if labelled { tok(k) } else { String::new() } }</span> }
    });
    let scale = Scale::Sequential(mats.1);
    html! {
        <div class="cosine-attention" data-testid="cosine-attention" data-rows={t.to_string()} data-row={i.to_string()} data-col={j.to_string()}>
            <p class="hint">{ "Before any training of attention, the simplest guess at \"which words go together\": compare the tokens' own embedding vectors. A[i, j] = softmax over j of cos(E_tok[id_i], E_tok[id_j]). Every token attends most to itself and to copies of itself (cosine 1), then to words whose embeddings point the same way, wherever they are: no order, no context, and the rows are nearly flat, because cosines lie in [−1, 1]. The learned heads further down (section 5) are sharp, look at neighbours, [CLS] or [SEP], and differ from layer to layer: that is what training query and key weights buys." }</p>
            <div class="cos-body">
                <div class="emb-labels">{ for labels }</div>
                <MatrixCanvas values={mats.0.clone()} rows={t} cols={t} {scale} size={Some((side, side))} wrap="mx-wrap" class="mx"
                    label="attention without training: softmax of token-embedding cosines; hover or use the arrow keys to read a cell" testid="cosine-matrix"
                    selected={Some((i, j))} {on_select} pick={Pick::Hover} marker_min={MARKER_MIN} />
                <div class="readouts" data-testid="cosine-formula">
                    <p class="readout">{ format!("query {i} \"{}\" → key {j} \"{}\"", tok(i), tok(j)) }</p>
                    <p class="formula">{ format!("cos(E_tok[{}], E_tok[{}]) = {}", s.tokens[i].id, s.tokens[j].id, term(e.cosine[i * t + j])) }</p>
                    <p class="formula">{ format!("A[{i}, {j}] = exp(cos) / Σ_k exp(cos(E_tok[id_{i}], E_tok[id_k])) = {}", term(e.cos_attention[i * t + j])) }</p>
                    <ValueLegend {scale} title="A[i, j]" />
                </div>
            </div>
        </div>
    }
}
