//! An attention matrix as lines (bertviz's head view): the tokens twice, queries on the left and
//! keys on the right, one line from each query to each key, opacity √weight and width ∝ weight.
//! Hovering or focusing a token highlights its lines and writes their weights beside the other
//! column; the line of a cell selected elsewhere (`highlight`) is drawn on top.

use crate::components::fmt_prob;
use crate::components::matrix_view::Mat;
use std::rc::Rc;
use yew::prelude::*;

/// Drawing size: width of the SVG, width of a label column, row height bounds.
const WIDTH: f64 = 430.0;
const LABEL_W: f64 = 120.0;
const MAX_ROW: f64 = 22.0;
const MIN_ROW: f64 = 8.0;
const TALLEST: f64 = 640.0;
/// Above this many tokens (N² lines), lines under MIN_DRAWN are left out unless they belong to the
/// focused token, so the picture stays readable and cheap.
pub const ALL_LINES_MAX: usize = 64;
const MIN_DRAWN: f32 = 0.01;
/// Okabe-Ito blue (all lines) and vermillion (the focused token's), colour-blind safe.
const BLUE: &str = "#0072b2";
const HOT: &str = "#d55e00";

/// A token under the pointer or the focus: a query (left) or a key (right) and its index.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Focus {
    Query(usize),
    Key(usize),
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// What the lines show, for the SVG's label ("layer 0 · head 1").
    pub label: AttrValue,
    pub tokens: Rc<Vec<String>>,
    /// (N*N) row-major: row = query, column = key.
    pub values: Mat,
    /// A cell selected in a heatmap beside the lines: its line is emphasised.
    #[prop_or_default]
    pub highlight: Option<(usize, usize)>,
}

