//! A part of the page that opens on demand. Closed, its children are not rendered at all, so the
//! heavier views (one head step by step, the FFN detail, the average and rollout drawn as lines)
//! cost nothing on a keystroke until someone opens them.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The button's text ("Show the head average and rollout").
    pub label: AttrValue,
    pub testid: AttrValue,
    #[prop_or_default]
    pub open: bool,
    /// When given, the parent keeps the state: `open` is what is shown and a click asks here.
    #[prop_or_default]
    pub on_toggle: Option<Callback<bool>>,
    #[prop_or_default]
    pub children: Html,
}

#[component]
pub fn Fold(p: &Props) -> Html {
    let own = use_state(|| p.open);
    let open = if p.on_toggle.is_some() { p.open } else { *own };
    let onclick = {
        let (own, cb) = (own.clone(), p.on_toggle.clone());
        Callback::from(move |_: MouseEvent| match &cb {
            Some(cb) => cb.emit(!open),
            None => own.set(!open),
        })
    };
    html! {
        <div class={classes!("fold", open.then_some("open"))}>
            <button class="fold-toggle" aria-expanded={open.to_string()} data-testid={p.testid.clone()} {onclick}>
                { if open { "▾ " } else { "▸ " } }{ p.label.clone() }
            </button>
            if open { { p.children.clone() } }
        </div>
    }
}
