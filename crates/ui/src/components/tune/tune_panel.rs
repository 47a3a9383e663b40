//! The fine-tune panel: the data set (bundled, pasted or uploaded JSON lines), where to start (the
//! loaded model, the model pre-trained in the train tab, random weights), the comparison with
//! random weights, the settings, the run's controls, and after fine-tuning the saved files and the switch that puts the fine-tuned model into the explainer.

use crate::components::panel_parts::{downloads, number_field, own_text};
use crate::components::run_controls::{RunControls, RunText};
use crate::config::TaskKind;
use crate::explain::finetune::{TuneStart, DATASETS};
use crate::run_state::Control;
use crate::tune_state::{TuneAction, TuneField, TuneView};
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

static TEXT: RunText = RunText {
    id: "tune",
    start_id: "finetune-start",
    counter_id: "tune-step",
    start: "▶ Fine-tune",
    idle: "Ready to fine-tune.",
    running: "Fine-tuning…",
    progress: "fine-tuning progress",
    step_once: false,
};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<TuneView>,
    pub on_action: Callback<TuneAction>,
    pub on_control: Callback<Control>,
    /// The fine-tuned model into the explainer (true) or out of it.
    pub on_use: Callback<bool>,
    /// A model was pre-trained in the train tab (it can be the start).
    pub trained_available: bool,
    /// What the page calls the model loaded in the explainer.
    pub model: AttrValue,
}

/// The JSON-lines format of each task, for the paste box.
fn format_hint(task: TaskKind) -> &'static str {
    match task {
        TaskKind::SequenceClassification => r#"One example a line: {"text": "great film", "label": "positive"} (a "pair" is optional)."#,
        TaskKind::TokenClassification => {
            r#"One example a line: {"tokens": ["Ada", "lives", "in", "Paris"], "tags": ["B-PER", "O", "O", "B-LOC"]}"#
        }
        TaskKind::QuestionAnswering => {
            r#"One example a line: {"question": "Where?", "context": "Ada lives in Paris.", "answer": {"text": "Paris", "start": 13}} (start: the character offset)"#
        }
    }
}

