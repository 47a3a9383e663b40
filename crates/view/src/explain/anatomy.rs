//! The anatomy of the loaded model: where its parameters sit (embeddings, each encoder layer's
//! attention and FFN, the heads), the published base models to hold it against, and what one
//! encoder layer costs for a sentence of n tokens (FLOPs and bytes), with the length at which
//! attention's n^2 terms overtake the FFN. Counts follow the tensors of `model::params` (HF
//! `modeling_bert.py`), so the total is `BertParams::num_params()`; FLOPs count a multiply-add as 2.
//! The seed's complexity table and the family comparison are in `anatomy_tables`.

use crate::config::{BertConfig, Family, Heads, PositionEncoding};
use serde::Serialize;

/// Which part of the model a parameter group belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Embeddings,
    Encoder,
    Heads,
}

/// One group of parameters, e.g. every layer's query projection.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ParamGroup {
    pub name: String,
    pub part: Part,
    /// The count in symbols, then in the model's numbers: "V x H = 30522 x 768".
    pub formula: String,
    /// Parameters of one copy (one layer's, for an encoder group).
    pub count: usize,
    /// Copies in the model: L for an encoder group, else 1.
    pub copies: usize,
    /// count x copies.
    pub total: usize,
}

/// The parameters of a model by group, with the totals the page shows beside them.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Anatomy {
    pub family: Family,
    pub groups: Vec<ParamGroup>,
    pub layers: usize,
    /// One encoder layer's parameters.
    pub per_layer: usize,
    /// Sums of the groups of each part; their sum is `total`.
    pub embeddings: usize,
    pub encoder: usize,
    pub heads: usize,
    /// Every parameter: `BertParams::num_params()` of a model built from the same config and heads.
    pub total: usize,
    /// embeddings / total, encoder / total, heads / total (0 for an empty model).
    /// f32: exact through the worker's JSON (serde_json reads f64 back to the nearest, not the same)
    pub embeddings_share: f32,
    pub encoder_share: f32,
    pub heads_share: f32,
}

/// No heads at all: the encoder alone (a `DistilBertModel`).
pub const NO_HEADS: Heads = Heads { pooler: false, mlm: false, nsp: false, task: None };

/// The heads of a family's bare HF class (`BertModel`, `DistilBertModel`, `RobertaModel`), the
/// model the published parameter counts refer to: with the pooler, except DistilBERT's.
pub fn base_heads(family: Family) -> Heads {
    Heads { pooler: family != Family::DistilBert, ..NO_HEADS }
}

/// The parameter groups of `cfg` with `heads`, in the order of `BertParams::tensors()`.
pub fn param_groups(cfg: &BertConfig, heads: Heads) -> Vec<ParamGroup> {
    let (v, h, i, l) = (cfg.vocab_size, cfg.hidden_size, cfg.intermediate_size, cfg.num_hidden_layers);
    let (p, s) = (cfg.max_position_embeddings, cfg.type_vocab_size);
    let mut g = Vec::new();
    let mut add = |name: &str, part: Part, formula: String, count: usize, copies: usize| {
        g.push(ParamGroup { name: name.to_string(), part, formula, count, copies, total: count * copies })
    };
    let ln = format!("2H = 2 x {h}");
    let square = format!("H x H + H = {h} x {h} + {h}");
    add("token embeddings", Part::Embeddings, format!("V x H = {v} x {h}"), v * h, 1);
    match cfg.position_encoding {
        PositionEncoding::Learned => add("position embeddings", Part::Embeddings, format!("P x H = {p} x {h}"), p * h, 1),
        PositionEncoding::Sinusoidal => add("position embeddings", Part::Embeddings, "sinusoidal: computed, not learned".into(), 0, 1),
    }
    // DistilBERT has no segment table at all (type_vocab_size 0): no group rather than a 0.
    if s > 0 {
        add("segment embeddings", Part::Embeddings, format!("S x H = {s} x {h}"), s * h, 1);
    }
    add("embedding LayerNorm", Part::Embeddings, ln.clone(), 2 * h, 1);
    for name in ["attention query (Q)", "attention key (K)", "attention value (V)", "attention output (O)"] {
        add(name, Part::Encoder, square.clone(), h * h + h, l);
    }
    add("attention LayerNorm", Part::Encoder, ln.clone(), 2 * h, l);
    add("FFN in", Part::Encoder, format!("I x H + I = {i} x {h} + {i}"), i * h + i, l);
    add("FFN out", Part::Encoder, format!("H x I + H = {h} x {i} + {h}"), h * i + h, l);
    add("output LayerNorm", Part::Encoder, ln.clone(), 2 * h, l);
    if heads.pooler {
        add("pooler", Part::Heads, square.clone(), h * h + h, 1);
    }
    if heads.mlm {
        add("MLM transform", Part::Heads, square, h * h + h, 1);
        add("MLM LayerNorm", Part::Heads, ln, 2 * h, 1);
        // Tied (BERT's default): the decoder reads the token embeddings, no parameters of its own.
        match cfg.tie_word_embeddings {
            true => add("MLM decoder weight", Part::Heads, "tied to the token embeddings: 0 new".into(), 0, 1),
            false => add("MLM decoder weight", Part::Heads, format!("V x H = {v} x {h}"), v * h, 1),
        }
        add("MLM decoder bias", Part::Heads, format!("V = {v}"), v, 1);
    }
    if heads.nsp {
        add("NSP head", Part::Heads, format!("2H + 2 = 2 x {h} + 2"), 2 * h + 2, 1);
    }
    if let Some(t) = heads.task {
        let o = t.outputs;
        add(&format!("task head ({})", t.kind.prefix()), Part::Heads, format!("outputs x H + outputs = {o} x {h} + {o}"), o * h + o, 1);
    }
    g
}

