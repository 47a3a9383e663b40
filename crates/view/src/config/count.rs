//! The parameter counter, by group.

use super::heads::Heads;
use super::{BertConfig, PositionEncoding};
use serde::Serialize;

/// Parameter counts by group.
#[derive(Clone, Debug, Serialize)]
pub struct ParamCount {
    pub embeddings: usize,
    pub per_layer: usize,
    pub encoder: usize,
    pub pooler: usize,
    pub mlm_head: usize,
    pub nsp_head: usize,
    /// The fine-tuning head (`classifier` / `qa_outputs`).
    pub task_head: usize,
    pub total: usize,
}

pub fn count_params(cfg: &BertConfig, heads: Heads) -> ParamCount {
    let (h, i, v) = (cfg.hidden_size, cfg.intermediate_size, cfg.vocab_size);
    let linear = |n_in: usize, n_out: usize| n_in * n_out + n_out;
    let ln = 2 * h;
    let pos = match cfg.position_encoding {
        PositionEncoding::Learned => cfg.max_position_embeddings * h,
        PositionEncoding::Sinusoidal => 0,
    };
    // one rule with BertParams::build: no segment table without segments (DistilBERT)
    let segments = if cfg.family.has_segments() { cfg.type_vocab_size * h } else { 0 };
    let embeddings = v * h + pos + segments + ln;
    // + a decoder's cross-attention: Q, K, V, O and its LayerNorm
    let cross = if cfg.add_cross_attention { 4 * linear(h, h) + ln } else { 0 };
    let per_layer = 4 * linear(h, h) + ln + linear(h, i) + linear(i, h) + ln + cross;
    let encoder = per_layer * cfg.num_hidden_layers;
    let pooler = if heads.pooler { linear(h, h) } else { 0 };
    let decoder = if cfg.tie_word_embeddings { 0 } else { v * h };
    let mlm_head = if heads.mlm { linear(h, h) + ln + decoder + v } else { 0 };
    let nsp_head = if heads.nsp { linear(h, 2) } else { 0 };
    let task_head = heads.task.map_or(0, |t| linear(h, t.outputs));
    let total = embeddings + encoder + pooler + mlm_head + nsp_head + task_head;
    ParamCount { embeddings, per_layer, encoder, pooler, mlm_head, nsp_head, task_head, total }
}
