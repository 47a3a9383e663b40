//! Everything the page's anatomy section shows, for the loaded model and the current sentence
//! (n = its tokens): parameters by group beside the published presets, one layer's cost, the cost
//! curve as n grows with the crossings, the complexity table of "Attention Is All You Need" and the
//! BERT / DistilBERT / RoBERTa comparison. Pure arithmetic on the config: cheap per keystroke.

use crate::bundle::Bert;
use crate::explain::anatomy::{anatomy, cost_curve, crossover, crossover_with_projections, layer_cost, Anatomy, LayerCost, Preset};
use crate::explain::anatomy_tables::{complexity_table, family_table, ComplexityRow, FamilyTable, DEFAULT_KERNEL};
use serde::{Deserialize, Serialize};

/// Points of the cost chart.
const CURVE_POINTS: usize = 48;

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

/// The anatomy of `bert` for a sentence of `n` tokens.
pub fn anatomy_view(bert: &Bert, n: usize) -> AnatomyView {
    let (cfg, heads) = (&bert.cfg, bert.params.heads());
    AnatomyView {
        anatomy: anatomy(cfg, heads),
        presets: Preset::ALL.iter().map(|p| (p.name().to_string(), p.params())).collect(),
        preset_anatomies: Preset::ALL.iter().map(|p| anatomy(&p.config(), p.heads())).collect(),
        cost: layer_cost(cfg, n),
        crossover: crossover(cfg),
        crossover_all: crossover_with_projections(cfg),
        max_tokens: cfg.max_tokens(),
        curve: cost_curve(cfg, cfg.max_tokens(), CURVE_POINTS),
        complexity: complexity_table(n, cfg.hidden_size, DEFAULT_KERNEL),
        families: family_table(cfg, heads),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_follows_the_loaded_model_and_the_sentence() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/models");
        for (dir, family) in [("distil_mlm", "DistilBERT"), ("roberta_mlm", "RoBERTa"), ("relu_tiny", "BERT")] {
            let bert = Bert::from_dir(&root.join(dir)).unwrap();
            let v = anatomy_view(&bert, 9);
            assert_eq!(v.anatomy.total, bert.params.num_params(), "{dir}");
            assert_eq!((v.cost.n, v.cost.d), (9, bert.cfg.hidden_size));
            assert_eq!(v.complexity[0].complexity_value, 81 * bert.cfg.hidden_size as u64, "{dir}: n^2 d for self-attention");
            assert!(v.families.columns.last().unwrap().contains(family), "{dir}: {:?}", v.families.columns);
            assert!(v.curve.iter().any(|&(n, ..)| n == v.crossover), "{dir}: the crossing is a point of the chart");
            assert_eq!(v.presets[0], ("bert-base-uncased".to_string(), 109_482_240));
            for (a, (name, total)) in v.preset_anatomies.iter().zip(&v.presets) {
                assert_eq!(a.total, *total, "{name}: by group as in total");
            }
            let c = cost_chart(&v, 600.0, 240.0);
            assert!(c.plot.0 < c.now_x && c.now_x < c.crossover_x && c.crossover_x <= c.plot.2, "{dir}: {c:?}");
            // the curves cross at the crossing: attention below the FFN left of it, above right of it
            let (a, f) = (|p: &(usize, u64, u64)| p.1, |p: &(usize, u64, u64)| p.2);
            assert!(v.curve.iter().all(|p| (p.0 < v.crossover) == (a(p) <= f(p))), "{dir}");
            assert_eq!(c.attention.split(' ').count(), v.curve.len());
        }
    }
}
