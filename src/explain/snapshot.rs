//! Builds the page's snapshot of one input (`bertscope_view::explain::snapshot` holds its types):
//! the forward on the CPU path, or `prepare` and `finish` around a forward on either backend.

use super::ffn_detail::ffn_detail;
use super::head_detail::head_detail;
use crate::bundle::Bert;
use crate::config::count_params;
use crate::config::TaskKind;
use crate::cpu::softmax::softmax_row;
use crate::error::{BertError, Result};
use crate::explain::embeddings::embedding_view;
use crate::infer::task::{best_per_row, best_spans, ranked};
use crate::infer::{batch_of, top_k};
use crate::model::forward::{forward, Batch, ForwardOptions, ForwardTrace, MlmRows};
use crate::tokenize::{Encoded, Scheme};
pub use bertscope_view::explain::snapshot::*;
use ndarray::{Array2, Axis};

/// The page's description of a loaded model.
pub fn model_info(bert: &Bert) -> ModelInfo {
    let cfg = &bert.cfg;
    ModelInfo {
        layers: cfg.num_hidden_layers,
        heads: cfg.num_attention_heads,
        hidden: cfg.hidden_size,
        intermediate: cfg.intermediate_size,
        vocab: cfg.vocab_size,
        max_len: bert.tokenizer.max_len,
        params: count_params(cfg, bert.params.heads()).total,
        has_mlm: bert.params.mlm.is_some(),
        has_nsp: bert.params.nsp.is_some(),
        family: cfg.family.display().into(),
        scheme: bert.tokenizer.scheme.display().into(),
        mask_token: bert.tokenizer.mask_token.clone(),
        has_segments: bert.params.emb.token_type.is_some(),
        first_position: cfg.family.positions_start(cfg.pad_token_id()),
    }
}

/// Runs the model on `req` (CPU path) and keeps what the page shows.
pub fn build(bert: &Bert, req: &Request) -> Result<Snapshot> {
    build_with_trace(bert, req).map(|(s, _)| s)
}

/// `build`, also returning the forward's trace (for tests that check the views against it).
pub fn build_with_trace(bert: &Bert, req: &Request) -> Result<(Snapshot, ForwardTrace<f32>)> {
    let prep = prepare(bert, req)?;
    let trace = forward(&bert.params, &bert.cfg, &prep.batch, &prep.opts)?;
    Ok((finish(bert, req, prep, &trace), trace))
}

/// A request made ready for a forward pass: the batch and options to run (on either backend), and
/// what `finish` needs to turn the trace into a snapshot.
#[derive(Clone)]
pub struct Prepared {
    pub batch: Batch,
    pub opts: ForwardOptions<f32>,
    enc: Encoded,
    masked_from: Vec<Option<String>>,
    heads_off: Vec<(usize, usize)>,
    mask_positions: Vec<usize>,
    pair: bool,
}

/// Tokenises `req`, puts [MASK] where asked and builds the head mask: everything before the forward.
pub fn prepare(bert: &Bert, req: &Request) -> Result<Prepared> {
    if req.text.trim().is_empty() {
        return Err(BertError::Input(EMPTY_TEXT.into()));
    }
    let pair = req.pair.as_deref().filter(|p| !p.trim().is_empty());
    let mut enc = bert.tokenizer.encode(&req.text, pair)?;
    let t = enc.input_ids.len();
    if enc.special.iter().all(|&s| s == 1) {
        return Err(BertError::Input(NO_TOKENS.into()));
    }
    let (l, nh) = (bert.cfg.num_hidden_layers, bert.cfg.num_attention_heads);

    // Replace the requested positions by [MASK] (ids only: the pieces around them stay as they are).
    let mask_id = bert.tokenizer.mask_id;
    let mut masked_from = vec![None; t];
    for &p in &req.masked {
        if p < t && enc.special[p] == 0 && enc.input_ids[p] != mask_id {
            masked_from[p] = Some(std::mem::replace(&mut enc.tokens[p], bert.tokenizer.mask_token.clone()));
            enc.input_ids[p] = mask_id;
        }
    }

    let mut heads_off: Vec<(usize, usize)> = req.heads_off.iter().copied().filter(|&(li, h)| li < l && h < nh).collect();
    heads_off.sort_unstable();
    heads_off.dedup();
    let head_mask = (!heads_off.is_empty()).then(|| {
        let mut m = Array2::<f32>::ones((l, nh)); // (L, NH)
        for &(li, h) in &heads_off {
            m[[li, h]] = 0.0;
        }
        m
    });

    let mask_positions: Vec<usize> = (0..t).filter(|&i| enc.input_ids[i] == mask_id).collect();
    let mlm_rows =
        if bert.params.mlm.is_some() && !mask_positions.is_empty() { MlmRows::Rows(mask_positions.clone()) } else { MlmRows::None };
    let opts = ForwardOptions { head_mask, mlm_rows, ..Default::default() };
    Ok(Prepared { batch: batch_of(&enc), opts, enc, masked_from, heads_off, mask_positions, pair: pair.is_some() })
}

