//! One head enlarged: its T x T attention as the labelled matrix (`MatrixView`), and under it the
//! hovered cell (or the one reached with the arrow keys): its exact value and the formula it comes
//! from.

use crate::components::matrix_view::{Frame, Mat, MatrixView};
use crate::components::{fmt_prob, show_token, SnapRef};
use std::rc::Rc;
use yew::prelude::*;

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
    /// A word whose row opens selected (at the key it attends to most), e.g. the probe's "he".
    #[prop_or_default]
    pub word: Option<AttrValue>,
}

#[component]
pub fn HeatmapDetail(p: &Props) -> Html {
    let s = &p.snapshot;
    let n = s.len();
    let cell_at = use_state(|| None::<(usize, usize)>); // (query row, key column)
                                                        // copied once per snapshot and head (the canvas draws when this changes)
    let mat = use_memo((p.snapshot.clone(), p.layer, p.head), |(s, l, h)| {
        (Rc::new(s.tokens.iter().map(|t| show_token(&t.text)).collect::<Vec<_>>()), Mat::new(s.head(*l, *h).to_vec()))
    });
    let (tokens, values) = (*mat).clone();
    let on_cell = {
        let cell_at = cell_at.clone();
        Callback::from(move |cell| cell_at.set(Some(cell)))
    };
    // the asked-for word's row, at its largest attention, once per snapshot and head
    {
        let (cell_at, values, tokens) = (cell_at.clone(), values.clone(), tokens.clone());
        use_effect_with((p.word.clone(), p.snapshot.seq, p.layer, p.head), move |(word, _, _, _)| {
            if let Some(r) = word.as_ref().and_then(|w| tokens.iter().position(|t| t == w.as_str())) {
                let row = &values.0[r * n..(r + 1) * n];
                let c = (0..n).fold(0, |b, j| if row[j] > row[b] { j } else { b });
                cell_at.set(Some((r, c)));
            }
        });
    }
    let tok = |i: usize| tokens.get(i).cloned().unwrap_or_default();
    let at = (*cell_at).filter(|&(r, c)| r < n && c < n);
    let readout = match at {
        Some((r, c)) => {
            let v = values.0[r * n + c];
            let row_sum: f32 = values.0[r * n..(r + 1) * n].iter().sum();
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
    let (l, h) = (p.layer, p.head);
    let frame = Frame::Detail {
        heading: AttrValue::from(format!(
            "Layer {l} · head {h}{}",
            if p.off { " (switched off: its output is multiplied by 0)" } else { "" }
        )),
        layer: l,
        head: h,
        on_close: p.on_close.clone(),
    };
    html! {
        <MatrixView testid="heatmap-detail" {frame} title={format!("bertscope attention, layer {l} · head {h}")}
            file={format!("bertscope-attention-L{l}-H{h}")}
            note={p.note.clone().unwrap_or_else(|| AttrValue::from("attention probability, 0 to 1; each row sums to 1"))}
            {tokens} {values} cell={at} {on_cell}>
            { readout }
        </MatrixView>
    }
}
