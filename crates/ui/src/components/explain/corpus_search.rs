//! Corpus search (exBERT's): pick a token of the sentence, a layer and optionally a head; the
//! surveyed sentences' tokens whose vector there is closest (cosine) come back as lines of keyword
//! in context, with how many are the same word and which words come up most.

use crate::components::{show_token, SnapRef};
use crate::engine::use_engine;
use crate::explain::corpus_search::{SearchRequest, SearchView};
use crate::explain::Request;
use crate::protocol::ToEngine;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
    /// The request behind the snapshot (the worker finds its forward again).
    pub req: Request,
    pub view: Option<Rc<SearchView>>,
    pub error: Option<String>,
}

/// Matches asked for.
const K: usize = 20;
/// Pieces shown on each side of a match.
const CONTEXT: usize = 7;

fn value(e: &Event) -> String {
    e.target_unchecked_into::<HtmlSelectElement>().value()
}

/// Pieces as text: a `##` piece joined to the one before (the first one's `##` dropped: it
/// continues the match), special tokens left out.
pub(crate) fn words(pieces: &[String]) -> String {
    let mut out = String::new();
    for p in pieces.iter().filter(|p| !(p.starts_with('[') && p.ends_with(']'))) {
        match p.strip_prefix("##") {
            Some(rest) => out.push_str(rest),
            _ => {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(p);
            }
        }
    }
    out
}

#[component]
pub fn CorpusSearch(p: &Props) -> Html {
    let engine = use_engine();
    let s = &p.snapshot;
    let first_word = s.tokens.iter().position(|t| !t.special).unwrap_or(0);
    let pos = use_state(|| first_word);
    let layer = use_state(|| s.layers);
    let head = use_state(|| None::<usize>);
    let position = (*pos).min(s.len().saturating_sub(1));
    let onsearch = {
        let (engine, req) = (engine.clone(), p.req.clone());
        let (position, layer, head) = (position, *layer, *head);
        Callback::from(move |_: MouseEvent| {
            engine.send(ToEngine::Search(SearchRequest { req: req.clone(), position, layer, head: head.filter(|_| layer > 0), k: K }))
        })
    };
    let on_pos = {
        let pos = pos.clone();
        Callback::from(move |e: Event| pos.set(value(&e).parse().unwrap_or(0)))
    };
    let on_layer = {
        let layer = layer.clone();
        Callback::from(move |e: Event| layer.set(value(&e).parse().unwrap_or(0)))
    };
    let on_head = {
        let head = head.clone();
        Callback::from(move |e: Event| head.set(value(&e).parse().ok()))
    };
    let tokens = s.tokens.iter().enumerate().map(|(i, t)| {
        html! { <option key={i} value={i.to_string()} selected={i == position}>{ format!("{i}: {}", show_token(&t.text)) }</option> }
    });
    let layers = (0..=s.layers).map(|l| {
        let name = if l == 0 { "0: embeddings".to_string() } else { format!("{l}: after layer {}", l - 1) };
        html! { <option key={l} value={l.to_string()} selected={l == *layer}>{ name }</option> }
    });
    let heads = std::iter::once(html! { <option key="none" value="" selected={head.is_none()}>{ "the whole vector" }</option> })
        .chain((0..s.heads).map(
            |h| html! { <option key={h} value={h.to_string()} selected={*head == Some(h)}>{ format!("head {h}'s output") }</option> },
        ));
    let error = p.error.as_ref().map(|e| html! { <p class="error" role="alert" data-testid="search-error">{ e.clone() }</p> });
    let results = p.view.as_ref().map(|v| {
        let rows = v.matches.iter().enumerate().map(|(i, m)| {
            let left = words(&m.pieces[m.position.saturating_sub(CONTEXT)..m.position]);
            let right = words(&m.pieces[(m.position + 1).min(m.pieces.len())..(m.position + 1 + CONTEXT).min(m.pieces.len())]);
            html! {
                <tr key={i} data-testid="search-match" data-line={m.line.to_string()} data-score={m.score.to_string()}>
                    <td class="kwic-left">{ left }</td>
                    <td class="kwic-hit">{ show_token(m.pieces.get(m.position).map_or("", |x| x.as_str())) }</td>
                    <td class="kwic-right">{ right }</td>
                    <td class="kwic-score">{ format!("{:.3}", m.score) }</td>
                </tr>
            }
        });
        let common = v.common.iter().map(|(w, n)| format!("{} ({n})", show_token(w))).collect::<Vec<_>>().join(", ");
        let space = match v.head {
            Some(h) => format!("head {h} of layer {}", v.layer - 1),
            None if v.layer == 0 => "the embeddings".to_string(),
            None => format!("the vector after layer {}", v.layer - 1),
        };
        html! {
            <div data-testid="search-results" data-same={v.same_word.to_string()}>
                <p>{ format!("The {} closest tokens to \u{201c}{}\u{201d} by {space} ({:.0} ms): {} {} \u{201c}{}\u{201d} too; most common: {common}.",
                    v.matches.len(), show_token(&v.token), v.ms, v.same_word, if v.same_word == 1 { "is" } else { "are" }, show_token(&v.token)) }</p>
                <div class="table-wrap"><table class="kwic"><tbody>{ for rows }</tbody></table></div>
            </div>
        }
    });
    html! {
        <div class="corpus-search" data-testid="corpus-search">
            <p class="hint">{ "Which tokens of the surveyed sentences does the model represent most like this one? Pick a token, a layer and, if you like, one head's part of that layer's attention output. Early layers match the same word; later ones match by role and meaning. Scores are cosine similarities (from an 8-bit index: within about 0.01)." }</p>
            <div class="search-form">
                <label>{ "token " }<select data-testid="search-token" onchange={on_pos}>{ for tokens }</select></label>
                <label>{ "layer " }<select data-testid="search-layer" onchange={on_layer}>{ for layers }</select></label>
                <label>{ "compare " }<select data-testid="search-head" onchange={on_head} disabled={*layer == 0}>{ for heads }</select></label>
                <button data-testid="search-go" onclick={onsearch}>{ "Search" }</button>
            </div>
            { for error }
            { for results }
        </div>
    }
}
