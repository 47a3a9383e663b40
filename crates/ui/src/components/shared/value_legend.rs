//! The legend of a MatrixCanvas scale: the ramp with its ends and middle as numbers from the data.

use crate::components::matrix_canvas::Scale;
use crate::explain::{colormap, diverging};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub scale: Scale,
    /// What the colours measure.
    pub title: AttrValue,
}

#[component]
pub fn ValueLegend(p: &Props) -> Html {
    let (gradient, ticks) = match p.scale {
        Scale::Diverging(m) => (diverging::css_gradient(), [-m, 0.0, m]),
        Scale::Sequential(m) => (colormap::css_gradient(), [0.0, m / 2.0, m]),
        Scale::Range(lo, hi) => (colormap::css_gradient(), [lo, (lo + hi) / 2.0, hi]),
    };
    let ticks = ticks.iter().zip([0, 50, 100]).map(|(t, at)| {
        html! { <span class="tick" style={format!("left: {at}%")}>{ format!("{t:.3}") }</span> }
    });
    html! {
        <div class="legend value-legend">
            <span class="legend-title">{ p.title.clone() }</span>
            <div class="ramp-wrap">
                <div class="ramp" style={format!("background: {gradient}")} />
                <div class="ticks">{ for ticks }</div>
            </div>
        </div>
    }
}
