//! Cross-entropy over a whole vocabulary without its logits: for rows h (M, H) of a decoder
//! W (V, H) with bias b (V) and a label per row, each row's log-probability of its label and the
//! gradient of -log p with respect to the row,
//!
//!   logp_i = z_il - logsumexp_v z_iv,   z = h W^T + b
//!   d h_i  = sum_v p_iv W_v - W_l       (= W^T (p_i - onehot(l)))
//!
//! with no parameter gradients. It is what attributions need (integrated gradients' 33 points of
//! the masked-LM head): the decoder product is most of their work, and a GEMM first packs all of W
//! (V x H, 15.6 MB for BERT's vocabulary) for the logits and again for their gradient. Here W is
//! read once, in chunks that stay in cache: each chunk's logits, an online softmax (the running
//! maximum rescales the sums, as flash attention does), and the chunk's share of sum_v p W_v.
//!
//! `vocab_loss` is the reference (the logits, then the softmax: any `Real`); f32 goes through
//! `vocab_loss_fused`, with AVX-512 or AVX2 + FMA where the CPU has them, and in wasm through
//! `vocab_loss_gemm` (each tested against the reference on odd shapes).

use crate::cpu::cross_entropy::IGNORE;
use crate::cpu::linear::linear_forward;
use crate::cpu::real::{matmul, Real};
use ndarray::{Array2, ArrayView1, ArrayView2};
use std::any::TypeId;

/// Log-probabilities (M) of `labels` and d(-logp)/dh (M, H) per row; h (M, H), w (V, H), b (V).
pub fn vocab_loss<T: Real>(h: ArrayView2<T>, w: ArrayView2<T>, b: ArrayView1<T>, labels: &[usize]) -> (Vec<T>, Array2<T>) {
    assert_eq!(h.nrows(), labels.len(), "one label per row");
    if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
        return crate::cpu::vocab_loss_gemm::vocab_loss_gemm(h, w, b, labels);
    }
    if let (Some(hs), Some(ws), Some(bs)) = (contiguous_f32(&h), w.as_slice().and_then(as_f32), b.as_slice().and_then(as_f32)) {
        let (logp, dh) = vocab_loss_fused(&hs, h.nrows(), h.ncols(), ws, bs, labels);
        let dh = Array2::from_shape_vec(h.dim(), dh.into_iter().map(|x| T::c(x as f64)).collect()).expect("(M, H)");
        return (logp.into_iter().map(|x| T::c(x as f64)).collect(), dh);
    }
    vocab_loss_reference(h, w, b, labels)
}

/// Mean cross-entropy over the rows whose target is not `IGNORE` (as `cross_entropy_inplace`),
/// without the logits: (loss, each row's log-probability of its target (0 where ignored), the
/// loss's gradient with respect to h (M, H)).
pub fn vocab_cross_entropy<T: Real>(h: ArrayView2<T>, w: ArrayView2<T>, b: ArrayView1<T>, targets: &[i64]) -> (T, Vec<T>, Array2<T>) {
    let kept: Vec<usize> = (0..targets.len()).filter(|&i| targets[i] != IGNORE).collect();
    let mut logp = vec![T::zero(); targets.len()];
    let mut dh = Array2::zeros(h.dim());
    if kept.is_empty() {
        return (T::zero(), logp, dh);
    }
    let rows = h.select(ndarray::Axis(0), &kept);
    let labels: Vec<usize> = kept.iter().map(|&i| targets[i] as usize).collect();
    let (lp, g) = vocab_loss(rows.view(), w, b, &labels);
    let inv = T::one() / T::c(kept.len() as f64);
    let mut loss = T::zero();
    for (j, &i) in kept.iter().enumerate() {
        logp[i] = lp[j];
        loss -= lp[j];
        dh.row_mut(i).assign(&(&g.row(j) * inv));
    }
    (loss * inv, logp, dh)
}