#[component]
pub fn TunePanel(p: &Props) -> Html {
    let v = &p.view;
    let s = &v.form.setup;
    let (r, locked) = (&v.run, v.run.locked());
    let act = p.on_action.clone();
    let number = |label: &'static str, testid: &'static str, value: String, hint: &'static str, to: fn(String) -> TuneField| {
        number_field(label, testid, value, hint, false, act.reform(move |v| TuneAction::Edit(to(v))))
    };
    let edit = |f: fn(String) -> TuneField| {
        let act = act.clone();
        Callback::from(move |e: Event| act.emit(TuneAction::Edit(f(e.target_unchecked_into::<HtmlSelectElement>().value()))))
    };
    let start = |st: TuneStart, label: &str, enabled: bool| {
        let act = act.clone();
        html! {
            <label class="radio">
                <input type="radio" name="tune-start" checked={s.start == st} disabled={locked || !enabled} data-testid={format!("tune-start-{}", st.key())}
                    onchange={Callback::from(move |_: Event| act.emit(TuneAction::Edit(TuneField::Start(st))))} />
                { label.to_string() }
            </label>
        }
    };
    let on_task = {
        let act = act.clone();
        Callback::from(move |e: Event| {
            let t = match e.target_unchecked_into::<HtmlSelectElement>().value().as_str() {
                "tag" => TaskKind::TokenClassification,
                "answer" => TaskKind::QuestionAnswering,
                _ => TaskKind::SequenceClassification,
            };
            act.emit(TuneAction::Edit(TuneField::Task(t)))
        })
    };
    let on_compare = {
        let act = act.clone();
        Callback::from(move |e: Event| {
            act.emit(TuneAction::Edit(TuneField::Compare(e.target_unchecked_into::<HtmlInputElement>().checked())))
        })
    };
    let custom = (v.form.dataset == "custom").then(|| {
        let lines = v.form.custom.lines().filter(|l| !l.trim().is_empty()).count();
        let task_key = match s.task {
            TaskKind::SequenceClassification => "classify",
            TaskKind::TokenClassification => "tag",
            TaskKind::QuestionAnswering => "answer",
        };
        let task = html! {
            <label class="field"><span>{ "task" }</span>
                <select onchange={on_task} disabled={locked} data-testid="tune-task" aria-label="task">
                    <option value="classify" selected={task_key == "classify"}>{ "Classify sentences" }</option>
                    <option value="tag" selected={task_key == "tag"}>{ "Tag every word" }</option>
                    <option value="answer" selected={task_key == "answer"}>{ "Answer questions (span in a context)" }</option>
                </select>
            </label>
        };
        let count = format!("{lines} lines; every tenth is held out for the scores");
        let box_ = ("tune-data-text", "your own examples, one JSON object a line", format_hint(s.task).into());
        own_text(&v.form.custom, box_, ".jsonl,.json,.txt", count, locked, task, act.reform(|t| TuneAction::Edit(TuneField::Custom(t))))
    });
    let info = v.info.as_ref().map(|i| {
        html! {
            <p class="muted run-info">{ format!(
                "Model: {} layers × {} heads, hidden {} ({} parameters with the head). {} training examples, {} held out. Prepared in {:.1} s. Trains on {}.",
                i.layers, i.heads, i.hidden, i.params, v.train_examples, v.eval_examples, r.setup_ms / 1000.0, r.device) }</p>
        }
    });
    let saved =
        downloads(&r.links, "tune-downloads", "Download (loads in transformers' AutoModelFor… and here, under Load your own model): ");
    let rate = if r.per_s > 0.0 { format!("{:.0} examples/s", r.per_s) } else { String::new() };
    html! {
        <div class="train-panel tune-panel">
            <div class="form">
                <fieldset disabled={locked}>
                    <legend>{ "Data" }</legend>
                    <select onchange={edit(TuneField::Dataset)} aria-label="data set" data-testid="tune-dataset">
                        { for DATASETS.iter().map(|(name, _, label)| html! { <option value={*name} selected={v.form.dataset == *name}>{ *label }</option> }) }
                        <option value="custom" selected={v.form.dataset == "custom"}>{ "Your own JSON lines (paste or upload)" }</option>
                    </select>
                    { for custom }
                </fieldset>
                <fieldset disabled={locked}>
                    <legend>{ "Start from" }</legend>
                    { start(TuneStart::Tiny, "bert-tiny, bundled (2 layers × 2 heads: a run takes seconds)", true) }
                    { start(TuneStart::Loaded, &format!("The model loaded in the explainer: \"{}\"", p.model), true) }
                    { start(TuneStart::Trained, "The model pre-trained in the train tab", p.trained_available) }
                    { start(TuneStart::Random, "Random weights (no pre-training)", true) }
                    <label class="radio" title="The same architecture and data from random weights, step for step: the curves side by side.">
                        <input type="checkbox" checked={s.compare} disabled={locked || s.start == TuneStart::Random} onchange={on_compare} data-testid="tune-compare" />
                        { "Also fine-tune from random weights, to compare (twice the work)" }
                    </label>
                </fieldset>
                <fieldset class="numbers" disabled={locked}>
                    <legend>{ "Settings" }</legend>
                    { number("steps", "tune-steps", s.steps.to_string(), "optimiser steps", TuneField::Steps) }
                    { number("batch", "tune-batch", s.batch.to_string(), "examples per step", TuneField::Batch) }
                    { number("learning rate", "tune-lr", format!("{}", s.lr), "peak learning rate (AdamW), after 10% warmup, then linear decay", TuneField::Lr) }
                    { number("seed", "tune-seed", s.seed.to_string(), "the head's initialisation, data order and dropout", TuneField::Seed) }
                </fieldset>
            </div>
            <RunControls run={r.clone()} text={&TEXT} planned={s.steps} {rate} on_control={p.on_control.clone()} />
            { info.unwrap_or_default() }
            <div class="controls after">
                <button data-testid="tune-save" onclick={p.on_control.reform(|_: MouseEvent| Control::Save)} disabled={!r.has_run || r.running()}>{ "Save the fine-tuned model (HF folder)" }</button>
                <label class="radio">
                    <input type="checkbox" data-testid="tune-use" checked={r.used} disabled={!r.has_run}
                        onchange={p.on_use.reform(|e: Event| e.target_unchecked_into::<HtmlInputElement>().checked())} />
                    { "Use the fine-tuned model in the explainer views" }
                </label>
            </div>
            { for saved }
        </div>
    }
}
