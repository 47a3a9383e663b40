//! The live training charts: a canvas line chart (axes from `explain::chart::layout`, thick lines
//! and large labels for a projector) and the four charts of a run.

use crate::explain::chart::{ema, layout, Series};
use crate::train_state::TrainView;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

/// How one series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Style {
    /// A thick line.
    Line,
    /// A thin faint line (raw values under a smoothed one).
    Faint,
    /// Points joined by a dashed line (sparse values such as the held-out loss).
    Dots,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub series: Rc<Series>,
    pub color: &'static str,
    pub style: Style,
    pub label: &'static str,
}

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub title: AttrValue,
    pub lines: Vec<Line>,
    /// The run's last step (the x axis spans the whole run).
    pub x_max: f64,
    #[prop_or_default]
    pub y_zero: bool,
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    /// Values for scripts (`data-values`).
    #[prop_or_default]
    pub values: Option<AttrValue>,
    /// The latest value, printed next to the title.
    #[prop_or_default]
    pub latest: Option<AttrValue>,
    /// The chart is on screen (a hidden canvas has no size to draw at: drawn again when shown).
    pub visible: bool,
}

const FONT: &str = "15px system-ui, sans-serif";

fn draw(canvas: &HtmlCanvasElement, p: &Spec) -> Option<()> {
    let dpr = web_sys::window()?.device_pixel_ratio().max(1.0);
    let (w, h) = (canvas.client_width() as f64, canvas.client_height() as f64);
    if w < 10.0 || h < 10.0 {
        return None;
    }
    let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
    if canvas.width() != pw || canvas.height() != ph {
        canvas.set_width(pw);
        canvas.set_height(ph);
    }
    let ctx: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0).ok()?;
    ctx.clear_rect(0.0, 0.0, w, h);
    let series: Vec<&Series> = p.lines.iter().map(|l| &*l.series).collect();
    let lay = layout(&series, w, h, (58.0, 30.0), p.x_max, p.y_zero);
    let f = lay.frame;
    ctx.set_font(FONT);
    ctx.set_line_width(1.0);
    ctx.set_stroke_style_str("#e3e6ec");
    ctx.set_fill_style_str("#39404d");
    ctx.set_text_align("right");
    ctx.set_text_baseline("middle");
    for (y, label) in &lay.y_ticks {
        ctx.begin_path();
        ctx.move_to(f.left, *y);
        ctx.line_to(f.right, *y);
        ctx.stroke();
        let _ = ctx.fill_text(label, f.left - 8.0, *y);
    }
    ctx.set_text_align("center");
    ctx.set_text_baseline("top");
    for (x, label) in &lay.x_ticks {
        ctx.begin_path();
        ctx.move_to(*x, f.bottom);
        ctx.line_to(*x, f.bottom + 5.0);
        ctx.stroke();
        let _ = ctx.fill_text(label, *x, f.bottom + 8.0);
    }
    ctx.set_stroke_style_str("#8d96a8");
    ctx.stroke_rect(f.left, f.top, f.right - f.left, f.bottom - f.top);
    for (line, pts) in p.lines.iter().zip(&lay.lines) {
        ctx.set_stroke_style_str(line.color);
        ctx.set_fill_style_str(line.color);
        let (width, alpha, dash) = match line.style {
            Style::Line => (3.0, 1.0, false),
            Style::Faint => (1.2, 0.35, false),
            Style::Dots => (2.0, 1.0, true),
        };
        ctx.set_line_width(width);
        ctx.set_global_alpha(alpha);
        let dashes = js_sys::Array::new();
        if dash {
            dashes.push(&6.0.into());
            dashes.push(&5.0.into());
        }
        let _ = ctx.set_line_dash(&dashes);
        ctx.begin_path();
        for (i, (x, y)) in pts.iter().enumerate() {
            if i == 0 {
                ctx.move_to(*x, *y)
            } else {
                ctx.line_to(*x, *y)
            }
        }
        ctx.stroke();
        let _ = ctx.set_line_dash(&js_sys::Array::new());
        if line.style == Style::Dots {
            for (x, y) in pts {
                ctx.begin_path();
                let _ = ctx.arc(*x, *y, 4.5, 0.0, std::f64::consts::TAU);
                ctx.fill();
            }
        }
        ctx.set_global_alpha(1.0);
    }
    Some(())
}

