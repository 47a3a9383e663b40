//! The fine-tune tab: the panel (its buttons become the worker's fine-tuning commands, sent
//! through the context's link), the curves of the run and of the random-weights run, the held-out
//! scores, the batch with the model's answers, and your own sentence before and after.

use super::{on_control, on_use, Shared, TrainDispatch, TuneDispatch};
use crate::browser::absolute;
use crate::components::{TuneBatchView, TuneCharts, TunePanel, TuneProbeView, TuneScores};
use crate::engine::use_engine;
use crate::protocol::{JobCmd, ProbeAsk, ToEngine};
use crate::tune_state::TuneView;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Shared<TuneView>,
    pub dispatch: TuneDispatch,
    /// The train tab's (its "use the trained model" switch goes off when this one goes on).
    pub train: TrainDispatch,
    /// The tab is on screen (the charts draw only then).
    pub shown: bool,
    /// A model was pre-trained in the train tab.
    pub trained_available: bool,
    /// What the page calls the model loaded in the explainer (one of the starts).
    pub model: AttrValue,
}

#[component]
pub fn TuneTab(p: &Props) -> Html {
    let engine = use_engine();
    let v = &p.view;
    let on_action = p.dispatch.to_callback();
    let form = v.form.clone();
    let on_control = on_control(engine.clone(), p.dispatch.clone(), move || form.setup(absolute), ToEngine::Tune);
    let on_use = on_use(engine.clone(), p.dispatch.clone(), p.train.clone(), ToEngine::Tune);
    let on_probe = {
        let (engine, form) = (engine, v.form.clone());
        Callback::from(move |_: ()| engine.send(ToEngine::Tune(JobCmd::Ask(ProbeAsk { text: form.probe_text.clone(), pair: form.pair() }))))
    };
    let view = v.rc();
    html! {
        <div class="train-view tune-view" hidden={!p.shown} data-testid="tune-view">
            <section class="card">
                <h2>{ "Fine-tune BERT for a task" }</h2>
                <p class="hint">{ "BERT's second half: keep the pre-trained encoder, put a small head on top (a classifier on [CLS], a tag for every token, or a start and an end vector for an answer span) and train everything a little on labelled examples. Pick a task and where to start; tick the comparison to see why pre-training matters." }</p>
                <TunePanel view={view.clone()} on_action={on_action.clone()} {on_control} {on_use} trained_available={p.trained_available} model={p.model.clone()} />
            </section>
            <section class="card">
                <h2>{ "Learning curves" }</h2>
                <TuneCharts view={view.clone()} visible={p.shown} />
            </section>
            <section class="card">
                <h2>{ "Held-out scores" }</h2>
                <TuneScores view={view.clone()} visible={p.shown} />
            </section>
            <section class="card">
                <h2>{ "The current batch" }</h2>
                <TuneBatchView view={view.clone()} visible={p.shown} />
            </section>
            <section class="card">
                <h2>{ "Before and after, on your sentence" }</h2>
                <TuneProbeView {view} {on_action} {on_probe} />
            </section>
        </div>
    }
}
