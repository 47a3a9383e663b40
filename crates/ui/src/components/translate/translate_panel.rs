//! The Translate tab's training panel: the pairs (a bundled set, or pasted / uploaded JSON lines),
//! the settings, the run's controls and what the run trains (a new
//! encoder-decoder, on the CPU path); Save, and the saved folder's download links.

use crate::components::panel_parts::{downloads, number_field, own_text};
use crate::components::run_controls::{RunControls, RunText};
use crate::explain::translate::DATASETS;
use crate::run_state::Control;
use crate::translate_state::{TranslateAction, TranslateField, TranslateView};
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

static TEXT: RunText = RunText {
    id: "translate",
    start_id: "translate-start",
    counter_id: "translate-step",
    start: "▶ Start training",
    idle: "Ready to train.",
    running: "Training…",
    progress: "training progress",
    step_once: false,
};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<TranslateView>,
    pub on_action: Callback<TranslateAction>,
    pub on_control: Callback<Control>,
}

#[component]
pub fn TranslatePanel(p: &Props) -> Html {
    let v = &p.view;
    let s = &v.form.setup;
    let (r, locked) = (&v.run, v.run.locked());
    let act = p.on_action.clone();
    let number = |label: &'static str, testid: &'static str, value: String, hint: &'static str, to: fn(String) -> TranslateField| {
        number_field(label, testid, value, hint, false, act.reform(move |v| TranslateAction::Edit(to(v))))
    };
    let on_dataset =
        act.reform(|e: Event| TranslateAction::Edit(TranslateField::Dataset(e.target_unchecked_into::<HtmlSelectElement>().value())));
    let custom = (v.form.dataset == "custom").then(|| {
        let count = format!(
            "{} lines; every tenth is held out for the exact match",
            v.form.custom.lines().filter(|l| !l.trim().is_empty()).count()
        );
        let box_ = (
            "translate-data-text",
            "your own pairs, one JSON object a line",
            r#"One pair a line: {"source": "the red ball", "target": "la pelota roja"}"#.into(),
        );
        own_text(
            &v.form.custom,
            box_,
            ".jsonl,.json,.txt",
            count,
            locked,
            html! {},
            act.reform(|t| TranslateAction::Edit(TranslateField::Custom(t))),
        )
    });
    let info = v.info.as_ref().map(|i| {
        html! {
            <p class="muted run-info" data-testid="translate-info">{ format!(
                "A new encoder-decoder: encoder and decoder of {} layers × {} heads each, hidden {}, a {}-piece vocabulary learnt from both sides ({} parameters). {} training pairs, {} held out for the exact match. Prepared in {:.1} s. Runs on the CPU (WebAssembly).",
                i.layers, i.heads, i.hidden, i.vocab, i.params, v.train_pairs, v.eval_pairs, r.setup_ms / 1000.0) }</p>
        }
    });
    let blocked = v.save_blocked();
    let lead = if r.saved_step < r.step {
        format!("The model at step {} (training went on since: Save again for step {}): ", r.saved_step, r.step)
    } else {
        format!("The model at step {}: ", r.saved_step)
    };
    let saved = downloads(&r.links, "translate-downloads", &lead);
    let rate =
        if r.per_s > 0.0 { format!("{:.0} pairs/s on the CPU (WebAssembly)", r.per_s) } else { "runs on the CPU (WebAssembly)".into() };
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
            <RunControls run={r.clone()} text={&TEXT} planned={s.steps} {rate} on_control={p.on_control.clone()} />
            { info.unwrap_or_default() }
            <div class="controls after">
                <button data-testid="translate-save" onclick={p.on_control.reform(|_: MouseEvent| Control::Save)} disabled={blocked.is_some()}
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
