//! The training panel: mode, corpus (bundled, pasted or uploaded), settings, the Start / Pause /
//! Step once / Reset buttons, the step counter with a progress bar and ETA, and after training the
//! saved files and the switch that puts the trained model into the explainer.

use crate::components::panel_parts::{downloads, number_field, on_file_text, phase_status};
use crate::explain::chart::duration;
use crate::explain::training::TrainMode;
use crate::train_state::{Corpus, Field, Phase, TrainAction, TrainView, CORPORA};
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// What the buttons ask for (the page turns them into worker commands).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Control {
    Start,
    Pause,
    Step,
    Reset,
    Save,
    UseTrained(bool),
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<TrainView>,
    pub on_action: Callback<TrainAction>,
    pub on_control: Callback<Control>,
    /// What the page calls the model loaded in the explainer.
    pub model: AttrValue,
}

fn number(
    label: &'static str,
    testid: &'static str,
    value: String,
    hint: &'static str,
    locked: bool,
    to: fn(String) -> Field,
    cb: &Callback<TrainAction>,
) -> Html {
    number_field(label, testid, value, hint, locked, cb.reform(move |v| TrainAction::Edit(to(v))))
}

#[component]
pub fn TrainPanel(p: &Props) -> Html {
    let v = &p.view;
    let s = &v.form.setup;
    let locked = v.has_run || matches!(v.phase, Phase::Preparing(_));
    let act = p.on_action.clone();
    let ctl = |c: Control| {
        let cb = p.on_control.clone();
        Callback::from(move |_: MouseEvent| cb.emit(c))
    };
    let mode = |m: TrainMode, label: &str| {
        let act = act.clone();
        html! {
            <label class="radio">
                <input type="radio" name="train-mode" checked={s.mode == m} disabled={locked} data-testid={if m == TrainMode::Scratch { "train-mode-scratch" } else { "train-mode-continue" }}
                    onchange={Callback::from(move |_: Event| act.emit(TrainAction::Edit(Field::Mode(m))))} />
                { label.to_string() }
            </label>
        }
    };
    let corpus_value = match &v.form.corpus {
        Corpus::Bundled(f) => f.clone(),
        Corpus::Custom => "custom".into(),
    };
    let on_corpus = {
        let act = act.clone();
        Callback::from(move |e: Event| {
            let val = e.target_unchecked_into::<HtmlSelectElement>().value();
            act.emit(TrainAction::Edit(Field::Corpus(if val == "custom" { Corpus::Custom } else { Corpus::Bundled(val) })));
        })
    };
    let on_paste = {
        let act = act.clone();
        Callback::from(move |e: InputEvent| {
            act.emit(TrainAction::Edit(Field::Custom(e.target_unchecked_into::<HtmlTextAreaElement>().value())))
        })
    };
    let on_file = on_file_text(act.reform(|t| TrainAction::Edit(Field::Custom(t))));
    let on_probe = {
        let act = act.clone();
        Callback::from(move |e: Event| act.emit(TrainAction::Edit(Field::Probe(e.target_unchecked_into::<HtmlInputElement>().value()))))
    };
    let custom = (v.form.corpus == Corpus::Custom).then(|| {
        let words = v.form.custom.split_whitespace().count();
        html! {
            <div class="custom-corpus">
                <textarea rows="5" placeholder="Paste plain text here: one sentence a line, documents separated by a blank line."
                    value={(*v.form.custom).clone()} disabled={locked} oninput={on_paste} data-testid="train-corpus-text" />
                <div class="row">
                    <input type="file" accept=".txt,text/plain" disabled={locked} onchange={on_file} aria-label="upload a text file" />
                    <span class="muted">{ format!("{words} words") }</span>
                </div>
            </div>
        }
    });

    let (status, status_class) = phase_status(&v.phase, "Ready to train.", "Training…");
    let eta = match (&v.phase, v.eta_secs()) {
        (Phase::Finished, _) => "finished".to_string(),
        (_, Some(e)) => format!("ETA {}", duration(e)),
        _ => String::new(),
    };
    let info = v.info.as_ref().map(|i| {
        html! {
            <p class="muted run-info">{ format!(
                "Model: {} layers × {} heads, hidden {}, vocabulary {} ({} parameters). Corpus: {} training tokens. Prepared in {:.1} s. Trains on {}.",
                i.layers, i.heads, i.hidden, i.vocab, i.params, v.train_tokens, v.setup_ms / 1000.0, v.device) }</p>
        }
    });
    let running = v.running();
    let can_step = !running && !matches!(v.phase, Phase::Preparing(_) | Phase::Finished);
    let saved = downloads(&v.links, "train-downloads", "Download: ");
    html! {
        <div class="train-panel">
            <div class="form">
                <fieldset disabled={locked}>
                    <legend>{ "Model" }</legend>
                    { mode(TrainMode::Scratch, "From scratch (tiny: 2 layers, hidden 64, 2 heads, a vocabulary trained on the corpus)") }
                    { mode(TrainMode::Continue, &format!("Continue training the model loaded in the explainer: \"{}\"", p.model)) }
                </fieldset>
                <fieldset disabled={locked}>
                    <legend>{ "Corpus" }</legend>
                    <select onchange={on_corpus} aria-label="corpus" data-testid="train-corpus">
                        { for CORPORA.iter().map(|(f, label)| html! { <option value={*f} selected={corpus_value == *f}>{ *label }</option> }) }
                        <option value="custom" selected={corpus_value == "custom"}>{ "Your own text (paste or upload)" }</option>
                    </select>
                    { for custom }
                </fieldset>
                <fieldset class="numbers" disabled={locked}>
                    <legend>{ "Settings" }</legend>
                    { number("batch", "train-batch", s.batch.to_string(), "sequences per step", locked, Field::Batch, &act) }
                    { number("seq len", "train-seq", s.seq.to_string(), "tokens per sequence (at most 128 from scratch)", locked, Field::Seq, &act) }
                    { number("learning rate", "train-lr", format!("{}", s.lr), "peak learning rate (AdamW), after 10% warmup", locked, Field::Lr, &act) }
                    { number("steps", "train-steps", s.steps.to_string(), "optimiser steps", locked, Field::Steps, &act) }
                    { number("seed", "train-seed", s.seed.to_string(), "initialisation, data order, masking and dropout", locked, Field::Seed, &act) }
                    { number("frame every", "train-every", s.snap_every.to_string(), "a filmstrip frame every N steps", locked, Field::SnapEvery, &act) }
                    <label class="field probe">
                        <span>{ "probe sentence (filmstrip)" }</span>
                        <input type="text" value={s.probe.clone()} disabled={locked} onchange={on_probe} data-testid="train-probe" />
                    </label>
                </fieldset>
            </div>
            <div class="controls big">
                <button class="primary" data-testid="train-start" onclick={ctl(Control::Start)} disabled={running || matches!(v.phase, Phase::Preparing(_) | Phase::Finished)}>
                    { if v.has_run && v.step > 0 { "▶ Resume" } else { "▶ Start" } }</button>
                <button data-testid="train-pause" onclick={ctl(Control::Pause)} disabled={!running}>{ "Pause" }</button>
                <button data-testid="train-step" onclick={ctl(Control::Step)} disabled={!can_step}>{ "Step once" }</button>
                <button data-testid="train-reset" onclick={ctl(Control::Reset)} disabled={!v.has_run && !matches!(v.phase, Phase::Preparing(_))}>{ "↺ Reset" }</button>
                <span class={classes!("status", status_class)} data-testid="train-status" data-phase={status_class}>{ status }</span>
            </div>
            <div class="progress-row">
                <span class="stepper">{ "step " }<b data-testid="step-counter">{ v.step.to_string() }</b>{ format!(" / {}", if v.steps > 0 { v.steps } else { s.steps }) }</span>
                <progress max="1" value={v.progress().to_string()} aria-label="training progress" />
                <span class="eta">{ eta }</span>
                <span class="rate" data-testid="train-rate" data-worker-memory={v.worker_memory.to_string()} data-device={v.device.clone()} data-eval0={v.eval0.to_string()}
                    title={format!("the worker's memory: {:.1} MB", v.worker_memory as f64 / 1e6)}>
                    { if v.rate > 0.0 { format!("{:.0} tokens/s · {:.0} ms/step", v.rate, v.ms_per_step) } else { String::new() } }</span>
            </div>
            // one child each, there or not (a child that comes and goes would have the DOM diff
            // rebuild the form and the buttons above it)
            { v.error.clone().map(|m| html! { <p class="error" data-testid="train-error" role="alert">{ m }</p> }).unwrap_or_default() }
            { info.unwrap_or_default() }
            <div class="controls after">
                <button data-testid="train-save" onclick={ctl(Control::Save)} disabled={!v.has_run || running}>{ "Save the model (config.json, model.safetensors, tokenizer.json)" }</button>
                <label class="radio">
                    <input type="checkbox" data-testid="train-use" checked={v.use_trained} disabled={!v.has_run}
                        onchange={{ let cb = p.on_control.clone(); Callback::from(move |e: Event| cb.emit(Control::UseTrained(e.target_unchecked_into::<HtmlInputElement>().checked()))) }} />
                    { "Use the trained model in the explainer views" }
                </label>
            </div>
            { for saved }
        </div>
    }
}
