// Embedding lookups and their backward. Forward: sum = word[id] + position[t] + type[tid] for
// every row (row = b * T + t), and a plain row gather (the trace's separate parts, the MLM rows,
// the [CLS] rows). Backward without float atomics: the CPU groups rows by id (CSR lists), and one
// invocation per (id, column) sums its rows, so each gradient element has one writer.
struct Params {
    rows: u32, cols: u32, t: u32, n_ids: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> table: array<f32>; // word table; gather/scatter source
@group(0) @binding(2) var<storage, read> pos: array<f32>;   // (T, H) position rows
@group(0) @binding(3) var<storage, read> ttype: array<f32>; // token type table
@group(0) @binding(4) var<storage, read> ids: array<u32>;   // fwd/gather: row ids; scatter: unique ids
@group(0) @binding(5) var<storage, read> ids2: array<u32>;  // fwd: type ids; scatter: CSR offsets (n_ids + 1) then rows
@group(0) @binding(6) var<storage, read_write> out: array<f32>;

override WG_X: u32 = 64u;
override WG_Y: u32 = 1u;

fn idx(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG_X;
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn embed_sum(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = idx(gid, nwg);
    if (i >= p.rows * p.cols) { return; }
    let r = i / p.cols;
    let j = i % p.cols;
    out[i] = table[ids[r] * p.cols + j] + pos[(r % p.t) * p.cols + j] + ttype[ids2[r] * p.cols + j];
}

// out[r, j] = table[ids[r], j]
@compute @workgroup_size(WG_X, WG_Y, 1)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = idx(gid, nwg);
    if (i >= p.rows * p.cols) { return; }
    let r = i / p.cols;
    out[i] = table[ids[r] * p.cols + i % p.cols];
}

// out[ids[u], j] += sum over rows r in list u of table[r, j]
@compute @workgroup_size(WG_X, WG_Y, 1)
fn scatter_add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = idx(gid, nwg);
    if (i >= p.n_ids * p.cols) { return; }
    let u = i / p.cols;
    let j = i % p.cols;
    let lists = p.n_ids + 1u;
    var s = 0.0;
    for (var q = ids2[u]; q < ids2[u + 1u]; q++) {
        s += table[ids2[lists + q] * p.cols + j];
    }
    out[ids[u] * p.cols + j] += s;
}