/// The definition: every logit, each row's softmax, W^T (p - onehot).
pub fn vocab_loss_reference<T: Real>(h: ArrayView2<T>, w: ArrayView2<T>, b: ArrayView1<T>, labels: &[usize]) -> (Vec<T>, Array2<T>) {
    let mut p = linear_forward(h, w, Some(b)); // (M, V)
    let mut logp = Vec::with_capacity(labels.len());
    for (mut row, &l) in p.rows_mut().into_iter().zip(labels) {
        let m = row.iter().fold(T::neg_infinity(), |a, &x| a.max(x));
        let s: T = row.iter().map(|&x| (x - m).exp()).sum();
        logp.push(row[l] - m - s.ln());
        row.mapv_inplace(|x| (x - m).exp() / s);
        row[l] -= T::one();
    }
    (logp, matmul(p.view(), w))
}

fn as_f32<T: Real>(x: &[T]) -> Option<&[f32]> {
    // SAFETY: T is f32 (same type id), so the slice is one of f32.
    (TypeId::of::<T>() == TypeId::of::<f32>()).then(|| unsafe { std::slice::from_raw_parts(x.as_ptr().cast::<f32>(), x.len()) })
}

fn contiguous_f32<T: Real>(h: &ArrayView2<T>) -> Option<Vec<f32>> {
    (TypeId::of::<T>() == TypeId::of::<f32>()).then(|| h.iter().map(|x| x.to_f64c() as f32).collect())
}

/// Vocabulary rows per chunk: 256 x H floats of W (128 KB at H = 128) stay in the L2 cache
/// between the chunk's logits and its gradient.
const CHUNK: usize = 256;