pub fn anatomy(cfg: &BertConfig, heads: Heads) -> Anatomy {
    let groups = param_groups(cfg, heads);
    let sum = |part: Part| groups.iter().filter(|g| g.part == part).map(|g| g.total).sum::<usize>();
    let (embeddings, encoder, head_params) = (sum(Part::Embeddings), sum(Part::Encoder), sum(Part::Heads));
    let per_layer = groups.iter().filter(|g| g.part == Part::Encoder).map(|g| g.count).sum();
    let total = embeddings + encoder + head_params;
    let share = |x: usize| if total == 0 { 0.0 } else { (x as f64 / total as f64) as f32 };
    Anatomy {
        family: cfg.family,
        layers: cfg.num_hidden_layers,
        per_layer,
        embeddings,
        encoder,
        heads: head_params,
        total,
        embeddings_share: share(embeddings),
        encoder_share: share(encoder),
        heads_share: share(head_params),
        groups,
    }
}

/// The published base models, to compare the loaded one with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum Preset {
    BertBase,
    BertLarge,
    DistilBertBase,
    RobertaBase,
}

impl Preset {
    pub const ALL: [Preset; 4] = [Preset::BertBase, Preset::BertLarge, Preset::DistilBertBase, Preset::RobertaBase];

    /// The hub name.
    pub fn name(self) -> &'static str {
        match self {
            Preset::BertBase => "bert-base-uncased",
            Preset::BertLarge => "bert-large-uncased",
            Preset::DistilBertBase => "distilbert-base-uncased",
            Preset::RobertaBase => "roberta-base",
        }
    }

    /// Its `config.json` as we load it (DistilBERT's keys already mapped to BERT's).
    pub fn config(self) -> BertConfig {
        match self {
            Preset::BertBase => BertConfig::new(30522, 768, 12, 12, 3072, 512),
            Preset::BertLarge => BertConfig::new(30522, 1024, 24, 16, 4096, 512),
            Preset::DistilBertBase => {
                let mut c = BertConfig::new(30522, 768, 6, 12, 3072, 512);
                c.family = Family::DistilBert;
                c.type_vocab_size = 0;
                c
            }
            Preset::RobertaBase => {
                let mut c = BertConfig::new(50265, 768, 12, 12, 3072, 514);
                c.family = Family::Roberta;
                c.type_vocab_size = 1;
                c.layer_norm_eps = 1e-5;
                c.extra.insert("pad_token_id".into(), 1.into());
                c
            }
        }
    }

    /// The heads of its bare HF class (`BertModel`, `DistilBertModel`, `RobertaModel`).
    pub fn heads(self) -> Heads {
        base_heads(self.config().family)
    }

    /// Parameters of its bare HF class.
    pub fn params(self) -> usize {
        anatomy(&self.config(), self.heads()).total
    }
}

/// FLOPs of softmax per attention score, a rough count: max, subtract, exp, sum, divide (an exp
/// is in truth several FLOPs; the term is small beside the matmuls either way).
pub const SOFTMAX_FLOPS_PER_SCORE: u64 = 5;

