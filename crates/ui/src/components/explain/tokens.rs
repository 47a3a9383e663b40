//! Tokenization: the pieces (WordPiece, or RoBERTa's byte-level BPE) with ids, segment ids and
//! attention mask; continuations and special tokens marked; click a piece to replace it by the mask
//! token (click again to restore).

use crate::components::{show_token, SnapRef};
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
            (t.text == "[MASK]" || t.text == s.mask_token).then_some("mask"),
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
    let scheme = if s.scheme.is_empty() { "WordPiece" } else { s.scheme.as_str() };
    let how = match scheme {
        "byte-level BPE" => "byte-level BPE (RoBERTa): the text's bytes merged into frequent pieces; ␣ marks a piece that starts after a space (the tokenizer writes it Ġ), so a piece without ␣ continues the word before it",
        _ => "WordPiece (BERT): whole words where the vocabulary has them, else pieces; ## marks a piece that continues the word before it",
    };
    html! {
        <div class="tokens-view">
            <p class="hint" data-testid="token-scheme" data-scheme={scheme.to_string()}>{ format!("Split by {how}.") }</p>
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
