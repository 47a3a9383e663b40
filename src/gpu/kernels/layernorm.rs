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

/// out = LN(x (+ residual)) over rows of `cols`; `sum` receives x + residual when fused.
#[allow(clippy::too_many_arguments)]
pub fn layernorm_forward(
    rec: &mut Recorder<'_>,
    x: View<'_>,
    residual: Option<(View<'_>, View<'_>)>, // (residual, sum out)
    gamma: View<'_>,
    beta: View<'_>,
    out: View<'_>,
    mean: View<'_>,
    rstd: View<'_>,
    rows: usize,
    cols: usize,
    eps: f64,
) -> Result<()> {
    let flags = if residual.is_some() { RESIDUAL } else { 0 };
    let params = Params { rows: rows as u32, cols: cols as u32, flags, eps: eps as f32 };
    let (x2, sum) = match residual {
        Some((r, s)) => (Some(r), Some(s)),
        None => (None, None),
    };
    rec.dispatch(
        EntryPoint::LnFwd,
        (WG1, 1),
        &params,
        &[Some(x), x2, Some(gamma), Some(beta)],
        &[Some(out), sum, Some(mean), Some(rstd)],
        grid1d(rec, rows, WG1),
    )
}

/// dx (= or += when `acc`) from dout; dgamma, dbeta += .
#[allow(clippy::too_many_arguments)]
pub fn layernorm_backward(
    rec: &mut Recorder<'_>,
    dout: View<'_>,
    x: View<'_>,
    mean: View<'_>,
    rstd: View<'_>,
    gamma: View<'_>,
    dx: View<'_>,
    acc: bool,
    dgamma: View<'_>,
    dbeta: View<'_>,
    rows: usize,
    cols: usize,
) -> Result<()> {
    let params = Params { rows: rows as u32, cols: cols as u32, flags: if acc { ACCUMULATE } else { 0 }, eps: 0.0 };
    let ro = [Some(dout), Some(x), Some(gamma), Some(mean), Some(rstd)];
    rec.dispatch(EntryPoint::LnBwdDx, (WG1, 1), &params, &ro, &[Some(dx)], grid1d(rec, rows, WG1))?;
    rec.dispatch(EntryPoint::LnBwdParams, (WG1, 1), &params, &ro, &[Some(dgamma), Some(dbeta)], grid1d(rec, cols, WG1))
}
