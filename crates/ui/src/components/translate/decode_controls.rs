//! Decoding a sentence of your own, one token at a time: the source, how the next token is chosen
//! (greedy; sampling with a temperature and top-k, seeded; beam search with K beams), Step / Run to
//! the end / Restart, the worker's time for the step, and the output so far with the token this
//! step chose.

use crate::components::panel_parts::number_field;
use crate::explain::decode::{DecodeAction, DecodeView};
use crate::translate_state::{MethodKind, TranslateAction, TranslateField, TranslateView};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<TranslateView>,
    pub on_action: Callback<TranslateAction>,
    /// A decoding button (the page sends it with the form's request).
    pub on_decode: Callback<DecodeAction>,
}

/// The output so far as chips: the start token, what was generated, the last chosen one marked.
fn output(d: &DecodeView) -> Html {
    let last = d.generated.len().saturating_sub(1);
    let chips = d.generated.iter().enumerate().map(|(i, t)| {
        let now = i == last && d.step > 0;
        html! { <span key={i} class={classes!("chip", now.then_some("now"), t.starts_with('[').then_some("special"))}>{ t.clone() }</span> }
    });
    let start = d.prefix.first().cloned().unwrap_or_default();
    html! {
        <div class="decode-output">
            <span key="start" class="chip special" title="decoder_start: the decoder's first input">{ start }</span>
            { for chips }
            { if d.done { html! {} } else { html! { <span key="next" class="chip next" title="the next step writes here">{ "?" }</span> } } }
        </div>
    }
}

#[component]
pub fn DecodeControls(p: &Props) -> Html {
    let v = &p.view;
    let f = &v.form;
    let act = p.on_action.clone();
    let button = |a: DecodeAction| {
        let cb = p.on_decode.clone();
        Callback::from(move |_: MouseEvent| cb.emit(a))
    };
    let on_source =
        act.reform(|e: InputEvent| TranslateAction::Edit(TranslateField::Source(e.target_unchecked_into::<HtmlInputElement>().value())));
    let on_enter = {
        let cb = p.on_decode.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                e.prevent_default();
                cb.emit(DecodeAction::Step);
            }
        })
    };
    let method = |m: MethodKind, label: &'static str, key: &'static str| {
        let act = act.clone();
        html! {
            <label class="radio">
                <input type="radio" name="decode-method" checked={f.method == m} data-testid={format!("decode-{key}")}
                    onchange={Callback::from(move |_: Event| act.emit(TranslateAction::Edit(TranslateField::Method(m))))} />
                { label }
            </label>
        }
    };
    let number = |label: &'static str, testid: &'static str, value: String, hint: &'static str, to: fn(String) -> TranslateField| {
        number_field(label, testid, value, hint, false, act.reform(move |v| TranslateAction::Edit(to(v))))
    };
    let settings = match f.method {
        MethodKind::Greedy => {
            html! { <p class="hint">{ "Greedy: always the most probable next token. Fast, deterministic, and it can never take back a choice." }</p> }
        }
        MethodKind::Sample => html! {
            <div class="numbers-row">
                { number("temperature", "decode-temperature", format!("{}", f.temperature), "divides the logits before the softmax: below 1 sharper, above 1 flatter", TranslateField::Temperature) }
                { number("top-k", "decode-top-k", f.top_k.to_string(), "draw only among the k most probable tokens (0: all)", TranslateField::TopK) }
                { number("seed", "decode-seed", f.sample_seed.to_string(), "the same seed draws the same tokens", TranslateField::SampleSeed) }
                <p class="hint">{ "Sampling: the next token is drawn at random from the distribution below, so it can vary; a low temperature and a small top-k keep it close to greedy." }</p>
            </div>
        },
        MethodKind::Beam => html! {
            <div class="numbers-row">
                { number("beams (K)", "decode-beams", f.beams.to_string(), "hypotheses kept at each step, 1 to 8", TranslateField::Beams) }
                <p class="hint">{ "Beam search: keep the K most probable partial translations (by the sum of their tokens' log-probabilities), extend each by every token, keep the K best again. The tree below shows what was kept." }</p>
            </div>
        },
    };
    let can = v.run.has_run && !v.decoding;
    let finished = v.decode_finished();
    let status = match (&v.decode, v.decoding) {
        (_, true) => "decoding…".to_string(),
        (Some(d), _) if d.done => format!("Done after {} steps: {}.", d.step, d.stop),
        (Some(d), _) if d.step == 0 => "Nothing generated yet: press Step to choose the first token.".to_string(),
        (Some(d), _) => match &d.chosen {
            Some(c) => format!("Step {}: the decoder chose “{}”.", d.step, c.token),
            None => format!("Step {}: every beam extended by one token.", d.step),
        },
        (None, _) if v.run.has_run => "Press Step to generate the first token.".to_string(),
        (None, _) => "Train a model above first (Start training).".to_string(),
    };
    html! {
        <div class="decode-controls">
            <label class="field probe"><span>{ "source sentence (what the encoder reads)" }</span>
                <input type="text" value={f.source.clone()} oninput={on_source} onkeydown={on_enter} data-testid="decode-source"
                    aria-label="source sentence to translate; Enter takes one step" />
            </label>
            <fieldset class="methods">
                <legend>{ "How the next token is chosen" }</legend>
                { method(MethodKind::Greedy, "greedy", "greedy") }
                { method(MethodKind::Sample, "sampling (temperature, top-k)", "sample") }
                { method(MethodKind::Beam, "beam search", "beam") }
                { settings }
            </fieldset>
            <div class="controls big">
                <button class="primary" data-testid="decode-step" onclick={button(DecodeAction::Step)} disabled={!can || finished}>{ "Step ▸" }</button>
                <button data-testid="decode-run" onclick={button(DecodeAction::RunToEnd)} disabled={!can || finished}>{ "Run to the end ▸▸" }</button>
                <button data-testid="decode-restart" onclick={button(DecodeAction::Restart)} disabled={!can}>{ "↺ Restart" }</button>
                <span class="status" data-testid="decode-status" data-done={v.decode.as_ref().is_some_and(|d| d.done).to_string()}
                    data-step={v.decode.as_ref().map(|d| d.step).unwrap_or(0).to_string()} data-answers={v.answers.to_string()}>{ status }</span>
                // always there (empty before the first answer), so the buttons before it stay put
                <span class="step-ms" data-testid="decode-ms" data-ms={v.step_ms.map(|m| m.to_string()).unwrap_or_default()}
                    data-step={v.decode.as_ref().map(|d| d.step.to_string()).unwrap_or_default()}
                    title="The worker's time for this step: the encoder and the decoder run again over the whole prefix (beam search: once per beam), the next token is chosen and this view is built. One frame of a 60 Hz screen is 16.7 ms.">
                    { v.step_time().map(|t| format!("{t} to compute (a screen frame is 16.7 ms)")).unwrap_or_default() }</span>
            </div>
            { v.decode_error.clone().map(|m| html! { <p class="error" data-testid="decode-error" role="alert">{ m }</p> }).unwrap_or_default() }
            { v.decode.as_ref().map(|d| html! {
                <div class="decode-result">
                    { output(d) }
                    <p class="generated-line">{ "Translation so far: " }
                        <b data-testid="generated" data-done={d.done.to_string()}>{ d.text.clone() }</b></p>
                </div>
            }).unwrap_or_default() }
        </div>
    }
}
