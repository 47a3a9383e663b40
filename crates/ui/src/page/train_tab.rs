//! The train tab: the training panel (its buttons become the engine's training commands, sent
//! through the context's link), the learning curves, the masking pipeline of the current batch and
//! the attention filmstrip.

use super::{on_control, on_use, Shared, TrainDispatch, TuneDispatch};
use crate::browser::absolute;
use crate::components::{Filmstrip, MaskingPanel, TrainCharts, TrainPanel};
use crate::engine::use_engine;
use crate::protocol::{JobCmd, Reroll, ToEngine};
use crate::run_state::JobAction;
use crate::train_state::{Field, TrainView};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Shared<TrainView>,
    pub dispatch: TrainDispatch,
    /// The fine-tune tab's (its "use the fine-tuned model" switch goes off when this one goes on).
    pub tune: TuneDispatch,
    /// The tab is on screen (the charts draw only then: a hidden canvas has no size).
    pub shown: bool,
    /// What the page calls the model loaded in the explainer ("continue training" starts from it).
    pub model: AttrValue,
}

#[component]
pub fn TrainTab(p: &Props) -> Html {
    let engine = use_engine();
    let train = &p.view;
    let on_action = p.dispatch.to_callback();
    let form = train.form.clone();
    let on_control = on_control(engine.clone(), p.dispatch.clone(), move || form.setup(absolute), ToEngine::Train);
    let on_use = on_use(engine.clone(), p.dispatch.clone(), p.tune.clone(), ToEngine::Train);
    let on_reroll = {
        let (engine, d, seed) = (engine, p.dispatch.clone(), train.reroll_seed);
        Callback::from(move |s: Option<u64>| {
            if s.is_some() {
                d.dispatch(JobAction::Edit(Field::RerollSeed(seed + 1)));
            }
            engine.send(ToEngine::Train(JobCmd::Ask(Reroll { seed: s })));
        })
    };
    let on_scrub_a = p.dispatch.to_callback().reform(|i| JobAction::Edit(Field::ScrubA(i)));
    let on_scrub_b = p.dispatch.to_callback().reform(|i| JobAction::Edit(Field::ScrubB(i)));
    let view = train.rc();
    html! {
        <div class="train-view" hidden={!p.shown} data-testid="train-view">
            <section class="card">
                <h2>{ "Train a BERT in your browser" }</h2>
                <p class="hint">{ "Masked-language-model training (+ next-sentence prediction from scratch), step by step, in this page's Web Worker, on the backend chosen at the top right (CPU in WebAssembly, or WebGPU). Choose a model and a corpus, press Start, and watch it learn." }</p>
                <TrainPanel view={view.clone()} {on_action} {on_control} {on_use} model={p.model.clone()} />
            </section>
            <section class="card">
                <h2>{ "Learning curves" }</h2>
                <TrainCharts view={view.clone()} visible={p.shown} />
            </section>
            <section class="card">
                <h2>{ "The masking pipeline, current batch" }</h2>
                <p class="hint">{ "BERT chooses 15% of the tokens; of those 80% become [MASK], 10% a random piece, 10% stay as they are. The model is scored only at the chosen positions." }</p>
                <MaskingPanel view={train.masking.clone()} seed={train.reroll_seed} {on_reroll} />
            </section>
            <section class="card">
                <h2>{ "Attention filmstrip" }</h2>
                <p class="hint">{ "The probe sentence through the model every few steps: drag the sliders to watch the heads specialise, and compare any two steps." }</p>
                <Filmstrip {view} {on_scrub_a} {on_scrub_b} />
            </section>
        </div>
    }
}
