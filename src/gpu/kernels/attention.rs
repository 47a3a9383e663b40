//! Launcher of `shaders/attention.wgsl` (masked softmax and its backward), and scaled dot-product
//! attention built from it and the batched matmul: Q and context are (B*T, H), K and V (B*TK, H),
//! head h in columns h*HD..(h+1)*HD; scores and probabilities are (B, NH, T, TK). TK = T for
//! self-attention (causal in a decoder), the encoder's length for cross-attention.

use crate::error::Result;
use crate::gpu::entry::EntryPoint;
use crate::gpu::kernels::matmul::{matmul, Kernel, Operand, Shape};
use crate::gpu::kernels::{grid1d, WG1};
use crate::gpu::recorder::{Recorder, View};

#[derive(Clone, Copy, Debug)]
pub struct AttnDims {
    pub b: usize,
    /// Queries per sequence.
    pub t: usize,
    pub nh: usize,
    pub hd: usize,
    /// Keys per sequence.
    pub tk: usize,
    /// Mask keys after the query (a decoder's self-attention).
    pub causal: bool,
}

impl AttnDims {
    /// Self-attention over T tokens.
    pub fn selfish(b: usize, t: usize, nh: usize, hd: usize) -> Self {
        AttnDims { b, t, nh, hd, tk: t, causal: false }
    }
    fn h(&self) -> usize {
        self.nh * self.hd
    }
    /// Head h of sequence b inside a (B*rows, H) matrix, as an operand; transposed = (HD, rows).
    fn head_of<'a>(&self, v: View<'a>, rows: usize, transposed: bool) -> Operand<'a> {
        let (h, hd) = (self.h(), self.hd);
        let o = if transposed { Operand::transposed(v, h) } else { Operand::rows(v, h) };
        o.batch(rows * h, hd)
    }
    /// A query-side (Q, context) head: (T, HD).
    fn head<'a>(&self, v: View<'a>, transposed: bool) -> Operand<'a> {
        self.head_of(v, self.t, transposed)
    }
    /// A key-side (K, V) head: (TK, HD).
    fn key<'a>(&self, v: View<'a>, transposed: bool) -> Operand<'a> {
        self.head_of(v, self.tk, transposed)
    }
    /// (B, NH, T, TK) blocks; transposed = P^T (TK, T) per block.
    fn block<'a>(&self, v: View<'a>, transposed: bool) -> Operand<'a> {
        let (t, tk) = (self.t, self.tk);
        let o = if transposed { Operand::transposed(v, tk) } else { Operand::rows(v, tk) };
        o.batch(self.nh * t * tk, t * tk)
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
    tk: u32,
}

/// `flags`: P' (head mask and/or dropout applied) is written; dropout is on; keys after the query
/// are masked.
const WEIGHTED: u32 = 1;
const DROPOUT: u32 = 2;
const CAUSAL: u32 = 4;

fn softmax_params(d: &AttnDims, weighted: bool, drop: Option<AttnDropout>) -> Params {
    let flags = if weighted { WEIGHTED } else { 0 } | if drop.is_some() { DROPOUT } else { 0 } | if d.causal { CAUSAL } else { 0 };
    let (seed, drop_p) = drop.map(|x| (x.seed, x.p)).unwrap_or((0, 0.0));
    Params { b: d.b as u32, nh: d.nh as u32, t: d.t as u32, flags, seed, drop_p, scale: d.scale(), tk: d.tk as u32 }
}

/// Whether P' = P * head mask * dropout differs from P (and so needs its own buffer).
pub fn is_weighted(head_mask: bool, drop: Option<AttnDropout>) -> bool {
    head_mask || drop.is_some()
}

/// What multiplies the attention probabilities: the (NH) head-mask row (ones when none) and
/// dropout; `weighted` when either is on (then P' = probs * m is kept apart from probs).
#[derive(Clone, Copy)]
pub struct Multiplier<'a> {
    pub head: View<'a>,
    pub drop: Option<AttnDropout>,
    pub weighted: bool,
}

/// scores = Q K^T / sqrt(HD); probs = softmax(scores + key mask); P' = probs * m (if weighted);
/// ctx = P' V, into `[scores, probs, pw, ctx]` (`pw` is P' when weighted).
pub fn attention_forward(
    rec: &mut Recorder<'_>,
    d: &AttnDims,
    (q, k, v): (View<'_>, View<'_>, View<'_>),
    key_mask: View<'_>,
    m: Multiplier<'_>,
    [scores, probs, pw, ctx]: [View<'_>; 4],
) -> Result<()> {
    let Multiplier { head, drop, weighted } = m;
    let (t, tk) = (d.t, d.tk);
    matmul(rec, d.head(q, false), d.key(k, true), None, d.block(scores, false), d.shape(t, tk, d.hd, d.scale()), Kernel::Auto)?;
    let rows = d.b * d.nh * t;
    let params = softmax_params(d, weighted, drop);
    let z = if weighted { Some(pw) } else { None };
    rec.dispatch(
        EntryPoint::SoftmaxFwd,
        (WG1, 1),
        &params,
        &[Some(scores), Some(key_mask), Some(head)],
        &[Some(probs), z],
        grid1d(rec, rows, WG1),
    )?;
    let pv = if weighted { pw } else { probs };
    matmul(rec, d.block(pv, false), d.key(v, false), None, d.head(ctx, false), d.shape(t, d.hd, tk, 1.0), Kernel::Auto)
}

/// Backward: from dctx to `[dp, ds, dq, dk, dv]`: dq, dk, dv overwritten, `dp` and `ds`
/// (B, NH, T, TK) scratch; `(probs, pw)` as the forward left them.
pub fn attention_backward(
    rec: &mut Recorder<'_>,
    d: &AttnDims,
    dctx: View<'_>,
    (q, k, v): (View<'_>, View<'_>, View<'_>),
    (probs, pw): (View<'_>, View<'_>),
    m: Multiplier<'_>,
    [dp, ds, dq, dk, dv]: [View<'_>; 5],
) -> Result<()> {
    let Multiplier { head, drop, weighted } = m;
    let (t, tk) = (d.t, d.tk);
    // ctx = P' V: dV = P'^T dctx, dP' = dctx V^T
    let pv = if weighted { pw } else { probs };
    matmul(rec, d.block(pv, true), d.head(dctx, false), None, d.key(dv, false), d.shape(tk, d.hd, t, 1.0), Kernel::Auto)?;
    matmul(rec, d.head(dctx, false), d.key(v, true), None, d.block(dp, false), d.shape(t, tk, d.hd, 1.0), Kernel::Auto)?;
    let params = softmax_params(d, weighted, drop);
    let rows = d.b * d.nh * t;
    rec.dispatch(EntryPoint::SoftmaxBwd, (WG1, 1), &params, &[Some(dp), Some(probs), Some(head)], &[Some(ds)], grid1d(rec, rows, WG1))?;
    // scores = scale Q K^T (scale already in dS): dQ = dS K, dK = dS^T Q
    matmul(rec, d.block(ds, false), d.key(k, false), None, d.head(dq, false), d.shape(t, d.hd, tk, 1.0), Kernel::Auto)?;
    matmul(rec, d.block(ds, true), d.head(q, false), None, d.key(dk, false), d.shape(tk, d.hd, t, 1.0), Kernel::Auto)
}
