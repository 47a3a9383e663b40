//! Layer by layer: each token's vector after the embeddings and after every layer, as its length
//! (L2 norm), coloured by how much the layer turned it (cosine similarity with its vector before).

use crate::components::{show_token, SnapRef};
use crate::explain::colormap::{text_on, viridis_hex};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
}

#[component]
pub fn Layers(p: &Props) -> Html {
    let s = &p.snapshot;
    let head = s.tokens.iter().enumerate().map(|(i, t)| html! { <th key={i} scope="col">{ show_token(&t.text) }</th> });
    let rows = s.hidden.iter().enumerate().map(|(i, h)| {
        let name = if i == 0 { "embeddings".to_string() } else { format!("after layer {}", i - 1) };
        let cells = h.norm.iter().zip(&h.cos_prev).enumerate().map(|(j, (&norm, &cos))| {
            if i == 0 {
                // the embeddings have no "before": no colour
                return html! { <td key={j} class="plain" title={format!("|h| = {norm:.3}")}>{ format!("{norm:.1}") }</td> };
            }
            let c = cos.clamp(0.0, 1.0);
            let style = format!("background: {}; color: {}", viridis_hex(c), text_on(c));
            html! { <td key={j} {style} title={format!("|h| = {norm:.3}, cos with the vector before = {cos:.4}")}>{ format!("{norm:.1}") }</td> }
        });
        html! {
            <tr key={i}>
                <th scope="row">{ name }<small>{ format!(" mean {:.3}, std {:.3}", h.mean, h.std) }</small></th>
                { for cells }
            </tr>
        }
    });
    html! {
        <div class="layers" data-testid="layers">
            <p class="hint">{ "Numbers: length of each token's vector (hidden size H). Colour: cosine similarity with the same token's vector before the layer, on the viridis scale from 0 (dark: turned a lot) to 1 (bright: barely changed). Each layer is attention + residual + LayerNorm, then the FFN + residual + LayerNorm." }</p>
            <div class="table-wrap">
                <table>
                    <thead><tr><th />{ for head }</tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
        </div>
    }
}
