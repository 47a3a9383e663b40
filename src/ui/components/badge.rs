//! The backend badge: which backend runs the forward, and how long one takes.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// Milliseconds of the latest forward, when there is one.
    pub ms: Option<f64>,
}

#[component]
pub fn Badge(p: &Props) -> Html {
    let time = match p.ms {
        Some(ms) => format!("{ms:.1} ms / forward"),
        None => "-- ms / forward".into(),
    };
    html! {
        <div class="badge" data-testid="backend-badge" title="The engine runs in a Web Worker on the CPU path (WebGPU is not built yet)">
            <span class="backend">{ "CPU (wasm)" }</span>
            <span class="ms">{ time }</span>
        </div>
    }
}
