//! The one set of controls of every long job: Start (or Resume) / Pause / Step once / Reset with
//! the run's status, the step counter with a progress bar, ETA and throughput, and the run's error.
//! A kind names its test ids and words (`RunText`); the buttons' presses go to `on_control`.

use crate::components::panel_parts::phase_status;
use crate::run_state::{Control, Phase, RunState};
use yew::prelude::*;

/// What a kind's controls say.
#[derive(Debug, PartialEq)]
pub struct RunText {
    /// The test ids' prefix ("train": `train-pause`, `train-status`, `train-rate`, …).
    pub id: &'static str,
    pub start_id: &'static str,
    pub counter_id: &'static str,
    /// Start's label before the first step ("▶ Start").
    pub start: &'static str,
    /// The status before a run, and while it runs.
    pub idle: &'static str,
    pub running: &'static str,
    /// The progress bar's name, and whether there is a "Step once" button.
    pub progress: &'static str,
    pub step_once: bool,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub run: RunState,
    pub text: &'static RunText,
    /// The steps the form plans (shown before a run).
    pub planned: usize,
    /// The throughput as shown, or what to show without one.
    pub rate: AttrValue,
    /// The time left ("ETA 1 min"), where the kind can tell.
    #[prop_or_default]
    pub eta: Option<AttrValue>,
    /// The held-out loss before training (for scripts), where the kind has one.
    #[prop_or_default]
    pub eval0: Option<AttrValue>,
    pub on_control: Callback<Control>,
}

#[component]
pub fn RunControls(p: &Props) -> Html {
    let (v, t) = (&p.run, p.text);
    let ctl = |c: Control| {
        let cb = p.on_control.clone();
        Callback::from(move |_: MouseEvent| cb.emit(c))
    };
    let id = |what: &str| format!("{}-{what}", t.id);
    let (status, status_class) = phase_status(&v.phase, t.idle, t.running);
    let running = v.running();
    let step_once = t.step_once.then(|| {
        let can_step = !running && !matches!(v.phase, Phase::Preparing(_) | Phase::Finished);
        html! { <button data-testid={id("step")} onclick={ctl(Control::Step)} disabled={!can_step}>{ "Step once" }</button> }
    });
    html! {
        <>
            <div class="controls big">
                <button class="primary" data-testid={t.start_id} onclick={ctl(Control::Start)} disabled={running || matches!(v.phase, Phase::Preparing(_) | Phase::Finished)}>
                    { if v.has_run && v.step > 0 { "▶ Resume" } else { t.start } }</button>
                <button data-testid={id("pause")} onclick={ctl(Control::Pause)} disabled={!running}>{ "Pause" }</button>
                { for step_once }
                <button data-testid={id("reset")} onclick={ctl(Control::Reset)} disabled={!v.locked()}>{ "↺ Reset" }</button>
                <span class={classes!("status", status_class)} data-testid={id("status")} data-phase={status_class}>{ status }</span>
            </div>
            <div class="progress-row">
                <span class="stepper">{ "step " }<b data-testid={t.counter_id}>{ v.step.to_string() }</b>{ format!(" / {}", if v.steps > 0 { v.steps } else { p.planned }) }</span>
                <progress max="1" value={v.fraction().to_string()} aria-label={t.progress} />
                if let Some(eta) = &p.eta { <span class="eta">{ eta.clone() }</span> }
                <span class="rate" data-testid={id("rate")} data-device={v.device.clone()} data-worker-memory={v.memory.to_string()} data-eval0={p.eval0.clone()}
                    title={format!("the worker's memory: {:.1} MB", v.memory as f64 / 1e6)}>{ p.rate.clone() }</span>
            </div>
            // one child, there or not (a child that comes and goes would have the DOM diff rebuild
            // the form and the buttons above it)
            { v.error.clone().map(|m| html! { <p class="error" data-testid={id("error")} role="alert">{ m }</p> }).unwrap_or_default() }
        </>
    }
}
