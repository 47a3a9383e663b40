//! The forward pass of HF `BertForPreTraining` (`modeling_bert.py`), keeping every intermediate the
//! explainer shows and the backward needs. N = B*T rows; M = rows that get MLM logits.

use super::task::task_forward;
pub use super::trace::*;
use crate::config::{BertConfig, PositionEncoding};
use crate::cpu::activation::{activation_forward, pooler_act_forward};
use crate::cpu::attention::{attention_forward, AttnShape};
use crate::cpu::dropout::dropout_mask;
use crate::cpu::embedding::embedding_forward;
use crate::cpu::layernorm::layernorm_forward;
use crate::cpu::linear::linear_forward;
use crate::cpu::position::sinusoidal_table;
use crate::cpu::real::Real;
use crate::error::{BertError, Result};
use crate::model::cross::cross_forward;
use crate::model::params::BertParams;
use crate::rng::Rng;
use ndarray::{Array2, ArrayView2};

/// Runs the model on `batch`. Errors only on invalid input (ids, lengths, head mask shape).
pub fn forward<T: Real>(p: &BertParams<T>, cfg: &BertConfig, batch: &Batch, opts: &ForwardOptions<T>) -> Result<ForwardTrace<T>> {
    batch.validate(cfg)?;
    let (b, t) = (batch.b, batch.t);
    let (h, nh, eps) = (cfg.hidden_size, cfg.num_attention_heads, cfg.layer_norm_eps);
    if let Some(hm) = &opts.head_mask {
        if hm.dim() != (cfg.num_hidden_layers, nh) {
            return Err(BertError::Input(format!(
                "head mask must be (layers, heads) = ({}, {nh}), got {:?}",
                cfg.num_hidden_layers,
                hm.dim()
            )));
        }
    }
    let mut rng = opts.dropout_seed.map(Rng::new);
    let mask = Array2::from_shape_fn((b, t), |(i, j)| T::c(batch.attention_mask[i * t + j] as f64));

    // Embeddings: word + position + token type, LayerNorm, dropout.
    let word = match &opts.word_rows {
        Some(w) if w.dim() == (b * t, h) => w.clone(),
        Some(w) => return Err(BertError::Input(format!("word rows must be (B*T, H) = ({}, {h}), got {:?}", b * t, w.dim()))),
        None => embedding_forward(p.emb.word.view(), &batch.input_ids), // (N, H)
    };
    let pos_ids = batch.position_ids(cfg);
    let position = match (&p.emb.position, cfg.position_encoding) {
        (Some(table), PositionEncoding::Learned) => embedding_forward(table.view(), &pos_ids),
        _ => embedding_forward(sinusoidal_table::<T>(pos_ids.iter().max().map_or(0, |m| m + 1), h).view(), &pos_ids),
    }; // (N, H)
    let token_type = match &p.emb.token_type {
        Some(table) => embedding_forward(table.view(), &batch.token_type_ids),
        None => Array2::zeros((b * t, h)),
    };
    let sum = &word + &position + &token_type;
    let (mut x, ln_mean, ln_rstd) = layernorm_forward(sum.view(), p.emb.ln.gamma.view(), p.emb.ln.beta.view(), eps);
    let drop = apply_dropout(&mut x, cfg.hidden_dropout_prob, &mut rng);
    let emb = EmbeddingTrace { word, position, token_type, sum, ln_mean, ln_rstd, drop };

    let mut hidden = vec![x];
    let mut layers = Vec::with_capacity(p.layers.len());
    let sh = AttnShape { causal: cfg.is_decoder, ..AttnShape::selfish(b, t, nh) };
    for (li, lp) in p.layers.iter().enumerate() {
        let input = hidden.last().expect("input").view();
        let rows = opts.last_layer_rows.as_ref().filter(|_| li + 1 == p.layers.len());
        if let Some(&r) = rows.and_then(|rs| rs.iter().find(|&&r| r >= b * t)) {
            return Err(BertError::Input(format!("last-layer row {r} is outside the batch ({} rows)", b * t)));
        }
        let attn_mask = match rng.as_mut() {
            Some(r) if cfg.attention_probs_dropout_prob > 0.0 => Some(dropout_mask((b, nh, t, t), cfg.attention_probs_dropout_prob, r)),
            _ => None,
        };
        // One row per sequence, in order (a [MASK], a tag, [CLS]), no attention dropout, not
        // causal: the attention itself runs for those queries only, (B, NH, 1, T) instead of
        // (B, NH, T, T), and Q for those rows (keys and values stay at every row).
        let query_rows =
            rows.filter(|rs| attn_mask.is_none() && !sh.causal && rs.len() == b && rs.iter().enumerate().all(|(i, &r)| r / t == i));
        let q = match query_rows {
            Some(rs) => linear_forward(embedding_forward(input, rs).view(), lp.query.weight.view(), Some(lp.query.bias.view())),
            None => linear_forward(input, lp.query.weight.view(), Some(lp.query.bias.view())),
        };
        let k = linear_forward(input, lp.key.weight.view(), Some(lp.key.bias.view()));
        let v = linear_forward(input, lp.value.weight.view(), Some(lp.value.bias.view()));
        let hm = opts.head_mask.as_ref().map(|m| m.row(li));
        let ash = if query_rows.is_some() { AttnShape { t: 1, ..sh } } else { sh };
        let (context, attn) = attention_forward(q.view(), k.view(), v.view(), &ash, mask.view(), hm, attn_mask);
        // the rows the rest of the layer runs for: all, or the gathered few (R, H)
        let (ctx_rows, input_rows) = match (rows, query_rows) {
            (Some(rs), Some(_)) => (context.clone(), embedding_forward(input, rs)),
            (Some(rs), None) => (embedding_forward(context.view(), rs), embedding_forward(input, rs)),
            (None, _) => (context.clone(), input.to_owned()),
        };
        let mut attn_dense = linear_forward(ctx_rows.view(), lp.attn_out.weight.view(), Some(lp.attn_out.bias.view()));
        let attn_drop = apply_dropout(&mut attn_dense, cfg.hidden_dropout_prob, &mut rng);
        let attn_res = &attn_dense + &input_rows;
        let (attn_ln_out, attn_ln_mean, attn_ln_rstd) =
            layernorm_forward(attn_res.view(), lp.attn_ln.gamma.view(), lp.attn_ln.beta.view(), eps);
        // a decoder layer: attention on the encoder, between the self-attention and the FFN
        let cross = match (&lp.cross, &opts.encoder) {
            (Some(c), Some(enc)) => {
                if rows.is_some() {
                    return Err(BertError::Input("last_layer_rows is not for a decoder".into()));
                }
                Some(cross_forward(c, cfg, enc, attn_ln_out.view(), b, t, &mut rng)?)
            }
            (Some(_), None) => return Err(BertError::Input("a decoder needs the encoder's output (ForwardOptions::encoder)".into())),
            (None, _) => None,
        };
        let ffn_in = cross.as_ref().map_or(attn_ln_out.view(), |c| c.ln_out.view());
        let ffn_pre = linear_forward(ffn_in, lp.intermediate.weight.view(), Some(lp.intermediate.bias.view()));
        let ffn_act = activation_forward(cfg.activation(), ffn_pre.view());
        let mut ffn_out = linear_forward(ffn_act.view(), lp.output.weight.view(), Some(lp.output.bias.view()));
        let ffn_drop = apply_dropout(&mut ffn_out, cfg.hidden_dropout_prob, &mut rng);
        let out_res = &ffn_out + &ffn_in;
        let (mut out, out_ln_mean, out_ln_rstd) = layernorm_forward(out_res.view(), lp.out_ln.gamma.view(), lp.out_ln.beta.view(), eps);
        if let Some(rs) = rows {
            let mut full = Array2::zeros((b * t, h)); // the other rows are 0: nothing reads them
            crate::cpu::embedding::embedding_backward(out.view(), rs, full.view_mut()); // scatter
            out = full;
        }
        // attn_dense/ffn_out are kept after dropout: they are what the residual adds.
        layers.push(LayerTrace {
            rows: rows.cloned(),
            q,
            k,
            v,
            attn,
            context,
            attn_dense,
            attn_drop,
            attn_res,
            attn_ln_mean,
            attn_ln_rstd,
            attn_ln_out,
            ffn_pre,
            ffn_act,
            ffn_out,
            ffn_drop,
            out_res,
            out_ln_mean,
            out_ln_rstd,
            cross,
        });
        hidden.push(out);
    }

    let last = hidden.last().expect("hidden").view();
    let mlm = match (&p.mlm, &opts.mlm_rows) {
        (None, _) | (_, MlmRows::None) => None,
        (Some(head), rows) => {
            let rows: Vec<usize> = match rows {
                MlmRows::Rows(r) => r.clone(),
                _ => (0..b * t).collect(),
            };
            if let Some(&r) = rows.iter().find(|&&r| r >= b * t) {
                return Err(BertError::Input(format!("MLM row {r} is outside the batch ({} rows)", b * t)));
            }
            let x = embedding_forward(last, &rows); // (M, H) gather
            Some(mlm_forward(p, cfg, head, x.view(), rows, !opts.logits_in_loss))
        }
    };

    let pool = p.pooler.as_ref().map(|pl| {
        let cls = Array2::from_shape_fn((b, h), |(bi, j)| last[[bi * t, j]]); // (B, H)
        let act = cfg.pooler_activation();
        let pooled = pooler_act_forward(act, linear_forward(cls.view(), pl.weight.view(), Some(pl.bias.view())).view());
        let nsp_logits = p.nsp.as_ref().map(|n| linear_forward(pooled.view(), n.weight.view(), Some(n.bias.view())));
        PoolTrace { pooled, nsp_logits, act }
    });

    let task = match &p.task {
        Some(head) => Some(task_forward(head, cfg, last, pool.as_ref(), &mut rng)?),
        None => None,
    };

    let encoder = opts.encoder.clone().filter(|_| p.layers.iter().any(|l| l.cross.is_some()));
    Ok(ForwardTrace { b, t, mask, emb, hidden, layers, mlm, pool, task, head_mask: opts.head_mask.clone(), encoder })
}

