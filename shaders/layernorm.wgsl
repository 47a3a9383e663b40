// LayerNorm over the last axis as torch.nn.LayerNorm (biased variance, eps inside the sqrt),
// optionally fused with the residual add that precedes it in BERT (sum = x + x2 is kept for the
// backward). One invocation per row for the forward and dx; one per column for dgamma/dbeta.
struct Params {
    rows: u32, cols: u32, flags: u32, eps: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;     // fwd: input; bwd: dout
@group(0) @binding(2) var<storage, read> x2: array<f32>;    // fwd: residual; bwd: the norm's input (x-hat is recomputed)
@group(0) @binding(3) var<storage, read> gamma: array<f32>;
@group(0) @binding(4) var<storage, read> beta: array<f32>;  // fwd: beta; bwd: mean
@group(0) @binding(5) var<storage, read> rstd_in: array<f32>; // bwd: rstd
@group(0) @binding(6) var<storage, read_write> out: array<f32>;  // fwd: out; bwd: dx / dgamma
@group(0) @binding(7) var<storage, read_write> sum: array<f32>;  // fwd: x + x2; bwd: dbeta
@group(0) @binding(8) var<storage, read_write> mean: array<f32>;
@group(0) @binding(9) var<storage, read_write> rstd: array<f32>;

override WG_X: u32 = 64u;
override WG_Y: u32 = 1u;
const RESIDUAL: u32 = 1u;
const ACCUMULATE: u32 = 2u;

fn idx(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG_X;
}

fn input(i: u32) -> f32 {
    if ((p.flags & RESIDUAL) != 0u) { return x[i] + x2[i]; }
    return x[i];
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn ln_fwd(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let r = idx(gid, nwg);
    if (r >= p.rows) { return; }
    let base = r * p.cols;
    let hn = f32(p.cols);
    var s = 0.0;
    for (var j = 0u; j < p.cols; j++) {
        let v = input(base + j);
        if ((p.flags & RESIDUAL) != 0u) { sum[base + j] = v; }
        s += v;
    }
    let mu = s / hn;
    var var_ = 0.0;
    for (var j = 0u; j < p.cols; j++) {
        let d = input(base + j) - mu;
        var_ += d * d;
    }
    let rs = 1.0 / sqrt(var_ / hn + p.eps);
    for (var j = 0u; j < p.cols; j++) {
        out[base + j] = (input(base + j) - mu) * rs * gamma[j] + beta[j];
    }
    mean[r] = mu;
    rstd[r] = rs;
}

// dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = dout * gamma.
@compute @workgroup_size(WG_X, WG_Y, 1)
fn ln_bwd_dx(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let r = idx(gid, nwg);
    if (r >= p.rows) { return; }
    let base = r * p.cols;
    let mu = beta[r];
    let rs = rstd_in[r];
    var sd = 0.0;
    var sdx = 0.0;
    for (var j = 0u; j < p.cols; j++) {
        let xhat = (x2[base + j] - mu) * rs;
        let dxhat = x[base + j] * gamma[j];
        sd += dxhat;
        sdx += dxhat * xhat;
    }
    let hn = f32(p.cols);
    let md = sd / hn;
    let mdx = sdx / hn;
    for (var j = 0u; j < p.cols; j++) {
        let xhat = (x2[base + j] - mu) * rs;
        var v = rs * (x[base + j] * gamma[j] - md - xhat * mdx);
        if ((p.flags & ACCUMULATE) != 0u) { v += out[base + j]; }
        out[base + j] = v;
    }
}

// dgamma[j] += sum_r dout * xhat, dbeta[j] += sum_r dout.
@compute @workgroup_size(WG_X, WG_Y, 1)
fn ln_bwd_params(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = idx(gid, nwg);
    if (j >= p.cols) { return; }
    var dg = 0.0;
    var db = 0.0;
    for (var r = 0u; r < p.rows; r++) {
        let d = x[r * p.cols + j];
        dg += d * (x2[r * p.cols + j] - beta[r]) * rstd_in[r];
        db += d;
    }
    out[j] += dg;
    sum[j] += db;
}
