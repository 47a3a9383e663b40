//! The backward pass on the GPU, block for block as `crate::model::backward` (the spec): MLM and
//! NSP cross-entropy, then the layers last to first, then the embeddings. Parameter gradients
//! accumulate into a buffer with the parameters' layout; the loss comes back as per-row values
//! (read with whatever else the step reads, in the same readback: `loss.rs`). A decoder layer's
//! cross-attention block goes back through `cross.rs`, which sums the encoder states' gradient.

use super::attend::{attend_backward, AttnSaved};
use super::cross::{record_cross_backward, CrossBlock};
use super::kernels::attention::{AttnDims, AttnDropout};
use super::kernels::cross_entropy::cross_entropy;
use super::kernels::elementwise::{act_backward, dropout, Act};
use super::kernels::embedding::{scatter_add, scatter_add_except};
use super::kernels::layernorm::{layernorm_backward, LnSaved};
use super::kernels::matmul::linear_backward;
use super::kernels::reduce::colsum;
pub use super::loss::{GpuLoss, LossReads};
use super::model::GpuModel;
use super::recorder::{Recorder, View};
use super::sites::site_seed;
use super::slots::Slot;
use super::task::{record_task_backward, HeadGrads};
use super::trace::GpuTrace;
use crate::error::{BertError, Result};
use crate::model::backward::Targets;
use crate::model::forward::Batch;
use crate::model::task::head_dropout;

/// Bias gradient of a linear layer: db += column sums of dy (rows, out).
fn bias_grad(rec: &mut Recorder<'_>, dy: View<'_>, rows: usize, out: usize, db: View<'_>) -> Result<()> {
    colsum(rec, dy, rows, out, db)
}

