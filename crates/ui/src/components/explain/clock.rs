//! The clock analogy of the sinusoidal encoding: each sin/cos pair (2i, 2i+1) is a hand turning by
//! w_i = 1/10000^(2i/d) radians per position; its tip is (sin, cos) = (PE[pos, 2i], PE[pos, 2i+1]).
//! A slider (or its arrow keys) moves the position: fast hands spin, slow hands creep. Angles and
//! values come from the engine (`ClockHand`).

use crate::components::embeddings::term;
use crate::explain::embeddings::PositionView;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Length of a hand in the SVG's units (the face has radius 46).
const HAND: f64 = 38.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub positions: Rc<PositionView>,
}

#[component]
pub fn Clock(p: &Props) -> Html {
    let v = &p.positions;
    let n = v.clock_positions;
    let pos_state = use_state(|| 3usize);
    if n == 0 || v.hands.is_empty() {
        return html! {};
    }
    let pos = (*pos_state).min(n - 1);
    let oninput = {
        let pos_state = pos_state.clone();
        Callback::from(move |e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            if let Ok(x) = i.value().parse::<usize>() {
                pos_state.set(x);
            }
        })
    };
    let step = |delta: isize| {
        let pos_state = pos_state.clone();
        Callback::from(move |_: MouseEvent| pos_state.set(pos.saturating_add_signed(delta).min(n - 1)))
    };
    let faces = v.hands.iter().map(|c| {
        let theta = c.angle[pos];
        let deg = (theta as f64).to_degrees().rem_euclid(360.0);
        let dim = 2 * c.pair;
        html! {
            <figure key={c.pair} class="clock-face">
                <svg viewBox="-50 -50 100 100" width="132" height="132" role="img"
                    aria-label={format!("dims {dim} and {}: the hand at {deg:.1} degrees", dim + 1)}>
                    <circle r="46" class="face" />
                    { for (0..12).map(|k| html! { <line class="ctick" x1="0" y1="-46" x2="0" y2={if k % 3 == 0 { "-39" } else { "-42" }} transform={format!("rotate({})", k * 30)} /> }) }
                    <line class="hand" data-dim={dim.to_string()} data-pair={c.pair.to_string()} data-angle={theta.to_string()} data-pos={pos.to_string()}
                        data-sin={c.sin[pos].to_string()} data-cos={c.cos[pos].to_string()}
                        x1="0" y1="0" x2="0" y2={format!("{}", -HAND)} transform={format!("rotate({deg:.4})")} />
                    <circle r="3" class="hub" />
                </svg>
                <figcaption>
                    <strong>{ format!("dims {dim}, {}", dim + 1) }</strong>
                    <span>{ format!("w = 1/10000^({dim}/{}) = {:.6}", v.hidden, c.freq) }</span>
                    <span>{ format!("θ = {pos} × {:.6} = {:.6} rad", c.freq, theta) }</span>
                    <span>{ format!("PE[{pos}, {dim}] = sin θ = {}", term(c.sin[pos])) }</span>
                    <span>{ format!("PE[{pos}, {}] = cos θ = {}", dim + 1, term(c.cos[pos])) }</span>
                    <span class="muted">{ format!("one turn every {:.1} positions", c.period) }</span>
                </figcaption>
            </figure>
        }
    });
    html! {
        <div class="clock" data-testid="clock" data-pos={pos.to_string()} data-hidden={v.hidden.to_string()}>
            <p class="hint">{ "Each sin/cos pair of dimensions is a clock hand that turns by w radians from one position to the next: the hand's tip is (across, up) = (sin θ, cos θ). Move the position: the fast hand (dims 0, 1) spins about once every 6 positions, the slow ones creep. Together the hands tell every position apart, like the hands of a clock tell the time." }</p>
            <div class="clock-controls">
                <button onclick={step(-1)} aria-label="previous position">{ "−" }</button>
                <label>{ "position " }
                    <input type="range" min="0" max={(n - 1).to_string()} value={pos.to_string()} data-testid="clock-position" {oninput}
                        aria-label="position of the clock hands" />
                </label>
                <button onclick={step(1)} aria-label="next position">{ "+" }</button>
                <output class="pos-out">{ pos }</output>
            </div>
            <div class="clock-faces">{ for faces }</div>
        </div>
    }
}
