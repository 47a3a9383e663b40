//! The train tab: the training panel (its buttons become the engine's training commands, sent
//! through the context's link), the learning curves, the masking pipeline of the current batch and
//! the attention filmstrip.

use super::{Shared, TrainDispatch, TuneDispatch};
use crate::browser::absolute;
use crate::components::{Control, Filmstrip, MaskingPanel, TrainCharts, TrainPanel};
use crate::engine::use_engine;
use crate::protocol::{ToEngine, TrainCmd};
use crate::train_state::{TrainAction, TrainView};
use crate::tune_state::TuneAction;
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
    let on_action = {
        let d = p.dispatch.clone();
        Callback::from(move |a: TrainAction| d.dispatch(a))
    };
    let on_control = {
        let (engine, d, form, tune) = (engine.clone(), p.dispatch.clone(), train.form.clone(), p.tune.clone());
        Callback::from(move |c: Control| {
            let setup = || form.setup(absolute);
            let cmd = match c {
                Control::Start => TrainCmd::Start(setup()),
                Control::Step => TrainCmd::Step(setup()),
                Control::Pause => TrainCmd::Pause,
                Control::Reset => TrainCmd::Reset,
                Control::Save => TrainCmd::Save,
                Control::UseTrained(on) => {
                    d.dispatch(TrainAction::UseTrained(on));
                    if on {
                        tune.dispatch(TuneAction::UseTuned(false)); // one model in the explainer
                    }
                    TrainCmd::UseTrained(on)
                }
            };
            if matches!(c, Control::Start | Control::Step) {
                d.dispatch(TrainAction::Requested);
            }
            if c == Control::Reset {
                d.dispatch(TrainAction::UseTrained(false));
            }
            engine.send(ToEngine::Train(cmd));
        })
    };
    let on_reroll = {
        let (engine, d, seed) = (engine, p.dispatch.clone(), train.reroll_seed);
        Callback::from(move |s: Option<u64>| {
            if s.is_some() {
                d.dispatch(TrainAction::RerollSeed(seed + 1));
            }
            engine.send(ToEngine::Train(TrainCmd::Reroll(s)));
        })
    };
    let on_scrub_a = {
        let d = p.dispatch.clone();
        Callback::from(move |i: Option<usize>| d.dispatch(TrainAction::ScrubA(i)))
    };
    let on_scrub_b = {
        let d = p.dispatch.clone();
        Callback::from(move |i: Option<usize>| d.dispatch(TrainAction::ScrubB(i)))
    };
    let view = train.rc();
    html! {
        <div class="train-view" hidden={!p.shown} data-testid="train-view">
            <section class="card">
                <h2>{ "Train a BERT in your browser" }</h2>
                <p class="hint">{ "Masked-language-model training (+ next-sentence prediction from scratch), step by step, in this page's Web Worker, on the backend chosen at the top right (CPU in WebAssembly, or WebGPU). Choose a model and a corpus, press Start, and watch it learn." }</p>
                <TrainPanel view={view.clone()} {on_action} {on_control} model={p.model.clone()} />
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
