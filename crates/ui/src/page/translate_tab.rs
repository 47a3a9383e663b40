//! The Translate tab: an encoder-decoder trained from scratch in the page (the panel's buttons
//! become the worker's translation commands), its curves and held-out translations, then a
//! sentence of your own decoded one token at a time (the next-token bars, the beam tree, the causal
//! self-attention, the cross-attention) and the three shapes of the Transformer.

use super::{on_control, Shared, TranslateDispatch};
use crate::browser::absolute;
use crate::components::{
    BeamTreeView, DecodeControls, DecoderAttention, NextTokens, Shapes, TranslateCharts, TranslatePanel, TranslateScoresView,
};
use crate::engine::use_engine;
use crate::explain::decode::DecodeAction;
use crate::protocol::{DecodeAsk, JobCmd, ToEngine};
use crate::run_state::JobAction;
use crate::translate_state::{TranslateField, TranslateView};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Shared<TranslateView>,
    pub dispatch: TranslateDispatch,
    /// The tab is on screen (the charts draw only then).
    pub shown: bool,
}

#[component]
pub fn TranslateTab(p: &Props) -> Html {
    let engine = use_engine();
    let v = &p.view;
    let on_action = p.dispatch.to_callback();
    let form = v.form.clone();
    let on_control = on_control(engine.clone(), p.dispatch.clone(), move || form.setup(absolute), ToEngine::Translate);
    let on_decode = {
        let (engine, d, form) = (engine, p.dispatch.clone(), v.form.clone());
        Callback::from(move |action: DecodeAction| {
            let req = form.request();
            d.dispatch(JobAction::Edit(TranslateField::Decode(req.clone())));
            engine.send(ToEngine::Translate(JobCmd::Ask(DecodeAsk { req, action })));
        })
    };
    let view = v.rc();
    let decode: Option<Rc<_>> = v.decode.clone();
    let placeholder = |what: &str| html! { <p class="hint">{ format!("{what} appears here once you decode a sentence (train a model above first).") }</p> };
    html! {
        <div class="train-view translate-view" hidden={!p.shown} data-testid="translate-view">
            <section class="card">
                <h2>{ "Translate: the other half of the Transformer" }</h2>
                <p class="hint">{ "BERT is the Transformer's encoder: it reads a whole sentence at once and can fill in a gap, but it cannot write. The original Transformer also has a decoder, which writes the output one token at a time: it reads the tokens it has written so far (never the later ones) and, through cross-attention, the encoder's picture of the whole source. Here you train a small encoder-decoder from scratch, in this page, on the CPU (WebAssembly), then watch it translate step by step." }</p>
                <p class="hint">{ "Why the decoder needs all of the source: in “I arrived at the bank after crossing the river” the right word for “bank” depends on a word that comes later. In the made-up language below, “bank” is “ripa” (a river bank) or “kasa” (a money bank), decided by a word such as river or money that often comes after it; cross-attention lets the decoder look ahead in the source before it writes “ripa” or “kasa”." }</p>
                <TranslatePanel view={view.clone()} on_action={on_action.clone()} {on_control} />
            </section>
            <section class="card">
                <h2>{ "Learning curves" }</h2>
                <TranslateCharts view={view.clone()} visible={p.shown} />
            </section>
            <section class="card">
                <h2>{ "Held-out translations" }</h2>
                <TranslateScoresView view={view.clone()} visible={p.shown} />
            </section>
            <section class="card">
                <h2>{ "Decode a sentence, one token at a time" }</h2>
                <DecodeControls view={view.clone()} on_action={on_action} {on_decode} />
                { decode.as_ref().map(|d| html! { <NextTokens view={d.clone()} /> }).unwrap_or_default() }
                { decode.as_ref().and_then(|d| d.beams.clone()).map(|t| html! { <BeamTreeView tree={t} /> }).unwrap_or_default() }
            </section>
            <section class="card">
                <h2>{ "Inside the decoder: masked (causal) self-attention" }</h2>
                <p class="hint">{ "Row: the decoder token that looks; column: a decoder token it could look at. Each token may look only at itself and the tokens before it. The cells above the diagonal (grey) are the future: the causal mask adds −∞ to their score before the softmax (in the code the most negative float, as in Hugging Face), and e^−∞ = 0, so their weight is exactly 0. That is what makes training on a whole target in one forward honest: no position can peek at the word it must predict. The last row (→) is the one that predicts the next token." }</p>
                { decode.as_ref().map(|d| html! { <DecoderAttention view={d.clone()} cross={false} /> }).unwrap_or_else(|| placeholder("The decoder's self-attention")) }
            </section>
            <section class="card">
                <h2>{ "Cross-attention: where the decoder looks in the source" }</h2>
                <p class="hint">{ "Row: a decoder token; column: a source token (the encoder's output). Nothing is masked: the decoder sees all of the source at every step. Queries come from the decoder, keys and values from the encoder. Step until the decoder writes the word for “bank” and look at the last row: the heads that help it choose look at the deciding word, even when it comes later in the source." }</p>
                { decode.as_ref().map(|d| html! { <DecoderAttention view={d.clone()} cross={true} /> }).unwrap_or_else(|| placeholder("The cross-attention")) }
            </section>
            <section class="card">
                <h2>{ "Three shapes of the Transformer" }</h2>
                <Shapes />
            </section>
        </div>
    }
}