/// The snapshot of a prepared request from its forward trace (from either backend).
pub fn finish(bert: &Bert, req: &Request, prep: Prepared, trace: &ForwardTrace<f32>) -> Snapshot {
    let Prepared { enc, mut masked_from, heads_off, mask_positions, pair, .. } = prep;
    let t = enc.input_ids.len();
    let (l, nh) = (bert.cfg.num_hidden_layers, bert.cfg.num_attention_heads);
    let tok = &bert.tokenizer;
    let bpe = tok.scheme == Scheme::ByteLevelBpe;
    let specials = tok.special_ids();
    let special = |i: usize| enc.special[i] == 1 || specials.contains(&enc.input_ids[i]);
    let tokens = (0..t)
        .map(|i| Token {
            text: tok.readable(&enc.tokens[i]),
            id: enc.input_ids[i],
            segment: enc.token_type_ids[i],
            attention: enc.attention_mask[i],
            special: enc.special[i] == 1,
            // WordPiece marks a continuation with ##; byte-level BPE marks a word's start with Ġ
            continuation: match bpe {
                true => i > 0 && !special(i) && !special(i - 1) && !enc.tokens[i].starts_with('\u{120}'),
                false => enc.tokens[i].starts_with("##"),
            },
            masked_from: masked_from[i].take().map(|p| tok.readable(&p)),
        })
        .collect();

    let mut attention = Vec::with_capacity(l * nh);
    for layer in &trace.layers {
        let probs = layer.attn.probs.index_axis(Axis(0), 0); // (NH, T, T)
        for h in 0..nh {
            attention.push(probs.index_axis(Axis(0), h).iter().copied().collect::<Vec<f32>>());
            // (T*T)
        }
    }

    let task = trace.task.as_ref().map(|tt| match tt.kind {
        TaskKind::SequenceClassification if bert.cfg.is_regression() => TaskOutput::Score(tt.logits[[0, 0]]),
        TaskKind::SequenceClassification => TaskOutput::Classes(ranked(bert, tt.logits.row(0).as_slice().expect("contiguous"))),
        TaskKind::TokenClassification => TaskOutput::Tags(best_per_row(bert, &tt.logits)),
        TaskKind::QuestionAnswering => TaskOutput::Answer {
            spans: match &req.pair {
                Some(context) if pair => best_spans(&enc, context, &tt.logits, 3),
                _ => vec![],
            },
            start_logits: tt.logits.column(0).to_vec(),
            end_logits: tt.logits.column(1).to_vec(),
        },
    });
    let hidden = summarise_hidden(&trace.hidden);
    let embeddings = embedding_view(bert, &enc.input_ids, &enc.token_type_ids, trace);

    let k = req.top_k.clamp(1, MAX_TOP_K);
    let predictions = match &trace.mlm {
        Some(m) => mask_positions
            .iter()
            .enumerate()
            .map(|(row, &position)| MaskPredictions {
                position,
                top: top_k(m.logits.row(row).as_slice().expect("contiguous logits"), k)
                    .into_iter()
                    .map(|(id, prob)| Prediction { token: tok.readable(&tok.id_to_token(id)), id, prob })
                    .collect(),
            })
            .collect(),
        None => vec![],
    };

    let is_next = pair.then_some(()).and_then(|()| {
        let logits = trace.pool.as_ref()?.nsp_logits.as_ref()?; // (1, 2)
        let mut p = [logits[[0, 0]], logits[[0, 1]]];
        softmax_row(&mut p);
        Some(p[0])
    });

    Snapshot {
        seq: req.seq,
        tokens,
        scheme: tok.scheme.display().into(),
        family: bert.cfg.family.display().into(),
        mask_token: tok.mask_token.clone(),
        layers: l,
        heads: nh,
        attention,
        hidden,
        predictions,
        is_next,
        heads_off,
        truncated: enc.truncated,
        forward_ms: 0.0,
        device: String::new(),
        head_detail: req.head_steps.then(|| head_detail(bert, trace, req.head_focus.0, req.head_focus.1)),
        ffn_detail: req.ffn_steps.then(|| ffn_detail(bert, trace, req.ffn_focus.0, req.ffn_focus.1)),
        embeddings,
        task,
        anatomy: Some(Box::new(crate::explain::anatomy_view::anatomy_view(bert, t))),
        lens: if req.lens { lens(bert, trace, &mask_positions) } else { vec![] },
    }
}

/// The logit lens at each mask position (none without an MLM head).
fn lens(bert: &Bert, trace: &ForwardTrace<f32>, positions: &[usize]) -> Vec<MaskLens> {
    let tok = &bert.tokenizer;
    positions
        .iter()
        .filter_map(|&position| {
            let layers = crate::infer::lens::lens_at(bert, trace, position, LENS_TOP_K).ok()?;
            let layers = layers
                .into_iter()
                .map(|g| LensRow {
                    layer: g.layer,
                    top: g.predictions.into_iter().map(|p| Prediction { token: tok.readable(&p.token), id: p.id, prob: p.prob }).collect(),
                    answer_prob: g.answer_prob,
                })
                .collect();
            Some(MaskLens { position, layers })
        })
        .collect()
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod tests;
