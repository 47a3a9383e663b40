//! Beam search as a tree (SVG): a column per step, each kept beam a box with its token and the sum
//! of its tokens' log-probabilities, a line to the beam it extends; finished hypotheses (ending in
//! the end token) with their length-normalised score; the path to the current answer in colour.

use crate::explain::decode::BeamTree;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub tree: BeamTree,
}

const COL: f64 = 160.0;
const ROW: f64 = 34.0;
const BOX_W: f64 = 138.0;
const BOX_H: f64 = 26.0;

#[component]
pub fn BeamTreeView(p: &Props) -> Html {
    let t = &p.tree;
    let rows = t.steps.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let (w, h) = (COL * (t.steps.len() + 1) as f64 + 10.0, ROW * rows as f64 + 12.0);
    // each step's node j at (x, y) of its box's top-left corner; the root alone in column 0
    let at = |i: usize, j: usize| (6.0 + COL * (i + 1) as f64, 6.0 + ROW * j as f64);
    let root = (6.0, 6.0);
    let mut lines = vec![];
    let mut boxes = vec![];
    for (i, level) in t.steps.iter().enumerate() {
        // the running (unfinished) beams of the step before, by their rank: where each parent is
        let parents: Vec<(f64, f64)> = if i == 0 {
            vec![root]
        } else {
            t.steps[i - 1].iter().enumerate().filter(|(_, n)| !n.finished).map(|(j, _)| at(i - 1, j)).collect()
        };
        for (j, n) in level.iter().enumerate() {
            let (x, y) = at(i, j);
            if let Some(&(px, py)) = parents.get(n.parent) {
                lines.push(html! {
                    <line key={format!("l{i}.{j}")} class={classes!("edge", n.on_path.then_some("path"))}
                        x1={(px + BOX_W).to_string()} y1={(py + BOX_H / 2.0).to_string()} x2={x.to_string()} y2={(y + BOX_H / 2.0).to_string()} />
                });
            }
            let label = match n.score {
                Some(s) => format!("{} = {s:.2}", n.token),
                None => format!("{} {:.2}", n.token, n.sum),
            };
            let title = match n.score {
                Some(s) => format!("finished: sum of log-probabilities {:.3} / tokens = {s:.3}", n.sum),
                None => format!("sum of log-probabilities so far {:.3} (probability {:.4})", n.sum, n.sum.exp()),
            };
            boxes.push(html! {
                <g key={format!("n{i}.{j}")} class={classes!("node", n.on_path.then_some("path"), n.finished.then_some("finished"))}
                    data-step={i.to_string()} data-token={n.token.clone()} data-on-path={n.on_path.to_string()}>
                    <title>{ title }</title>
                    <rect x={x.to_string()} y={y.to_string()} width={BOX_W.to_string()} height={BOX_H.to_string()} rx="5" />
                    <text x={(x + 6.0).to_string()} y={(y + 17.0).to_string()}>{ label }</text>
                </g>
            });
        }
    }
    html! {
        <div class="beam-tree" data-testid="beam-tree" data-steps={t.steps.len().to_string()}>
            <p class="hint">{ format!(
                "Each column is one step; each box a partial translation kept among the best {} (its last token and the sum of its tokens' log-probabilities: closer to 0 is more probable). A line joins a beam to the one it extends. A box ending in the end token is a finished translation, scored by that sum divided by its length. Dashed: a finished translation. Search stops when no running beam can still beat the finished ones. Coloured: the path of the answer so far.", t.k) }</p>
            <div class="tree-scroll">
                <svg width={w.to_string()} height={h.to_string()} role="img" aria-label="beam search tree">
                    <g class="node root"><rect x={root.0.to_string()} y={root.1.to_string()} width={BOX_W.to_string()} height={BOX_H.to_string()} rx="5" />
                        <text x={(root.0 + 6.0).to_string()} y={(root.1 + 17.0).to_string()}>{ t.start.clone() }</text></g>
                    // each list alone in its group: yew then matches the kept boxes by key and adds
                    // only the new ones (beside other children it would rebuild them all)
                    <g class="edges">{ for lines }</g>
                    <g class="nodes">{ for boxes }</g>
                </svg>
            </div>
        </div>
    }
}