/// Records the backward of `tr` (consumed: logits become their gradients in place), adding the
/// parameter gradients into `grads` (zero it first for a fresh step). `d_last` (N, H) is a gradient
/// arriving at the last hidden state from outside (an encoder's, from its decoder's
/// cross-attention), as `model::backward::backward_full`; None otherwise.
pub fn record_backward(
    rec: &mut Recorder<'_>,
    m: &GpuModel,
    grads: &wgpu::Buffer,
    batch: &Batch,
    tr: &GpuTrace,
    targets: &Targets,
    d_last: Option<View<'_>>,
) -> Result<LossReads> {
    let cfg = &m.cfg;
    targets.validate(cfg, batch)?;
    let ctx = rec.ctx();
    let (b, t, h, inter, vocab) = (tr.b, tr.t, cfg.hidden_size, cfg.intermediate_size, cfg.vocab_size);
    let n = b * t;
    let nh = cfg.num_attention_heads;
    let act: Act = cfg.activation().into();
    let mlm_act: Act = cfg.mlm_activation().into();
    let ps = &m.slots;
    let g = |s: Slot| s.of(grads);
    let w = |s: Slot| s.of(&m.params);
    let buf = |label: &str, len: usize| ctx.buffer(label, len);
    let drop = |site: usize, p: f64| tr.dropout_seed.filter(|_| p > 0.0).map(|s| (site_seed(s, site), p as f32));
    let dx = buf("d_hidden", n * h)?; // d last hidden, zeroed
    match d_last {
        Some(d) if d.len == n * h => rec.copy(d, View::whole(&dx)),
        Some(d) => return Err(BertError::Input(format!("the last hidden state's gradient must be {n} x {h}, got {} values", d.len))),
        None => {}
    }
    let d_enc = tr.encoder.as_ref().map(|e| buf("d_encoder", b * e.s * h)).transpose()?; // zeroed
    let mut reads = LossReads { mlm: None, nsp: None, task: None, d_sum: None, d_encoder: None };

    // A fine-tuning head (gpu::task).
    if let Some(labels) = &targets.task {
        let tt = tr.task.as_ref().ok_or_else(|| BertError::Input("task labels given, but the model has no task head".into()))?;
        let (_, lin) = ps.task.as_ref().ok_or_else(|| BertError::Input("task labels given, but the model has no task head".into()))?;
        labels.validate(tt.kind, lin.bias.len, b, t)?;
        let pooler = match (&ps.pooler, &tr.pool) {
            (Some(pl), Some(pt)) => Some((w(pl.weight), g(pl.weight), g(pl.bias), pt)),
            _ => None,
        };
        let site = drop(1 + 3 * cfg.num_hidden_layers, head_dropout(cfg, tt.kind));
        let hg = HeadGrads { head: (*lin, w(lin.weight), g(lin.weight), g(lin.bias)), pooler };
        reads.task = Some(record_task_backward(rec, tt, labels, hg, site, (b, t, h), View::whole(&dx))?);
    }

    if let (Some(labels), Some(mh)) = (&targets.mlm_labels, &ps.mlm) {
        let mt = tr.mlm.as_ref().ok_or_else(|| BertError::Input("MLM labels given but the forward computed no MLM logits".into()))?;
        let covered: std::collections::HashSet<usize> = mt.rows.iter().copied().collect();
        if let Some(r) = targets.labelled_rows().into_iter().find(|r| !covered.contains(r)) {
            return Err(BertError::Input(format!("row {r} is labelled but has no MLM logits in the trace")));
        }
        let mm = mt.rows.len();
        let tgt: Vec<i64> = mt.rows.iter().map(|&r| labels[r]).collect();
        let stats = buf("mlm_stats", 2 * mm)?;
        cross_entropy(rec, View::whole(&mt.logits), &tgt, vocab, View::whole(&stats))?; // logits -> dlogits
        reads.mlm = Some((rec.read(View::whole(&stats)), tgt));
        let dln = buf("d_mlm_ln", mm * h)?;
        linear_backward(
            rec,
            View::whole(&mt.logits),
            View::whole(&mt.ln_out),
            w(mh.decoder),
            Some((View::whole(&dln), false)),
            g(mh.decoder),
            (mm, h, vocab),
        )?;
        bias_grad(rec, View::whole(&mt.logits), mm, vocab, g(mh.bias))?;
        let dact = buf("d_mlm_act", mm * h)?;
        layernorm_backward(
            rec,
            View::whole(&dln),
            LnSaved { x: View::whole(&mt.act), mean: View::whole(&mt.ln_mean), rstd: View::whole(&mt.ln_rstd) },
            w(mh.ln.gamma),
            (View::whole(&dact), false),
            (g(mh.ln.gamma), g(mh.ln.beta)),
            (mm, h),
        )?;
        let dpre = buf("d_mlm_pre", mm * h)?;
        act_backward(rec, mlm_act, View::whole(&mt.pre), View::whole(&dact), View::whole(&dpre), mm * h)?;
        let dxm = buf("d_mlm_x", mm * h)?;
        linear_backward(
            rec,
            View::whole(&dpre),
            View::whole(&mt.x),
            w(mh.transform.weight),
            Some((View::whole(&dxm), false)),
            g(mh.transform.weight),
            (mm, h, h),
        )?;
        bias_grad(rec, View::whole(&dpre), mm, h, g(mh.transform.bias))?;
        scatter_add(rec, View::whole(&dxm), &mt.rows, h, View::whole(&dx))?;
    }

    if let (Some(labels), Some(pool)) = (&targets.nsp_labels, &tr.pool) {
        if let Some(nl) = &pool.nsp_logits {
            let (Some(pl), Some(ns)) = (&ps.pooler, &ps.nsp) else {
                return Err(BertError::Gpu("NSP logits without the pooler's and the NSP head's weights".into()));
            };
            let stats = buf("nsp_stats", 2 * b)?;
            cross_entropy(rec, View::whole(nl), labels, 2, View::whole(&stats))?;
            reads.nsp = Some((rec.read(View::whole(&stats)), labels.clone()));
            let dpooled = buf("d_pooled", b * h)?;
            linear_backward(
                rec,
                View::whole(nl),
                View::whole(&pool.pooled),
                w(ns.weight),
                Some((View::whole(&dpooled), false)),
                g(ns.weight),
                (b, h, 2),
            )?;
            bias_grad(rec, View::whole(nl), b, 2, g(ns.bias))?;
            let dpre = buf("d_pool_pre", b * h)?;
            act_backward(rec, pool.act, View::whole(&pool.pooled), View::whole(&dpooled), View::whole(&dpre), b * h)?;
            let dcls = buf("d_cls", b * h)?;
            linear_backward(
                rec,
                View::whole(&dpre),
                View::whole(&pool.cls),
                w(pl.weight),
                Some((View::whole(&dcls), false)),
                g(pl.weight),
                (b, h, h),
            )?;
            bias_grad(rec, View::whole(&dpre), b, h, g(pl.bias))?;
            let cls_rows: Vec<usize> = (0..b).map(|bi| bi * t).collect();
            scatter_add(rec, View::whole(&dcls), &cls_rows, h, View::whole(&dx))?;
        }
    }

    let dims = AttnDims { causal: cfg.is_decoder, ..AttnDims::selfish(b, t, nh, h / nh) };
    let mut dx = dx;
    for l in (0..cfg.num_hidden_layers).rev() {
        let lt = &tr.layers[l];
        let ls = &ps.layers[l];
        let input = View::whole(&tr.hidden[l]);
        // out = LN(out_res), out_res = ffn_out + attn_ln_out
        let d_out_res = buf("d_out_res", n * h)?;
        layernorm_backward(
            rec,
            View::whole(&dx),
            LnSaved { x: View::whole(&lt.out_res), mean: View::whole(&lt.out_ln_mean), rstd: View::whole(&lt.out_ln_rstd) },
            w(ls.out_ln.gamma),
            (View::whole(&d_out_res), false),
            (g(ls.out_ln.gamma), g(ls.out_ln.beta)),
            (n, h),
        )?;
        // ffn_out = dropout(ffn_act W_o^T + b_o)
        let d_ffn_out = match drop(3 + 3 * l, cfg.hidden_dropout_prob) {
            Some((s, p)) => {
                let d = buf("d_ffn_out", n * h)?;
                rec.copy(View::whole(&d_out_res), View::whole(&d));
                dropout(rec, View::whole(&d), n * h, p, s)?;
                d
            }
            None => d_out_res.clone(),
        };
        let d_ffn_act = buf("d_ffn_act", n * inter)?;
        linear_backward(
            rec,
            View::whole(&d_ffn_out),
            View::whole(&lt.ffn_act),
            w(ls.output.weight),
            Some((View::whole(&d_ffn_act), false)),
            g(ls.output.weight),
            (n, inter, h),
        )?;
        bias_grad(rec, View::whole(&d_ffn_out), n, h, g(ls.output.bias))?;
        // ffn_act = act(ffn_pre), ffn_pre = ffn_in W_i^T + b_i; ffn_in = attn_ln_out, or in a
        // decoder the cross block's output
        let d_ffn_pre = buf("d_ffn_pre", n * inter)?;
        act_backward(rec, act, View::whole(&lt.ffn_pre), View::whole(&d_ffn_act), View::whole(&d_ffn_pre), n * inter)?;
        let d_ffn_in = buf("d_ffn_in", n * h)?;
        rec.copy(View::whole(&d_out_res), View::whole(&d_ffn_in));
        linear_backward(
            rec,
            View::whole(&d_ffn_pre),
            View::whole(lt.cross.as_ref().map_or(&lt.attn_ln_out, |c| &c.ln_out)),
            w(ls.intermediate.weight),
            Some((View::whole(&d_ffn_in), true)),
            g(ls.intermediate.weight),
            (n, h, inter),
        )?;
        bias_grad(rec, View::whole(&d_ffn_pre), n, inter, g(ls.intermediate.bias))?;
        let d_attn_ln_out = match (&ls.cross, &lt.cross, &tr.encoder, &d_enc) {
            (Some(cs), Some(ct), Some(enc), Some(de)) => {
                let cb = CrossBlock { m, cs, enc, dims: (b, t, l), seed: tr.dropout_seed };
                record_cross_backward(rec, &cb, (ct, View::whole(&lt.attn_ln_out)), View::whole(&d_ffn_in), grads, View::whole(de))?
            }
            _ => d_ffn_in,
        };
        // attn_ln_out = LN(attn_res), attn_res = attn_dense + input
        let d_attn_res = buf("d_attn_res", n * h)?;
        layernorm_backward(
            rec,
            View::whole(&d_attn_ln_out),
            LnSaved { x: View::whole(&lt.attn_res), mean: View::whole(&lt.attn_ln_mean), rstd: View::whole(&lt.attn_ln_rstd) },
            w(ls.attn_ln.gamma),
            (View::whole(&d_attn_res), false),
            (g(ls.attn_ln.gamma), g(ls.attn_ln.beta)),
            (n, h),
        )?;
        let d_input = buf("d_input", n * h)?;
        rec.copy(View::whole(&d_attn_res), View::whole(&d_input));
        // attn_dense = dropout(context W_O^T + b_O)
        let d_attn_dense = match drop(2 + 3 * l, cfg.hidden_dropout_prob) {
            Some((s, p)) => {
                let d = buf("d_attn_dense", n * h)?;
                rec.copy(View::whole(&d_attn_res), View::whole(&d));
                dropout(rec, View::whole(&d), n * h, p, s)?;
                d
            }
            None => d_attn_res.clone(),
        };
        let d_context = buf("d_context", n * h)?;
        linear_backward(
            rec,
            View::whole(&d_attn_dense),
            View::whole(&lt.context),
            w(ls.attn_out.weight),
            Some((View::whole(&d_context), false)),
            g(ls.attn_out.weight),
            (n, h, h),
        )?;
        bias_grad(rec, View::whole(&d_attn_dense), n, h, g(ls.attn_out.bias))?;
        let adrop = drop(1 + 3 * l, cfg.attention_probs_dropout_prob).map(|(seed, p)| AttnDropout { p, seed });
        let saved = AttnSaved::of([&lt.q, &lt.k, &lt.v, &lt.probs, &lt.pw, &lt.head], lt.weighted);
        let (dq, dk, dv) = attend_backward(rec, &dims, "", View::whole(&d_context), &saved, adrop)?;
        for (d, lin) in [(&dq, ls.query), (&dk, ls.key), (&dv, ls.value)] {
            linear_backward(rec, View::whole(d), input, w(lin.weight), Some((View::whole(&d_input), true)), g(lin.weight), (n, h, h))?;
            bias_grad(rec, View::whole(d), n, h, g(lin.bias))?;
        }
        dx = d_input;
    }

    // Embeddings: out = dropout(LN(word + position + token_type)).
    if let Some((s, p)) = drop(0, cfg.hidden_dropout_prob) {
        dropout(rec, View::whole(&dx), n * h, p, s)?;
    }
    let d_sum = buf("d_emb_sum", n * h)?;
    layernorm_backward(
        rec,
        View::whole(&dx),
        LnSaved { x: View::whole(&tr.sum), mean: View::whole(&tr.ln_mean), rstd: View::whole(&tr.ln_rstd) },
        w(ps.emb_ln.gamma),
        (View::whole(&d_sum), false),
        (g(ps.emb_ln.gamma), g(ps.emb_ln.beta)),
        (n, h),
    )?;
    // as the CPU: nn.Embedding(padding_idx = pad) sends the pad rows no gradient
    scatter_add_except(rec, View::whole(&d_sum), &batch.input_ids, cfg.pad_token_id(), h, g(ps.word))?;
    if let Some(tt) = ps.token_type {
        scatter_add(rec, View::whole(&d_sum), &batch.token_type_ids, h, g(tt))?;
    }
    if let Some(pos) = ps.position {
        let pad = cfg.pad_token_id().filter(|_| cfg.family == crate::config::Family::Roberta);
        scatter_add_except(rec, View::whole(&d_sum), &batch.position_ids(cfg), pad, h, g(pos))?;
    }
    reads.d_sum = Some(d_sum);
    reads.d_encoder = d_enc;
    Ok(reads)
}
