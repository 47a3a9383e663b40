//! What a translation run shows while it trains: the loss and the teacher-forced accuracy (the
//! decoder reads the true target so far), the held-out exact match (the decoder reads its own
//! guesses), and a few held-out sources with the model's greedy translation.

use crate::components::train_charts::{Line, LineChart, Style};
use crate::explain::chart::{ema, Series};
use crate::translate_state::TranslateView;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<TranslateView>,
    pub visible: bool,
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The three curves.
#[component]
pub fn TranslateCharts(p: &Props) -> Html {
    let v = &p.view;
    let visible = p.visible;
    let x_max = v.run.steps.max(v.form.setup.steps) as f64;
    let line = |series: Rc<Series>, color, style, label| Line { series, color, style, label };
    let smooth = |s: &Series| Rc::new(Series::from_points(ema(&s.points, 0.1)));
    let values = |s: &Series| AttrValue::from(s.points.iter().map(|p| format!("{}:{:.4}", p.0, p.1)).collect::<Vec<_>>().join(","));
    let latest = |s: &Series, f: fn(f64) -> String| s.last().map(|p| AttrValue::from(f(p.1)));
    html! {
        <div class="charts">
            <LineChart title="Training loss (cross-entropy of each target token)" {x_max} {visible} testid="translate-loss-chart"
                values={values(&v.loss)} latest={latest(&v.loss, |x| format!("{x:.3}"))}
                lines={vec![line(v.loss.clone(), "#2a5bd7", Style::Faint, "per step"), line(smooth(&v.loss), "#2a5bd7", Style::Line, "smoothed")]} />
            <LineChart title="Next-token accuracy (teacher-forced)" {x_max} {visible} y_zero=true
                testid="translate-acc-chart" latest={latest(&v.acc, pct)}
                lines={vec![line(v.acc.clone(), "#1f8a5b", Style::Faint, "per step"), line(smooth(&v.acc), "#1f8a5b", Style::Line, "smoothed")]} />
            <LineChart title="Held-out exact match (greedy decoding of unseen sources)" {x_max} {visible} y_zero=true
                testid="translate-exact-chart" values={values(&v.exact)} latest={latest(&v.exact, pct)}
                lines={vec![line(v.exact.clone(), "#c0561b", Style::Dots, "exact match")]} />
            <p class="hint chart-note">{ "Teacher forcing: in training the decoder always reads the true target's earlier tokens, so one forward scores every position at once. Decoding has no true target: each token is fed the model's own earlier guesses, one at a time, so one early mistake can spoil the rest. That is why the exact match lags the accuracy." }</p>
        </div>
    }
}

/// The held-out pairs with the model's greedy translation.
#[component]
pub fn TranslateScoresView(p: &Props) -> Html {
    let Some(s) = &p.view.scores else {
        return html! { <p class="hint">{ "The held-out translations appear when a run is set up, and again every few steps." }</p> };
    };
    let rows = s.examples.iter().enumerate().map(|(i, e)| {
        html! {
            <tr key={i} data-correct={e.correct.to_string()}>
                <td>{ e.source.clone() }</td>
                <td>{ e.target.clone() }</td>
                <td class={if e.correct { "ok" } else { "wrong" }}>
                    <span class={if e.correct { "mark ok" } else { "mark wrong" }}>{ if e.correct { "✓ " } else { "✗ " } }</span>
                    { if e.output.is_empty() { "(nothing)".to_string() } else { e.output.clone() } }</td>
            </tr>
        }
    });
    let on = if s.held_out { "held-out" } else { "training (too few pasted lines to hold any out)" };
    html! {
        <div class="translate-scores" data-testid="translate-scores" data-step={s.step.to_string()} data-exact={s.exact_match.to_string()}>
            <h3>{ format!("Step {}: exact match {} on {} {on} pairs", s.step, pct(s.exact_match as f64), s.pairs) }</h3>
            <table class="translations">
                <thead><tr><th scope="col">{ "source" }</th><th scope="col">{ "target" }</th><th scope="col">{ "the model's greedy translation" }</th></tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
        </div>
    }
}
