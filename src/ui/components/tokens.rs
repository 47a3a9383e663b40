//! Tokenization: the WordPiece pieces with ids, segment ids and attention mask; `##` continuations
//! and special tokens marked; click a piece to replace it by [MASK] (click again to restore).

use super::{show_token, SnapRef};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    /// Position clicked (mask or unmask it).
    pub on_toggle: Callback<usize>,
}

#[component]
pub fn Tokens(p: &Props) -> Html {
    let s = &p.snapshot;
    let items = s.tokens.iter().enumerate().map(|(i, t)| {
        let class = classes!(
            "tok",
            t.special.then_some("special"),
            t.continuation.then_some("cont"),
            t.masked_from.is_some().then_some("masked"),
            (t.text == "[MASK]").then_some("mask"),
            format!("seg{}", t.segment.min(1)),
        );
        let title = match (&t.masked_from, t.special) {
            (_, true) => format!("special token {} (id {})", t.text, t.id),
            (Some(orig), _) => format!("masked (was {orig}); click to restore"),
            (None, _) => format!("{} (id {}); click to mask", t.text, t.id),
        };
        let onclick = (!t.special).then(|| {
            let cb = p.on_toggle.clone();
            Callback::from(move |_: MouseEvent| cb.emit(i))
        });
        html! {
            <button key={i} class={class} data-id={t.id.to_string()} data-index={i.to_string()}
                data-segment={t.segment.to_string()} data-special={t.special.to_string()}
                disabled={t.special} title={title} aria-pressed={t.masked_from.is_some().to_string()} {onclick}>
                <span class="piece">{ show_token(&t.text) }</span>
                if let Some(orig) = &t.masked_from { <span class="was">{ format!("was {orig}") }</span> }
                <span class="num id">{ t.id }</span>
                <span class="num segment">{ t.segment }</span>
                <span class="num attn">{ t.attention }</span>
            </button>
        }
    });
    html! {
        <div class="tokens-view">
            <div class="token-legend" aria-hidden="true">
                <span class="piece">{ "piece" }</span>
                <span class="num">{ "id" }</span>
                <span class="num">{ "segment" }</span>
                <span class="num">{ "attention mask" }</span>
            </div>
            <div class="tokens" data-testid="tokens" data-count={s.tokens.len().to_string()}>{ for items }</div>
        </div>
    }
}
