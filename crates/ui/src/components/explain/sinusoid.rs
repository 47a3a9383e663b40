//! The sinusoidal position encoding PE[pos, j] of Attention Is All You Need as a heatmap (positions
//! down, dimensions across), from the engine's own `sinusoidal_table`, with the formula of the
//! selected cell. Each sin/cos column pair is one frequency: fast on the left, slow on the right.

use crate::components::embeddings::term;
use crate::components::embeddings::MARKER_MIN;
use crate::components::mat::Mat;
use crate::components::matrix_canvas::{MatrixCanvas, Pick, Scale};
use crate::components::value_legend::ValueLegend;
use crate::explain::embeddings::PositionView;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub positions: Rc<PositionView>,
}

#[component]
pub fn Sinusoid(p: &Props) -> Html {
    let v = &p.positions;
    let (np, d, h) = (v.positions, v.dims, v.hidden);
    let selected = use_state(|| (5usize, 0usize));
    let values = use_memo(p.positions.clone(), |v| Mat::new(v.pe.clone()));
    if np == 0 || d == 0 {
        return html! {};
    }
    let (pos, j) = (selected.0.min(np - 1), selected.1.min(d - 1));
    let on_select = {
        let selected = selected.clone();
        Callback::from(move |rc: (usize, usize)| selected.set(rc))
    };
    let i = j / 2;
    let w = v.pair_freq.get(i).copied().unwrap_or_default();
    let f = if j % 2 == 0 { "sin" } else { "cos" };
    let value = v.pe[pos * d + j];
    let capped = if d < h { format!(" (the first {d} of {h})") } else { String::new() };
    html! {
        <div class="sinusoid" data-testid="sinusoid" data-positions={np.to_string()} data-dims={d.to_string()} data-hidden={h.to_string()}>
            <p class="hint">{ format!("PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d)), d = {h}: positions 0 to {} down, dimensions{capped} across. Each pair of columns is a wave of its own frequency, fast on the left, slow on the right, so every position gets a different pattern.", np - 1) }</p>
            <div class="sin-body">
                <MatrixCanvas values={(*values).clone()} rows={np} cols={d} scale={Scale::Diverging(1.0)} size={Some((256.0, (np * 4) as f64))}
                    wrap="mx-wrap" class="mx" label="sinusoidal position encoding; hover or use the arrow keys to read a cell" testid="pe-matrix" selected={Some((pos, j))} {on_select}
                    pick={Pick::Hover} marker_min={MARKER_MIN} />
                <div class="readouts" data-testid="pe-formula" data-pos={pos.to_string()} data-dim={j.to_string()} data-value={value.to_string()}>
                    <p class="readout">{ format!("position {pos}, dimension {j} ({} of pair i = {i})", if j % 2 == 0 { "sin" } else { "cos" }) }</p>
                    <p class="formula">{ format!("PE[{pos}, {j}] = {f}({pos} / 10000^({}/{h})) = {f}({pos} × {w:.6}) = {}", 2 * i, term(value)) }</p>
                    <p class="formula">{ format!("w_{i} = 1 / 10000^({}/{h}) = {w:.6} radians per position", 2 * i) }</p>
                    <ValueLegend scale={Scale::Diverging(1.0)} title="PE value" />
                </div>
            </div>
        </div>
    }
}
