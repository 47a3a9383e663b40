//! Launcher of `shaders/adamw.wgsl`: one AdamW update over a flat range of parameters, with the
//! gradient-norm clipping coefficient computed on the GPU from the squared norm in `clip`.

use crate::error::Result;
use crate::gpu::kernels::{f, grid1d, WG1};
use crate::gpu::pipeline::Family;
use crate::gpu::recorder::{Recorder, View};

#[derive(Clone, Copy, Debug)]
pub struct AdamWStep {
    pub lr: f64,
    pub weight_decay: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    /// 1-based step number (bias correction).
    pub step: u64,
    /// 0 = no clipping.
    pub max_norm: f64,
}

#[allow(clippy::too_many_arguments)]
pub fn adamw(
    rec: &mut Recorder<'_>,
    params: View<'_>,
    grads: View<'_>,
    m: View<'_>,
    v: View<'_>,
    clip: View<'_>,
    decay: bool,
    s: &AdamWStep,
) -> Result<()> {
    let n = params.len;
    let bc1 = 1.0 - s.beta1.powi(s.step as i32);
    let bc2 = 1.0 - s.beta2.powi(s.step as i32);
    let decay_f = if decay { 1.0 - s.lr * s.weight_decay } else { 1.0 };
    let words = [
        n as u32,
        0,
        0,
        0,
        f(decay_f as f32),
        f(s.beta1 as f32),
        f(s.beta2 as f32),
        f(s.eps as f32),
        f((s.lr / bc1) as f32),
        f(bc2.sqrt() as f32),
        f(s.max_norm as f32),
        0,
    ];
    rec.dispatch(
        Family::AdamW,
        "adamw",
        (WG1, 1),
        &words,
        &[Some(grads), Some(clip)],
        &[Some(params), Some(m), Some(v)],
        grid1d(rec, n, WG1),
    )
}
