//! A labelled text box (the sentence, or the second sentence of a pair).

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub label: AttrValue,
    pub testid: AttrValue,
    pub value: AttrValue,
    #[prop_or_default]
    pub placeholder: AttrValue,
    pub on_change: Callback<String>,
}

#[component]
pub fn TextInput(p: &Props) -> Html {
    let oninput = {
        let cb = p.on_change.clone();
        Callback::from(move |e: InputEvent| cb.emit(e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    };
    let id = format!("input-{}", p.testid);
    html! {
        <label class="text-input">
            <span class="label">{ p.label.clone() }</span>
            <textarea id={id} data-testid={p.testid.clone()} rows="2" spellcheck="false"
                placeholder={p.placeholder.clone()} value={p.value.clone()} {oninput} />
        </label>
    }
}
