// Softmax of attention scores with the key mask, and its backward; one invocation per row
// (b, head, query i) of a (B, NH, T, TK) tensor: TK = T for self-attention, the encoder's length
// for a decoder's cross-attention. Scores arrive already scaled by 1/sqrt(d_k). With CAUSAL (a
// decoder's self-attention) keys after the query are masked too, the minimum added once.
// The multiplier m on probabilities is head_mask[h] times an optional dropout factor drawn from a
// counter hash of (seed, element) (dropout.wgsl), so the backward regenerates the same mask.
struct Params {
    b: u32, nh: u32, t: u32, flags: u32,
    seed: u32, drop_p: f32, scale: f32, tk: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;     // fwd: scores; bwd: dP' = dctx V^T
@group(0) @binding(2) var<storage, read> aux: array<f32>;   // fwd: key mask (B, TK) 1/0; bwd: probs
@group(0) @binding(3) var<storage, read> headf: array<f32>; // (NH) head mask factors
@group(0) @binding(4) var<storage, read_write> y: array<f32>; // fwd: probs; bwd: dS
@group(0) @binding(5) var<storage, read_write> z: array<f32>; // fwd: P' = P * m (when flagged)

override WG_X: u32 = 64u;
override WG_Y: u32 = 1u;
const WEIGHTED: u32 = 1u; // write P' (head mask and/or dropout present)
const DROPOUT: u32 = 2u;
const CAUSAL: u32 = 4u;     // mask key j > query i
const F32_MIN: f32 = -0x1.fffffep+127f;

fn multiplier(row: u32, j: u32) -> f32 {
    let h = (row / p.t) % p.nh;
    var m = headf[h];
    if ((p.flags & DROPOUT) != 0u) { m *= keep_factor(p.seed, row * p.tk + j, p.drop_p); }
    return m;
}

fn row_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG_X;
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn softmax_fwd(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let row = row_index(gid, nwg);
    if (row >= p.b * p.nh * p.t) { return; }
    let bi = row / (p.nh * p.t);
    let qi = row % p.t;
    let causal = (p.flags & CAUSAL) != 0u;
    let base = row * p.tk;
    var mx = -0x1.fffffep+127f;
    for (var j = 0u; j < p.tk; j++) {
        var s = x[base + j];
        if (aux[bi * p.tk + j] == 0.0 || (causal && j > qi)) { s += F32_MIN; }
        mx = max(mx, s);
    }
    var sum = 0.0;
    for (var j = 0u; j < p.tk; j++) {
        var s = x[base + j];
        if (aux[bi * p.tk + j] == 0.0 || (causal && j > qi)) { s += F32_MIN; }
        let e = exp(s - mx);
        y[base + j] = e;
        sum += e;
    }
    let inv = 1.0 / sum;
    for (var j = 0u; j < p.tk; j++) {
        let pr = y[base + j] * inv;
        y[base + j] = pr;
        if ((p.flags & WEIGHTED) != 0u) { z[base + j] = pr * multiplier(row, j); }
    }
}

// dS = scale * P * (dP - sum_j P dP), dP = dP' * m.
@compute @workgroup_size(WG_X, WG_Y, 1)
fn softmax_bwd(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let row = row_index(gid, nwg);
    if (row >= p.b * p.nh * p.t) { return; }
    let base = row * p.tk;
    let weighted = (p.flags & WEIGHTED) != 0u;
    var dot = 0.0;
    for (var j = 0u; j < p.tk; j++) {
        var dp = x[base + j];
        if (weighted) { dp *= multiplier(row, j); }
        dot += aux[base + j] * dp;
    }
    for (var j = 0u; j < p.tk; j++) {
        var dp = x[base + j];
        if (weighted) { dp *= multiplier(row, j); }
        y[base + j] = p.scale * aux[base + j] * (dp - dot);
    }
}
