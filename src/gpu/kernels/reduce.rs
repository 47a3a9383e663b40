//! Launcher of `shaders/reduce.wgsl`: column sums (bias gradients) and the sum of squares.

use crate::error::Result;
use crate::gpu::entry::EntryPoint;
use crate::gpu::kernels::{grid1d, WG1};
use crate::gpu::recorder::{Recorder, View};

/// `Params` of reduce.wgsl.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    rows: u32,
    cols: u32,
    n: u32,
    _pad: u32,
}

/// sumsq's `cols`: square the elements (the first pass) or add them as they are (the second).
const SUMSQ_SQUARES: u32 = 0;
const SUMSQ_PLAIN_SUM: u32 = 1;

/// out[j] += sum_r x[r, j], x (rows, cols).
pub fn colsum(rec: &mut Recorder<'_>, x: View<'_>, rows: usize, cols: usize, out: View<'_>) -> Result<()> {
    let params = Params { rows: rows as u32, cols: cols as u32, n: 0, _pad: 0 };
    rec.dispatch(EntryPoint::Colsum, (WG1, 1), &params, &[Some(x)], &[Some(out)], grid1d(rec, cols, WG1))
}

const SUMSQ_WG: u32 = 256;
const SUMSQ_GROUPS: u32 = 256;

/// out[0] = sum of x^2 over n elements, in two passes; `scratch` holds 256 partial sums.
pub fn sumsq(rec: &mut Recorder<'_>, x: View<'_>, n: usize, scratch: View<'_>, out: View<'_>) -> Result<()> {
    let wg = SUMSQ_WG.min(rec.ctx().limits.max_compute_invocations_per_workgroup).min(256);
    let wg = 1u32 << (31 - wg.leading_zeros()); // a power of two
    let squares = Params { rows: 0, cols: SUMSQ_SQUARES, n: n as u32, _pad: 0 };
    rec.dispatch(EntryPoint::Sumsq, (wg, 1), &squares, &[Some(x)], &[Some(scratch)], (SUMSQ_GROUPS, 1, 1))?;
    let partials = Params { rows: 0, cols: SUMSQ_PLAIN_SUM, n: SUMSQ_GROUPS, _pad: 0 };
    rec.dispatch(EntryPoint::Sumsq, (wg, 1), &partials, &[Some(scratch)], &[Some(out)], (1, 1, 1))
}

pub const SUMSQ_SCRATCH: usize = SUMSQ_GROUPS as usize;
