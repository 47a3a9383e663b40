//! The explain tab: the sentence (and pair) inputs, then the numbered sections from the tokens to
//! the layer-by-layer summary, each drawn from the latest snapshot (or a placeholder saying why
//! there is none yet). Its changes go to the page's state; the engine is asked by `App`.

use super::{PageDispatch, Shared};
use crate::components::{
    Ablation, AnatomyPanel, AttentionPanel, BeforePredictions, BenchTable, CorpusSearch, EmbedSection, FfnPanel, Fold, HeadMap, HeadSteps,
    LayerTrajectory, Layers, LogitLens, Predictions, QkScatter, SnapRef, TaskPanel, TextInput, Tokens, WhyPanel,
};
use crate::state::{Action, AppState, Load};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub state: Shared<AppState>,
    pub dispatch: PageDispatch,
    /// The train tab is on screen instead.
    pub hidden: bool,
}

/// A callback that hands `f(value)` to the page's state.
fn to_state<T: 'static>(d: &PageDispatch, f: impl Fn(T) -> Action + 'static) -> Callback<T> {
    let d = d.clone();
    Callback::from(move |v: T| d.dispatch(f(v)))
}

#[component]
pub fn ExplainTab(p: &Props) -> Html {
    let state = &p.state;
    let d = &p.dispatch;
    let on_text = to_state(d, Action::SetText);
    let on_pair = to_state(d, Action::SetPair);
    let on_mask = to_state(d, Action::ToggleMask);
    let on_head = to_state(d, |(l, h)| Action::ToggleHead(l, h));
    let on_select = to_state(d, Action::Select);
    let on_head_focus = to_state(d, |(l, h)| Action::FocusHead(l, h));
    let on_ffn_focus = to_state(d, |(l, t)| Action::FocusFfn(l, t));

    let info = match &state.load {
        Load::Ready { info, .. } => Some(info.clone()),
        _ => None,
    };
    let snap = state.snapshot.clone().map(SnapRef);
    let placeholder = |what: &str| -> Html {
        let msg = match (&state.load, &state.error) {
            (Load::Fetching { .. }, _) => format!("{what} appear once the model has loaded."),
            (Load::Failed(_), _) => format!("No {} without a model.", what.to_lowercase()),
            (_, Some(_)) => "See the message above.".to_string(),
            _ => "Computing…".to_string(),
        };
        html! { <p class="placeholder">{ msg }</p> }
    };
    let notice = snap.as_ref().filter(|s| s.truncated).map(|s| {
        html! {
            <p class="notice" data-testid="notice">
                { format!("The text is longer than the model can read at once: it was cut to the first {} tokens (the model's maximum).", s.len()) }
            </p>
        }
    });

    let has_task = snap.as_ref().is_some_and(|s| s.task.is_some());
    html! {
        <div class="explain-view" hidden={p.hidden}>
            <BenchTable bench={state.bench.clone()} />
            <section class="card inputs">
                <TextInput label="Sentence" testid="text-input" value={AttrValue::from(state.text.clone())}
                    placeholder="the capital of france is [MASK]." on_change={on_text} />
                <TextInput label="Second sentence (optional, for a pair)" testid="pair-input" value={AttrValue::from(state.pair.clone())}
                    placeholder="leave empty for one sentence" on_change={on_pair} />
                { for notice }
            </section>

            <section class="card">
                <h2>{ "1. Tokens" }</h2>
                <p class="hint">{ "The tokenizer splits the text into pieces from a fixed vocabulary (how, below). A special token opens the input ([CLS]; RoBERTa's <s>) and one ends each sentence ([SEP]; </s>); the underline is the segment (blue: sentence A, orange: sentence B). Click a piece to mask it." }</p>
                { match &snap { Some(s) => html! { <Tokens snapshot={s.clone()} on_toggle={on_mask} /> }, None => placeholder("Tokens") } }
            </section>

            <section class="card">
                <h2>{ "2. Embeddings: what layer 0 reads" }</h2>
                <EmbedSection snapshot={snap.clone()} positions={state.positions.clone()} placeholder={placeholder("Embeddings")} />
            </section>

            <section class="card">
                <h2>{ if has_task { "3. What the fine-tuned head says" } else { "3. Masked-word predictions" } }</h2>
                { match &snap {
                    Some(s) if s.task.is_some() => html! { <TaskPanel snapshot={s.clone()} /> },
                    Some(s) => {
                        let after = html! {
                            <Predictions snapshot={s.clone()} has_pair={!state.pair.trim().is_empty()}
                                has_mlm={info.as_ref().is_none_or(|i| i.has_mlm)} has_nsp={info.as_ref().is_some_and(|i| i.has_nsp)}
                                on_pick={Some(to_state(d, Action::Explain))} />
                        };
                        match (&state.compare, state.trained) {
                            (Some((_, before)), true) => html! {
                                <div class="before-after">
                                    <div><h3 class="side">{ "After: the model trained in this page" }</h3>{ after }</div>
                                    <div><h3 class="side">{ "Before: the loaded model" }</h3><BeforePredictions groups={before.clone()} /></div>
                                </div>
                            },
                            _ => after,
                        }
                    }
                    None => placeholder("Predictions"),
                } }
                <Fold label="Why this prediction? Which words it depended on (gradients, beside attention)" testid="fold-why"
                    open={state.why_open} on_toggle={to_state(d, Action::ShowWhy)}>
                    <WhyPanel view={state.why.clone()} error={state.why_error.clone()} method={state.why_method}
                        on_target={to_state(d, Action::WhyTarget)} on_method={to_state(d, Action::WhyMethod)} />
                </Fold>
            </section>

            <section class="card">
                <h2>{ "4. Switch heads off" }</h2>
                { match &info {
                    Some(i) => html! { <Ablation layers={i.layers} heads={i.heads} off={state.heads_off.clone()} on_toggle={on_head} /> },
                    None => placeholder("Head switches"),
                } }
            </section>

            <section class="card">
                <h2>{ "5. Attention, every layer × head" }</h2>
                <p class="hint">{ "Each square is one head: row i shows how much token i attends to every token (softmax of scaled query·key scores). Click one to enlarge it." }</p>
                { match &snap {
                    Some(s) => html! { <AttentionPanel snapshot={s.clone()} selected={state.selected} {on_select}
                        hide={state.hide_specials} on_hide={to_state(d, Action::HideSpecials)}
                        derived_open={state.derived_open} on_derived={to_state(d, Action::ShowDerived)}
                        word={state.select_word.clone().map(AttrValue::from)} /> },
                    None => placeholder("Heatmaps"),
                } }
                <Fold label="What each head does: a head map from 1,000 sentences" testid="fold-head-map">
                    { match &info {
                        Some(i) => {
                            let dd = d.clone();
                            let on_example = Callback::from(move |(text, head, word): (String, (usize, usize), Option<String>)| {
                                dd.dispatch(Action::OpenOn { text, head, word });
                            });
                            html! { <HeadMap view={std::rc::Rc::new(state.survey.clone())} layers={i.layers} heads={i.heads}
                                model={AttrValue::from(state.survey_key())} on_action={to_state(d, Action::Survey)}
                                on_open={to_state(d, |lh| Action::Select(Some(lh)))} {on_example} /> }
                        }
                        None => placeholder("The head map"),
                    } }
                    { match (&snap, state.survey.report.is_some()) {
                        (Some(s), true) => html! { <>
                            <h3>{ "Search the surveyed sentences" }</h3>
                            <CorpusSearch snapshot={s.clone()} req={state.request()} view={state.search.clone()} error={state.search_error.clone()} />
                            <h3>{ "One head's queries and keys" }</h3>
                            <QkScatter snapshot={s.clone()} req={state.request()} view={state.qk.clone()} error={state.qk_error.clone()} selected={state.selected} />
                        </> },
                        _ => html! {},
                    } }
                </Fold>
            </section>

            <section class="card">
                <h2>{ "6. One head, step by step" }</h2>
                <p class="hint">{ "The head picked here (or enlarged above), from the token vectors X to its share of the layer's output. Click a cell (or focus a matrix and use the arrow keys) for its formula with the numbers." }</p>
                <Fold label="Show Q, K, V, the scores, softmax and the output, step by step" testid="fold-head-steps"
                    open={state.head_steps} on_toggle={to_state(d, |open| Action::ShowSteps { head: true, open })}>
                    { match &snap { Some(s) => html! { <HeadSteps snapshot={s.clone()} on_focus={on_head_focus} /> }, None => placeholder("Head steps") } }
                </Fold>
            </section>

            <section class="card">
                <h2>{ "7. FFN, residual + LayerNorm" }</h2>
                <p class="hint">{ "The second half of a layer for one token: add the attention output to the input (residual), LayerNorm, the feed-forward network (expand, GELU, project back), add again, LayerNorm." }</p>
                <Fold label="Show the residual, LayerNorm, FFN and GELU for one token" testid="fold-ffn"
                    open={state.ffn_steps} on_toggle={to_state(d, |open| Action::ShowSteps { head: false, open })}>
                { match &snap {
                    Some(s) => html! { <>
                        <FfnPanel snapshot={s.clone()} on_focus={on_ffn_focus} />
                        <h3>{ "Each token's vector, layer by layer" }</h3>
                        <LayerTrajectory snapshot={s.clone()} token={s.ffn_detail.as_ref().map_or(0, |d| d.token)} />
                    </> },
                    None => placeholder("FFN detail"),
                } }
                </Fold>
            </section>

            <section class="card">
                <h2>{ "8. Layer by layer" }</h2>
                { match &snap { Some(s) => html! { <Layers snapshot={s.clone()} /> }, None => placeholder("Layers") } }
                <Fold label="What the model would guess after each layer (the logit lens)" testid="fold-lens"
                    open={state.lens_open} on_toggle={to_state(d, Action::ShowLens)}>
                    { match &snap { Some(s) => html! { <LogitLens snapshot={s.clone()} /> }, None => placeholder("The logit lens") } }
                </Fold>
            </section>

            <section class="card">
                <h2>{ "9. Anatomy: size and cost of this model" }</h2>
                <p class="hint">{ "Where the loaded model's parameters are, what one layer costs on this sentence, and how BERT, DistilBERT and RoBERTa differ." }</p>
                <Fold label="Show the parameters, the cost per layer and the model families" testid="fold-anatomy">
                    { match &snap { Some(s) => html! { <AnatomyPanel snapshot={s.clone()} /> }, None => placeholder("Anatomy") } }
                </Fold>
            </section>
        </div>
    }
}