/// Whether `vocab_loss` beats logits + softmax here: a vector path of `vocab_loss_fused` (AVX-512,
/// or AVX2 + FMA), or wasm SIMD, where `vocab_loss_gemm` runs our packed GEMM chunk by chunk (the
/// portable loop is slower than logits + softmax).
pub fn has_fast_path() -> bool {
    if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
        return true;
    }
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            || (std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `vocab_loss` on f32 slices: h (M*H), w (V*H), b (V) -> (logp (M), dh (M*H)).
pub fn vocab_loss_fused(h: &[f32], m: usize, d: usize, w: &[f32], b: &[f32], labels: &[usize]) -> (Vec<f32>, Vec<f32>) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F.
            return unsafe { fused_avx512(h, m, d, w, b, labels) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has AVX2 and FMA.
            return unsafe { fused_avx2(h, m, d, w, b, labels) };
        }
    }
    fused::<false, 8>(h, m, d, w, b, labels)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn fused_avx512(h: &[f32], m: usize, d: usize, w: &[f32], b: &[f32], labels: &[usize]) -> (Vec<f32>, Vec<f32>) {
    fused::<true, 16>(h, m, d, w, b, labels)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fused_avx2(h: &[f32], m: usize, d: usize, w: &[f32], b: &[f32], labels: &[usize]) -> (Vec<f32>, Vec<f32>) {
    fused::<true, 8>(h, m, d, w, b, labels)
}

#[inline(always)]
fn fma<const F: bool>(a: f32, b: f32, c: f32) -> f32 {
    // without FMA hardware mul_add is a library call: multiply and add instead
    if F {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// Logits of R vocabulary rows `j..` for Q vectors of LW points `q..` (lanes): zt[(j + r) * mp +
/// q + l] = sum_k w[j + r, k] ht[k, q + l], with ht = h^T padded to mp points. (Accumulators as
/// arrays of whole vectors: LLVM keeps those in registers.)
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn logits_block<const F: bool, const R: usize, const Q: usize, const LW: usize>(
    ht: &[f32],
    mp: usize,
    w: &[f32],
    d: usize,
    j: usize,
    q: usize,
    zt: &mut [f32],
) {
    let mut acc = [[[0f32; LW]; Q]; R];
    for k in 0..d {
        let mut hv = [[0f32; LW]; Q];
        for (qq, v) in hv.iter_mut().enumerate() {
            v.copy_from_slice(&ht[k * mp + q + qq * LW..k * mp + q + (qq + 1) * LW]);
        }
        for (r, ar) in acc.iter_mut().enumerate() {
            let s = w[(j + r) * d + k];
            for (a, v) in ar.iter_mut().zip(&hv) {
                for l in 0..LW {
                    a[l] = fma::<F>(s, v[l], a[l]);
                }
            }
        }
    }
    for (r, ar) in acc.iter().enumerate() {
        for (qq, a) in ar.iter().enumerate() {
            zt[(j + r) * mp + q + qq * LW..(j + r) * mp + q + (qq + 1) * LW].copy_from_slice(a);
        }
    }
}

/// acc[a0 + a, k..k + Q*LW] += sum_j e[j, a0 + a] w[j, k..k + Q*LW] for R rows, over `vc`
/// vocabulary rows (e is zt after the softmax: (vc, mp)).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn grad_block<const F: bool, const R: usize, const Q: usize, const LW: usize>(
    e: &[f32],
    mp: usize,
    a0: usize,
    vc: usize,
    w: &[f32],
    d: usize,
    acc: &mut [f32],
    k: usize,
) {
    let mut t = [[[0f32; LW]; Q]; R];
    for (a, ta) in t.iter_mut().enumerate() {
        for (qq, v) in ta.iter_mut().enumerate() {
            let o = (a0 + a) * d + k + qq * LW;
            v.copy_from_slice(&acc[o..o + LW]);
        }
    }
    for j in 0..vc {
        let mut wv = [[0f32; LW]; Q];
        for (qq, v) in wv.iter_mut().enumerate() {
            v.copy_from_slice(&w[j * d + k + qq * LW..j * d + k + (qq + 1) * LW]);
        }
        for (a, ta) in t.iter_mut().enumerate() {
            let s = e[j * mp + a0 + a];
            for (tv, v) in ta.iter_mut().zip(&wv) {
                for l in 0..LW {
                    tv[l] = fma::<F>(s, v[l], tv[l]);
                }
            }
        }
    }
    for (a, ta) in t.iter().enumerate() {
        for (qq, v) in ta.iter().enumerate() {
            let o = (a0 + a) * d + k + qq * LW;
            acc[o..o + LW].copy_from_slice(v);
        }
    }
}

/// The chunked loop; L = the vector width in floats (8: AVX2, 16: AVX-512).
#[inline(always)]
fn fused<const F: bool, const L: usize>(h: &[f32], m: usize, d: usize, w: &[f32], b: &[f32], labels: &[usize]) -> (Vec<f32>, Vec<f32>) {
    let v = b.len();
    assert!(h.len() == m * d && w.len() == v * d && labels.len() == m, "h (M, H), w (V, H), b (V), M labels");
    assert!(labels.iter().all(|&l| l < v), "labels inside the vocabulary");
    let mp = m.div_ceil(8) * 8; // points padded to whole 8-lane vectors
    let mut ht = vec![0f32; d * mp]; // (H, mp): a point per lane
    for a in 0..m {
        for k in 0..d {
            ht[k * mp + a] = h[a * d + k];
        }
    }
    let (mut mx, mut s, mut zl) = (vec![f32::NEG_INFINITY; mp], vec![0f32; mp], vec![0f32; m]);
    let mut acc = vec![0f32; m * d]; // sum_v e_iv W_v at the running maximum
    let mut zt = vec![0f32; CHUNK * mp];
    let mut cm = vec![0f32; mp];
    for v0 in (0..v).step_by(CHUNK) {
        let vc = (v - v0).min(CHUNK);
        let wc = &w[v0 * d..(v0 + vc) * d];
        // the chunk's logits (vc, mp)
        let mut j = 0;
        while j < vc {
            let rows4 = j + 4 <= vc;
            let mut q = 0;
            while q < mp {
                // two vectors of points where they fit, else one (of 16 or of 8 lanes)
                let step = if q + 2 * L <= mp {
                    2 * L
                } else if L == 16 && q + 16 <= mp {
                    16
                } else {
                    8
                };
                match (rows4, step) {
                    (true, 32) => logits_block::<F, 4, 2, 16>(&ht, mp, wc, d, j, q, &mut zt),
                    (true, 16) if L == 16 => logits_block::<F, 4, 1, 16>(&ht, mp, wc, d, j, q, &mut zt),
                    (true, 16) => logits_block::<F, 4, 2, 8>(&ht, mp, wc, d, j, q, &mut zt),
                    (true, _) => logits_block::<F, 4, 1, 8>(&ht, mp, wc, d, j, q, &mut zt),
                    (false, 32) => logits_block::<F, 1, 2, 16>(&ht, mp, wc, d, j, q, &mut zt),
                    (false, 16) if L == 16 => logits_block::<F, 1, 1, 16>(&ht, mp, wc, d, j, q, &mut zt),
                    (false, 16) => logits_block::<F, 1, 2, 8>(&ht, mp, wc, d, j, q, &mut zt),
                    (false, _) => logits_block::<F, 1, 1, 8>(&ht, mp, wc, d, j, q, &mut zt),
                }
                q += step;
            }
            j += if rows4 { 4 } else { 1 };
        }
        // bias, and each point's maximum over the chunk
        cm.fill(f32::NEG_INFINITY);
        for jj in 0..vc {
            let bj = b[v0 + jj];
            for (z, c) in zt[jj * mp..(jj + 1) * mp].iter_mut().zip(cm.iter_mut()) {
                *z += bj;
                *c = c.max(*z);
            }
        }
        for a in 0..m {
            if (v0..v0 + vc).contains(&labels[a]) {
                zl[a] = zt[(labels[a] - v0) * mp + a];
            }
            if cm[a] > mx[a] {
                // a new maximum: what was summed at the old one shrinks by e^(old - new)
                let scale = (mx[a] - cm[a]).exp();
                s[a] *= scale;
                acc[a * d..(a + 1) * d].iter_mut().for_each(|x| *x *= scale);
                mx[a] = cm[a];
            }
        }
        for jj in 0..vc {
            for ((z, &ma), sa) in zt[jj * mp..(jj + 1) * mp].iter_mut().zip(&mx).zip(s.iter_mut()) {
                *z = (*z - ma).exp_fast();
                *sa += *z;
            }
        }
        // acc += e^T W over the chunk, 4 points at a time, 2L columns at a time
        let mut k = 0;
        while k < d {
            let kw = if k + 2 * L <= d {
                2 * L
            } else if k + 8 <= d {
                8
            } else {
                d - k
            };
            let mut a = 0;
            while a < m {
                let r4 = a + 4 <= m;
                match (kw, r4) {
                    (32, true) => grad_block::<F, 4, 2, 16>(&zt, mp, a, vc, wc, d, &mut acc, k),
                    (32, false) => grad_block::<F, 1, 2, 16>(&zt, mp, a, vc, wc, d, &mut acc, k),
                    (16, true) => grad_block::<F, 4, 2, 8>(&zt, mp, a, vc, wc, d, &mut acc, k),
                    (16, false) => grad_block::<F, 1, 2, 8>(&zt, mp, a, vc, wc, d, &mut acc, k),
                    (8, true) => grad_block::<F, 4, 1, 8>(&zt, mp, a, vc, wc, d, &mut acc, k),
                    (8, false) => grad_block::<F, 1, 1, 8>(&zt, mp, a, vc, wc, d, &mut acc, k),
                    _ => {
                        // the last d % 8 columns
                        for j in 0..vc {
                            for c in k..d {
                                acc[a * d + c] = fma::<F>(zt[j * mp + a], wc[j * d + c], acc[a * d + c]);
                            }
                        }
                    }
                }
                a += if r4 && kw >= 8 { 4 } else { 1 };
            }
            k += kw;
        }
    }
    let logp = (0..m).map(|a| zl[a] - mx[a] - s[a].ln()).collect();
    for a in 0..m {
        let inv = 1.0 / s[a];
        for k in 0..d {
            acc[a * d + k] = acc[a * d + k] * inv - w[labels[a] * d + k];
        }
    }
    (logp, acc)
}

#[cfg(test)]
#[path = "vocab_loss_tests.rs"]
mod tests;
