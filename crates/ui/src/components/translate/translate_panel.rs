//! The Translate tab's training panel: the pairs (a bundled set, or pasted / uploaded JSON lines),
//! the settings, Start / Pause / Reset, the step counter and what the run trains (a new
//! encoder-decoder, on the CPU path); Save, and the saved folder's download links.

use crate::components::panel_parts::{downloads, number_field, on_file_text, phase_status};
use crate::explain::translate::DATASETS;
use crate::train_state::Phase;
use crate::translate_state::{TranslateAction, TranslateField, TranslateView};
use std::rc::Rc;
use web_sys::{HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// What the training buttons ask for (the page turns them into worker commands).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TranslateControl {
    Start,
    Pause,
    Reset,
    Save,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<TranslateView>,
    pub on_action: Callback<TranslateAction>,
    pub on_control: Callback<TranslateControl>,
}

#[component]
pub fn TranslatePanel(p: &Props) -> Html {
    let v = &p.view;
    let s = &v.form.setup;
    let locked = v.has_run || matches!(v.phase, Phase::Preparing(_));
    let act = p.on_action.clone();
    let ctl = |c: TranslateControl| {
        let cb = p.on_control.clone();
        Callback::from(move |_: MouseEvent| cb.emit(c))
    };
    let number = |label: &'static str, testid: &'static str, value: String, hint: &'static str, to: fn(String) -> TranslateField| {
        number_field(label, testid, value, hint, false, act.reform(move |v| TranslateAction::Edit(to(v))))
    };
    let on_dataset =
        act.reform(|e: Event| TranslateAction::Edit(TranslateField::Dataset(e.target_unchecked_into::<HtmlSelectElement>().value())));
    let custom = (v.form.dataset == "custom").then(|| {
        let lines = v.form.custom.lines().filter(|l| !l.trim().is_empty()).count();
        let on_paste = act.reform(|e: InputEvent| TranslateAction::Edit(TranslateField::Custom(e.target_unchecked_into::<HtmlTextAreaElement>().value())));
        let on_file = on_file_text(act.reform(|t| TranslateAction::Edit(TranslateField::Custom(t))));
        html! {
            <div class="custom-corpus">
                <textarea rows="5" value={(*v.form.custom).clone()} disabled={locked} oninput={on_paste} data-testid="translate-data-text"
                    aria-label="your own pairs, one JSON object a line"
                    placeholder={r#"One pair a line: {"source": "the red ball", "target": "la pelota roja"}"#} />
                <div class="row">
                    <input type="file" accept=".jsonl,.json,.txt" disabled={locked} onchange={on_file} aria-label="upload a JSONL file of pairs" />
                    <span class="muted">{ format!("{lines} lines; every tenth is held out for the exact match") }</span>
                </div>
            </div>
        }
    });
    let (status, status_class) = phase_status(&v.phase, "Ready to train.", "Training…");
    let info = v.info.as_ref().map(|i| {
        html! {
            <p class="muted run-info" data-testid="translate-info">{ format!(
                "A new encoder-decoder: encoder and decoder of {} layers × {} heads each, hidden {}, a {}-piece vocabulary learnt from both sides ({} parameters). {} training pairs, {} held out for the exact match. Prepared in {:.1} s. Runs on the CPU (WebAssembly).",
                i.layers, i.heads, i.hidden, i.vocab, i.params, v.train_pairs, v.eval_pairs, v.setup_ms / 1000.0) }</p>
        }
    });
    let blocked = v.save_blocked();
    let lead = if v.saved_step < v.step {
        format!("The model at step {} (training went on since: Save again for step {}): ", v.saved_step, v.step)
    } else {
        format!("The model at step {}: ", v.saved_step)
    };
    let saved = downloads(&v.links, "translate-downloads", &lead);
    let running = v.running();
    let progress = if v.steps > 0 { v.step as f64 / v.steps as f64 } else { 0.0 };
    html! {
        <div class="train-panel translate-panel">
            <div class="form">
                <fieldset disabled={locked}>
                    <legend>{ "Pairs to learn from" }</legend>
                    <select onchange={on_dataset} aria-label="data set" data-testid="translate-dataset">
                        { for DATASETS.iter().map(|(name, label, _)| html! { <option value={*name} selected={v.form.dataset == *name}>{ *label }</option> }) }
                        <option value="custom" selected={v.form.dataset == "custom"}>{ "Your own pairs (paste or upload JSON lines)" }</option>
                    </select>
                    { for custom }
                </fieldset>
                <fieldset class="numbers" disabled={locked}>
                    <legend>{ "Settings" }</legend>
                    { number("steps", "translate-steps", s.steps.to_string(), "optimiser steps", TranslateField::Steps) }
                    { number("batch", "translate-batch", s.batch.to_string(), "pairs per step", TranslateField::Batch) }
                    { number("learning rate", "translate-lr", format!("{}", s.lr), "peak learning rate (AdamW), after 10% warmup, then linear decay", TranslateField::Lr) }
                    { number("seed", "translate-seed", s.seed.to_string(), "the initial weights and the order of the pairs", TranslateField::Seed) }
                </fieldset>
            </div>
            <div class="controls big">
                <button class="primary" data-testid="translate-start" onclick={ctl(TranslateControl::Start)}
                    disabled={running || matches!(v.phase, Phase::Preparing(_) | Phase::Finished)}>
                    { if v.has_run && v.step > 0 { "▶ Resume" } else { "▶ Start training" } }</button>
                <button data-testid="translate-pause" onclick={ctl(TranslateControl::Pause)} disabled={!running}>{ "Pause" }</button>
                <button data-testid="translate-reset" onclick={ctl(TranslateControl::Reset)} disabled={!v.has_run && !matches!(v.phase, Phase::Preparing(_))}>{ "↺ Reset" }</button>
                <span class={classes!("status", status_class)} data-testid="translate-status" data-phase={status_class}>{ status }</span>
            </div>
            <div class="progress-row">
                <span class="stepper">{ "step " }<b data-testid="translate-step">{ v.step.to_string() }</b>{ format!(" / {}", if v.steps > 0 { v.steps } else { s.steps }) }</span>
                <progress max="1" value={progress.to_string()} aria-label="training progress" />
                <span class="rate" data-testid="translate-rate">
                    { if v.pairs_per_s > 0.0 { format!("{:.0} pairs/s on the CPU (WebAssembly)", v.pairs_per_s) } else { "runs on the CPU (WebAssembly)".to_string() } }</span>
            </div>
            { v.error.clone().map(|m| html! { <p class="error" data-testid="translate-error" role="alert">{ m }</p> }).unwrap_or_default() }
            { info.unwrap_or_default() }
            <div class="controls after">
                <button data-testid="translate-save" onclick={ctl(TranslateControl::Save)} disabled={blocked.is_some()}
                    aria-describedby="translate-save-note">{ "Save model (config.json, model.safetensors, tokenizer.json)" }</button>
                <span class="muted" id="translate-save-note" data-testid="translate-save-note">{
                    match blocked {
                        Some(why) => html! { why },
                        None => html! { <>{ "A Hugging Face folder: " }<code class="nowrap">{ "EncoderDecoderModel.from_pretrained(DIR)" }</code>
                            { " loads it in transformers, and " }<code class="nowrap">{ "bertscope generate --model DIR" }</code>{ " decodes with it." }</> },
                    }
                }</span>
            </div>
            { for saved }
        </div>
    }
}
