//! "Why this prediction": pick an output the page shows and a method; every token tinted by its
//! attribution (purple negative, orange positive, centred on 0, the legend from the data; the
//! exact value on hover and focus), beside attention rollout into the same position and each
//! layer's head average there, and how well the two rank the tokens alike (Spearman).

use crate::explain::attribution::Method;
use crate::explain::colormap::{text_on, viridis_hex};
use crate::explain::diverging::{css_gradient, puor_hex};
use crate::explain::why::WhyView;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Option<Rc<WhyView>>,
    pub error: Option<String>,
    pub method: Method,
    pub on_target: Callback<String>,
    pub on_method: Callback<Method>,
}

fn method_label(m: Method) -> &'static str {
    match m {
        Method::Grad => "gradient ‖∂f/∂x‖",
        Method::GradXInput => "gradient × input",
        Method::Ig => "integrated gradients (32 steps)",
    }
}

/// One row of tokens tinted by `values` (signed: the diverging scale; else viridis on [0, max]).
fn tinted(tokens: &[String], values: &[f32], signed: bool, testid: &'static str, what: &'static str) -> Html {
    let max = values.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-12);
    let cells = tokens.iter().zip(values).enumerate().map(|(i, (t, &v))| {
        let (bg, fg) = if signed {
            let c = v / max;
            (puor_hex(c), if c.abs() > 0.6 { "#fff" } else { "#111" })
        } else {
            (viridis_hex(v / max), text_on(v / max))
        };
        html! {
            <span key={i} class="why-token" tabindex="0" style={format!("background:{bg};color:{fg}")}
                data-score={v.to_string()} title={format!("{t}: {what} {v:.4}")} aria-label={format!("{t}: {what} {v:.4}")}>{ t.clone() }</span>
        }
    });
    html! { <div class="why-tokens" data-testid={testid}>{ for cells }</div> }
}

/// Why the two can rank the tokens differently, in one sentence.
const WHY_DIFFER: &str = "They answer different questions: rollout follows where attention moves information (it ignores the values, the FFNs and the output head), while a gradient measures how much the prediction would change if a token's embedding changed; a token can be looked at a lot and matter little, or the other way round.";

#[component]
pub fn WhyPanel(p: &Props) -> Html {
    let on_target = {
        let cb = p.on_target.clone();
        Callback::from(move |e: Event| cb.emit(e.target_unchecked_into::<HtmlSelectElement>().value()))
    };
    let on_method = {
        let cb = p.on_method.clone();
        Callback::from(move |e: Event| {
            if let Ok(m) = Method::parse(&e.target_unchecked_into::<HtmlSelectElement>().value()) {
                cb.emit(m)
            }
        })
    };
    let Some(v) = &p.view else {
        return match &p.error {
            Some(e) => html! { <p class="error" role="alert" data-testid="why-error">{ e.clone() }</p> },
            None => html! { <p class="hint">{ "Computing…" }</p> },
        };
    };
    let options =
        v.options.iter().map(|o| html! { <option value={o.spec.clone()} selected={o.spec == v.target}>{ o.label.clone() }</option> });
    let signed = v.method != Method::Grad;
    let max = v.scores.iter().fold(0f32, |m, x| m.max(x.abs()));
    let legend = if signed {
        html! { <div class="why-legend"><span>{ format!("{:.3}", -max) }</span><span class="bar" style={format!("background:{}", css_gradient())} /><span>{ format!("+{max:.3}") }</span>
        <span class="muted">{ " purple: pushes the prediction down · orange: up" }</span></div> }
    } else {
        html! { <div class="why-legend"><span>{ "0" }</span><span class="bar" style={format!("background:{}", crate::explain::colormap::css_gradient())} /><span>{ format!("{max:.3}") }</span>
        <span class="muted">{ " how strongly the prediction reacts to each token" }</span></div> }
    };
    let prob = v.value.exp();
    let layers = v.layer_means.iter().enumerate().map(|(l, row)| {
        html! { <div key={l} class="why-row"><span class="why-label">{ format!("layer {} heads' mean", l + 1) }</span>{ tinted(&v.tokens, row, false, "why-layer", "attention") }</div> }
    });
    html! {
        <div class="why" data-seq={v.seq.to_string()} data-target={v.target.clone()} data-method={v.method.key()} data-ms={v.ms.to_string()}>
            <div class="row why-controls">
                <label class="field"><span>{ "explain" }</span>
                    <select onchange={on_target} data-testid="why-target" aria-label="the output to explain">{ for options }</select></label>
                <label class="field"><span>{ "method" }</span>
                    <select onchange={on_method} data-testid="why-method" aria-label="attribution method">
                        { for Method::ALL.iter().map(|m| html! { <option value={m.key()} selected={*m == p.method}>{ method_label(*m) }</option> }) }
                    </select></label>
            </div>
            { p.error.clone().map(|e| html! { <p class="error" role="alert">{ e }</p> }).unwrap_or_default() }
            <p class="hint">{ format!("f = log P = {:.4} (P = {:.1}%). Each token's score: {}.{}",
                v.value, prob * 100.0,
                match v.method {
                    Method::Grad => "the size of ∂f/∂x, x its word embedding",
                    Method::GradXInput => "∂f/∂x · x",
                    Method::Ig => "(x − x′) · the mean of ∂f/∂x along the straight path from x′ (the [PAD] embedding) to x",
                },
                v.gap.map(|g| format!(" The scores add up to f(x) − f(x′) to within {g:.4} (the completeness gap; more steps shrink it).")).unwrap_or_default()) }</p>
            <div class="why-row"><span class="why-label">{ "attribution" }</span>{ tinted(&v.tokens, &v.scores, signed, "attribution", "score") }</div>
            { legend }
            <div class="why-row"><span class="why-label">{ format!("attention rollout into token {}", v.position) }</span>{ tinted(&v.tokens, &v.rollout, false, "why-rollout", "rollout") }</div>
            { for layers }
            <p data-testid="why-spearman" data-rho={v.spearman.map(|r| r.to_string()).unwrap_or_default()}>
                { match v.spearman {
                    Some(r) => format!("Rank agreement of |attribution| and rollout (Spearman ρ): {r:.2}. "),
                    None => "Too few tokens to compare rankings. ".to_string(),
                } }
                <span class="muted">{ WHY_DIFFER }</span>
            </p>
            <p class="muted small">{ format!("Computed in {:.0} ms, after the rest of the page.", v.ms) }</p>
        </div>
    }
}
