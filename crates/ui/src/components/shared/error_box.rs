//! A user-facing message (a model that failed to load, an input the model cannot take).

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub message: Option<AttrValue>,
}

#[component]
pub fn ErrorBox(p: &Props) -> Html {
    match &p.message {
        Some(m) => html! { <div class="error" role="alert" data-testid="error">{ m.clone() }</div> },
        None => html! {},
    }
}
