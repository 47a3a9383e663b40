//! The anatomy section as the page shows it (`bertscope::explain::anatomy_view` builds it for a
//! loaded model): the parameter groups, one layer's costs, the crossover, the tables, the chart.

use crate::explain::anatomy::{Anatomy, LayerCost};
use crate::explain::anatomy_tables::{ComplexityRow, FamilyTable};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnatomyView {
    pub anatomy: Anatomy,
    /// (hub name, parameters of the bare model) of BERT-base, BERT-large, DistilBERT-base, RoBERTa-base.
    pub presets: Vec<(String, usize)>,
    /// The same presets by group (their bare models), in the order of `presets`.
    pub preset_anatomies: Vec<Anatomy>,
    /// The sentence's tokens and what one layer costs on them.
    pub cost: LayerCost,
    /// The smallest n where attention's n^2 FLOPs pass the FFN's, and the projections' and FFN's together.
    pub crossover: usize,
    pub crossover_all: usize,
    /// The most tokens the model takes (its positions).
    pub max_tokens: usize,
    /// (n, attention FLOPs, FFN FLOPs), n increasing past both crossings.
    pub curve: Vec<(usize, u64, u64)>,
    pub complexity: Vec<ComplexityRow>,
    pub families: FamilyTable,
}

/// The cost chart in pixels (log n across, log FLOPs up): the two curves as SVG polyline points,
/// decade ticks, and the x of the crossing and of the current sentence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostChart {
    pub width: f64,
    pub height: f64,
    /// "x,y x,y ..." for `<polyline points=...>`.
    pub attention: String,
    pub ffn: String,
    /// (pixel, label) along each axis.
    pub x_ticks: Vec<(f64, String)>,
    pub y_ticks: Vec<(f64, String)>,
    pub crossover_x: f64,
    pub now_x: f64,
    /// The plot area: left, top, right, bottom.
    pub plot: (f64, f64, f64, f64),
}

/// Lays out `v.curve` in a `width` x `height` chart.
pub fn cost_chart(v: &AnatomyView, width: f64, height: f64) -> CostChart {
    let plot = (56.0, 10.0, width - 10.0, height - 40.0);
    let (nx0, nx1) = (1f64, v.curve.last().map_or(10.0, |p| p.0 as f64).max(10.0));
    let flops = v.curve.iter().flat_map(|&(_, a, f)| [a, f]).filter(|&x| x > 0);
    let (fy0, fy1) = (flops.clone().min().unwrap_or(1) as f64, flops.max().unwrap_or(10) as f64);
    let (ly0, ly1) = (fy0.log10().floor(), fy1.log10().ceil().max(fy0.log10().floor() + 1.0));
    let x = |n: f64| plot.0 + (n.max(nx0).log10() - nx0.log10()) / (nx1.log10() - nx0.log10()) * (plot.2 - plot.0);
    let y = |f: f64| plot.3 - (f.max(1.0).log10() - ly0) / (ly1 - ly0) * (plot.3 - plot.1);
    let line = |pick: fn(&(usize, u64, u64)) -> u64| {
        v.curve
            .iter()
            .filter(|p| pick(p) > 0)
            .map(|p| format!("{:.1},{:.1}", x(p.0 as f64), y(pick(p) as f64)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let x_ticks = (0..=(nx1.log10().ceil() as i32)).map(|e| 10f64.powi(e)).filter(|&n| n <= nx1).map(|n| (x(n), format!("{n}"))).collect();
    let y_ticks =
        (ly0 as i32..=ly1 as i32).step_by(((ly1 - ly0) as usize / 5).max(1)).map(|e| (y(10f64.powi(e)), power_of_ten(e))).collect();
    CostChart {
        width,
        height,
        attention: line(|p| p.1),
        ffn: line(|p| p.2),
        x_ticks,
        y_ticks,
        crossover_x: x(v.crossover as f64),
        now_x: x(v.cost.n as f64),
        plot,
    }
}

/// "10⁶" for 6.
fn power_of_ten(e: i32) -> String {
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let digits: String = e.unsigned_abs().to_string().chars().map(|c| SUP[c.to_digit(10).unwrap_or(0) as usize]).collect();
    format!("10{}{digits}", if e < 0 { "⁻" } else { "" })
}
