//! A decoder layer's cross-attention block on the GPU (HF `BertLayer.crossattention`), forward and
//! backward side by side, step for step as `crate::model::cross` (the spec): Q from the
//! self-attention block's output, K and V from the encoder's states, the encoder's padding masked;
//! dense, dropout, residual, LayerNorm. The encoder's states come up once per forward (`GpuEncoder`).

use super::attend::{attend, attend_backward, AttnOut, AttnSaved};
use super::block_reads::BlockReads;
use super::kernels::attention::{is_weighted, AttnDims, AttnDropout, Multiplier};
use super::kernels::elementwise::dropout;
use super::kernels::layernorm::{layernorm_backward, layernorm_forward, LnIn, LnOut, LnSaved};
use super::kernels::matmul::{linear, linear_backward};
use super::kernels::reduce::colsum;
use super::model::GpuModel;
use super::recorder::{Recorder, View};
pub use super::sites::cross_sites;
use super::sites::site_seed;
use super::slots::{CrossSlots, Slot};
pub use super::trace::{GpuCrossTrace, GpuEncoder};
use crate::error::Result;

/// The seeds of a cross block's two dropout sites (None where off).
fn drops(m: &GpuModel, seed: Option<u32>, l: usize) -> (Option<AttnDropout>, Option<(u32, f32)>) {
    let cfg = &m.cfg;
    let (sa, sd) = cross_sites(l, cfg.num_hidden_layers);
    let at = |site: usize, p: f64| seed.filter(|_| p > 0.0).map(|s| (site_seed(s, site), p as f32));
    let adrop = at(sa, cfg.attention_probs_dropout_prob).map(|(seed, p)| AttnDropout { p, seed });
    (adrop, at(sd, cfg.hidden_dropout_prob))
}

fn dims(m: &GpuModel, b: usize, t: usize, s: usize) -> AttnDims {
    let nh = m.cfg.num_attention_heads;
    AttnDims { b, t, nh, hd: m.cfg.hidden_size / nh, tk: s, causal: false }
}

/// Layer `l`'s cross block in a batch of `b` x `t` decoder tokens: its model, weights, the encoder
/// states it reads and the dropout seed (None: off).
pub struct CrossBlock<'a> {
    pub m: &'a GpuModel,
    pub cs: &'a CrossSlots,
    pub enc: &'a GpuEncoder,
    pub dims: (usize, usize, usize),
    pub seed: Option<u32>,
}

/// Records the cross block `cb` on `x` (N, H), the self-attention block's output.
pub fn record_cross_forward(rec: &mut Recorder<'_>, cb: &CrossBlock<'_>, x: View<'_>) -> Result<GpuCrossTrace> {
    let CrossBlock { m, cs, enc, dims: (b, t, l), seed } = *cb;
    let ctx = rec.ctx();
    let (h, nh, s) = (m.cfg.hidden_size, m.cfg.num_attention_heads, enc.s);
    let (n, ns) = (b * t, b * s);
    let w = |sl: Slot| sl.of(&m.params);
    let buf = |label: &str, len: usize| ctx.buffer(label, len);
    let (q, k, v) = (buf("cross_q", n * h)?, buf("cross_k", ns * h)?, buf("cross_v", ns * h)?);
    linear(rec, x, w(cs.query.weight), Some(w(cs.query.bias)), View::whole(&q), (n, h, h))?;
    let e = View::whole(&enc.hidden);
    linear(rec, e, w(cs.key.weight), Some(w(cs.key.bias)), View::whole(&k), (ns, h, h))?;
    linear(rec, e, w(cs.value.weight), Some(w(cs.value.bias)), View::whole(&v), (ns, h, h))?;
    let (adrop, ddrop) = drops(m, seed, l);
    let weighted = is_weighted(false, adrop);
    let head = ctx.upload("cross_head", &vec![1f32; nh])?;
    let qkv = (View::whole(&q), View::whole(&k), View::whole(&v));
    let AttnOut { scores, probs, pw, context } = attend(
        rec,
        &dims(m, b, t, s),
        "cross_",
        qkv,
        View::whole(&enc.mask),
        Multiplier { head: View::whole(&head), drop: adrop, weighted },
    )?;
    let dense = buf("cross_dense", n * h)?;
    linear(rec, View::whole(&context), w(cs.out.weight), Some(w(cs.out.bias)), View::whole(&dense), (n, h, h))?;
    if let Some((sd, p)) = ddrop {
        dropout(rec, View::whole(&dense), n * h, p, sd)?;
    }
    let (res, ln_out) = (buf("cross_res", n * h)?, buf("cross_ln_out", n * h)?);
    let (ln_mean, ln_rstd) = (buf("cross_ln_mean", n)?, buf("cross_ln_rstd", n)?);
    let (g, bt, o) = (w(cs.ln.gamma), w(cs.ln.beta), View::whole(&ln_out));
    let eps = m.cfg.layer_norm_eps;
    layernorm_forward(
        rec,
        LnIn { x: View::whole(&dense), residual: Some((x, View::whole(&res))), gamma: g, beta: bt },
        LnOut { out: o, mean: View::whole(&ln_mean), rstd: View::whole(&ln_rstd) },
        (n, h),
        eps,
    )?;
    Ok(GpuCrossTrace { q, k, v, scores, probs, pw, weighted, head, context, dense, res, ln_mean, ln_rstd, ln_out })
}

