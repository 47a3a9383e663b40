//! Launcher of `shaders/reduce.wgsl`: column sums (bias gradients) and the sum of squares.

use crate::error::Result;
use crate::gpu::kernels::{grid1d, WG1};
use crate::gpu::pipeline::Family;
use crate::gpu::recorder::{Recorder, View};

/// out[j] += sum_r x[r, j], x (rows, cols).
pub fn colsum(rec: &mut Recorder<'_>, x: View<'_>, rows: usize, cols: usize, out: View<'_>) -> Result<()> {
    let params = [rows as u32, cols as u32, 0, 0];
    rec.dispatch(Family::Reduce, "colsum", (WG1, 1), &params, &[Some(x)], &[Some(out)], grid1d(rec, cols, WG1))
}

const SUMSQ_WG: u32 = 256;
const SUMSQ_GROUPS: u32 = 256;

/// out[0] = sum of x^2 over n elements, in two passes; `scratch` holds 256 partial sums.
pub fn sumsq(rec: &mut Recorder<'_>, x: View<'_>, n: usize, scratch: View<'_>, out: View<'_>) -> Result<()> {
    let wg = SUMSQ_WG.min(rec.ctx().limits.max_compute_invocations_per_workgroup).min(256);
    let wg = 1u32 << (31 - wg.leading_zeros()); // a power of two
    rec.dispatch(Family::Reduce, "sumsq", (wg, 1), &[0, 0, n as u32, 0], &[Some(x)], &[Some(scratch)], (SUMSQ_GROUPS, 1, 1))?;
    rec.dispatch(Family::Reduce, "sumsq", (wg, 1), &[0, 1, SUMSQ_GROUPS, 0], &[Some(scratch)], &[Some(out)], (1, 1, 1))
}

pub const SUMSQ_SCRATCH: usize = SUMSQ_GROUPS as usize;
