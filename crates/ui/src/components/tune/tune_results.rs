//! What a fine-tuning run shows while it runs: the training loss and the held-out accuracy (with
//! the random-weights run on the same charts), the held-out scores of the task (a confusion matrix,
//! the accuracy of every tag, or exact match and F1), and the batch just trained on with the
//! model's answers.

use crate::components::train_charts::{Line, LineChart, Style};
use crate::explain::chart::{ema, Series};
use crate::explain::finetune::TaskMetrics;
use crate::explain::finetune::TuneExample;
use crate::tune_state::TuneView;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub view: Rc<TuneView>,
    pub visible: bool,
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The two curves (and the random run's beside them).
#[component]
pub fn TuneCharts(p: &Props) -> Html {
    let v = &p.view;
    let visible = p.visible;
    let x_max = v.run.steps.max(v.form.setup.steps) as f64;
    let line = |series: Rc<Series>, color, style, label| Line { series, color, style, label };
    let smooth = |s: &Series| Rc::new(Series::from_points(ema(&s.points, 0.1)));
    let mut loss = vec![line(v.loss.clone(), "#2a5bd7", Style::Faint, "run"), line(smooth(&v.loss), "#2a5bd7", Style::Line, "this start")];
    let mut acc = vec![line(v.eval_acc.clone(), "#2a5bd7", Style::Dots, "this start")];
    if v.comparing {
        loss.push(line(v.random_loss.clone(), "#c0561b", Style::Faint, "random run"));
        loss.push(line(smooth(&v.random_loss), "#c0561b", Style::Line, "random weights"));
        acc.push(line(v.random_eval_acc.clone(), "#c0561b", Style::Dots, "random weights"));
    }
    let acc_latest = match (v.eval_acc.last(), v.random_eval_acc.last()) {
        (Some(a), Some(r)) if v.comparing => Some(format!("{} · random weights {}", pct(a.1), pct(r.1))),
        (Some(a), _) => Some(pct(a.1)),
        _ => None,
    };
    let values = |s: &Series| AttrValue::from(s.points.iter().map(|p| format!("{}:{:.4}", p.0, p.1)).collect::<Vec<_>>().join(","));
    html! {
        <div class="charts">
            <LineChart title="Training loss (the task head's cross-entropy)" {x_max} {visible} testid="tune-loss-chart" values={values(&v.loss)}
                latest={v.loss.last().map(|p| AttrValue::from(format!("{:.3}", p.1)))} lines={loss} />
            <LineChart title="Held-out accuracy" {x_max} {visible} y_zero=true testid="tune-acc-chart" values={values(&v.eval_acc)}
                latest={acc_latest.map(AttrValue::from)} lines={acc} />
            <p class="finetune-accuracy">{ "Latest held-out accuracy: " }
                <b data-testid="finetune-accuracy">{ v.accuracy().map(|a| format!("{a:.4}")).unwrap_or_default() }</b>
                { if v.comparing { html! {
                    <span data-testid="finetune-compare" data-random={v.random_eval_acc.last().map(|p| p.1.to_string()).unwrap_or_default()}
                        data-main={v.accuracy().map(|a| a.to_string()).unwrap_or_default()}>
                        { match (v.accuracy(), v.random_eval_acc.last()) {
                            (Some(a), Some(r)) => format!(" · from random weights {:.4}: pre-training is worth {:+.1} points here", r.1, (a - r.1) * 100.0),
                            _ => String::new(),
                        } }
                    </span>
                } } else { html! {} } }
            </p>
        </div>
    }
}

/// A confusion matrix: rows the true labels, columns the predicted, shaded by share of the row.
fn confusion(m: &TaskMetrics) -> Html {
    let head = m.labels.iter().map(|l| html! { <th key={l.clone()} scope="col">{ l.clone() }</th> });
    let rows = m.confusion.iter().enumerate().map(|(i, row)| {
        let total: usize = row.iter().sum();
        let cells = row.iter().enumerate().map(|(j, &n)| {
            let share = if total > 0 { n as f64 / total as f64 } else { 0.0 };
            let color = if i == j { "42, 138, 91" } else { "192, 86, 27" };
            html! { <td key={j} style={format!("background: rgba({color}, {:.2})", share * 0.8)} data-count={n.to_string()}>{ n }</td> }
        });
        html! { <tr key={i}><th scope="row">{ m.labels[i].clone() }</th>{ for cells }</tr> }
    });
    html! {
        <table class="confusion" data-testid="confusion-matrix">
            <caption>{ "Confusion matrix (rows: true label, columns: the model's)" }</caption>
            <thead><tr><th />{ for head }</tr></thead>
            <tbody>{ for rows }</tbody>
        </table>
    }
}

fn scores(m: &TaskMetrics, title: &str) -> Html {
    let body = if !m.confusion.is_empty() {
        confusion(m)
    } else if !m.per_tag.is_empty() {
        let rows = m.per_tag.iter().map(|t| {
            let a = if t.total > 0 { t.right as f64 / t.total as f64 } else { 0.0 };
            html! {
                <tr key={t.label.clone()} data-tag={t.label.clone()} data-acc={a.to_string()}>
                    <th scope="row">{ t.label.clone() }</th>
                    <td><span class="bar"><span class="fill" style={format!("width: {:.1}%", a * 100.0)} /></span></td>
                    <td>{ format!("{} / {} ({})", t.right, t.total, pct(a)) }</td>
                </tr>
            }
        });
        html! { <table class="per-tag" data-testid="per-tag"><caption>{ "Accuracy per true tag (each word's first piece)" }</caption><tbody>{ for rows }</tbody></table> }
    } else {
        html! {
            <p class="qa-scores" data-testid="qa-scores" data-em={m.accuracy.to_string()} data-f1={m.f1.unwrap_or(0.0).to_string()}>
                { format!("Exact match {} · F1 {} (over the answer's pieces, as SQuAD over words)", pct(m.accuracy as f64), pct(m.f1.unwrap_or(0.0) as f64)) }
            </p>
        }
    };
    html! {
        <div class="scores">
            <h3>{ format!("{title}: held-out accuracy {} on {} examples, loss {:.3}", pct(m.accuracy as f64), m.examples, m.loss) }</h3>
            { body }
        </div>
    }
}

/// The latest held-out scores of the run (and of the random run).
#[component]
pub fn TuneScores(p: &Props) -> Html {
    let Some(s) = &p.view.scores else {
        return html! { <p class="hint">{ "The held-out scores appear when a run is set up, and again every few steps." }</p> };
    };
    html! {
        <div class="tune-scores" data-step={s.step.to_string()}>
            { scores(&s.main, &format!("Step {}", s.step)) }
            { s.random.as_ref().map(|r| scores(r, "From random weights")).unwrap_or_default() }
        </div>
    }
}

/// The batch just trained on, with the model's answers.
#[component]
pub fn TuneBatchView(p: &Props) -> Html {
    let Some(b) = &p.view.batch else {
        return html! { <p class="hint">{ "The examples of the current batch appear here once training runs." }</p> };
    };
    let rows = b.examples.iter().enumerate().map(|(i, e)| {
        let ok = e.correct();
        let mark = html! { <span class={if ok { "mark ok" } else { "mark wrong" }}>{ if ok { "✓" } else { "✗" } }</span> };
        let body = match e {
            TuneExample::Class { text, gold, predicted, prob } => html! {
                <><span class="text">{ text.clone() }</span>
                <span class="labels">{ format!("true: {gold} · model: {predicted} ({})", pct(*prob as f64)) }</span></>
            },
            TuneExample::Tags { cells } => html! {
                <span class="tags">{ for cells.iter().enumerate().map(|(k, (piece, g, p))| html! {
                    <span key={k} class="tag-cell" title={format!("true {g}, model {p}")}>
                        <span class="piece">{ piece.clone() }</span>
                        <span class={if g == p { "chip" } else { "chip wrong" }}>{ p.clone() }</span>
                    </span>
                }) }</span>
            },
            TuneExample::Span { question, gold, predicted } => html! {
                <><span class="text">{ question.clone() }</span>
                <span class="labels">{ format!("true: \"{gold}\" · model: \"{predicted}\"") }</span></>
            },
        };
        html! { <li key={i} data-correct={ok.to_string()}>{ mark }{ body }</li> }
    });
    html! {
        <div>
            <p class="hint">{ format!("The first examples of the batch of step {}, with the model's answers after that step.", b.step) }</p>
            <ol class="tune-batch" data-testid="tune-batch">{ for rows }</ol>
        </div>
    }
}
