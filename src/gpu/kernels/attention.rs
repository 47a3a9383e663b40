//! Launcher of `shaders/attention.wgsl` (masked softmax and its backward), and scaled dot-product
//! attention built from it and the batched matmul: Q, K, V, context are (B*T, H) with head h in
//! columns h*HD..(h+1)*HD; scores and probabilities are (B, NH, T, T).

use crate::error::Result;
use crate::gpu::kernels::matmul::{matmul, Kernel, Operand, Shape};
use crate::gpu::kernels::{grid1d, WG1};
use crate::gpu::pipeline::Family;
use crate::gpu::recorder::{Recorder, View};

#[derive(Clone, Copy, Debug)]
pub struct AttnDims {
    pub b: usize,
    pub t: usize,
    pub nh: usize,
    pub hd: usize,
}

impl AttnDims {
    fn h(&self) -> usize {
        self.nh * self.hd
    }
    /// Head h of sequence b inside a (B*T, H) matrix, as an operand; transposed = (HD, T).
    fn head<'a>(&self, v: View<'a>, transposed: bool) -> Operand<'a> {
        let (h, t, hd) = (self.h(), self.t, self.hd);
        let o = if transposed { Operand::transposed(v, h) } else { Operand::rows(v, h) };
        o.batch(t * h, hd)
    }
    /// (B, NH, T, T) blocks; transposed = P^T per block.
    fn block<'a>(&self, v: View<'a>, transposed: bool) -> Operand<'a> {
        let t = self.t;
        let o = if transposed { Operand::transposed(v, t) } else { Operand::rows(v, t) };
        o.batch(self.nh * t * t, t * t)
    }
    fn shape(&self, m: usize, n: usize, k: usize, alpha: f32) -> Shape {
        Shape { m, n, k, batch: (self.b, self.nh), alpha, accumulate: false }
    }
    pub fn scale(&self) -> f32 {
        1.0 / (self.hd as f32).sqrt()
    }
}

/// Dropout of attention probabilities: probability and the seed of the counter hash.
#[derive(Clone, Copy, Debug)]
pub struct AttnDropout {
    pub p: f32,
    pub seed: u32,
}

/// `Params` of attention.wgsl.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    b: u32,
    nh: u32,
    t: u32,
    flags: u32,
    seed: u32,
    drop_p: f32,
    scale: f32,
    _pad: u32,
}

/// `flags`: P' (head mask and/or dropout applied) is written; dropout is on.
const WEIGHTED: u32 = 1;
const DROPOUT: u32 = 2;

fn softmax_params(d: &AttnDims, weighted: bool, drop: Option<AttnDropout>) -> Params {
    let flags = if weighted { WEIGHTED } else { 0 } | if drop.is_some() { DROPOUT } else { 0 };
    let (seed, drop_p) = drop.map(|x| (x.seed, x.p)).unwrap_or((0, 0.0));
    Params { b: d.b as u32, nh: d.nh as u32, t: d.t as u32, flags, seed, drop_p, scale: d.scale(), _pad: 0 }
}

/// Whether P' = P * head mask * dropout differs from P (and so needs its own buffer).
pub fn is_weighted(head_mask: bool, drop: Option<AttnDropout>) -> bool {
    head_mask || drop.is_some()
}

/// scores = Q K^T / sqrt(HD); probs = softmax(scores + key mask); P' = probs * m (if weighted);
/// ctx = P' V. `head` is the (NH) head-mask row (ones when none); `pw` is P' when weighted.
#[allow(clippy::too_many_arguments)]
pub fn attention_forward(
    rec: &mut Recorder<'_>,
    d: &AttnDims,
    q: View<'_>,
    k: View<'_>,
    v: View<'_>,
    key_mask: View<'_>,
    head: View<'_>,
    drop: Option<AttnDropout>,
    weighted: bool,
    scores: View<'_>,
    probs: View<'_>,
    pw: View<'_>,
    ctx: View<'_>,
) -> Result<()> {
    let t = d.t;
    matmul(rec, d.head(q, false), d.head(k, true), None, d.block(scores, false), d.shape(t, t, d.hd, d.scale()), Kernel::Auto)?;
    let rows = d.b * d.nh * t;
    let params = softmax_params(d, weighted, drop);
    let z = if weighted { Some(pw) } else { None };
    rec.dispatch(
        Family::Attention,
        "softmax_fwd",
        (WG1, 1),
        &params,
        &[Some(scores), Some(key_mask), Some(head)],
        &[Some(probs), z],
        grid1d(rec, rows, WG1),
    )?;
    let pv = if weighted { pw } else { probs };
    matmul(rec, d.block(pv, false), d.head(v, false), None, d.head(ctx, false), d.shape(t, d.hd, t, 1.0), Kernel::Auto)
}

/// Backward: from dctx to dq, dk, dv (each overwritten). `dp` and `ds` are (B, NH, T, T) scratch.
#[allow(clippy::too_many_arguments)]
pub fn attention_backward(
    rec: &mut Recorder<'_>,
    d: &AttnDims,
    dctx: View<'_>,
    q: View<'_>,
    k: View<'_>,
    v: View<'_>,
    probs: View<'_>,
    pw: View<'_>,
    head: View<'_>,
    drop: Option<AttnDropout>,
    weighted: bool,
    dp: View<'_>,
    ds: View<'_>,
    dq: View<'_>,
    dk: View<'_>,
    dv: View<'_>,
) -> Result<()> {
    let t = d.t;
    // ctx = P' V: dV = P'^T dctx, dP' = dctx V^T
    let pv = if weighted { pw } else { probs };
    matmul(rec, d.block(pv, true), d.head(dctx, false), None, d.head(dv, false), d.shape(t, d.hd, t, 1.0), Kernel::Auto)?;
    matmul(rec, d.head(dctx, false), d.head(v, true), None, d.block(dp, false), d.shape(t, t, d.hd, 1.0), Kernel::Auto)?;
    let params = softmax_params(d, weighted, drop);
    let rows = d.b * d.nh * t;
    rec.dispatch(
        Family::Attention,
        "softmax_bwd",
        (WG1, 1),
        &params,
        &[Some(dp), Some(probs), Some(head)],
        &[Some(ds)],
        grid1d(rec, rows, WG1),
    )?;
    // scores = scale Q K^T (scale already in dS): dQ = dS K, dK = dS^T Q
    matmul(rec, d.block(ds, false), d.head(k, false), None, d.head(dq, false), d.shape(t, d.hd, t, 1.0), Kernel::Auto)?;
    matmul(rec, d.block(ds, true), d.head(q, false), None, d.head(dk, false), d.shape(t, d.hd, t, 1.0), Kernel::Auto)
}
