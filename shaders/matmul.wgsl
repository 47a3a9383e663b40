// Batched, strided matrix product with an epilogue:
//   C[z] (M, N) = alpha * A[z] (M, K) . B[z] (K, N)  (+ bias[col])  (+ C[z] when accumulating)
// Strides make one kernel serve x W^T (linear), the transposes the backward needs, and the
// per-head products of attention: batch z = z1 * inner + z2 adds z1 * *_b1 + z2 * *_b2 to each
// operand's offset (z1 = sequence, z2 = head). C's columns are contiguous (stride 1).
struct Params {
    m: u32, n: u32, k: u32, inner: u32,
    a_off: u32, a_rs: u32, a_cs: u32, a_b1: u32,
    a_b2: u32, b_off: u32, b_rs: u32, b_cs: u32,
    b_b1: u32, b_b2: u32, c_off: u32, c_rs: u32,
    c_b1: u32, c_b2: u32, flags: u32, alpha: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> c: array<f32>;

override WG_X: u32 = 8u;
override WG_Y: u32 = 8u;
const HAS_BIAS: u32 = 1u;
const ACCUMULATE: u32 = 2u;

fn store(c0: u32, row: u32, col: u32, v: f32) {
    if (row < p.m && col < p.n) {
        let i = c0 + row * p.c_rs + col;
        var r = p.alpha * v;
        if ((p.flags & HAS_BIAS) != 0u) { r += bias[col]; }
        if ((p.flags & ACCUMULATE) != 0u) { r += c[i]; }
        c[i] = r;
    }
}

// ---- entry points (src/gpu/kernels/matmul_subgroup.rs builds a second module from the part above)

// Each invocation computes a 4x4 block held in registers (rows row0.., cols col0..); loads of rows
// or columns past the edge are clamped to the last one and their results never stored.
@compute @workgroup_size(WG_X, WG_Y, 1)
fn tiled(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row0 = gid.y * 4u;
    let col0 = gid.x * 4u;
    if (row0 >= p.m || col0 >= p.n) { return; }
    let z1 = gid.z / p.inner;
    let z2 = gid.z % p.inner;
    let ao = p.a_off + z1 * p.a_b1 + z2 * p.a_b2;
    let bo = p.b_off + z1 * p.b_b1 + z2 * p.b_b2;
    let co = p.c_off + z1 * p.c_b1 + z2 * p.c_b2;
    let ar = vec4<u32>(
        ao + min(row0, p.m - 1u) * p.a_rs, ao + min(row0 + 1u, p.m - 1u) * p.a_rs,
        ao + min(row0 + 2u, p.m - 1u) * p.a_rs, ao + min(row0 + 3u, p.m - 1u) * p.a_rs);
    let bc = vec4<u32>(
        bo + min(col0, p.n - 1u) * p.b_cs, bo + min(col0 + 1u, p.n - 1u) * p.b_cs,
        bo + min(col0 + 2u, p.n - 1u) * p.b_cs, bo + min(col0 + 3u, p.n - 1u) * p.b_cs);
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    for (var kk = 0u; kk < p.k; kk++) {
        let ak = kk * p.a_cs;
        let bk = kk * p.b_rs;
        let av = vec4<f32>(a[ar.x + ak], a[ar.y + ak], a[ar.z + ak], a[ar.w + ak]);
        let bv = vec4<f32>(b[bc.x + bk], b[bc.y + bk], b[bc.z + bk], b[bc.w + bk]);
        acc0 += av.x * bv;
        acc1 += av.y * bv;
        acc2 += av.z * bv;
        acc3 += av.w * bv;
    }
    for (var j = 0u; j < 4u; j++) {
        store(co, row0, col0 + j, acc0[j]);
        store(co, row0 + 1u, col0 + j, acc1[j]);
        store(co, row0 + 2u, col0 + j, acc2[j]);
        store(co, row0 + 3u, col0 + j, acc3[j]);
    }
}

// One output per invocation: the baseline the bench compares the tiled kernel with.
@compute @workgroup_size(WG_X, WG_Y, 1)
fn naive(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.y;
    let col = gid.x;
    if (row >= p.m || col >= p.n) { return; }
    let z1 = gid.z / p.inner;
    let z2 = gid.z % p.inner;
    let ao = p.a_off + z1 * p.a_b1 + z2 * p.a_b2 + row * p.a_rs;
    let bo = p.b_off + z1 * p.b_b1 + z2 * p.b_b2 + col * p.b_cs;
    var s = 0.0;
    for (var kk = 0u; kk < p.k; kk++) {
        s += a[ao + kk * p.a_cs] * b[bo + kk * p.b_rs];
    }
    store(p.c_off + z1 * p.c_b1 + z2 * p.c_b2, row, col, s);
}
