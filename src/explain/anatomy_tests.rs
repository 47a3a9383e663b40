//! The anatomy's counts against models built by the engine (`bertscope_view::explain::anatomy`).

use crate::bundle::Bert;
use crate::config::{count_params, TaskKind};
use crate::config::{BertConfig, Family, Heads, PositionEncoding};
use crate::model::BertParams;
use bertscope_view::explain::anatomy::*;

fn all_heads() -> Vec<Heads> {
    let mut out = vec![NO_HEADS, Heads::BASE_MODEL, Heads::MASKED_LM, Heads::PRETRAINING];
    out.extend(TaskKind::ALL.map(|k| Heads::for_task(k, 3)));
    out.push(Heads { mlm: true, nsp: true, ..Heads::for_task(TaskKind::QuestionAnswering, 2) });
    out
}

#[test]
fn the_published_base_models_have_their_published_counts() {
    assert_eq!(Preset::BertBase.params(), 109_482_240);
    assert_eq!(Preset::BertLarge.params(), 335_141_888);
    assert_eq!(Preset::DistilBertBase.params(), 66_362_880);
    assert_eq!(Preset::RobertaBase.params(), 124_645_632);
    for p in Preset::ALL {
        p.config().validate().unwrap_or_else(|e| panic!("{p:?}: {e}"));
    }
    let a = anatomy(&Preset::BertBase.config(), Heads::BASE_MODEL);
    assert_eq!((a.embeddings, a.per_layer, a.encoder, a.heads), (23_837_184, 7_087_872, 85_054_464, 590_592));
    assert!((a.embeddings_share + a.encoder_share + a.heads_share - 1.0).abs() < 1e-6);
    assert_eq!(a.groups[0].formula, "V x H = 30522 x 768");
    assert!(!anatomy(&Preset::DistilBertBase.config(), NO_HEADS).groups.iter().any(|g| g.name == "segment embeddings"));
}

#[test]
fn groups_sum_to_the_built_model_for_every_config_and_heads() {
    let mut cfgs = vec![BertConfig::new(50, 12, 2, 3, 20, 16), BertConfig::new(37, 8, 3, 2, 9, 11)];
    let mut sin = BertConfig::new(41, 16, 1, 4, 24, 8);
    sin.position_encoding = PositionEncoding::Sinusoidal;
    let (mut distil, mut roberta, mut untied) = (cfgs[0].clone(), cfgs[1].clone(), cfgs[0].clone());
    distil.family = Family::DistilBert;
    distil.type_vocab_size = 0;
    roberta.family = Family::Roberta;
    roberta.type_vocab_size = 1;
    untied.tie_word_embeddings = false;
    cfgs.extend([sin, distil, roberta, untied]);
    for cfg in &cfgs {
        for heads in all_heads() {
            let built = BertParams::<f32>::zeros(cfg, heads).num_params();
            let a = anatomy(cfg, heads);
            assert_eq!(a.total, built, "{:?} {heads:?}", cfg.family);
            assert_eq!(a.groups.iter().map(|g| g.total).sum::<usize>(), built);
            assert_eq!(count_params(cfg, heads).total, built, "config::count_params {:?} {heads:?}", cfg.family);
        }
    }
}

#[test]
fn groups_sum_to_every_fixture_model() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/models");
    let mut families = std::collections::HashSet::new();
    let mut loaded = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let Ok(bert) = Bert::from_dir(&path) else { continue };
        let a = anatomy(&bert.cfg, bert.params.heads());
        assert_eq!(a.total, bert.params.num_params(), "{}", path.display());
        families.insert(bert.cfg.family.display());
        loaded += 1;
    }
    assert!(loaded >= 12 && families.len() == 3, "{loaded} models of {families:?}");
}

#[test]
fn layer_cost_counts_each_term() {
    let cfg = Preset::BertBase.config();
    let c = layer_cost(&cfg, 10);
    assert_eq!(c.projection_flops, 8 * 10 * 768 * 768);
    assert_eq!(c.attention_flops, 4 * 100 * 768);
    assert_eq!(c.softmax_flops, 5 * 12 * 100);
    assert_eq!(c.ffn_flops, 4 * 10 * 768 * 3072);
    assert_eq!(c.total_flops, c.projection_flops + c.attention_flops + c.softmax_flops + c.ffn_flops);
    assert_eq!(c.attention_bytes, 12 * 100 * 4);
    assert_eq!(c.activation_bytes, (8 * 10 * 768 + 2 * 10 * 3072) * 4);
    assert_eq!(c.weight_bytes, 7_087_872 * 4);
}

#[test]
fn crossovers_match_a_brute_force_scan() {
    for cfg in [Preset::BertBase.config(), Preset::BertLarge.config(), BertConfig::new(50, 12, 2, 3, 20, 16)] {
        let first = |beats: &dyn Fn(&LayerCost) -> bool| (1..100_000).find(|&n| beats(&layer_cost(&cfg, n))).unwrap();
        assert_eq!(crossover(&cfg), first(&|c| c.attention_flops > c.ffn_flops));
        assert_eq!(crossover_with_projections(&cfg), first(&|c| c.attention_flops > c.ffn_flops + c.projection_flops));
    }
    assert_eq!((crossover(&Preset::BertBase.config()), crossover_with_projections(&Preset::BertBase.config())), (3073, 4609));
}

#[test]
fn the_cost_curve_runs_past_both_crossings() {
    let cfg = Preset::BertBase.config();
    let curve = cost_curve(&cfg, 512, 40);
    assert_eq!(curve[0].0, 1);
    assert_eq!(curve.last().unwrap().0, 2 * 4609);
    assert!(curve.windows(2).all(|w| w[0].0 < w[1].0));
    assert!(curve.iter().any(|p| p.0 == 3073) && curve.iter().any(|p| p.0 == 4609));
    let n = 3073;
    assert!(curve.iter().all(|&(m, a, f)| (m >= n) == (a > f) && f == 4 * m as u64 * 768 * 3072));
    assert_eq!(cost_curve(&cfg, 20_000, 5).last().unwrap().0, 20_000);
}
