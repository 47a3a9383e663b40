// Reductions: column sums (bias gradients, accumulated) and the sum of squares of a flat array
// in two passes (gradient norm for clipping, with no readback).
struct Params {
    rows: u32, cols: u32, n: u32, _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

override WG_X: u32 = 64u;
override WG_Y: u32 = 1u;
var<workgroup> part: array<f32, 256>;

// out[j] += sum_r x[r, j]
@compute @workgroup_size(WG_X, WG_Y, 1)
fn colsum(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = gid.x + gid.y * nwg.x * WG_X;
    if (j >= p.cols) { return; }
    var s = 0.0;
    for (var r = 0u; r < p.rows; r++) {
        s += x[r * p.cols + j];
    }
    out[j] += s;
}

// out[w] = sum of x[i]^2 (or of x[i] when cols == 1: the second pass) over workgroup w's stripe.
// WG_X must be a power of two <= 256.
@compute @workgroup_size(WG_X, 1, 1)
fn sumsq(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>) {
    let groups = nwg.x;
    var s = 0.0;
    for (var i = wid.x * WG_X + lid.x; i < p.n; i += groups * WG_X) {
        let v = x[i];
        if (p.cols == 1u) { s += v; } else { s += v * v; }
    }
    part[lid.x] = s;
    workgroupBarrier();
    for (var stride = WG_X / 2u; stride > 0u; stride /= 2u) {
        if (lid.x < stride) { part[lid.x] += part[lid.x + stride]; }
        workgroupBarrier();
    }
    if (lid.x == 0u) { out[wid.x] = part[0]; }
}