#[component]
pub fn LineChart(p: &ChartProps) -> Html {
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        let spec = Spec { lines: p.lines.clone(), x_max: p.x_max, y_zero: p.y_zero };
        // drawn when the lines or the axes change, and when the chart comes on screen
        use_effect_with((spec, p.visible), move |(spec, _)| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                let _ = draw(&c, spec);
            }
        });
    }
    let legend = p.lines.iter().filter(|l| l.style != Style::Faint).map(|l| {
        html! { <span key={l.label} class="key"><span class="swatch" style={format!("background:{}", l.color)} />{ l.label }</span> }
    });
    html! {
        <figure class="chart">
            <figcaption>
                <span class="chart-title">{ p.title.clone() }</span>
                { p.latest.clone().map(|v| html! { <span class="latest">{ v }</span> }).unwrap_or_default() }
                <span class="keys">{ for legend }</span>
            </figcaption>
            <canvas ref={canvas} data-testid={p.testid.clone()} data-values={p.values.clone()}
                role="img" aria-label={p.title.clone()} />
        </figure>
    }
}

/// What `draw` needs of the props.
#[derive(PartialEq)]
struct Spec {
    lines: Vec<Line>,
    x_max: f64,
    y_zero: bool,
}

/// The four charts of a run.
#[derive(Properties, PartialEq)]
pub struct ChartsProps {
    pub view: Rc<TrainView>,
    pub visible: bool,
}

#[component]
pub fn TrainCharts(p: &ChartsProps) -> Html {
    let v = &p.view;
    let visible = p.visible;
    let x_max = v.run.steps.max(v.form.setup.steps) as f64;
    let smooth = Rc::new(Series::from_points(ema(&v.loss.points, 0.1)));
    let values: String = v.loss.points.iter().map(|p| format!("{:.4}", p.1)).collect::<Vec<_>>().join(",");
    let last = |s: &Series, f: fn(f64) -> String| s.last().map(|p| AttrValue::from(f(p.1)));
    let loss_latest = match (v.loss.last(), v.eval_loss.last()) {
        (Some(a), Some(b)) => Some(AttrValue::from(format!(
            "train {:.3} · held-out {:.3}{}",
            a.1,
            b.1,
            v.nsp_loss.map(|n| format!(" · NSP {n:.3}")).unwrap_or_default()
        ))),
        (None, Some(b)) => Some(AttrValue::from(format!("held-out {:.3}", b.1))),
        _ => None,
    };
    let acc_latest = match (v.acc.last(), v.eval_acc.last()) {
        (Some(a), Some(b)) => Some(AttrValue::from(format!("train {:.1}% · held-out {:.1}%", a.1 * 100.0, b.1 * 100.0))),
        _ => None,
    };
    let line = |series: &Rc<Series>, color, style, label| Line { series: series.clone(), color, style, label };
    html! {
        <div class="charts">
            <LineChart title="Masked-LM loss (cross-entropy at the chosen tokens)" {x_max} {visible} testid="loss-chart" values={AttrValue::from(values)}
                latest={loss_latest}
                lines={vec![
                    line(&v.loss, "#2a5bd7", Style::Faint, "train"),
                    line(&smooth, "#2a5bd7", Style::Line, "train (smoothed)"),
                    line(&v.eval_loss, "#c0561b", Style::Dots, "held-out"),
                ]} />
            <LineChart title="Masked-token accuracy (top guess = the hidden word)" {x_max} {visible} y_zero=true latest={acc_latest}
                lines={vec![
                    line(&v.acc, "#1f8a5b", Style::Faint, "train"),
                    line(&Rc::new(Series::from_points(ema(&v.acc.points, 0.1))), "#1f8a5b", Style::Line, "train (smoothed)"),
                    line(&v.eval_acc, "#c0561b", Style::Dots, "held-out"),
                ]} />
            <LineChart title="Learning rate (warmup, then linear decay)" {x_max} {visible} y_zero=true
                latest={last(&v.lr, |x| format!("{x:.2e}"))}
                lines={vec![line(&v.lr, "#7b3fa0", Style::Line, "lr")]} />
            <LineChart title="Throughput (tokens / s, in this browser)" {x_max} {visible} y_zero=true
                latest={last(&v.tokens_per_s, |x| format!("{x:.0} tokens/s"))}
                lines={vec![line(&v.tokens_per_s, "#39404d", Style::Line, "tokens/s")]} />
        </div>
    }
}
