//! `?bench=attribution`: the worker's timings of the attribution rows (`explain::attribute_bench`,
//! the rows `cargo bench --bench attribute` prints natively), shown above the explainer.

use crate::explain::attribute_bench::AttributionTimings;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub bench: Option<Result<AttributionTimings, String>>,
}

#[component]
pub fn BenchTable(p: &Props) -> Html {
    let r = match &p.bench {
        None => return html! {},
        Some(Err(e)) => {
            return html! { <p class="error" data-testid="bench-attribution" data-error={e.clone()}>{ format!("Benchmark: {e}") }</p> }
        }
        Some(Ok(r)) => r,
    };
    let frame = |ms: f64| format!("+{ms:.2} ms on a keystroke");
    let rows = [
        ("the explainer's snapshot (a keystroke's forward)", "snapshot", r.snapshot, String::new(), ""),
        ("one forward + backward of the target's loss", "forward_backward", r.forward_backward, String::new(), ""),
        ("grad", "grad", r.grad, frame(r.grad), "<= 16 ms"),
        ("grad x input", "grad_x_input", r.grad_x_input, frame(r.grad_x_input), "<= 16 ms"),
        ("integrated gradients, N = 32", "ig", r.ig, format!("{:.1}x one forward + backward", r.ig_ratio()), "<= 4x"),
    ];
    html! {
        <section class="card" data-testid="bench-attribution" data-ratio={format!("{:.3}", r.ig_ratio())}>
            <h2>{ "Benchmark: what an attribution costs here" }</h2>
            <p class="hint">{ format!("{} tokens, the loaded model, this page's worker (CPU, WebAssembly); median of {} rounds, each running all five.", r.tokens, r.rounds) }</p>
            <table>
                <thead><tr><th>{ "what" }</th><th>{ "ms" }</th><th>{ "against" }</th><th>{ "target" }</th></tr></thead>
                <tbody>
                    { for rows.iter().map(|(what, key, ms, against, target)| html! {
                        <tr key={*key} data-row={*key} data-ms={format!("{ms:.3}")}>
                            <td>{ *what }</td><td>{ format!("{ms:.2}") }</td><td>{ against.clone() }</td><td>{ *target }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </section>
    }
}
