//! Your own sentence before and after fine-tuning: the task head's answer from the model as the
//! run found it and as it is now, and what [CLS] attends to in the last layer (mean over heads),
//! before and after, a bar per token.

use crate::components::fmt_prob;
use crate::explain::finetune::TuneProbe;
use crate::explain::snapshot::TaskOutput;
use crate::tune_state::{TuneAction, TuneField, TuneView};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<TuneView>,
    pub on_action: Callback<TuneAction>,
    /// Ask the worker for the comparison (with the form's sentence).
    pub on_probe: Callback<()>,
}

/// A task output in one line (the top class, the tags of the words, the best answer).
fn answer(out: &Option<TaskOutput>, tokens: &[String]) -> Html {
    match out {
        Some(TaskOutput::Classes(l)) => match l.first() {
            Some(top) => html! { <span data-label={top.label.clone()} data-prob={top.prob.to_string()}>
                <b>{ top.label.clone() }</b>{ format!(" {}", fmt_prob(top.prob)) }
                { for l.iter().skip(1).map(|o| html! { <span class="muted">{ format!(" · {} {}", o.label, fmt_prob(o.prob)) }</span> }) }
            </span> },
            None => html! {},
        },
        Some(TaskOutput::Score(x)) => html! { <b>{ format!("{x:.3}") }</b> },
        Some(TaskOutput::Tags(tags)) => html! {
            <span class="tags">{ for tags.iter().zip(tokens).enumerate().filter(|(_, (_, t))| !t.starts_with('[')).map(|(i, (tag, t))| html! {
                <span key={i} class="tag-cell"><span class="piece">{ t.clone() }</span>
                    <span class={if tag.label == "O" { "chip muted" } else { "chip" }}>{ tag.label.clone() }</span></span>
            }) }</span>
        },
        Some(TaskOutput::Answer { spans, .. }) => match spans.first() {
            Some(s) => html! { <span>{ "\"" }<b>{ s.text.clone() }</b>{ format!("\" (score {:.2})", s.score) }</span> },
            None => html! { <span class="muted">{ "no answer: give a context" }</span> },
        },
        None => html! { <span class="muted">{ "no task head" }</span> },
    }
}

fn cls_bars(p: &TuneProbe) -> Html {
    let max = p.cls_before.iter().chain(&p.cls_after).fold(1e-6f32, |m, &v| m.max(v));
    let rows = p.tokens.iter().enumerate().map(|(i, t)| {
        let (b, a) = (p.cls_before[i], p.cls_after[i]);
        html! {
            <tr key={i}>
                <th scope="row">{ t.clone() }</th>
                <td><span class="bar before" style={format!("width: {:.1}%", b / max * 100.0)} title={format!("before {b:.3}")} /></td>
                <td><span class="bar after" style={format!("width: {:.1}%", a / max * 100.0)} title={format!("after {a:.3}")} /></td>
                <td class="num">{ format!("{b:.3} → {a:.3}") }</td>
            </tr>
        }
    });
    html! {
        <table class="cls-attention" data-testid="cls-attention">
            <caption>{ "What [CLS] attends to in the last layer (mean over its heads): before → after" }</caption>
            <thead><tr><th>{ "token" }</th><th>{ "before" }</th><th>{ "after" }</th><th /></tr></thead>
            <tbody>{ for rows }</tbody>
        </table>
    }
}

#[component]
pub fn TuneProbeView(p: &Props) -> Html {
    let v = &p.view;
    let qa = v.form.setup.task == crate::config::TaskKind::QuestionAnswering;
    let field = |to: fn(String) -> TuneField| {
        let act = p.on_action.clone();
        Callback::from(move |e: InputEvent| act.emit(TuneAction::Edit(to(e.target_unchecked_into::<HtmlInputElement>().value()))))
    };
    let go = {
        let cb = p.on_probe.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let on_enter = {
        let cb = p.on_probe.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                cb.emit(())
            }
        })
    };
    let result = v.probe.as_ref().map(|r| {
        html! {
            <div class="probe-result" data-testid="tune-probe" data-step={r.step.to_string()}>
                <p><span class="muted">{ "Before fine-tuning: " }</span>{ answer(&r.before, &r.tokens) }</p>
                <p><span class="muted">{ format!("After {} steps: ", r.step) }</span>{ answer(&r.after, &r.tokens) }</p>
                { cls_bars(r) }
            </div>
        }
    });
    html! {
        <div class="tune-probe">
            <div class="row">
                <label class="field probe"><span>{ if qa { "question" } else { "your sentence" } }</span>
                    <input type="text" value={v.form.probe_text.clone()} oninput={field(TuneField::ProbeText)} onkeydown={on_enter.clone()} data-testid="tune-probe-text" /></label>
                if qa {
                    <label class="field probe"><span>{ "context" }</span>
                        <input type="text" value={v.form.probe_pair.clone()} oninput={field(TuneField::ProbePair)} onkeydown={on_enter} data-testid="tune-probe-pair" /></label>
                }
                <button onclick={go} disabled={!v.run.has_run} data-testid="tune-probe-go">{ "Compare before / after" }</button>
            </div>
            { result.unwrap_or_else(|| html! { <p class="hint">{ "Start a run, then compare: the model as it was before fine-tuning and as it is now, on your sentence." }</p> }) }
        </div>
    }
}
