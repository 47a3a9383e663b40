//! The training panel: mode, corpus (bundled, pasted or uploaded), settings, the run's controls,
//! and after training the saved files and the switch that puts the trained model into the
//! explainer.

use crate::components::panel_parts::{downloads, number_field, own_text};
use crate::components::run_controls::{RunControls, RunText};
use crate::explain::chart::duration;
use crate::explain::training::TrainMode;
use crate::run_state::{Control, Phase};
use crate::train_state::{Corpus, Field, TrainAction, TrainView, CORPORA};
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

static TEXT: RunText = RunText {
    id: "train",
    start_id: "train-start",
    counter_id: "step-counter",
    start: "▶ Start",
    idle: "Ready to train.",
    running: "Training…",
    progress: "training progress",
    step_once: true,
};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<TrainView>,
    pub on_action: Callback<TrainAction>,
    pub on_control: Callback<Control>,
    /// The trained model into the explainer (true) or out of it.
    pub on_use: Callback<bool>,
    /// What the page calls the model loaded in the explainer.
    pub model: AttrValue,
}

#[component]
pub fn TrainPanel(p: &Props) -> Html {
    let v = &p.view;
    let s = &v.form.setup;
    let locked = v.run.locked();
    let act = p.on_action.clone();
    let number = |label: &'static str, testid: &'static str, value: String, hint: &'static str, to: fn(String) -> Field| {
        number_field(label, testid, value, hint, locked, act.reform(move |v| TrainAction::Edit(to(v))))
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
    let on_probe = {
        let act = act.clone();
        Callback::from(move |e: Event| act.emit(TrainAction::Edit(Field::Probe(e.target_unchecked_into::<HtmlInputElement>().value()))))
    };
    let custom = (v.form.corpus == Corpus::Custom).then(|| {
        let box_ = (
            "train-corpus-text",
            "your own text",
            "Paste plain text here: one sentence a line, documents separated by a blank line.".into(),
        );
        let words = format!("{} words", v.form.custom.split_whitespace().count());
        own_text(&v.form.custom, box_, ".txt,text/plain", words, locked, html! {}, act.reform(|t| TrainAction::Edit(Field::Custom(t))))
    });

    let eta = match (&v.run.phase, v.eta_secs()) {
        (Phase::Finished, _) => "finished".to_string(),
        (_, Some(e)) => format!("ETA {}", duration(e)),
        _ => String::new(),
    };
    let r = &v.run;
    let rate = if r.per_s > 0.0 { format!("{:.0} tokens/s · {:.0} ms/step", r.per_s, r.ms_per_step) } else { String::new() };
    let info = v.info.as_ref().map(|i| {
        html! {
            <p class="muted run-info">{ format!(
                "Model: {} layers × {} heads, hidden {}, vocabulary {} ({} parameters). Corpus: {} training tokens. Prepared in {:.1} s. Trains on {}.",
                i.layers, i.heads, i.hidden, i.vocab, i.params, v.train_tokens, r.setup_ms / 1000.0, r.device) }</p>
        }
    });
    let saved = downloads(&r.links, "train-downloads", "Download: ");
    let save = p.on_control.reform(|_: MouseEvent| Control::Save);
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
                    { number("batch", "train-batch", s.batch.to_string(), "sequences per step", Field::Batch) }
                    { number("seq len", "train-seq", s.seq.to_string(), "tokens per sequence (at most 128 from scratch)", Field::Seq) }
                    { number("learning rate", "train-lr", format!("{}", s.lr), "peak learning rate (AdamW), after 10% warmup", Field::Lr) }
                    { number("steps", "train-steps", s.steps.to_string(), "optimiser steps", Field::Steps) }
                    { number("seed", "train-seed", s.seed.to_string(), "initialisation, data order, masking and dropout", Field::Seed) }
                    { number("frame every", "train-every", s.snap_every.to_string(), "a filmstrip frame every N steps", Field::SnapEvery) }
                    <label class="field probe">
                        <span>{ "probe sentence (filmstrip)" }</span>
                        <input type="text" value={s.probe.clone()} disabled={locked} onchange={on_probe} data-testid="train-probe" />
                    </label>
                </fieldset>
            </div>
            <RunControls run={r.clone()} text={&TEXT} planned={s.steps} rate={rate} eta={Some(AttrValue::from(eta))} eval0={Some(AttrValue::from(v.eval0.to_string()))} on_control={p.on_control.clone()} />
            { info.unwrap_or_default() }
            <div class="controls after">
                <button data-testid="train-save" onclick={save} disabled={!r.has_run || r.running()}>{ "Save the model (config.json, model.safetensors, tokenizer.json)" }</button>
                <label class="radio">
                    <input type="checkbox" data-testid="train-use" checked={r.used} disabled={!r.has_run}
                        onchange={p.on_use.reform(|e: Event| e.target_unchecked_into::<HtmlInputElement>().checked())} />
                    { "Use the trained model in the explainer views" }
                </label>
            </div>
            { for saved }
        </div>
    }
}
