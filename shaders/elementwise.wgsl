// Pointwise ops over flat f32 arrays: activations and their derivatives, residual adds, and
// hidden-state dropout. GELU is BERT's exact erf form, with the same rational erf approximation
// as the CPU path (src/real.rs), so the two agree to rounding.
struct Params {
    n: u32, op: u32, seed: u32, drop_p: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> y: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

override WG_X: u32 = 64u;
override WG_Y: u32 = 1u;
const GELU: u32 = 0u;
const GELU_NEW: u32 = 1u;
const RELU: u32 = 2u;
const TANH: u32 = 3u;

fn erf_approx(v: f32) -> f32 {
    let x = clamp(v, -4.0, 4.0);
    let x2 = x * x;
    var q = x2 * -2.7261423e-10 + 2.7706814e-8;
    q = x2 * q - 2.101024e-6;
    q = x2 * q - 5.6925064e-5;
    q = x2 * q - 7.3499063e-4;
    q = x2 * q - 2.9546002e-3;
    q = x2 * q - 1.6096033e-2;
    var r = x2 * -1.4566072e-5 - 2.1337406e-4;
    r = x2 * r - 1.682827e-3;
    r = x2 * r - 7.373329e-3;
    r = x2 * r - 1.426474e-2;
    return x * q / r;
}

const SQRT_HALF: f32 = 0.70710678118654752;
const GELU_NEW_K: f32 = 0.7978845608028654;

fn act(op: u32, v: f32) -> f32 {
    switch op {
        case 0u: { return 0.5 * v * (1.0 + erf_approx(v * SQRT_HALF)); }
        case 1u: { return 0.5 * v * (1.0 + tanh(GELU_NEW_K * (v + 0.044715 * v * v * v))); }
        case 2u: { return max(v, 0.0); }
        default: { return tanh(v); }
    }
}

// Derivative at v; for tanh, v is the output t (d = 1 - t^2), as the CPU's tanh_backward.
fn act_grad(op: u32, v: f32) -> f32 {
    switch op {
        case 0u: {
            let cdf = 0.5 * (1.0 + erf_approx(v * SQRT_HALF));
            return cdf + v * exp(-0.5 * v * v) * 0.3989422804014327;
        }
        case 1u: {
            let t = tanh(GELU_NEW_K * (v + 0.044715 * v * v * v));
            let du = GELU_NEW_K * (1.0 + 3.0 * 0.044715 * v * v);
            return 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * du;
        }
        case 2u: { return select(0.0, 1.0, v > 0.0); }
        default: { return 1.0 - v * v; }
    }
}

fn idx(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG_X;
}

// out = act(x)
@compute @workgroup_size(WG_X, WG_Y, 1)
fn act_fwd(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = idx(gid, nwg);
    if (i >= p.n) { return; }
    out[i] = act(p.op, x[i]);
}

// out = y * act'(x)   (y: the upstream gradient)
@compute @workgroup_size(WG_X, WG_Y, 1)
fn act_bwd(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = idx(gid, nwg);
    if (i >= p.n) { return; }
    out[i] = y[i] * act_grad(p.op, x[i]);
}

// out += x
@compute @workgroup_size(WG_X, WG_Y, 1)
fn add_into(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = idx(gid, nwg);
    if (i >= p.n) { return; }
    out[i] += x[i];
}

// out *= dropout factor(seed, i): the forward mask and, with the same seed, its backward.
@compute @workgroup_size(WG_X, WG_Y, 1)
fn dropout(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = idx(gid, nwg);
    if (i >= p.n) { return; }
    out[i] *= keep_factor(p.seed, i, p.drop_p);
}