/// The masked-LM head's logits (M, V) for rows `x` (M, H) of any hidden state (the logit lens);
/// None without an MLM head.
pub fn mlm_logits<T: Real>(p: &BertParams<T>, cfg: &BertConfig, x: ArrayView2<T>) -> Option<Array2<T>> {
    let head = p.mlm.as_ref()?;
    Some(mlm_forward(p, cfg, head, x, vec![], true).logits)
}

fn mlm_forward<T: Real>(
    p: &BertParams<T>,
    cfg: &BertConfig,
    head: &crate::model::params::MlmHead<T>,
    x: ArrayView2<T>,
    rows: Vec<usize>,
    with_logits: bool,
) -> MlmTrace<T> {
    let pre = linear_forward(x, head.transform.weight.view(), Some(head.transform.bias.view())); // (M, H)
    let act = activation_forward(cfg.mlm_activation(), pre.view());
    let (ln_out, ln_mean, ln_rstd) = layernorm_forward(act.view(), head.ln.gamma.view(), head.ln.beta.view(), cfg.layer_norm_eps);
    let dec = p.decoder().expect("mlm head has a decoder");
    let logits = match with_logits {
        true => linear_forward(ln_out.view(), dec.view(), Some(head.bias.view())), // (M, V)
        false => Array2::zeros((0, dec.nrows())),
    };
    MlmTrace { rows, pre, act, ln_mean, ln_rstd, ln_out, logits, label_logp: Vec::new() }
}
