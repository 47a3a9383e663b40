//! Everything the page's anatomy section shows, for the loaded model and the current sentence
//! (n = its tokens): parameters by group beside the published presets, one layer's cost, the cost
//! curve as n grows with the crossings, the complexity table of "Attention Is All You Need" and the
//! BERT / DistilBERT / RoBERTa comparison. Pure arithmetic on the config: cheap per keystroke.

use crate::bundle::Bert;
use crate::explain::anatomy::{anatomy, cost_curve, crossover, crossover_with_projections, layer_cost, Preset};
use crate::explain::anatomy_tables::{complexity_table, family_table, DEFAULT_KERNEL};
pub use bertscope_view::explain::anatomy_view::*;

/// Points of the cost chart.
const CURVE_POINTS: usize = 48;

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
