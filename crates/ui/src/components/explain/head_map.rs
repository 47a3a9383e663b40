//! The head map: what each head does over 1,000 sentences (the head survey, run by the worker as a
//! long job with progress, pause and cancel). One cell a head, coloured by its role, with a legend
//! that filters; a cell's numbers on hover and focus (arrow keys move between cells); a click opens
//! the head in the attention views, and its example sentences can be put in the text box.

use crate::browser::absolute;
use crate::engine::use_engine;
use crate::explain::head_stats::{HeadStats, Role};
use crate::protocol::{SurveyCmd, ToEngine};
use crate::survey_state::{SurveyAction, SurveyView};
use std::rc::Rc;
use yew::prelude::*;

/// The bundled sentences (www/corpora/survey-sample.txt).
pub const SAMPLE: &str = "corpora/survey-sample.txt";
/// The coreference probe's sentences (www/datasets/coref/, scripts/make_coref_probe.py).
pub const COREF_DEV: &str = "datasets/coref/dev.jsonl";
pub const COREF_TEST: &str = "datasets/coref/test.jsonl";
/// The seed material's sentence: which word does "he" attend to?
pub const SEED: &str = "shivas was hit by a bus because he crossed the street.";

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<SurveyView>,
    pub layers: usize,
    pub heads: usize,
    /// What the page calls the model answering now (the survey is kept per model).
    pub model: AttrValue,
    pub on_action: Callback<SurveyAction>,
    /// Open head (layer, head) in the attention views.
    pub on_open: Callback<(usize, usize)>,
    /// Put this sentence in the text box and open head (layer, head), with this word's row
    /// selected in it.
    pub on_example: Callback<(String, (usize, usize), Option<String>)>,
}

/// A role's colour class and legend text.
fn role_class(r: Role) -> &'static str {
    match r {
        Role::PreviousToken => "role-prev",
        Role::NextToken => "role-next",
        Role::SelfToken => "role-self",
        Role::Punctuation => "role-punct",
        Role::Sep => "role-sep",
        Role::Cls => "role-cls",
        Role::Broad => "role-broad",
        Role::Other => "role-other",
    }
}

fn pct(x: f32) -> String {
    format!("{:.0}%", 100.0 * x)
}

/// A head's numbers, as the tooltip and the detail line show them.
fn numbers(h: &HeadStats) -> String {
    let c = &h.content;
    format!(
        "layer {}, head {}: {}. Attention to [CLS] {}, [SEP] {}, previous token {}, next {}, itself {}, punctuation {}; entropy {:.2} nats. Among the ordinary tokens ({} of the attention): previous {}, next {}, itself {}, punctuation {}.",
        h.layer, h.head, h.role.label(), pct(h.cls), pct(h.sep), pct(h.prev), pct(h.next), pct(h.self_), pct(h.punct), h.entropy,
        pct(c.mass), pct(c.prev), pct(c.next), pct(c.self_), pct(c.punct)
    )
}

