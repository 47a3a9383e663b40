//! The backend badge: which backend ran the latest forward and how long it took, the choice of
//! backend (Auto / CPU / WebGPU, kept in the URL as `?device=`), why WebGPU is not used when it is
//! not, and the snapshot's JSON export.

use crate::protocol::{DevicePref, DeviceStatus};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// Milliseconds of the latest forward, when there is one.
    pub ms: Option<f64>,
    /// What ran it ("CPU (wasm)", "WebGPU (…)").
    pub device: Option<AttrValue>,
    pub pref: DevicePref,
    /// What the worker found (None until it answered).
    pub status: Option<DeviceStatus>,
    pub on_pref: Callback<DevicePref>,
    /// Download the latest snapshot as JSON (None while there is none).
    pub on_export: Option<Callback<()>>,
}

#[component]
pub fn Badge(p: &Props) -> Html {
    let time = match p.ms {
        Some(ms) => format!("{ms:.1} ms / forward"),
        None => "-- ms / forward".into(),
    };
    let st = p.status.clone().unwrap_or_default();
    let gpu_label = match (&st.adapter, &st.problem) {
        (Some(a), _) if st.emulated => format!("WebGPU ({a}, a CPU emulation)"),
        (Some(a), _) => format!("WebGPU ({a})"),
        (None, Some(_)) if p.status.is_some() => "WebGPU (not available)".into(),
        _ => "WebGPU".into(),
    };
    let title = match (&st.problem, st.race) {
        (Some(why), _) => why.clone(),
        (None, Some((cpu, gpu))) if p.pref == DevicePref::Auto => format!(
            "Auto timed one forward on each: {cpu:.1} ms on the CPU path, {gpu:.1} ms on WebGPU, and uses {}. Both give the same numbers.",
            if gpu < cpu { "WebGPU" } else { "the CPU path" }
        ),
        _ => {
            "The engine runs in a Web Worker: WebGPU compute shaders on the GPU, or the CPU path (WebAssembly). Both give the same numbers."
                .into()
        }
    };
    let onchange = {
        let cb = p.on_pref.clone();
        Callback::from(move |e: Event| {
            let sel: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Some(d) = DevicePref::from_key(&sel.value()) {
                cb.emit(d);
            }
        })
    };
    let opt = |d: DevicePref, label: String| html! { <option value={d.key()} selected={p.pref == d}>{ label }</option> };
    let export = p.on_export.clone().map(|cb| {
        html! { <button class="export" data-testid="export-json" title="Download what the page shows for this input (tokens, every head's attention, hidden-state summaries, predictions) as JSON"
                    onclick={Callback::from(move |_: MouseEvent| cb.emit(()))}>{ "Export JSON" }</button> }
    });
    html! {
        <div class="badge" data-testid="backend-badge" title={title}>
            <span class="backend" data-testid="backend">{ p.device.clone().unwrap_or_else(|| AttrValue::from("…")) }</span>
            <span class="ms">{ time }</span>
            <label class="device">{ "Run on " }
                <select data-testid="device-select" {onchange}>
                    { opt(DevicePref::Auto, "Auto".into()) }
                    { opt(DevicePref::Cpu, "CPU (wasm)".into()) }
                    { opt(DevicePref::Gpu, gpu_label) }
                </select>
            </label>
            { export.unwrap_or_default() }
            { st.problem.as_ref().filter(|_| p.pref != DevicePref::Cpu).map(|why| html! { <span class="device-problem" data-testid="device-problem">{ why.clone() }</span> }).unwrap_or_default() }
        </div>
    }
}
