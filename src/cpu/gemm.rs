//! C = alpha A B + beta C in f32 for the page (wasm SIMD): a packed GEMM (Goto's blocking) whose
//! 4 x 8 micro-kernel keeps its accumulators in registers: 8 of the 16 SIMD registers V8 has on
//! x86-64, plus two of B and one broadcast of A. matrixmultiply's 8 x 8 wasm kernel holds 16
//! accumulators and spills them on every step of k. Natively ndarray's sgemm (AVX2 + FMA) stays in
//! use: there this code runs only in its tests, on a portable 4-lane type, against ndarray.
//!
//! Shapes: A (M, K), B (K, N), C (M, N), any strides (transposed views included).

use ndarray::{ArrayView2, ArrayViewMut2};

/// Micro-tile: MR rows of A by NR columns of B.
const MR: usize = 4;
const NR: usize = 8;
/// Blocks: KC deep (a packed A strip is 4 KB, a B strip 8 KB: both stay in L1), MC rows of A and
/// NC columns of B packed at a time (64 KB and 512 KB).
const KC: usize = 256;
const MC: usize = 64;
const NC: usize = 512;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod lanes {
    use core::arch::wasm32::*;

    #[derive(Clone, Copy)]
    pub struct V4(v128);

    impl V4 {
        #[inline(always)]
        pub fn zero() -> V4 {
            V4(f32x4_splat(0.0))
        }
        /// # Safety: p..p+4 readable.
        #[inline(always)]
        pub unsafe fn load(p: *const f32) -> V4 {
            V4(v128_load(p as *const v128))
        }
        /// One value to all four lanes, straight from memory (`v128.load32_splat`).
        /// # Safety: p readable.
        #[inline(always)]
        pub unsafe fn splat(p: *const f32) -> V4 {
            V4(v128_load32_splat(p as *const u32))
        }
        /// self + a * b
        #[inline(always)]
        pub fn mul_add(self, a: V4, b: V4) -> V4 {
            V4(f32x4_add(self.0, f32x4_mul(a.0, b.0)))
        }
        /// # Safety: p..p+4 writable.
        #[inline(always)]
        pub unsafe fn store(self, p: *mut f32) {
            v128_store(p as *mut v128, self.0)
        }
        /// Four rows of a 4 x 4 block -> its four columns.
        #[inline(always)]
        pub fn transpose([r0, r1, r2, r3]: [V4; 4]) -> [V4; 4] {
            let t0 = i32x4_shuffle::<0, 4, 1, 5>(r0.0, r1.0);
            let t1 = i32x4_shuffle::<2, 6, 3, 7>(r0.0, r1.0);
            let t2 = i32x4_shuffle::<0, 4, 1, 5>(r2.0, r3.0);
            let t3 = i32x4_shuffle::<2, 6, 3, 7>(r2.0, r3.0);
            [
                V4(i32x4_shuffle::<0, 1, 4, 5>(t0, t2)),
                V4(i32x4_shuffle::<2, 3, 6, 7>(t0, t2)),
                V4(i32x4_shuffle::<0, 1, 4, 5>(t1, t3)),
                V4(i32x4_shuffle::<2, 3, 6, 7>(t1, t3)),
            ]
        }
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod lanes {
    #[derive(Clone, Copy)]
    pub struct V4([f32; 4]);

    impl V4 {
        #[inline(always)]
        pub fn zero() -> V4 {
            V4([0.0; 4])
        }
        #[inline(always)]
        pub unsafe fn load(p: *const f32) -> V4 {
            V4(std::ptr::read_unaligned(p as *const [f32; 4]))
        }
        #[inline(always)]
        pub unsafe fn splat(p: *const f32) -> V4 {
            V4([*p; 4])
        }
        #[inline(always)]
        pub fn mul_add(self, a: V4, b: V4) -> V4 {
            V4(std::array::from_fn(|i| self.0[i] + a.0[i] * b.0[i]))
        }
        #[inline(always)]
        pub unsafe fn store(self, p: *mut f32) {
            std::ptr::write_unaligned(p as *mut [f32; 4], self.0)
        }
        #[inline(always)]
        pub fn transpose(r: [V4; 4]) -> [V4; 4] {
            std::array::from_fn(|c| V4(std::array::from_fn(|i| r[i].0[c])))
        }
    }
}

use lanes::V4;

/// The MR x NR product of a packed A strip (kc x MR, k-major) and a packed B strip (kc x NR),
/// written row by row to `out`.
/// # Safety: `a` holds kc * MR values, `b` kc * NR.
#[inline(always)]
unsafe fn kernel(kc: usize, a: *const f32, b: *const f32, out: &mut [f32; MR * NR]) {
    // eight named accumulators, so they live in registers
    let (mut c00, mut c01, mut c10, mut c11) = (V4::zero(), V4::zero(), V4::zero(), V4::zero());
    let (mut c20, mut c21, mut c30, mut c31) = (V4::zero(), V4::zero(), V4::zero(), V4::zero());
    let (mut a, mut b) = (a, b);
    for _ in 0..kc {
        let (b0, b1) = (V4::load(b), V4::load(b.add(4)));
        let a0 = V4::splat(a);
        c00 = c00.mul_add(a0, b0);
        c01 = c01.mul_add(a0, b1);
        let a1 = V4::splat(a.add(1));
        c10 = c10.mul_add(a1, b0);
        c11 = c11.mul_add(a1, b1);
        let a2 = V4::splat(a.add(2));
        c20 = c20.mul_add(a2, b0);
        c21 = c21.mul_add(a2, b1);
        let a3 = V4::splat(a.add(3));
        c30 = c30.mul_add(a3, b0);
        c31 = c31.mul_add(a3, b1);
        a = a.add(MR);
        b = b.add(NR);
    }
    let o = out.as_mut_ptr();
    for (i, v) in [c00, c01, c10, c11, c20, c21, c30, c31].into_iter().enumerate() {
        v.store(o.add(i * 4));
    }
}

/// A matrix as a pointer and strides (in elements), for packing without bounds checks.
#[derive(Clone, Copy)]
struct Strided {
    ptr: *const f32,
    rs: isize,
    cs: isize,
}

impl Strided {
    fn of(a: &ArrayView2<f32>) -> Self {
        let s = a.strides();
        Strided { ptr: a.as_ptr(), rs: s[0], cs: s[1] }
    }
}

/// One packed panel: `lanes` of the matrix (A's rows or B's columns; the first at `base`, the next
/// `ls` apart) `kc` deep (`ps` apart), written depth-major: dst[p * W + l]. Lanes past `lanes` are
/// 0. The two layouts the model's products use are copied a vector at a time: lanes adjacent in
/// memory (ls = 1) as W-wide rows, depths adjacent (ps = 1: a row-major matrix read across, as the
/// decoder's V x H weight for the logits) through 4 x 4 transposes. Packing was a third of the
/// GEMM's time in the page with the one-value-at-a-time copy.
/// # Safety: every (l < lanes, p < kc) element is readable; `dst` holds kc * W values.
#[inline(always)]
unsafe fn pack_panel<const W: usize>(dst: &mut [f32], base: *const f32, ls: isize, ps: isize, lanes: usize, kc: usize) {
    let d = dst.as_mut_ptr();
    if lanes == W && ls == 1 {
        for p in 0..kc {
            let src = base.offset(p as isize * ps);
            for q in (0..W).step_by(4) {
                V4::load(src.add(q)).store(d.add(p * W + q));
            }
        }
    } else if lanes == W && ps == 1 {
        let full = kc - kc % 4;
        for l0 in (0..W).step_by(4) {
            let row = |l: usize| base.offset((l0 + l) as isize * ls);
            for p in (0..full).step_by(4) {
                let t = V4::transpose([V4::load(row(0).add(p)), V4::load(row(1).add(p)), V4::load(row(2).add(p)), V4::load(row(3).add(p))]);
                for (q, v) in t.into_iter().enumerate() {
                    v.store(d.add((p + q) * W + l0));
                }
            }
            for p in full..kc {
                for l in 0..4 {
                    *d.add(p * W + l0 + l) = *row(l).add(p);
                }
            }
        }
    } else {
        for p in 0..kc {
            for l in 0..W {
                *d.add(p * W + l) = if l < lanes { *base.offset(l as isize * ls + p as isize * ps) } else { 0.0 };
            }
        }
    }
}

/// A's rows r0..r0+mc, columns p0..p0+kc into MR-row strips, each k-major; rows past the end are 0.
/// # Safety: the rows and columns are inside A; `dst` holds ceil(mc / MR) * kc * MR values.
unsafe fn pack_a(dst: &mut [f32], a: Strided, r0: usize, mc: usize, p0: usize, kc: usize) {
    for (s, strip) in dst.chunks_mut(kc * MR).take(mc.div_ceil(MR)).enumerate() {
        let base = a.ptr.offset((r0 + s * MR) as isize * a.rs + p0 as isize * a.cs);
        pack_panel::<MR>(strip, base, a.rs, a.cs, MR.min(mc - s * MR), kc);
    }
}

/// B's rows p0..p0+kc, columns c0..c0+nc into NR-column strips, each k-major; columns past the
/// end are 0.
/// # Safety: the rows and columns are inside B; `dst` holds ceil(nc / NR) * kc * NR values.
unsafe fn pack_b(dst: &mut [f32], b: Strided, p0: usize, kc: usize, c0: usize, nc: usize) {
    for (s, strip) in dst.chunks_mut(kc * NR).take(nc.div_ceil(NR)).enumerate() {
        let base = b.ptr.offset(p0 as isize * b.rs + (c0 + s * NR) as isize * b.cs);
        pack_panel::<NR>(strip, base, b.cs, b.rs, NR.min(nc - s * NR), kc);
    }
}

/// C = alpha A B + beta C (with beta = 0, C is only written: NaNs in it do not propagate).
pub fn gemm(alpha: f32, a: &ArrayView2<f32>, b: &ArrayView2<f32>, beta: f32, c: &mut ArrayViewMut2<f32>) {
    let (m, k) = a.dim();
    let n = b.ncols();
    assert_eq!(b.nrows(), k, "gemm: A is {m} x {k} but B has {} rows", b.nrows());
    assert_eq!(c.dim(), (m, n), "gemm: C must be {m} x {n}");
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c.map_inplace(|v| *v = if beta == 0.0 { 0.0 } else { beta * *v });
        return;
    }
    PACKS.with_borrow_mut(|(bpack, apack)| {
        // grown, never shrunk; each call packs what it reads, so old contents are never used
        let (nb, na) = (KC.min(k) * NC.min(n).next_multiple_of(NR), KC.min(k) * MC.min(m).next_multiple_of(MR));
        if bpack.len() < nb {
            bpack.resize(nb, 0.0);
        }
        if apack.len() < na {
            apack.resize(na, 0.0);
        }
        blocked(alpha, a, b, beta, c, bpack, apack);
    });
}

thread_local! {
    /// The packing buffers (B's block and A's), kept between calls: allocating and zeroing them
    /// per call cost 384 KB of writes for each chunk of the vocabulary's loss (`vocab_loss_gemm`).
    static PACKS: std::cell::RefCell<(Vec<f32>, Vec<f32>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
}

/// `gemm` with its packing buffers (at least a B block and an A block long).
fn blocked(
    alpha: f32,
    a: &ArrayView2<f32>,
    b: &ArrayView2<f32>,
    beta: f32,
    c: &mut ArrayViewMut2<f32>,
    bpack: &mut [f32],
    apack: &mut [f32],
) {
    let (m, k) = a.dim();
    let n = b.ncols();
    let mut tile = [0f32; MR * NR];
    let (sa, sb) = (Strided::of(a), Strided::of(b));
    let (crs, ccs) = (c.strides()[0], c.strides()[1]);
    let cp = c.as_mut_ptr();
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            // later k-blocks add to what the first one wrote
            let beta = if pc == 0 { beta } else { 1.0 };
            // SAFETY: the blocks lie inside A and B, the buffers hold the packed strips
            unsafe { pack_b(bpack, sb, pc, kc, jc, nc) };
            for ic in (0..m).step_by(MC) {
                let mc = MC.min(m - ic);
                unsafe { pack_a(apack, sa, ic, mc, pc, kc) };
                for jr in (0..nc).step_by(NR) {
                    let nr = NR.min(nc - jr);
                    let bs = bpack[(jr / NR) * kc * NR..].as_ptr();
                    for ir in (0..mc).step_by(MR) {
                        let mr = MR.min(mc - ir);
                        // SAFETY: the strips hold kc * MR and kc * NR packed values; the tile's
                        // mr x nr cells are inside C (rows ic + ir.., columns jc + jr..)
                        unsafe {
                            kernel(kc, apack[(ir / MR) * kc * MR..].as_ptr(), bs, &mut tile);
                            for r in 0..mr {
                                let row = cp.offset((ic + ir + r) as isize * crs + (jc + jr) as isize * ccs);
                                let t = &tile[r * NR..r * NR + NR];
                                if ccs == 1 && nr == NR {
                                    // a contiguous row of the tile: LLVM vectorises these eight
                                    let out = std::slice::from_raw_parts_mut(row, NR);
                                    if beta == 0.0 {
                                        out.iter_mut().zip(t).for_each(|(o, &v)| *o = alpha * v);
                                    } else {
                                        out.iter_mut().zip(t).for_each(|(o, &v)| *o = alpha * v + beta * *o);
                                    }
                                } else {
                                    for (j, &v) in t.iter().enumerate().take(nr) {
                                        let o = &mut *row.offset(j as isize * ccs);
                                        *o = if beta == 0.0 { alpha * v } else { alpha * v + beta * *o };
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::testutil::rand_array;
    use ndarray::linalg::general_mat_mul;
    use ndarray::Array2;

    fn close(a: &Array2<f32>, b: &Array2<f32>, what: &str) {
        for (x, y) in a.iter().zip(b.iter()) {
            assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{what}: {x} vs {y}");
        }
    }

    /// Odd shapes (not multiples of the tile or of the blocks), transposed operands, alpha/beta.
    #[test]
    fn matches_ndarray_on_odd_shapes_and_strides() {
        for (i, &(m, k, n)) in [(1, 1, 1), (3, 5, 7), (4, 8, 8), (5, 9, 17), (65, 257, 9), (70, 300, 521), (130, 64, 3)].iter().enumerate()
        {
            let a: Array2<f32> = rand_array(&[m, k], 10 + i as u64).mapv(|v| v as f32).into_dimensionality().unwrap();
            let b: Array2<f32> = rand_array(&[k, n], 20 + i as u64).mapv(|v| v as f32).into_dimensionality().unwrap();
            let c0: Array2<f32> = rand_array(&[m, n], 30 + i as u64).mapv(|v| v as f32).into_dimensionality().unwrap();
            let at = a.t().to_owned(); // (K, M), used transposed below
            let bt = b.t().to_owned();
            for (alpha, beta) in [(1.0, 0.0), (0.5, 1.0), (-2.0, 0.25)] {
                let mut want = c0.clone();
                general_mat_mul(alpha, &a, &b, beta, &mut want);
                for (av, bv) in [(a.view(), b.view()), (at.t(), bt.t()), (a.view(), bt.t())] {
                    let mut got = c0.clone();
                    gemm(alpha, &av, &bv, beta, &mut got.view_mut());
                    close(&got, &want, &format!("{m}x{k}x{n} alpha {alpha} beta {beta}"));
                }
            }
        }
    }

    /// C as a window of a larger matrix (attention writes one head's columns) and transposed.
    #[test]
    fn writes_into_strided_views_of_c() {
        let a: Array2<f32> = rand_array(&[13, 33], 1).mapv(|v| v as f32).into_dimensionality().unwrap();
        let b: Array2<f32> = rand_array(&[33, 11], 2).mapv(|v| v as f32).into_dimensionality().unwrap();
        let want = a.dot(&b);
        let mut big = Array2::from_elem((15, 30), 7.0f32);
        gemm(1.0, &a.view(), &b.view(), 0.0, &mut big.slice_mut(ndarray::s![1..14, 9..20]));
        close(&big.slice(ndarray::s![1..14, 9..20]).to_owned(), &want, "window");
        assert_eq!(big[[0, 9]], 7.0);
        assert_eq!(big[[1, 20]], 7.0);
        let mut ct = Array2::<f32>::zeros((11, 13));
        gemm(1.0, &a.view(), &b.view(), 0.0, &mut ct.view_mut().reversed_axes());
        close(&ct.t().to_owned(), &want, "transposed");
    }

    #[test]
    fn beta_zero_ignores_c_and_empty_k_scales() {
        let a = Array2::<f32>::ones((2, 3));
        let b = Array2::<f32>::ones((3, 2));
        let mut c = Array2::from_elem((2, 2), f32::NAN);
        gemm(1.0, &a.view(), &b.view(), 0.0, &mut c.view_mut());
        assert_eq!(c, Array2::from_elem((2, 2), 3.0));
        let mut c = Array2::from_elem((2, 2), 2.0);
        gemm(1.0, &Array2::zeros((2, 0)).view(), &Array2::zeros((0, 2)).view(), 0.5, &mut c.view_mut());
        assert_eq!(c, Array2::from_elem((2, 2), 1.0));
        assert_eq!(crate::cpu::real::matmul(a.view(), b.view()), Array2::from_elem((2, 2), 3.0));
    }
}
