//! One decoding step, inside: the next-token distribution as bars (the chosen token marked), the
//! decoder's causal self-attention for every layer and head (the future greyed: -inf before the
//! softmax, 0 after) and its cross-attention to the source (target rows, source columns), each a
//! `MatrixCanvas` with its tokens along the sides; hovering or the arrow keys read out one cell.

use crate::components::mat::Mat;
use crate::components::matrix_canvas::{MatrixCanvas, Pick, Scale};
use crate::components::Legend;
use crate::explain::decode::{AttnMap, DecodeView};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NextProps {
    pub view: Rc<DecodeView>,
}

/// The most probable next tokens after the prefix, as bars.
#[component]
pub fn NextTokens(p: &NextProps) -> Html {
    let d = &p.view;
    let chosen = d.chosen.as_ref().map(|c| c.id);
    // keyed by rank: each step's list reuses the last one's rows
    let rows = d.next.iter().enumerate().map(|(i, c)| {
        let on = chosen == Some(c.id);
        html! {
            <li key={i} class={classes!(on.then_some("chosen"))} data-token={c.token.clone()} data-prob={c.prob.to_string()} data-chosen={on.to_string()}>
                <span class="next-tok">{ c.token.clone() }</span>
                <span class="bar"><span class="fill" style={format!("width: {:.1}%", c.prob * 100.0)} /></span>
                <span class="num">{ format!("{:.3}", c.prob) }{ if on { " ← chosen" } else { "" } }</span>
            </li>
        }
    });
    let read = d.prefix.join(" ");
    html! {
        <div class="next-tokens" data-testid="next-tokens">
            <p class="hint">{ format!("After reading “{read}” (and the whole source, through cross-attention), the decoder's guesses for the next token: {}.", d.next_note) }</p>
            <ol>{ for rows }</ol>
        </div>
    }
}

/// A cell picked in one of the maps: (map index, row, col).
type Cell = (usize, usize, usize);

#[derive(Properties, PartialEq)]
struct FigProps {
    map: Rc<AttnMap>,
    index: usize,
    rows: Rc<Vec<String>>,
    cols: Rc<Vec<String>>,
    testid: &'static str,
    selected: Option<Cell>,
    on_select: Callback<Cell>,
}

/// One head's matrix with its tokens: rows the decoder's (the last one predicts the next token),
/// columns the decoder's (self) or the source's (cross).
#[component]
fn AttnFigure(p: &FigProps) -> Html {
    let a = &p.map;
    let values = use_memo(p.map.clone(), |m| Mat::new(m.probs.clone()));
    let masked = use_memo(p.map.clone(), |m| Rc::new(m.masked.clone()));
    let cell = (360 / a.rows.max(a.cols).max(1)).clamp(6, 30);
    let (w, h) = ((cell * a.cols) as f64, (cell * a.rows) as f64);
    let at = p.selected.filter(|s| s.0 == p.index).map(|s| (s.1, s.2));
    let labels = |class: &'static str, items: &[String], hot: Option<usize>, last: Option<usize>, style: String| {
        let spans = items.iter().enumerate().map(|(i, t)| {
            let text = if Some(i) == last { format!("{t} →") } else { t.clone() };
            html! { <span key={i} class={classes!((hot == Some(i)).then_some("hot"))}>{ text }</span> }
        });
        html! { <div class={class} {style}>{ for spans }</div> }
    };
    let scores = a.scores.iter().map(|s| if s.is_finite() { format!("{s:.4}") } else { "-Infinity".into() }).collect::<Vec<_>>().join(",");
    let attrs = vec![
        ("data-layer", AttrValue::from(a.layer.to_string())),
        ("data-head", AttrValue::from(a.head.to_string())),
        ("data-scores", AttrValue::from(scores)),
    ];
    let values_attr = a.probs.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",");
    let (index, cb) = (p.index, p.on_select.clone());
    let labelled = cell >= 10;
    html! {
        <figure class="attn-fig">
            <figcaption>{ format!("layer {} · head {}", a.layer, a.head) }</figcaption>
            <div class="matrix">
                <div class="corner" />
                { for labelled.then(|| labels("col-labels", &p.cols, at.map(|x| x.1), None, format!("width: {w}px; --cell: {cell}px"))) }
                { for labelled.then(|| labels("row-labels", &p.rows, at.map(|x| x.0), Some(a.rows - 1), format!("height: {h}px; --cell: {cell}px"))) }
                <MatrixCanvas values={(*values).clone()} rows={a.rows} cols={a.cols} scale={Scale::PROBABILITY} size={Some((w, h))}
                    masked={(*masked).clone()} wrap="canvas-wrap" class="big" testid={AttrValue::from(p.testid)} {attrs}
                    data_values={AttrValue::from(values_attr)} selected={at} pick={Pick::Hover}
                    label={AttrValue::from(format!("{} of layer {} head {}; arrow keys move the selected cell", p.testid, a.layer, a.head))}
                    on_select={Callback::from(move |(r, c): (usize, usize)| cb.emit((index, r, c)))} />
            </div>
        </figure>
    }
}

