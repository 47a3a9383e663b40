//! Launcher of `shaders/adamw.wgsl`: one AdamW update over a flat range of parameters, with the
//! gradient-norm clipping coefficient computed on the GPU from the squared norm in `clip`.

use crate::error::Result;
use crate::gpu::entry::EntryPoint;
use crate::gpu::kernels::{grid1d, WG1};
use crate::gpu::recorder::{Recorder, View};

/// `Params` of adamw.wgsl: the step's constants, bias corrections folded in on the CPU.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    _pad: [u32; 3],
    decay: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    step_size: f32,
    sqrt_bc2: f32,
    max_norm: f32,
    _pad3: f32,
}

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

/// One range of the flat parameters and the same range of their gradients and AdamW's two moments
/// (written in place: parameters, m, v).
#[derive(Clone, Copy)]
pub struct Moments<'a> {
    pub params: View<'a>,
    pub grads: View<'a>,
    pub m: View<'a>,
    pub v: View<'a>,
}

/// Records one AdamW update of `x`, clipped by the squared gradient norm in `clip`; weight decay
/// where `decay`.
pub fn adamw(rec: &mut Recorder<'_>, x: Moments<'_>, clip: View<'_>, decay: bool, s: &AdamWStep) -> Result<()> {
    let Moments { params, grads, m, v } = x;
    let n = params.len;
    let bc1 = 1.0 - s.beta1.powi(s.step as i32);
    let bc2 = 1.0 - s.beta2.powi(s.step as i32);
    let decay_f = if decay { 1.0 - s.lr * s.weight_decay } else { 1.0 };
    let uniform = Params {
        n: n as u32,
        _pad: [0; 3],
        decay: decay_f as f32,
        beta1: s.beta1 as f32,
        beta2: s.beta2 as f32,
        eps: s.eps as f32,
        step_size: (s.lr / bc1) as f32,
        sqrt_bc2: bc2.sqrt() as f32,
        max_norm: s.max_norm as f32,
        _pad3: 0.0,
    };
    rec.dispatch(EntryPoint::AdamW, (WG1, 1), &uniform, &[Some(grads), Some(clip)], &[Some(params), Some(m), Some(v)], grid1d(rec, n, WG1))
}
