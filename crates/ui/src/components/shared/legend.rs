//! The colour legend of the attention heatmaps: viridis from 0 to 1 (softmax rows are in [0, 1]),
//! with the largest value of the current snapshot marked.

use crate::explain::colormap;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The largest probability in view.
    pub max: f32,
    /// Replaces "each row sums to 1" (e.g. to say rows were renormalised).
    #[prop_or_default]
    pub note: Option<AttrValue>,
}

#[component]
pub fn Legend(p: &Props) -> Html {
    let ticks = [0.0f32, 0.25, 0.5, 0.75, 1.0].map(|t| {
        html! { <span class="tick" style={format!("left: {}%", t * 100.0)}>{ format!("{t}") }</span> }
    });
    let max = p.max.clamp(0.0, 1.0);
    html! {
        <div class="legend" data-testid="legend">
            <span class="legend-title">{ "attention probability" }</span>
            <div class="ramp-wrap">
                <div class="ramp" style={format!("background: {}", colormap::css_gradient())}>
                    <span class="max-mark" style={format!("left: {}%", max * 100.0)} title={format!("largest value shown: {max:.4}")} />
                </div>
                <div class="ticks">{ for ticks }</div>
            </div>
            <span class="legend-note" data-testid="legend-note">
                { format!("largest here {max:.3}; {}", p.note.as_deref().unwrap_or("each row sums to 1")) }
            </span>
        </div>
    }
}
