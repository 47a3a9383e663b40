//! Head ablation: one checkbox per (layer, head); unticked heads are multiplied by 0 (HF
//! `head_mask`) and the predictions update.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub layers: usize,
    pub heads: usize,
    pub off: Vec<(usize, usize)>,
    pub on_toggle: Callback<(usize, usize)>,
}

#[component]
pub fn Ablation(p: &Props) -> Html {
    let rows = (0..p.layers).map(|l| {
        let boxes = (0..p.heads).map(|h| {
            let on = !p.off.contains(&(l, h));
            let onchange = {
                let cb = p.on_toggle.clone();
                Callback::from(move |_: Event| cb.emit((l, h)))
            };
            html! {
                <label key={h} class={classes!("head-toggle", (!on).then_some("off"))}>
                    <input type="checkbox" checked={on} data-testid="head-toggle" data-layer={l.to_string()} data-head={h.to_string()} {onchange} />
                    { format!("head {h}") }
                </label>
            }
        });
        html! { <div key={l} class="ablation-row"><span class="row-label">{ format!("layer {l}") }</span>{ for boxes }</div> }
    });
    html! {
        <div class="ablation" data-testid="ablation">
            { for rows }
            <p class="hint">{ format!("{} of {} heads on. Untick a head to switch it off and watch the predictions change.", p.layers * p.heads - p.off.len(), p.layers * p.heads) }</p>
        </div>
    }
}
