//! The page's wiring: `Root` starts the engine's Web Worker (`bertscope::worker::engine`, a yew-agent
//! reactor); `App` holds the page's state (the explainer's reducer, `state.rs`; the trainer's,
//! `train_state.rs`; the fine-tuner's, `tune_state.rs`; the Translate tab's, `translate_state.rs`; the tab and the guided tour), makes the one bridge to the engine and shares it
//! through a yew context, keeps the URL in step, and lays out the parts in `page/`: the header, the
//! tab bar, the train tab and the explain tab. The browser calls it makes (URL, tour pointer,
//! performance marks) are in `browser.rs`.

use super::browser::{location_search, mark, replace_url_soon, WORKER_PATH};
use super::engine::EngineLink;
use super::page::{use_engine_link, use_tour, ExplainTab, Header, Shared, TabBar, TrainTab, TranslateTab, TuneTab};
use super::state::AppState;
use super::tour::Tab;
use super::train_state::TrainView;
use super::translate_state::TranslateView;
use super::tune_state::TuneView;
use super::url::UrlState;
use crate::engine::Engine;
use yew::prelude::*;
use yew_agent::reactor::ReactorProvider;

#[component]
pub fn Root() -> Html {
    html! {
        <ReactorProvider<Engine> path={WORKER_PATH}>
            <App />
        </ReactorProvider<Engine>>
    }
}

#[component]
fn App() -> Html {
    let state = use_reducer(|| Shared::new(AppState::from_url(&UrlState::parse(&location_search()))));
    let train = use_reducer(|| Shared::new(TrainView::default()));
    let tune = use_reducer(|| Shared::new(TuneView::default()));
    let translate = use_reducer(|| Shared::new(TranslateView::default()));
    let tab = use_state(|| Tab::from_query(&location_search()));
    let tour = use_tour(tab.clone());
    // a tour step shows its own tab
    let shown = tour.step().map_or(*tab, |s| s.tab);
    let engine = use_engine_link(&state, train.dispatcher(), tune.dispatcher(), translate.dispatcher());

    // Keep the URL in step with the state (a moment after the last change).
    {
        let timer = use_mut_ref(|| None);
        use_effect_with(state.to_url(), move |u| replace_url_soon(&timer, u.to_query()));
    }
    // Mark the first snapshot on screen (the e2e suite reads it as "interactive").
    use_effect_with(state.snapshot.is_some(), |has| {
        if *has {
            mark("bertscope:snapshot");
        }
    });

    html! {
        <ContextProvider<EngineLink> context={engine}>
            <div class={classes!("app", state.presenter.then_some("presenter"))} id="app">
                // for scripts (the e2e suite): the latest edit, the latest one shown, model ready; kept
                // off the root so a keystroke does not restyle the whole page
                <span id="status" hidden=true data-edit={state.edit.to_string()} data-shown={state.shown.to_string()} data-ready={state.ready().to_string()} />
                <Header state={(*state).clone()} dispatch={state.dispatcher()} />
                <TabBar {shown} tab={tab.clone()} tour={tour.clone()} trained={state.trained}
                    presenter={state.presenter} dispatch={state.dispatcher()} />
                <TrainTab view={(*train).clone()} dispatch={train.dispatcher()} tune={tune.dispatcher()} shown={shown == Tab::Train}
                    model={AttrValue::from(state.model_label.clone())} />
                <TuneTab view={(*tune).clone()} dispatch={tune.dispatcher()} train={train.dispatcher()} shown={shown == Tab::Tune}
                    trained_available={train.run.has_run} model={AttrValue::from(state.model_label.clone())} />
                <TranslateTab view={(*translate).clone()} dispatch={translate.dispatcher()} shown={shown == Tab::Translate} />
                <ExplainTab state={(*state).clone()} dispatch={state.dispatcher()} hidden={shown != Tab::Explain} />
                <footer class="foot">
                    { "bertscope: every number computed in your browser by the same Rust engine the tests check against PyTorch." }
                </footer>
            </div>
        </ContextProvider<EngineLink>>
    }
}
