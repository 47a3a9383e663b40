//! One attention as the model records it: every layer's self-attention and a decoder layer's
//! cross-attention share this. The forward makes the buffers it keeps (scores, probabilities, the
//! weighted probabilities, the context) and the backward its gradients, around the kernels of
//! `kernels::attention`; sizes come from the dims, buffer labels from `label` ("" or "cross_").

use super::kernels::attention::{attention_backward, attention_forward, AttnDims, AttnDropout, Multiplier};
use super::recorder::{Recorder, View};
use crate::error::Result;

/// What an attention's forward kept, as its backward reads it.
pub struct AttnSaved<'a> {
    pub q: View<'a>,
    pub k: View<'a>,
    pub v: View<'a>,
    pub probs: View<'a>,
    /// The probabilities after head multipliers or dropout (a 1-float dummy unless `weighted`).
    pub pw: View<'a>,
    pub head: View<'a>,
    pub weighted: bool,
}

impl<'a> AttnSaved<'a> {
    /// From a trace's buffers (in the order of the forward: Q, K, V, probabilities, weighted, heads).
    pub fn of(bufs: [&'a wgpu::Buffer; 6], weighted: bool) -> Self {
        let [q, k, v, probs, pw, head] = bufs.map(View::whole);
        AttnSaved { q, k, v, probs, pw, head, weighted }
    }
}

/// The forward's buffers: scores and probabilities (B, NH, T, TK), the weighted probabilities, the
/// context (B*T, NH*HD).
pub struct AttnOut {
    pub scores: wgpu::Buffer,
    pub probs: wgpu::Buffer,
    pub pw: wgpu::Buffer,
    pub context: wgpu::Buffer,
}

/// Records softmax(Q K^T / sqrt(HD) + the key mask) (times the heads' multipliers, dropped out)
/// V for Q (B*T, H) over K, V (B*TK, H).
pub fn attend(
    rec: &mut Recorder<'_>,
    d: &AttnDims,
    label: &str,
    qkv: (View<'_>, View<'_>, View<'_>),
    key_mask: View<'_>,
    m: Multiplier<'_>,
) -> Result<AttnOut> {
    let weighted = m.weighted;
    let ctx = rec.ctx();
    let big = d.b * d.nh * d.t * d.tk;
    let out = AttnOut {
        scores: ctx.buffer(&format!("{label}scores"), big)?,
        probs: ctx.buffer(&format!("{label}probs"), big)?,
        pw: ctx.buffer(&format!("{label}probs_weighted"), if weighted { big } else { 1 })?,
        context: ctx.buffer(&format!("{label}context"), d.b * d.t * d.nh * d.hd)?,
    };
    let w = View::whole;
    attention_forward(rec, d, qkv, key_mask, m, [w(&out.scores), w(&out.probs), w(&out.pw), w(&out.context)])?;
    Ok(out)
}

/// The backward of `attend` from the context's gradient: (dQ (B*T, H), dK, dV (B*TK, H)).
pub fn attend_backward(
    rec: &mut Recorder<'_>,
    d: &AttnDims,
    label: &str,
    d_context: View<'_>,
    s: &AttnSaved<'_>,
    drop: Option<AttnDropout>,
) -> Result<(wgpu::Buffer, wgpu::Buffer, wgpu::Buffer)> {
    let ctx = rec.ctx();
    let big = d.b * d.nh * d.t * d.tk;
    let buf = |name: &str, len: usize| ctx.buffer(&format!("d_{label}{name}"), len);
    let (dp, ds) = (buf("probs", big)?, buf("scores", big)?);
    let (wq, wk) = (d.b * d.t * d.nh * d.hd, d.b * d.tk * d.nh * d.hd);
    let (dq, dk, dv) = (buf("q", wq)?, buf("k", wk)?, buf("v", wk)?);
    let w = View::whole;
    let m = Multiplier { head: s.head, drop, weighted: s.weighted };
    attention_backward(rec, d, d_context, (s.q, s.k, s.v), (s.probs, s.pw), m, [w(&dp), w(&ds), w(&dq), w(&dk), w(&dv)])?;
    Ok((dq, dk, dv))
}
