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
    // one column a head, numbered once at the top (12 labels "head h" a row did not fit)
    let header = html! {
        <div class="ablation-row ablation-head" aria-hidden="true">
            <span class="row-label">{ "head" }</span>
            { for (0..p.heads).map(|h| html! { <span key={h} class="head-num">{ h }</span> }) }
        </div>
    };
    let rows = (0..p.layers).map(|l| {
        let boxes = (0..p.heads).map(|h| {
            let on = !p.off.contains(&(l, h));
            let onchange = {
                let cb = p.on_toggle.clone();
                Callback::from(move |_: Event| cb.emit((l, h)))
            };
            html! {
                <label key={h} class={classes!("head-toggle", (!on).then_some("off"))} title={format!("layer {l}, head {h}")}>
                    <input type="checkbox" checked={on} data-testid="head-toggle" data-layer={l.to_string()} data-head={h.to_string()}
                        aria-label={format!("layer {l}, head {h}")} {onchange} />
                </label>
            }
        });
        html! { <div key={l} class="ablation-row"><span class="row-label">{ format!("layer {l}") }</span>{ for boxes }</div> }
    });
    html! {
        <div class="ablation" data-testid="ablation">
            { header }
            { for rows }
            <p class="hint">{ format!("{} of {} heads on. Untick a head to switch it off and watch the predictions change.", p.layers * p.heads - p.off.len(), p.layers * p.heads) }</p>
        </div>
    }
}
