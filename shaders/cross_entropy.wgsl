// Mean cross-entropy over labelled rows (ignore_index -100), as torch.nn.CrossEntropyLoss, turning
// the logits into d(mean loss)/d(logits) in place; one workgroup per row. Writes each row's loss and
// argmax (the masked-token accuracy) into `stats` (2 per row); the CPU sums the M losses.
// `mse`: a one-output head's mean squared error (targets are f32 bits), one invocation per row.
struct Params {
    rows: u32, cols: u32, inv: f32, _pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> targets: array<i32>;
@group(0) @binding(2) var<storage, read_write> logits: array<f32>;
@group(0) @binding(3) var<storage, read_write> stats: array<f32>;

override WG_X: u32 = 64u;
override WG_Y: u32 = 1u;
var<workgroup> red: array<f32, 256>;
var<workgroup> arg: array<u32, 256>;

@compute @workgroup_size(WG_X, 1, 1)
fn ce_fwd_bwd(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
    let r = wid.x + wid.y * nwg.x;
    if (r >= p.rows) { return; } // uniform per workgroup, so the barriers below stay uniform
    let base = r * p.cols;
    let tgt = targets[r];
    // max and argmax (first index of the max, as the CPU's top-k)
    var mx = -0x1.fffffep+127f;
    var am = 0u;
    for (var j = lid.x; j < p.cols; j += WG_X) {
        let v = logits[base + j];
        if (v > mx) { mx = v; am = j; }
    }
    red[lid.x] = mx;
    arg[lid.x] = am;
    workgroupBarrier();
    for (var s = WG_X / 2u; s > 0u; s /= 2u) {
        if (lid.x < s) {
            let o = red[lid.x + s];
            let oa = arg[lid.x + s];
            if (o > red[lid.x] || (o == red[lid.x] && oa < arg[lid.x])) { red[lid.x] = o; arg[lid.x] = oa; }
        }
        workgroupBarrier();
    }
    let m = red[0];
    let amax = arg[0];
    workgroupBarrier();
    var se = 0.0;
    for (var j = lid.x; j < p.cols; j += WG_X) {
        se += exp(logits[base + j] - m);
    }
    red[lid.x] = se;
    workgroupBarrier();
    for (var s = WG_X / 2u; s > 0u; s /= 2u) {
        if (lid.x < s) { red[lid.x] += red[lid.x + s]; }
        workgroupBarrier();
    }
    let total = red[0];
    let t = u32(max(tgt, 0));
    let xt = logits[base + t];
    workgroupBarrier(); // every invocation has read x_t before it is overwritten
    if (tgt < 0) {
        for (var j = lid.x; j < p.cols; j += WG_X) { logits[base + j] = 0.0; }
        if (lid.x == 0u) { stats[2u * r] = 0.0; stats[2u * r + 1u] = f32(amax); }
        return;
    }
    let scale = p.inv / total;
    for (var j = lid.x; j < p.cols; j += WG_X) {
        var d = exp(logits[base + j] - m) * scale;
        if (j == t) { d -= p.inv; }
        logits[base + j] = d;
    }
    if (lid.x == 0u) {
        stats[2u * r] = m + log(total) - xt;
        stats[2u * r + 1u] = f32(amax);
    }
}

// pred (rows, 1) -> 2 (pred - y) * inv in place; stats[2r] = (pred - y)^2 (the CPU sums and scales
// by inv = 1 / rows), stats[2r + 1] = 0.
@compute @workgroup_size(WG_X, 1, 1)
fn mse(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let r = gid.x + gid.y * nwg.x * WG_X;
    if (r >= p.rows) { return; }
    let e = logits[r] - bitcast<f32>(targets[r]);
    stats[2u * r] = e * e;
    stats[2u * r + 1u] = 0.0;
    logits[r] = 2.0 * e * p.inv;
}
