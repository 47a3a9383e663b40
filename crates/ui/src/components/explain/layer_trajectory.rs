//! How each token's vector changes layer by layer: its norm, and its cosine with the vector before
//! the layer, one line per token across the layers (the chosen token drawn bold), from the
//! snapshot's `hidden` summaries (`explain::ffn_detail::trajectory`).

use crate::components::{show_token, SnapRef};
use crate::explain::ffn_detail::trajectory;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    /// The token drawn bold.
    pub token: usize,
}

const W: f32 = 330.0;
const H: f32 = 170.0;
const PAD: f32 = 28.0;

/// One chart: a line per token over the layers, y from `lo` to `hi`.
fn chart(title: &str, series: &[Vec<f32>], (lo, hi): (f32, f32), bold: usize, tokens: &[String], fmt: fn(f32) -> String) -> Html {
    let n = series.first().map_or(0, |s| s.len());
    let x = |i: usize| PAD + (W - 2.0 * PAD) * i as f32 / (n.max(2) - 1) as f32;
    let span = if hi > lo { hi - lo } else { 1.0 };
    let y = |v: f32| H - PAD - (H - 2.0 * PAD) * (v - lo) / span;
    let line = |s: &Vec<f32>| -> String { s.iter().enumerate().map(|(i, &v)| format!("{:.1},{:.1} ", x(i), y(v))).collect() };
    let others = series.iter().enumerate().filter(|(t, _)| *t != bold).map(|(t, s)| {
        html! { <polyline key={t} points={line(s)} class="other"><title>{ tokens.get(t).cloned().unwrap_or_default() }</title></polyline> }
    });
    let chosen = series.get(bold).map(|s| {
        let dots = s.iter().enumerate().map(|(i, &v)| {
            let layer = if i == 0 { "embeddings".to_string() } else { format!("after layer {}", i - 1) };
            html! { <circle key={i} cx={format!("{:.1}", x(i))} cy={format!("{:.1}", y(v))} r="3.5" class="chosen-dot"><title>{ format!("{layer}: {}", fmt(v)) }</title></circle> }
        });
        html! { <g><polyline points={line(s)} class="chosen" />{ for dots }</g> }
    });
    let labels = (0..n).map(|i| {
        let l = if i == 0 { "emb".to_string() } else { format!("L{}", i - 1) };
        html! { <text key={i} x={format!("{:.1}", x(i))} y={(H - 8.0).to_string()} class="svg-tick mid">{ l }</text> }
    });
    html! {
        <figure class="traj-chart">
            <figcaption>{ title }</figcaption>
            <svg viewBox={format!("0 0 {W} {H}")} width={W.to_string()} height={H.to_string()} role="img" aria-label={title.to_string()}>
                <line x1={PAD.to_string()} x2={(W - PAD).to_string()} y1={(H - PAD).to_string()} y2={(H - PAD).to_string()} class="axis" />
                <text x="2" y={format!("{:.1}", y(hi) + 4.0)} class="svg-tick">{ fmt(hi) }</text>
                <text x="2" y={format!("{:.1}", y(lo) + 4.0)} class="svg-tick">{ fmt(lo) }</text>
                { for others }
                { for chosen }
                { for labels }
            </svg>
        </figure>
    }
}

#[component]
pub fn LayerTrajectory(p: &Props) -> Html {
    let s = &p.snapshot;
    let tr = trajectory(&s.hidden);
    let tokens: Vec<String> = s.tokens.iter().map(|t| show_token(&t.text)).collect();
    let bold = p.token.min(tokens.len().saturating_sub(1));
    let norm_chart = chart("‖h‖: length of the token's vector", &tr.norm, (0.0, tr.norm_max), bold, &tokens, |v| format!("{v:.2}"));
    let cos_chart = chart("cos(h, h before the layer)", &tr.cos, (tr.cos_min.min(0.9), 1.0), bold, &tokens, |v| format!("{v:.3}"));
    html! {
        <div class="layer-trajectory" data-testid="layer-trajectory" data-token={bold.to_string()} data-layers={s.hidden.len().to_string()}>
            <p class="hint">{ format!("Token {bold} \"{}\" in bold, the other tokens faint. A cosine near 1: the layer barely turned the vector; lower: it rewrote it.", tokens.get(bold).cloned().unwrap_or_default()) }</p>
            <div class="traj-charts">{ norm_chart }{ cos_chart }</div>
        </div>
    }
}
