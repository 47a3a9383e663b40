//! The engine as the page reaches it: the worker's `Engine` (a yew-agent reactor) through one
//! bridge, made once by `App` (`use_engine_link`) and handed to the views through a yew context
//! (`use_engine`). The worker's messages go to the explainer's and the trainer's reducers; what the
//! page asks by itself (load the model once, the backend, a snapshot whenever the input changes) is
//! sent from here too, at most one explain request in flight (`Coalescer`).

use super::{PageState, TrainDispatch, TranslateDispatch, TuneDispatch};
use crate::browser::absolute;
use crate::engine::{Engine, EngineLink};
use crate::protocol::{FromEngine, ToEngine};
use crate::state::{Action, Coalescer};
use crate::train_state::TrainAction;
use crate::translate_state::TranslateAction;
use crate::tune_state::TuneAction;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;
use yew_agent::reactor::{use_reactor_bridge, ReactorEvent};

/// The page's one bridge: the worker's replies go to `state` (the explainer), `train` (the
/// trainer), `tune` (the fine-tuner) and `translate` (the Translate tab); a reply to an explain request frees the worker for the latest input that waited.
/// Also sends what the state asks for by itself: the model's load (once), the backend, and a
/// snapshot whenever the input changes.
#[hook]
pub fn use_engine_link(state: &PageState, train: TrainDispatch, tune: TuneDispatch, translate: TranslateDispatch) -> EngineLink {
    let coalescer = use_mut_ref(Coalescer::default);
    let cell: Rc<RefCell<Option<EngineLink>>> = use_mut_ref(|| None);
    let bridge = {
        let dispatcher = state.dispatcher();
        let (coalescer, cell) = (coalescer.clone(), cell.clone());
        use_reactor_bridge::<Engine, _>(move |ev| match ev {
            ReactorEvent::Output(FromEngine::Train(ev)) => train.dispatch(TrainAction::Event(ev)),
            ReactorEvent::Output(FromEngine::Tune(ev)) => tune.dispatch(TuneAction::Event(ev)),
            ReactorEvent::Output(FromEngine::Translate(ev)) => translate.dispatch(TranslateAction::Event(ev)),
            ReactorEvent::Output(msg) => {
                let done = match &msg {
                    FromEngine::Snapshot(s) => Some(s.seq),
                    FromEngine::Failed { seq, .. } => Some(*seq),
                    _ => None,
                };
                dispatcher.dispatch(Action::Engine(msg));
                // the reply frees the worker: send the latest input that waited, if any
                if let Some(next) = done.and_then(|seq| coalescer.borrow_mut().done(seq)) {
                    if let Some(link) = cell.borrow().as_ref() {
                        link.send(ToEngine::Explain(next));
                    }
                }
            }
            ReactorEvent::Finished => {
                dispatcher.dispatch(Action::Engine(FromEngine::LoadFailed("The engine's worker stopped; reload the page.".into())))
            }
        })
    };
    let link = EngineLink(bridge);
    *cell.borrow_mut() = Some(link.clone());

    // Load the model once: from the page's early download of the default model when there is
    // one (crates/ui/src/early.rs), otherwise the worker fetches the folder.
    {
        let link = link.clone();
        let base_url = absolute(&state.model);
        let d = state.dispatcher();
        use_effect_with((), move |_| match crate::early::take(&base_url) {
            Some(early) => wasm_bindgen_futures::spawn_local(async move {
                match early.files(|p| d.dispatch(Action::Engine(p))).await {
                    Some((files, ms)) => {
                        d.dispatch(Action::Fetched(ms));
                        link.send(ToEngine::LoadFiles(files));
                    }
                    None => link.send(ToEngine::Load { base_url }),
                }
            }),
            None => link.send(ToEngine::Load { base_url }),
        });
    }
    // Tell the worker which backend to use (before the request that the change triggers).
    {
        let link = link.clone();
        use_effect_with(state.device_pref, move |d| link.send(ToEngine::Device(*d)));
    }
    // `?bench=attribution`: time the attribution rows in the worker once the model is ready.
    {
        let link = link.clone();
        let asked = state.bench_asked;
        use_effect_with(state.ready(), move |ready| {
            if *ready && asked {
                link.send(ToEngine::BenchAttribution { rounds: 25 });
            }
        });
    }
    // Ask for a snapshot whenever the inputs change (and once the model is ready).
    {
        let link = link.clone();
        let req = state.request();
        use_effect_with((state.edit, state.ready()), move |(_, ready)| {
            if *ready {
                if let Some(r) = coalescer.borrow_mut().submit(req) {
                    link.send(ToEngine::Explain(r));
                }
            }
        });
    }
    link
}