#[component]
pub fn HeadMap(p: &Props) -> Html {
    let engine = use_engine();
    let v = &p.view;
    let send = |cmd: SurveyCmd| {
        let engine = engine.clone();
        Callback::from(move |_: MouseEvent| engine.send(ToEngine::Survey(cmd.clone())))
    };
    let start = {
        let (engine, on_action, model) = (engine.clone(), p.on_action.clone(), p.model.to_string());
        Callback::from(move |_: MouseEvent| {
            on_action.emit(SurveyAction::Started(model.clone()));
            engine.send(ToEngine::Survey(SurveyCmd::Start { url: absolute(SAMPLE) }));
        })
    };
    let own = use_state(String::new);
    let start_own = {
        let (engine, on_action, model, own) = (engine.clone(), p.on_action.clone(), p.model.to_string(), own.clone());
        Callback::from(move |_: MouseEvent| {
            on_action.emit(SurveyAction::Started(model.clone()));
            engine.send(ToEngine::Survey(SurveyCmd::Text { text: (*own).clone() }));
        })
    };
    let on_own = {
        let own = own.clone();
        Callback::from(move |e: InputEvent| own.set(e.target_unchecked_into::<web_sys::HtmlTextAreaElement>().value()))
    };
    let probe = {
        let (engine, on_action, model) = (engine.clone(), p.on_action.clone(), p.model.to_string());
        Callback::from(move |_: MouseEvent| {
            on_action.emit(SurveyAction::StartedProbe(model.clone()));
            engine.send(ToEngine::Survey(SurveyCmd::Coref { dev_url: absolute(COREF_DEV), test_url: absolute(COREF_TEST) }));
        })
    };
    let coref = v.coref.as_ref().map(|r| {
        let b = &r.best;
        let (l, h) = (b.layer, b.head);
        let cb = p.on_example.clone();
        html! {
            <div class="coref" data-testid="coref-result" data-layer={l.to_string()} data-head={h.to_string()} data-test={b.test.to_string()}>
                <p>{ format!(
                    "Layer {l}, head {h} links a pronoun to its noun best: in {:.0}% of {} held-out sentences such as \u{201c}the boy told the girl that he was late\u{201d}, \u{201c}he\u{201d} attends more to \u{201c}boy\u{201d} than to \u{201c}girl\u{201d} (picked on {} other sentences, where it scored {:.0}%). Guessing the nearest noun is right {:.0}% of the time.",
                    100.0 * b.test, r.test_sentences, r.dev_sentences, 100.0 * b.dev, 100.0 * r.nearest_noun.test) }</p>
                <button data-testid="coref-open" onclick={Callback::from(move |_: MouseEvent| cb.emit((SEED.to_string(), (l, h), Some("he".to_string()))))}>
                    { format!("Open layer {l}, head {h} on \u{201c}{SEED}\u{201d}, at \u{201c}he\u{201d}") }
                </button>
            </div>
        }
    });
    let controls = if v.active {
        let pause_or_resume = match v.running {
            true => html! { <button data-testid="survey-pause" onclick={send(SurveyCmd::Pause)}>{ "Pause" }</button> },
            false => html! { <button data-testid="survey-resume" onclick={send(SurveyCmd::Resume)}>{ "Resume" }</button> },
        };
        html! {
            <div class="survey-run" data-testid="survey-progress" data-done={v.done.to_string()} data-total={v.total.to_string()}>
                <progress max={v.total.max(1).to_string()} value={v.done.to_string()} />
                <span>{ format!("{}: {} of {} sentences, {:.1} s{}", if v.probing { "Probing" } else { "Surveying" }, v.done, v.total, v.ms / 1000.0, if v.running { "" } else { " (paused)" }) }</span>
                { pause_or_resume }
                <button data-testid="survey-cancel" onclick={send(SurveyCmd::Cancel)}>{ "Cancel" }</button>
            </div>
        }
    } else {
        let label = if v.report.is_some() { "Survey again" } else { "Survey 1,000 sentences" };
        html! {
            <div class="survey-run">
                <button data-testid="survey-start" onclick={start}>{ label }</button>
                <span class="hint">{ format!("Runs \"{}\" on 1,000 Wikipedia sentences it was not trained on (held out; CC BY-SA) and measures where each head looks.", p.model) }</span>
                <button data-testid="coref-start" onclick={probe}>{ "Which head links \u{201c}he\u{201d} to its noun?" }</button>
                <details class="own-text">
                    <summary>{ "Or survey your own sentences" }</summary>
                    <label>{ "One sentence a line (up to 2,000): the head map, the search and the scatter below then read these." }
                        <textarea data-testid="survey-own" rows="5" value={(*own).clone()} oninput={on_own}
                            placeholder={"the cat sat on the mat.\nshe gave him the book because he asked."} /></label>
                    <button data-testid="survey-own-start" onclick={start_own} disabled={own.trim().is_empty()}>{ "Survey my sentences" }</button>
                </details>
            </div>
        }
    };
    let error = v.error.as_ref().map(|e| html! { <p class="error" role="alert" data-testid="survey-error">{ e.clone() }</p> });
    let Some(report) = v.report.clone() else {
        return html! { <div class="head-map" data-testid="head-map">{ controls }{ for error }{ for coref }</div> };
    };

    let counts = v.role_counts();
    let legend = counts.iter().filter(|(_, n)| *n > 0).map(|&(r, n)| {
        let on = v.filter == Some(r);
        let onclick = {
            let cb = p.on_action.clone();
            Callback::from(move |_: MouseEvent| cb.emit(SurveyAction::Filter(if on { None } else { Some(r) })))
        };
        html! {
            <button class={classes!("role-chip", role_class(r), on.then_some("on"))} aria-pressed={on.to_string()}
                data-testid="role-filter" data-role={r.label()} {onclick}>
                { format!("{} ({n})", r.label()) }
            </button>
        }
    });
    let (layers, heads) = (p.layers, p.heads);
    let rows = (0..layers).map(|l| {
        let cells = (0..heads).map(|h| {
            let Some(s) = v.head(l, h) else { return html! { <span key={h} class="map-cell" /> } };
            let dim = v.filter.is_some_and(|f| f != s.role);
            let focused = v.focus == Some((l, h));
            let (on_action, on_open) = (p.on_action.clone(), p.on_open.clone());
            let onfocus = {
                let cb = on_action.clone();
                Callback::from(move |_: FocusEvent| cb.emit(SurveyAction::Focus(Some((l, h)))))
            };
            let onmouseenter = {
                let cb = on_action.clone();
                Callback::from(move |_: MouseEvent| cb.emit(SurveyAction::Focus(Some((l, h)))))
            };
            let onclick = Callback::from(move |_: MouseEvent| on_open.emit((l, h)));
            let onkeydown = {
                let on_action = on_action.clone();
                Callback::from(move |e: KeyboardEvent| {
                    let (dl, dh): (isize, isize) = match e.key().as_str() {
                        "ArrowUp" => (-1, 0),
                        "ArrowDown" => (1, 0),
                        "ArrowLeft" => (0, -1),
                        "ArrowRight" => (0, 1),
                        _ => return,
                    };
                    e.prevent_default();
                    let (nl, nh) = (l as isize + dl, h as isize + dh);
                    if nl >= 0 && nh >= 0 && (nl as usize) < layers && (nh as usize) < heads {
                        on_action.emit(SurveyAction::Focus(Some((nl as usize, nh as usize))));
                        focus_cell(nl as usize, nh as usize);
                    }
                })
            };
            html! {
                <button key={h} class={classes!("map-cell", role_class(s.role), dim.then_some("dim"), focused.then_some("focused"))}
                    title={numbers(s)} aria-label={numbers(s)} data-testid="map-cell" data-layer={l.to_string()} data-head={h.to_string()}
                    data-role={s.role.label()} id={format!("map-{l}-{h}")} {onclick} {onfocus} {onmouseenter} {onkeydown}>
                    { abbrev(s.role) }
                </button>
            }
        });
        html! { <div key={l} class="map-row"><span class="row-label">{ format!("layer {l}") }</span>{ for cells }</div> }
    });
    let header = html! {
        <div class="map-row" aria-hidden="true"><span class="row-label">{ "head" }</span>
            { for (0..heads).map(|h| html! { <span key={h} class="map-num">{ h }</span> }) }</div>
    };
    let detail = v.focus.and_then(|(l, h)| v.head(l, h)).map(|s| {
        let (l, h) = (s.layer, s.head);
        let examples = s.examples.iter().map(|e| {
            let cb = p.on_example.clone();
            let (line, text) = (e.line, e.text.clone());
            let shown = format!("\u{201c}{}\u{201d} (its rows' peak {:.0}%)", e.text, 100.0 * e.peak);
            html! {
                <li key={line}>
                    <button class="linklike" data-testid="survey-example" onclick={Callback::from(move |_: MouseEvent| cb.emit((text.clone(), (l, h), None)))}>
                        { shown }
                    </button>
                </li>
            }
        });
        html! {
            <div class="map-detail" data-testid="map-detail">
                <p>{ numbers(s) }</p>
                <p class="hint">{ "Its most focused sentences (click one to read it with this head open):" }</p>
                <ul>{ for examples }</ul>
            </div>
        }
    });
    html! {
        <div class="head-map" data-testid="head-map" data-sentences={report.sentences.to_string()} data-ms={v.ms.to_string()}
            data-index-bytes={v.index_bytes.to_string()} data-memory={v.memory.to_string()}>
            { controls }
            { for error }
            { for coref }
            <p class="hint">{ format!(
                "{} sentences, {} queries, surveyed in {:.1} s (with a search index of {:.0} MB, below). Each cell is one head, coloured by what it does most (docs/heads.md): most heads park their attention on [CLS] or [SEP] (a no-op); the rest show among the ordinary tokens. Hover or focus a cell for its numbers; click it to open it above; pick a role to pick out its heads.",
                report.sentences, report.queries, v.ms / 1000.0, v.index_bytes as f64 / 1e6) }</p>
            <div class="role-legend" role="group" aria-label="roles">{ for legend }</div>
            <div class="map-grid" role="grid" aria-label="head roles">{ header }{ for rows }</div>
            { for detail }
        </div>
    }
}

/// A mark in the cell, so the map reads without colour too.
fn abbrev(r: Role) -> &'static str {
    match r {
        Role::PreviousToken => "←",
        Role::NextToken => "→",
        Role::SelfToken => "○",
        Role::Punctuation => ".",
        Role::Sep => "S",
        Role::Cls => "C",
        Role::Broad => "~",
        Role::Other => "",
    }
}

fn focus_cell(l: usize, h: usize) {
    use wasm_bindgen::JsCast;
    let el = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(&format!("map-{l}-{h}")));
    if let Some(el) = el.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    }
}
