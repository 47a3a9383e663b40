// AdamW as torch.optim.AdamW over a flat range of parameters (decoupled weight decay, bias-corrected
// moments), with gradient clipping folded in: the gradient norm's square arrives in clip[0] from the
// reduce pass; a non-finite norm skips the update, so the last good weights stay.
struct Params {
    n: u32, _pad0: u32, _pad1: u32, _pad2: u32,
    decay: f32, beta1: f32, beta2: f32, eps: f32,
    step_size: f32, sqrt_bc2: f32, max_norm: f32, _pad3: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read> clip: array<f32>;
@group(0) @binding(3) var<storage, read_write> params: array<f32>;
@group(0) @binding(4) var<storage, read_write> m: array<f32>;
@group(0) @binding(5) var<storage, read_write> v: array<f32>;

override WG_X: u32 = 64u;
override WG_Y: u32 = 1u;

fn finite(x: f32) -> bool {
    return x == x && abs(x) <= 0x1.fffffep+127f;
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn adamw(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG_X;
    if (i >= p.n) { return; }
    let norm = sqrt(clip[0]);
    if (!finite(norm)) { return; }
    var coef = 1.0;
    if (p.max_norm > 0.0) { coef = min(1.0, p.max_norm / (norm + 1e-6)); }
    let g = grads[i] * coef;
    var w = params[i] * p.decay;
    let mi = p.beta1 * m[i] + (1.0 - p.beta1) * g;
    let vi = p.beta2 * v[i] + (1.0 - p.beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    w -= p.step_size * mi / (sqrt(vi) / p.sqrt_bc2 + p.eps);
    params[i] = w;
}
