//! Launcher of `shaders/elementwise.wgsl`: activations, their backward, residual adds, dropout.

use crate::config::{Activation, PoolerActivation};
use crate::error::Result;
use crate::gpu::entry::EntryPoint;
use crate::gpu::kernels::{grid1d, WG1};
use crate::gpu::recorder::{Recorder, View};

/// `Params` of elementwise.wgsl: `op` is an `Act` code.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    n: u32,
    op: u32,
    seed: u32,
    drop_p: f32,
}

/// The kernel's activation code; `Tanh` is the pooler's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Gelu = 0,
    GeluNew = 1,
    Relu = 2,
    Tanh = 3,
}

impl From<Activation> for Act {
    fn from(a: Activation) -> Self {
        match a {
            Activation::Gelu => Act::Gelu,
            Activation::GeluNew => Act::GeluNew,
            Activation::Relu => Act::Relu,
        }
    }
}

/// The pooler slot's activation: tanh, or ReLU for DistilBERT's pre_classifier (whose backward
/// from the output is the same as from the input).
impl From<PoolerActivation> for Act {
    fn from(a: PoolerActivation) -> Self {
        match a {
            PoolerActivation::Tanh => Act::Tanh,
            PoolerActivation::Relu => Act::Relu,
        }
    }
}

fn run(
    rec: &mut Recorder<'_>,
    entry: EntryPoint,
    params: Params,
    x: Option<View<'_>>,
    y: Option<View<'_>>,
    out: View<'_>,
    n: usize,
) -> Result<()> {
    rec.dispatch(entry, (WG1, 1), &params, &[x, y], &[Some(out)], grid1d(rec, n, WG1))
}

/// out = act(x), n elements.
pub fn act_forward(rec: &mut Recorder<'_>, act: Act, x: View<'_>, out: View<'_>, n: usize) -> Result<()> {
    run(rec, EntryPoint::ActFwd, Params { n: n as u32, op: act as u32, seed: 0, drop_p: 0.0 }, Some(x), None, out, n)
}

/// out = dy * act'(x) (for tanh, x is the output).
pub fn act_backward(rec: &mut Recorder<'_>, act: Act, x: View<'_>, dy: View<'_>, out: View<'_>, n: usize) -> Result<()> {
    run(rec, EntryPoint::ActBwd, Params { n: n as u32, op: act as u32, seed: 0, drop_p: 0.0 }, Some(x), Some(dy), out, n)
}

/// out += x
pub fn add_into(rec: &mut Recorder<'_>, x: View<'_>, out: View<'_>, n: usize) -> Result<()> {
    run(rec, EntryPoint::AddInto, Params { n: n as u32, op: 0, seed: 0, drop_p: 0.0 }, Some(x), None, out, n)
}

/// out *= keep(seed, i) / (1 - p): the same call masks the forward and its gradient.
pub fn dropout(rec: &mut Recorder<'_>, out: View<'_>, n: usize, p: f32, seed: u32) -> Result<()> {
    run(rec, EntryPoint::Dropout, Params { n: n as u32, op: 0, seed, drop_p: p }, None, None, out, n)
}

/// The kernels' dropout decision, for CPU twins in tests: the factor of element `i`.
pub fn keep_factor(seed: u32, i: u32, p: f32) -> f32 {
    fn hash(v: u32) -> u32 {
        let mut h = v;
        h ^= h >> 16;
        h = h.wrapping_mul(0x7feb352d);
        h ^= h >> 15;
        h = h.wrapping_mul(0x846ca68b);
        h ^= h >> 16;
        h
    }
    let u = (hash(i ^ hash(seed)) >> 8) as f32 * (1.0 / 16_777_216.0);
    if u < p {
        0.0
    } else {
        1.0 / (1.0 - p)
    }
}
