//! Launcher of `shaders/layernorm.wgsl`: LayerNorm forward (optionally fused with the residual
//! add before it) and backward (dx, and dgamma/dbeta accumulated).

use crate::error::Result;
use crate::gpu::entry::EntryPoint;
use crate::gpu::kernels::{grid1d, WG1};
use crate::gpu::recorder::{Recorder, View};

/// `Params` of layernorm.wgsl.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    rows: u32,
    cols: u32,
    flags: u32,
    eps: f32,
}

/// `flags`: the residual is added before the norm (forward); dx accumulates (backward).
const RESIDUAL: u32 = 1;
const ACCUMULATE: u32 = 2;

/// A LayerNorm's input: `x` (with `residual` added first when fused) and its parameters.
pub struct LnIn<'a> {
    pub x: View<'a>,
    /// (residual, sum out): x + residual is normalised, and the sum kept (the backward reads it).
    pub residual: Option<(View<'a>, View<'a>)>,
    pub gamma: View<'a>,
    pub beta: View<'a>,
}

/// Where a LayerNorm's output and per-row statistics go (the forward), or are read (the backward
/// reads `mean` and `rstd` with the normalised input `x` as `LnSaved`).
pub struct LnOut<'a> {
    pub out: View<'a>,
    pub mean: View<'a>,
    pub rstd: View<'a>,
}

/// What the backward reads of its forward: the input it normalised and its statistics.
pub struct LnSaved<'a> {
    pub x: View<'a>,
    pub mean: View<'a>,
    pub rstd: View<'a>,
}

/// out = LN(x (+ residual)) over `rows` rows of `cols`.
pub fn layernorm_forward(rec: &mut Recorder<'_>, input: LnIn<'_>, out: LnOut<'_>, (rows, cols): (usize, usize), eps: f64) -> Result<()> {
    let flags = if input.residual.is_some() { RESIDUAL } else { 0 };
    let params = Params { rows: rows as u32, cols: cols as u32, flags, eps: eps as f32 };
    let (x2, sum) = match input.residual {
        Some((r, s)) => (Some(r), Some(s)),
        None => (None, None),
    };
    rec.dispatch(
        EntryPoint::LnFwd,
        (WG1, 1),
        &params,
        &[Some(input.x), x2, Some(input.gamma), Some(input.beta)],
        &[Some(out.out), sum, Some(out.mean), Some(out.rstd)],
        grid1d(rec, rows, WG1),
    )
}

/// dx (= or += when `acc`) from dout; dgamma, dbeta += .
pub fn layernorm_backward(
    rec: &mut Recorder<'_>,
    dout: View<'_>,
    saved: LnSaved<'_>,
    gamma: View<'_>,
    (dx, acc): (View<'_>, bool),
    (dgamma, dbeta): (View<'_>, View<'_>),
    (rows, cols): (usize, usize),
) -> Result<()> {
    let params = Params { rows: rows as u32, cols: cols as u32, flags: if acc { ACCUMULATE } else { 0 }, eps: 0.0 };
    let ro = [Some(dout), Some(saved.x), Some(gamma), Some(saved.mean), Some(saved.rstd)];
    rec.dispatch(EntryPoint::LnBwdDx, (WG1, 1), &params, &ro, &[Some(dx)], grid1d(rec, rows, WG1))?;
    rec.dispatch(EntryPoint::LnBwdParams, (WG1, 1), &params, &ro, &[Some(dgamma), Some(dbeta)], grid1d(rec, cols, WG1))
}