/// The backward of the cross block `cb` (its forward's trace `ct` on `x`): from `d_out` (N, H),
/// the gradient of its output, to the gradient of `x` (returned), adding the parameters' gradients
/// into `grads` and the encoder states' gradient (B*S, H) into `d_enc`.
pub fn record_cross_backward(
    rec: &mut Recorder<'_>,
    cb: &CrossBlock<'_>,
    (ct, x): (&GpuCrossTrace, View<'_>),
    d_out: View<'_>,
    grads: &wgpu::Buffer,
    d_enc: View<'_>,
) -> Result<wgpu::Buffer> {
    let CrossBlock { m, cs, enc, dims: (b, t, l), seed } = *cb;
    let ctx = rec.ctx();
    let (h, s) = (m.cfg.hidden_size, enc.s);
    let (n, ns) = (b * t, b * s);
    let w = |sl: Slot| sl.of(&m.params);
    let g = |sl: Slot| sl.of(grads);
    let buf = |label: &str, len: usize| ctx.buffer(label, len);
    let (adrop, ddrop) = drops(m, seed, l);
    // ln_out = LN(res), res = dense + x
    let d_res = buf("d_cross_res", n * h)?;
    let (rs, mean, rstd) = (View::whole(&ct.res), View::whole(&ct.ln_mean), View::whole(&ct.ln_rstd));
    layernorm_backward(
        rec,
        d_out,
        LnSaved { x: rs, mean, rstd },
        w(cs.ln.gamma),
        (View::whole(&d_res), false),
        (g(cs.ln.gamma), g(cs.ln.beta)),
        (n, h),
    )?;
    let dx = buf("d_cross_x", n * h)?;
    rec.copy(View::whole(&d_res), View::whole(&dx));
    // dense = dropout(context W_O^T + b_O)
    let d_dense = match ddrop {
        Some((sd, p)) => {
            let d = buf("d_cross_dense", n * h)?;
            rec.copy(View::whole(&d_res), View::whole(&d));
            dropout(rec, View::whole(&d), n * h, p, sd)?;
            d
        }
        None => d_res,
    };
    let d_context = buf("d_cross_context", n * h)?;
    let dc = Some((View::whole(&d_context), false));
    linear_backward(rec, View::whole(&d_dense), View::whole(&ct.context), w(cs.out.weight), dc, g(cs.out.weight), (n, h, h))?;
    colsum(rec, View::whole(&d_dense), n, h, g(cs.out.bias))?;
    let saved = AttnSaved::of([&ct.q, &ct.k, &ct.v, &ct.probs, &ct.pw, &ct.head], ct.weighted);
    let (dq, dk, dv) = attend_backward(rec, &dims(m, b, t, s), "cross_", View::whole(&d_context), &saved, adrop)?;
    // q = x W_Q^T + b_Q; k, v from the encoder's states
    let acc_dx = Some((View::whole(&dx), true));
    linear_backward(rec, View::whole(&dq), x, w(cs.query.weight), acc_dx, g(cs.query.weight), (n, h, h))?;
    colsum(rec, View::whole(&dq), n, h, g(cs.query.bias))?;
    let e = View::whole(&enc.hidden);
    for (d, lin) in [(&dk, cs.key), (&dv, cs.value)] {
        linear_backward(rec, View::whole(d), e, w(lin.weight), Some((d_enc, true)), g(lin.weight), (ns, h, h))?;
        colsum(rec, View::whole(d), ns, h, g(lin.bias))?;
    }
    Ok(dx)
}

impl GpuCrossTrace {
    /// Asks `rec` for the block's intermediates.
    pub fn request(&self, rec: &Recorder<'_>) -> BlockReads {
        let (q, k, v, sc, p, c) = (&self.q, &self.k, &self.v, &self.scores, &self.probs, &self.context);
        BlockReads::request(rec, [q, k, v, sc, p, c, &self.dense, &self.res, &self.ln_mean, &self.ln_rstd, &self.ln_out])
    }
}