#[component]
pub fn AttentionLines(p: &Props) -> Html {
    let n = p.tokens.len();
    let focus = use_state(|| None::<Focus>);
    let focused = (*focus).filter(|f| match *f {
        Focus::Query(i) | Focus::Key(i) => i < n,
    });
    let row = (TALLEST / n.max(1) as f64).clamp(MIN_ROW, MAX_ROW);
    let height = row * n as f64 + 8.0;
    let y = |i: usize| 4.0 + row * (i as f64 + 0.5);
    let (x1, x2) = (LABEL_W + 4.0, WIDTH - LABEL_W - 4.0);
    let font = (row - 6.0).clamp(7.0, 13.0);
    let values = &p.values.0;
    let all = n <= ALL_LINES_MAX;

    let weight_of = |i: usize, j: usize| values[i * n + j];
    let is_mine = |i: usize, j: usize| match focused {
        Some(Focus::Query(q)) => q == i,
        Some(Focus::Key(k)) => k == j,
        None => false,
    };
    let focus_max = match focused {
        Some(Focus::Query(q)) => (0..n).map(|j| weight_of(q, j)).fold(0.0f32, f32::max),
        Some(Focus::Key(k)) => (0..n).map(|i| weight_of(i, k)).fold(0.0f32, f32::max),
        None => 1.0,
    }
    .max(1e-6);
    let line = |(i, j): (usize, usize)| {
        let w = weight_of(i, j);
        let mine = is_mine(i, j);
        if !all && !mine && w < MIN_DRAWN {
            return None;
        }
        // opacity √w keeps weights of ~0.1 visible; the focused token's lines relative to its largest
        let (stroke, opacity) = match (focused, mine) {
            (None, _) => (BLUE, w.sqrt()),
            (Some(_), true) => (HOT, 0.15 + 0.85 * w / focus_max),
            (Some(_), false) => (BLUE, w.sqrt() * 0.1),
        };
        let sel = p.highlight == Some((i, j));
        Some(html! {
            <line key={format!("{i}-{j}")} x1={x1.to_string()} y1={y(i).to_string()} x2={x2.to_string()} y2={y(j).to_string()}
                stroke={if sel { "#111" } else { stroke }} stroke-opacity={if sel { "1".to_string() } else { format!("{opacity:.3}") }}
                stroke-width={format!("{:.2}", if sel { 2.5 } else { 0.6 + 2.4 * w })}
                data-from={i.to_string()} data-to={j.to_string()} data-weight={w.to_string()} />
        })
    };
    let cells = || (0..n).flat_map(|i| (0..n).map(move |j| (i, j)));
    // the focused token's lines (and the highlighted cell's) after the others, so they are on top
    let on_top = |(i, j): &(usize, usize)| is_mine(*i, *j) || p.highlight == Some((*i, *j));
    let below = cells().filter(|c| !on_top(c)).filter_map(line);
    let above = cells().filter(|c| on_top(c)).filter_map(line);

    let token = |side: Focus| {
        let (i, x, anchor, cls) = match side {
            Focus::Query(i) => (i, LABEL_W - 2.0, "end", "query"),
            Focus::Key(j) => (j, WIDTH - LABEL_W + 2.0, "start", "key"),
        };
        let is_focused = focused == Some(side);
        // the weight shown beside this token when a token in the other column is focused
        let weight = match (focused, side) {
            (Some(Focus::Query(q)), Focus::Key(j)) => Some(weight_of(q, j)),
            (Some(Focus::Key(k)), Focus::Query(i)) => Some(weight_of(i, k)),
            _ => None,
        };
        let text = match (weight, side) {
            (Some(w), Focus::Key(_)) => format!("{}  {}", p.tokens[i], fmt_prob(w)),
            (Some(w), Focus::Query(_)) => format!("{}  {}", fmt_prob(w), p.tokens[i]),
            (None, _) => p.tokens[i].clone(),
        };
        let (enter, leave) = {
            let (f1, f2) = (focus.clone(), focus.clone());
            (Callback::from(move |_: MouseEvent| f1.set(Some(side))), Callback::from(move |_: MouseEvent| f2.set(None)))
        };
        let (onfocus, onblur) = {
            let (f1, f2) = (focus.clone(), focus.clone());
            (Callback::from(move |_: FocusEvent| f1.set(Some(side))), Callback::from(move |_: FocusEvent| f2.set(None)))
        };
        html! {
            <text key={format!("{cls}{i}")} class={classes!("tok", cls, is_focused.then_some("hot"))} x={x.to_string()} y={y(i).to_string()}
                text-anchor={anchor} dominant-baseline="middle" font-size={format!("{font:.1}")} tabindex="0"
                data-side={cls} data-index={i.to_string()} data-token={p.tokens[i].clone()} data-weight={weight.map(|w| w.to_string())}
                aria-label={format!("{cls} {i} {}: focus to show its weights", p.tokens[i])}
                onmouseenter={enter} onmouseleave={leave} {onfocus} {onblur}>{ text }</text>
        }
    };
    let readout = match focused {
        Some(Focus::Query(q)) => {
            let mut top: Vec<(usize, f32)> = (0..n).map(|j| (j, weight_of(q, j))).collect();
            top.sort_by(|a, b| b.1.total_cmp(&a.1));
            let list: Vec<String> = top.iter().take(5).map(|(j, w)| format!("{} {}", p.tokens[*j], fmt_prob(*w))).collect();
            format!("query {q} \"{}\" attends most to: {} (its weights sum to 1)", p.tokens[q], list.join(", "))
        }
        Some(Focus::Key(k)) => {
            let total: f32 = (0..n).map(|i| weight_of(i, k)).sum();
            format!("key {k} \"{}\" receives {:.4} in total over the {n} queries (mean {:.4})", p.tokens[k], total, total / n.max(1) as f32)
        }
        None => {
            "Hover or focus (Tab) a token to highlight its lines and read their weights. Line opacity √weight, width ∝ weight.".to_string()
        }
    };
    html! {
        <figure class="lines-view">
            <svg data-testid="attention-lines" data-n={n.to_string()} width={WIDTH.to_string()} height={format!("{height:.0}")}
                viewBox={format!("0 0 {WIDTH} {height:.0}")} role="img" aria-label={format!("attention lines, {}", p.label)}>
                <g class="lines">{ for below }{ for above }</g>
                <g class="tokens">
                    { for (0..n).map(|i| token(Focus::Query(i))) }
                    { for (0..n).map(|j| token(Focus::Key(j))) }
                </g>
            </svg>
            <figcaption class="lines-readout" data-testid="lines-readout">{ readout }</figcaption>
            { for (!all).then(|| html! { <p class="hint">{ format!("{n} tokens: lines under {MIN_DRAWN} are left out except the focused token's.") }</p> }) }
        </figure>
    }
}
