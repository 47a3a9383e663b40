//! The tab bar (explain / train / fine-tune / translate, the note that the explainer uses the trained model, presenter
//! mode, the guided tour's button) with the tour's panel under it, and the tour itself: its keys on
//! the whole page, and each step showing its tab and pointing at its view (`use_tour`).

use super::PageDispatch;
use crate::browser::{point_at, tour_key};
use crate::components::TourPanel;
use crate::state::Action;
use crate::tour::{on_key, Tab, Tour};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The tour moves by key names ("open" starts it).
pub struct TourKey(&'static str);

impl Reducible for Tour {
    type Action = TourKey;

    fn reduce(self: Rc<Self>, k: TourKey) -> Rc<Self> {
        Rc::new(match k.0 {
            "open" => Tour { at: Some(0) },
            key => on_key(*self, key),
        })
    }
}

/// The guided tour: its keys on the whole page, and the step on screen shows its tab (`tab`) and
/// points at its view.
#[hook]
pub fn use_tour(tab: UseStateHandle<Tab>) -> UseReducerHandle<Tour> {
    let tour = use_reducer(Tour::default);
    {
        let d = tour.dispatcher();
        use_effect_with((), move |_| {
            let cb = Closure::<dyn Fn(web_sys::KeyboardEvent)>::new(move |e: web_sys::KeyboardEvent| {
                if let Some(k) = tour_key(&e) {
                    d.dispatch(TourKey(k));
                }
            });
            let doc = web_sys::window().and_then(|w| w.document());
            if let Some(doc) = &doc {
                let _ = doc.add_event_listener_with_callback("keydown", cb.as_ref().unchecked_ref());
            }
            move || {
                if let Some(doc) = doc {
                    let _ = doc.remove_event_listener_with_callback("keydown", cb.as_ref().unchecked_ref());
                }
            }
        });
    }
    use_effect_with(tour.at, move |at| {
        let step = at.and(Tour { at: *at }.step());
        if let Some(s) = step {
            tab.set(s.tab);
        }
        point_at(step.map(|s| s.target));
    });
    tour
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The tab on screen (picked, or the tour's step is there).
    pub shown: Tab,
    /// The tab picked by a click.
    pub tab: UseStateHandle<Tab>,
    pub tour: UseReducerHandle<Tour>,
    /// The explainer answers with the model trained in the page.
    pub trained: bool,
    pub presenter: bool,
    pub dispatch: PageDispatch,
}

#[component]
pub fn TabBar(p: &Props) -> Html {
    let tab = |which: Tab, label: &'static str, testid: &'static str| {
        let t = p.tab.clone();
        let on = p.shown == which;
        html! {
            <button role="tab" class={classes!("tab", on.then_some("active"))} aria-selected={on.to_string()}
                data-testid={testid} onclick={Callback::from(move |_: MouseEvent| t.set(which))}>{ label }</button>
        }
    };
    let on_presenter = {
        let (d, on) = (p.dispatch.clone(), !p.presenter);
        Callback::from(move |_: MouseEvent| d.dispatch(Action::SetPresenter(on)))
    };
    let open_tour = {
        let d = p.tour.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(TourKey("open")))
    };
    let on_tour_key = {
        let d = p.tour.dispatcher();
        Callback::from(move |k: &'static str| d.dispatch(TourKey(k)))
    };
    html! {
        <>
            <nav class="tabs" role="tablist">
                { tab(Tab::Explain, "Explain a sentence", "tab-explain") }
                { tab(Tab::Train, "Train a BERT", "tab-train") }
                { tab(Tab::Tune, "Fine-tune", "tab-tune") }
                { tab(Tab::Translate, "Translate", "tab-translate") }
                if p.trained { <span class="trained-note" data-testid="trained-note">{ "The explainer uses the model trained or fine-tuned in this page." }</span> }
                <button class="presenter-toggle" data-testid="presenter" aria-pressed={p.presenter.to_string()}
                    title="Everything larger, for a projector (kept in the link as ?present=1)" onclick={on_presenter}>
                    { if p.presenter { "Presenter mode: on" } else { "Presenter mode" } }</button>
                <button class="tour-start" data-testid="tour-start" onclick={open_tour}>
                    { "Guided tour" }</button>
            </nav>
            <TourPanel tour={*p.tour} on_key={on_tour_key} />
        </>
    }
}
