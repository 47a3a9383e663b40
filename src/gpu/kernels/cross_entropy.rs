//! Launcher of `shaders/cross_entropy.wgsl`: mean cross-entropy over labelled rows, logits turned
//! into their gradient in place, per-row loss and argmax in `stats` (2 per row); and the mean squared
//! error of a one-output (regression) head.

use crate::cpu::cross_entropy::IGNORE;
use crate::error::Result;
use crate::gpu::entry::EntryPoint;
use crate::gpu::kernels::{grid1d, WG1};
use crate::gpu::recorder::{Recorder, View};

/// `Params` of cross_entropy.wgsl: `inv` = 1 / labelled rows (the mean's factor).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    rows: u32,
    cols: u32,
    inv: f32,
    _pad: u32,
}

pub fn cross_entropy(rec: &mut Recorder<'_>, logits: View<'_>, targets: &[i64], cols: usize, stats: View<'_>) -> Result<()> {
    let rows = targets.len();
    let n_lab = targets.iter().filter(|&&t| t != IGNORE).count();
    let inv = if n_lab == 0 { 0.0 } else { 1.0 / n_lab as f32 };
    let tg: Vec<i32> = targets.iter().map(|&t| if t == IGNORE { -1 } else { t as i32 }).collect();
    let tb = rec.ctx().upload("targets", &tg)?;
    let params = Params { rows: rows as u32, cols: cols as u32, inv, _pad: 0 };
    // one workgroup per row: grid1d with wg = 1 folds rows into (x, y)
    let groups = grid1d(rec, rows, 1);
    rec.dispatch(EntryPoint::CeFwdBwd, (WG1, 1), &params, &[Some(View::whole(&tb))], &[Some(logits), Some(stats)], groups)
}

/// A one-output head's mean squared error against `targets` (rows): `pred` (rows, 1) becomes
/// d(mean loss)/d(pred) in place; `stats` gets (squared error, 0) per row.
pub fn mse(rec: &mut Recorder<'_>, pred: View<'_>, targets: &[f32], stats: View<'_>) -> Result<()> {
    let rows = targets.len();
    let bits: Vec<i32> = targets.iter().map(|v| v.to_bits() as i32).collect();
    let tb = rec.ctx().upload("mse_targets", &bits)?;
    let params = Params { rows: rows as u32, cols: 1, inv: 1.0 / rows.max(1) as f32, _pad: 0 };
    rec.dispatch(EntryPoint::Mse, (WG1, 1), &params, &[Some(View::whole(&tb))], &[Some(pred), Some(stats)], grid1d(rec, rows, WG1))
}