/// One head's scores before the softmax as numbers, the masked ones written −∞.
fn scores_table(m: &AttnMap, tokens: &[String]) -> Html {
    let head = tokens.iter().enumerate().map(|(j, t)| html! { <th key={j} scope="col">{ t.clone() }</th> });
    let rows = (0..m.rows).map(|i| {
        let cells = (0..m.cols).map(|j| {
            let k = i * m.cols + j;
            let text = if m.masked[k] { "−∞".to_string() } else { format!("{:.2}", m.scores[k]) };
            html! { <td key={j} class={classes!(m.masked[k].then_some("masked"))}>{ text }</td> }
        });
        // every child keyed (the row's header too), so a new column adds one cell, not a new row
        html! { <tr key={i}><th key="row" scope="row">{ tokens.get(i).cloned().unwrap_or_default() }</th>{ for cells }</tr> }
    });
    html! {
        <div class="scores-wrap">
            <table class="causal-scores" data-testid="causal-scores">
                <caption>{ format!("Layer {} head {}: the scores q·k/√d before the softmax, with the mask added (softmax of each row gives the heatmap)", m.layer, m.head) }</caption>
                <thead><tr><th key="corner" />{ for head }</tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct AttnProps {
    pub view: Rc<DecodeView>,
    /// Cross-attention (target rows, source columns); otherwise the causal self-attention.
    pub cross: bool,
}

/// Every layer and head of one kind of the decoder's attention, with a readout of the picked cell.
#[component]
pub fn DecoderAttention(p: &AttnProps) -> Html {
    let d = &p.view;
    let selected = use_state(|| None::<Cell>);
    let maps = use_memo((p.view.clone(), p.cross), |(v, cross)| {
        let m = if *cross { &v.cross_attn } else { &v.self_attn };
        m.iter().cloned().map(Rc::new).collect::<Vec<_>>()
    });
    let rows = use_memo(p.view.clone(), |v| Rc::new(v.prefix.clone()));
    let cols = use_memo((p.view.clone(), p.cross), |(v, cross)| Rc::new(if *cross { v.source.clone() } else { v.prefix.clone() }));
    let testid = if p.cross { "cross-attention" } else { "self-attention" };
    let on_select = {
        let s = selected.clone();
        Callback::from(move |c: Cell| s.set(Some(c)))
    };
    let figs = maps.iter().enumerate().map(|(i, m)| {
        html! { <AttnFigure key={i} map={m.clone()} index={i} rows={(*rows).clone()} cols={(*cols).clone()} {testid}
        selected={*selected} on_select={on_select.clone()} /> }
    });
    let readout = selected.and_then(|(i, r, c)| {
        let m = maps.get(i)?;
        let k = r * m.cols + c;
        let (from, to) = (rows.get(r)?, cols.get(c)?);
        let (score, prob) = (m.scores.get(k)?, m.probs.get(k)?);
        let what = if m.masked[k] {
            format!("score before the softmax −∞ (masked: “{to}” comes later) → weight exactly {prob}")
        } else {
            format!("score q·k/√d = {score:.3} before the softmax → weight {prob:.3}")
        };
        Some(html! { <p class="readout" data-testid={format!("{testid}-readout")}>{ format!("layer {} head {}: “{from}” (row {r}) looks at “{to}” (column {c}): {what}", m.layer, m.head) }</p> })
    });
    let max = maps.iter().flat_map(|m| m.probs.iter().copied()).fold(0.0f32, f32::max);
    let (tag, note) = if p.cross {
        ("cross-attention-grid", "each row sums to 1 over the source tokens")
    } else {
        ("causal-mask", "each row sums to 1 over the visible (earlier) tokens; grey cells are masked")
    };
    html! {
        <div class="decoder-attention" data-testid={tag} data-layers={d.layers.to_string()} data-heads={d.heads.to_string()}>
            <Legend {max} note={AttrValue::from(note)} />
            <div class="attn-figs" style={format!("--heads: {}", d.heads.max(1))}>{ for figs }</div>
            { readout.unwrap_or_else(|| html! { <p class="readout muted">{ "Hover a cell, or focus a matrix and use the arrow keys, to read its numbers." }</p> }) }
            { if p.cross { html! {} } else {
                // the picked head's scores (the first head until one is picked)
                maps.get(selected.map_or(0, |s| s.0)).map(|m| scores_table(m, &rows)).unwrap_or_default()
            } }
        </div>
    }
}