/// What one encoder layer costs on a sentence of n tokens (batch of one, f32).
/// Biases, LayerNorms, GELU and the residual adds are left out: O(n d + n I), small beside the rest.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct LayerCost {
    pub n: usize,
    /// d = hidden_size, h = attention heads, I = intermediate_size.
    pub d: usize,
    pub heads: usize,
    pub intermediate: usize,
    /// Q, K, V and O: four (n, d) x (d, d) matmuls, 8 n d^2.
    pub projection_flops: u64,
    /// Scores Q K^T: h heads of (n, d/h) x (d/h, n), 2 n^2 d.
    pub score_flops: u64,
    /// The weighted sum of V: h heads of (n, n) x (n, d/h), 2 n^2 d.
    pub mix_flops: u64,
    /// score + mix: attention's n^2 terms, 4 n^2 d.
    pub attention_flops: u64,
    /// Softmax over h n^2 scores, ~ SOFTMAX_FLOPS_PER_SCORE each (an estimate).
    pub softmax_flops: u64,
    /// (n, d) x (d, I) and (n, I) x (I, d): 4 n d I.
    pub ffn_flops: u64,
    pub total_flops: u64,
    /// The (h, n, n) attention probabilities, 4 bytes each.
    pub attention_bytes: u64,
    /// The activations the layer writes: eight (n, d) (Q, K, V, context, attention output, its
    /// LayerNorm, FFN output, output LayerNorm) and two (n, I) (the FFN before and after GELU).
    pub activation_bytes: u64,
    /// The layer's weights, read once: `Anatomy::per_layer` x 4 bytes.
    pub weight_bytes: u64,
}

pub fn layer_cost(cfg: &BertConfig, n: usize) -> LayerCost {
    let (d, h, i) = (cfg.hidden_size as u64, cfg.num_attention_heads as u64, cfg.intermediate_size as u64);
    let t = n as u64;
    let projection_flops = 8 * t * d * d;
    let score_flops = 2 * t * t * d;
    let mix_flops = 2 * t * t * d;
    let softmax_flops = SOFTMAX_FLOPS_PER_SCORE * h * t * t;
    let ffn_flops = 4 * t * d * i;
    LayerCost {
        n,
        d: cfg.hidden_size,
        heads: cfg.num_attention_heads,
        intermediate: cfg.intermediate_size,
        projection_flops,
        score_flops,
        mix_flops,
        attention_flops: score_flops + mix_flops,
        softmax_flops,
        ffn_flops,
        total_flops: projection_flops + score_flops + mix_flops + softmax_flops + ffn_flops,
        attention_bytes: 4 * h * t * t,
        activation_bytes: 4 * (8 * t * d + 2 * t * i),
        weight_bytes: 4 * anatomy(cfg, NO_HEADS).per_layer as u64,
    }
}

/// The smallest n at which attention's n^2 matmuls cost strictly more than the FFN:
/// 4 n^2 d > 4 n d I <=> n > I, so n = I + 1 (3,073 for BERT-base: six times its 512 positions,
/// so at any length BERT-base accepts, the FFN costs more). Softmax (~5 h n^2, an estimate) is left
/// out: with d/h = 64 it is about 2% of the 4 n^2 d and would move the crossing about 2% earlier.
pub fn crossover(cfg: &BertConfig) -> usize {
    cfg.intermediate_size + 1
}

/// The smallest n at which attention's n^2 matmuls cost strictly more than the projections and
/// the FFN together: 4 n^2 d > 8 n d^2 + 4 n d I <=> n > 2d + I (same rule as `crossover`).
pub fn crossover_with_projections(cfg: &BertConfig) -> usize {
    2 * cfg.hidden_size + cfg.intermediate_size + 1
}

/// (n, attention FLOPs 4 n^2 d, FFN FLOPs 4 n d I) for a chart with a log n axis: `points`
/// log-spaced lengths from 1 to max(n_max, 2 x `crossover_with_projections`), so both crossings
/// are always on it, plus the two crossover lengths themselves. Lengths are rounded to integers,
/// strictly increasing (rounding merges some of the first ones, so fewer may come back).
pub fn cost_curve(cfg: &BertConfig, n_max: usize, points: usize) -> Vec<(usize, u64, u64)> {
    let end = n_max.max(2 * crossover_with_projections(cfg));
    let steps = points.max(2) - 1;
    let mut ns: Vec<usize> = (0..=steps).map(|k| (end as f64).powf(k as f64 / steps as f64).round() as usize).collect();
    ns.extend([crossover(cfg), crossover_with_projections(cfg), end]);
    ns.sort_unstable();
    ns.dedup();
    ns.into_iter()
        .map(|n| {
            let c = layer_cost(cfg, n);
            (n, c.attention_flops, c.ffn_flops)
        })
        .collect()
}
