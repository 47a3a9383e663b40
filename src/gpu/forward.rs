//! The forward pass on the GPU, step for step as `crate::model::forward` (the spec), keeping every
//! intermediate in a buffer: the backward reads them, and `trace_read` brings them back as the
//! same `ForwardTrace` the CPU path returns (so `inspect --device gpu` writes the same file).

use super::attend::{attend, AttnOut};
use super::context::GpuContext;
use super::cross::{record_cross_forward, GpuEncoder};
use super::kernels::attention::{is_weighted, AttnDims, AttnDropout};
use super::kernels::elementwise::{act_forward, dropout, Act};
use super::kernels::embedding::{embed_sum, gather};
use super::kernels::layernorm::layernorm_forward;
use super::kernels::matmul::linear;
use super::model::GpuModel;
use super::recorder::{Recorder, View};
use super::sites::site_seed;
use super::slots::Slot;
use crate::config::TaskKind;
use crate::cpu::position::sinusoidal_table;
use crate::error::{BertError, Result};
use crate::model::forward::{Batch, ForwardOptions, MlmRows};
use crate::model::task::head_dropout;

pub use super::trace::{GpuLayerTrace, GpuMlmTrace, GpuPoolTrace, GpuTaskTrace, GpuTrace};

/// Records the forward of `batch` into `rec`. With `keep_parts`, the word and token-type parts of
/// the embedding sum are kept too (the explainer shows them; training does not need them).
pub fn record_forward(
    rec: &mut Recorder<'_>,
    m: &GpuModel,
    batch: &Batch,
    opts: &ForwardOptions<f32>,
    keep_parts: bool,
) -> Result<GpuTrace> {
    let cfg = &m.cfg;
    batch.validate(cfg)?;
    let ctx: &GpuContext = rec.ctx();
    ctx.check_alive()?;
    let (b, t) = (batch.b, batch.t);
    let n = b * t;
    let (h, nh, inter, eps) = (cfg.hidden_size, cfg.num_attention_heads, cfg.intermediate_size, cfg.layer_norm_eps);
    let vocab = cfg.vocab_size;
    if let Some(hm) = &opts.head_mask {
        if hm.dim() != (cfg.num_hidden_layers, nh) {
            return Err(BertError::Input(format!(
                "head mask must be (layers, heads) = ({}, {nh}), got {:?}",
                cfg.num_hidden_layers,
                hm.dim()
            )));
        }
    }
    let seed = opts.dropout_seed.map(|s| (s ^ (s >> 32)) as u32);
    let drop = |site: usize, p: f64| seed.filter(|_| p > 0.0).map(|s| (site_seed(s, site), p as f32));
    let buf = |label: &str, len: usize| ctx.buffer(label, len);
    let ps = &m.slots;
    let w = |s: Slot| s.of(&m.params);

    let maskv: Vec<f32> = batch.attention_mask.iter().map(|&x| x as f32).collect();
    let mask = ctx.upload("attention_mask", &maskv)?;

    // Embeddings: word + position + token type, LayerNorm, dropout.
    // the position rows of every token (N, H), at the family's position ids (RoBERTa's skip pads)
    let pos_ids = batch.position_ids(cfg);
    let position = match ps.position {
        Some(slot) => {
            let out = buf("position", n * h)?;
            gather(rec, w(slot), &pos_ids, h, View::whole(&out))?;
            out
        }
        None => {
            let table = sinusoidal_table::<f32>(pos_ids.iter().max().map_or(0, |m| m + 1), h);
            let rows: Vec<f32> = pos_ids.iter().flat_map(|&p| table.row(p).to_vec()).collect();
            ctx.upload("position", &rows)?
        }
    };
    // no segment table (DistilBERT): a zero row for every token
    let zero_type;
    let type_t = match ps.token_type {
        Some(slot) => w(slot),
        None => {
            zero_type = ctx.upload("no_segments", &vec![0f32; h])?;
            View::whole(&zero_type)
        }
    };
    let type_ids: Vec<usize> = if ps.token_type.is_some() { batch.token_type_ids.clone() } else { vec![0; n] };
    // the word rows: looked up by id, or given (attributions move them): then row i is row i
    let rows_buf;
    let (word_t, word_ids): (View<'_>, Vec<usize>) = match &opts.word_rows {
        Some(r) if r.dim() == (n, h) => {
            rows_buf = ctx.upload("word_rows", r.as_standard_layout().as_slice().expect("standard layout"))?;
            (View::whole(&rows_buf), (0..n).collect())
        }
        Some(r) => return Err(BertError::Input(format!("word rows must be (B*T, H) = ({n}, {h}), got {:?}", r.dim()))),
        None => (w(ps.word), batch.input_ids.clone()),
    };
    let sum = buf("emb_sum", n * h)?;
    // position rows are per token, so the kernel's row % T is the row itself
    embed_sum(rec, word_t, View::whole(&position), type_t, &word_ids, &type_ids, n, h, View::whole(&sum))?;
    let (word, token_type) = if keep_parts {
        let wb = buf("emb_word", n * h)?;
        gather(rec, word_t, &word_ids, h, View::whole(&wb))?;
        let tb = buf("emb_type", n * h)?;
        gather(rec, type_t, &type_ids, h, View::whole(&tb))?;
        (Some(wb), Some(tb))
    } else {
        (None, None)
    };
    let (x0, ln_mean, ln_rstd) = (buf("hidden0", n * h)?, buf("emb_ln_mean", n)?, buf("emb_ln_rstd", n)?);
    layernorm_forward(
        rec,
        View::whole(&sum),
        None,
        w(ps.emb_ln.gamma),
        w(ps.emb_ln.beta),
        View::whole(&x0),
        View::whole(&ln_mean),
        View::whole(&ln_rstd),
        n,
        h,
        eps,
    )?;
    if let Some((s, p)) = drop(0, cfg.hidden_dropout_prob) {
        dropout(rec, View::whole(&x0), n * h, p, s)?;
    }

    // a decoder's encoder (what its cross-attention reads), uploaded once
    let encoder = match (ps.layers.iter().any(|l| l.cross.is_some()), &opts.encoder) {
        (true, Some(enc)) => Some(GpuEncoder::upload(rec, enc, b, h)?),
        (true, None) => return Err(BertError::Input("a decoder needs the encoder's output (ForwardOptions::encoder)".into())),
        (false, _) => None,
    };
    let mut hidden = vec![x0];
    let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
    let dims = AttnDims { causal: cfg.is_decoder, ..AttnDims::selfish(b, t, nh, h / nh) };
    let act: Act = cfg.activation().into();
    for l in 0..cfg.num_hidden_layers {
        let ls = &ps.layers[l];
        let input = View::whole(hidden.last().expect("input"));
        let (q, k, v) = (buf("q", n * h)?, buf("k", n * h)?, buf("v", n * h)?);
        for (out, lin) in [(&q, ls.query), (&k, ls.key), (&v, ls.value)] {
            linear(rec, input, w(lin.weight), Some(w(lin.bias)), View::whole(out), n, h, h)?;
        }
        let hrow: Vec<f32> = match &opts.head_mask {
            Some(hm) => hm.row(l).to_vec(),
            None => vec![1.0; nh],
        };
        let head = ctx.upload("head_mask", &hrow)?;
        let adrop = drop(1 + 3 * l, cfg.attention_probs_dropout_prob).map(|(seed, p)| AttnDropout { p, seed });
        let weighted = is_weighted(opts.head_mask.is_some(), adrop);
        let qkv = (View::whole(&q), View::whole(&k), View::whole(&v));
        let AttnOut { scores, probs, pw, context } = attend(rec, &dims, "", qkv, View::whole(&mask), View::whole(&head), adrop, weighted)?;
        let attn_dense = buf("attn_dense", n * h)?;
        linear(rec, View::whole(&context), w(ls.attn_out.weight), Some(w(ls.attn_out.bias)), View::whole(&attn_dense), n, h, h)?;
        if let Some((s, p)) = drop(2 + 3 * l, cfg.hidden_dropout_prob) {
            dropout(rec, View::whole(&attn_dense), n * h, p, s)?;
        }
        let (attn_res, attn_ln_out) = (buf("attn_res", n * h)?, buf("attn_ln_out", n * h)?);
        let (attn_ln_mean, attn_ln_rstd) = (buf("attn_ln_mean", n)?, buf("attn_ln_rstd", n)?);
        layernorm_forward(
            rec,
            View::whole(&attn_dense),
            Some((input, View::whole(&attn_res))),
            w(ls.attn_ln.gamma),
            w(ls.attn_ln.beta),
            View::whole(&attn_ln_out),
            View::whole(&attn_ln_mean),
            View::whole(&attn_ln_rstd),
            n,
            h,
            eps,
        )?;
        // a decoder layer: attention on the encoder, between the self-attention and the FFN
        let cross = match (&ls.cross, &encoder) {
            (Some(cs), Some(enc)) => Some(record_cross_forward(rec, m, cs, enc, View::whole(&attn_ln_out), (b, t, l), seed)?),
            _ => None,
        };
        let ffn_in = View::whole(cross.as_ref().map_or(&attn_ln_out, |c| &c.ln_out));
        let (ffn_pre, ffn_act) = (buf("ffn_pre", n * inter)?, buf("ffn_act", n * inter)?);
        linear(rec, ffn_in, w(ls.intermediate.weight), Some(w(ls.intermediate.bias)), View::whole(&ffn_pre), n, h, inter)?;
        act_forward(rec, act, View::whole(&ffn_pre), View::whole(&ffn_act), n * inter)?;
        let ffn_out = buf("ffn_out", n * h)?;
        linear(rec, View::whole(&ffn_act), w(ls.output.weight), Some(w(ls.output.bias)), View::whole(&ffn_out), n, inter, h)?;
        if let Some((s, p)) = drop(3 + 3 * l, cfg.hidden_dropout_prob) {
            dropout(rec, View::whole(&ffn_out), n * h, p, s)?;
        }
        let (out_res, out) = (buf("out_res", n * h)?, buf("hidden", n * h)?);
        let (out_ln_mean, out_ln_rstd) = (buf("out_ln_mean", n)?, buf("out_ln_rstd", n)?);
        layernorm_forward(
            rec,
            View::whole(&ffn_out),
            Some((ffn_in, View::whole(&out_res))),
            w(ls.out_ln.gamma),
            w(ls.out_ln.beta),
            View::whole(&out),
            View::whole(&out_ln_mean),
            View::whole(&out_ln_rstd),
            n,
            h,
            eps,
        )?;
        layers.push(GpuLayerTrace {
            q,
            k,
            v,
            scores,
            probs,
            pw,
            weighted,
            head,
            context,
            attn_dense,
            attn_res,
            attn_ln_mean,
            attn_ln_rstd,
            attn_ln_out,
            ffn_pre,
            ffn_act,
            ffn_out,
            out_res,
            out_ln_mean,
            out_ln_rstd,
            cross,
        });
        hidden.push(out);
    }

    let last = View::whole(hidden.last().expect("hidden"));
    let mlm = match (&ps.mlm, &opts.mlm_rows) {
        (None, _) | (_, MlmRows::None) => None,
        (Some(mh), rows) => {
            let rows: Vec<usize> = match rows {
                MlmRows::Rows(r) => r.clone(),
                _ => (0..n).collect(),
            };
            if let Some(&r) = rows.iter().find(|&&r| r >= n) {
                return Err(BertError::Input(format!("MLM row {r} is outside the batch ({n} rows)")));
            }
            let mm = rows.len();
            let x = buf("mlm_x", mm * h)?;
            gather(rec, last, &rows, h, View::whole(&x))?;
            let (pre, actb, ln_out) = (buf("mlm_pre", mm * h)?, buf("mlm_act", mm * h)?, buf("mlm_ln_out", mm * h)?);
            let (lm, lr) = (buf("mlm_ln_mean", mm)?, buf("mlm_ln_rstd", mm)?);
            linear(rec, View::whole(&x), w(mh.transform.weight), Some(w(mh.transform.bias)), View::whole(&pre), mm, h, h)?;
            act_forward(rec, cfg.mlm_activation().into(), View::whole(&pre), View::whole(&actb), mm * h)?;
            layernorm_forward(
                rec,
                View::whole(&actb),
                None,
                w(mh.ln.gamma),
                w(mh.ln.beta),
                View::whole(&ln_out),
                View::whole(&lm),
                View::whole(&lr),
                mm,
                h,
                eps,
            )?;
            let logits = buf("mlm_logits", mm * vocab)?;
            linear(rec, View::whole(&ln_out), w(mh.decoder), Some(w(mh.bias)), View::whole(&logits), mm, h, vocab)?;
            Some(GpuMlmTrace { rows, x, pre, act: actb, ln_mean: lm, ln_rstd: lr, ln_out, logits })
        }
    };

    let pool = if let Some(pl) = &ps.pooler {
        let cls_rows: Vec<usize> = (0..b).map(|bi| bi * t).collect();
        let cls = buf("cls", b * h)?;
        gather(rec, last, &cls_rows, h, View::whole(&cls))?;
        let pre = buf("pool_pre", b * h)?;
        linear(rec, View::whole(&cls), w(pl.weight), Some(w(pl.bias)), View::whole(&pre), b, h, h)?;
        let pooled = buf("pooled", b * h)?;
        act_forward(rec, cfg.pooler_activation().into(), View::whole(&pre), View::whole(&pooled), b * h)?;
        let nsp_logits = if let Some(ns) = &ps.nsp {
            let nl = buf("nsp_logits", b * 2)?;
            linear(rec, View::whole(&pooled), w(ns.weight), Some(w(ns.bias)), View::whole(&nl), b, h, 2)?;
            Some(nl)
        } else {
            None
        };
        Some(GpuPoolTrace { cls, pooled, nsp_logits, act: cfg.pooler_activation().into() })
    } else {
        None
    };

    // A fine-tuning head (model::task): on the pooled [CLS] or on every token.
    let task = match &ps.task {
        Some((kind, lin)) => {
            let outs = lin.bias.len;
            let (rows, src) = match kind {
                TaskKind::SequenceClassification => {
                    let pt = pool.as_ref().ok_or_else(|| BertError::Config("a sequence classifier needs the pooler".into()))?;
                    (b, View::whole(&pt.pooled))
                }
                _ => (n, last),
            };
            let input = buf("task_input", rows * h)?;
            rec.copy(src, View::whole(&input));
            if let Some((s, p)) = drop(1 + 3 * cfg.num_hidden_layers, head_dropout(cfg, *kind)) {
                dropout(rec, View::whole(&input), rows * h, p, s)?;
            }
            let logits = buf("task_logits", rows * outs)?;
            linear(rec, View::whole(&input), w(lin.weight), Some(w(lin.bias)), View::whole(&logits), rows, h, outs)?;
            Some(GpuTaskTrace { kind: *kind, rows, input, logits })
        }
        None => None,
    };

    Ok(GpuTrace {
        b,
        t,
        mask,
        word,
        position,
        token_type,
        sum,
        ln_mean,
        ln_rstd,
        hidden,
        layers,
        mlm,
        pool,
        task,
        head_mask: opts.head_mask.clone(),
        dropout_seed: seed,
        encoder,
    })
}
