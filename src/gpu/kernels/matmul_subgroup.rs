//! The matmul for CPU Vulkan drivers (lavapipe / llvmpipe): WGSL generated here, on top of the
//! header (Params, bindings, `store`) of `shaders/matmul.wgsl`, so it drops into the same launcher.
//!
//! Why a separate kernel: llvmpipe runs a workgroup's invocations as SIMD lanes and compiles every
//! storage-buffer load to a scalar loop over the lanes (~20 cycles a lane), so the register-blocked
//! `tiled` kernel, which loads each A and B element many times, reaches ~1-2% of sgemm. Here one
//! workgroup is one 8-lane subgroup owning a (8 TA) x (8 TB) tile of C: lane l loads A rows
//! row0 + 8t + l and B columns col0 + 8t + l, so each element of the tile's A rows and B columns is
//! loaded once per k, and `subgroupBroadcast` (a lane shuffle) hands every A value to every lane.
//! Accumulators are named scalars (private arrays spill), k is unrolled by 4, edges are clamped on
//! load and guarded on store. Needs `Features::SUBGROUP` and a subgroup size of exactly 8 (lavapipe
//! on AVX2); `GpuContext` turns it on only for such CPU adapters. Measured in `benches/gpu.rs`.

use std::fmt::Write;
use std::sync::OnceLock;

/// Entry points: (name, A tiles of 8 rows, B tiles of 8 columns).
pub const ENTRIES: [(&str, usize, usize); 2] = [("mm_sg128", 16, 8), ("mm_sg64", 8, 8)];
const UNROLL: usize = 4;

/// The whole module (built once).
pub fn source() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| {
        let base = include_str!("../../../shaders/matmul.wgsl");
        let header = base.split("// ---- entry points").next().expect("matmul.wgsl has the marker");
        let mut s = String::from(header);
        for (name, ta, tb) in ENTRIES {
            entry(&mut s, name, ta, tb);
        }
        s
    })
}

/// Rows and columns of C one workgroup owns.
pub fn tile(ta: usize, tb: usize) -> (usize, usize) {
    (8 * ta, 8 * tb)
}

fn entry(s: &mut String, name: &str, ta: usize, tb: usize) {
    let rows = 8 * ta;
    let w = |s: &mut String, line: String| {
        s.push_str(&line);
        s.push('\n');
    };
    w(s, format!("\n@compute @workgroup_size(8, 1, 1)\nfn {name}(@builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_invocation_id) l: u32) {{"));
    w(s, format!("    let row0 = wid.y * {rows}u;\n    let col0 = wid.x * {}u;", 8 * tb));
    w(s, "    let z1 = wid.z / p.inner;\n    let z2 = wid.z % p.inner;".into());
    w(s, "    let ao = p.a_off + z1 * p.a_b1 + z2 * p.a_b2;\n    let bo = p.b_off + z1 * p.b_b1 + z2 * p.b_b2;\n    let co = p.c_off + z1 * p.c_b1 + z2 * p.c_b2;".into());
    for t in 0..ta {
        w(s, format!("    let ar{t} = ao + min(row0 + {}u + l, p.m - 1u) * p.a_rs;", 8 * t));
    }
    for t in 0..tb {
        w(s, format!("    let bc{t} = bo + min(col0 + {}u + l, p.n - 1u) * p.b_cs;", 8 * t));
    }
    for r in 0..rows {
        let mut line = String::from("   ");
        for t in 0..tb {
            let _ = write!(line, " var c{r}_{t} = 0.0;");
        }
        w(s, line);
    }
    w(s, "    var kk = 0u;".into());
    w(s, format!("    for (; kk + {}u < p.k; kk += {UNROLL}u) {{", UNROLL - 1));
    body(s, ta, tb, UNROLL);
    w(s, "    }\n    for (; kk < p.k; kk++) {".into());
    body(s, ta, tb, 1);
    w(s, "    }".into());
    // epilogue: alpha, bias (loaded once per column), accumulate; stores guarded at the edges
    w(s, "    let has_bias = (p.flags & HAS_BIAS) != 0u;\n    let accum = (p.flags & ACCUMULATE) != 0u;".into());
    for t in 0..tb {
        w(
            s,
            format!(
                "    let cc{t} = col0 + {}u + l;\n    var bb{t} = 0.0;\n    if (has_bias) {{ bb{t} = bias[min(cc{t}, p.n - 1u)]; }}",
                8 * t
            ),
        );
    }
    for r in 0..rows {
        w(s, format!("    if (row0 + {r}u < p.m) {{\n        let ci = co + (row0 + {r}u) * p.c_rs;"));
        for t in 0..tb {
            w(s, format!("        if (cc{t} < p.n) {{ var v = fma(p.alpha, c{r}_{t}, bb{t}); if (accum) {{ v += c[ci + cc{t}]; }} c[ci + cc{t}] = v; }}"));
        }
        w(s, "    }".into());
    }
    w(s, "}".into());
}

/// One pass of the k loop over `u` consecutive k: loads, broadcasts, fused multiply-adds.
fn body(s: &mut String, ta: usize, tb: usize, u: usize) {
    for j in 0..u {
        let _ = writeln!(s, "        let ak{j} = (kk + {j}u) * p.a_cs;\n        let bk{j} = (kk + {j}u) * p.b_rs;");
        for t in 0..ta {
            let _ = writeln!(s, "        let av{t}_{j} = a[ar{t} + ak{j}];");
        }
        for t in 0..tb {
            let _ = writeln!(s, "        let bv{t}_{j} = b[bc{t} + bk{j}];");
        }
    }
    for r in 0..8 * ta {
        for j in 0..u {
            let _ = writeln!(s, "        let x{r}_{j} = subgroupBroadcast(av{}_{j}, {}u);", r / 8, r % 8);
        }
        for t in 0..tb {
            let mut e = format!("c{r}_{t}");
            for j in 0..u {
                e = format!("fma(x{r}_{j}, bv{t}_{j}, {e})");
            }
            let _ = writeln!(s, "        c{r}_{t} = {e};");
        }
    }
}
