//! `vocab_loss` chunk by chunk through `Real::gemm`, for the page: wasm has no fused multiply-add,
//! and the portable loop of `vocab_loss::fused` (its accumulators spill in V8) is slower there than
//! the logits + softmax of the reference. Each chunk of CHUNK vocabulary rows goes through our
//! packed GEMM twice while it is in cache: its logits (M, CHUNK), an online softmax (the running
//! maximum rescales what was summed), and its share of sum_v e^(z_v - max) W_v. W (15.6 MB for
//! BERT's vocabulary) is read from memory once, and no (M, V) array is made.

use crate::cpu::real::Real;
use ndarray::{s, Array2, ArrayView1, ArrayView2, Axis};

/// Vocabulary rows per chunk: 512 x H floats of W (256 KB at H = 128) stay in the L2 cache between
/// the chunk's two products, and 512 is one GEMM column block (`cpu::gemm`'s NC).
const CHUNK: usize = 512;

/// As `vocab_loss::vocab_loss_reference`: each row's log-probability of its label (M) and
/// d(-logp)/dh (M, H); h (M, H), w (V, H), b (V).
pub fn vocab_loss_gemm<T: Real>(h: ArrayView2<T>, w: ArrayView2<T>, b: ArrayView1<T>, labels: &[usize]) -> (Vec<T>, Array2<T>) {
    let (m, d) = h.dim();
    let v = w.nrows();
    assert!(w.ncols() == d && b.len() == v && labels.len() == m, "h (M, H), w (V, H), b (V), M labels");
    assert!(labels.iter().all(|&l| l < v), "labels inside the vocabulary");
    let mut mx = vec![T::neg_infinity(); m]; // each row's running maximum
    let mut sum = vec![T::zero(); m]; // sum_v e^(z_v - mx) so far
    let mut zl = vec![T::zero(); m]; // the label's logit
    let mut acc = Array2::<T>::zeros((m, d)); // sum_v e^(z_v - mx) W_v so far
    let mut z = Array2::<T>::zeros((m, CHUNK.min(v)));
    for v0 in (0..v).step_by(CHUNK) {
        let vc = CHUNK.min(v - v0);
        let wc = w.slice(s![v0..v0 + vc, ..]);
        let mut zc = z.slice_mut(s![.., ..vc]);
        T::gemm(T::one(), &h, &wc.t(), T::zero(), &mut zc);
        for (a, mut row) in zc.axis_iter_mut(Axis(0)).enumerate() {
            let row = row.as_slice_mut().expect("a row of a standard-layout array");
            row.iter_mut().zip(b.slice(s![v0..v0 + vc])).for_each(|(x, &bj)| *x += bj);
            if (v0..v0 + vc).contains(&labels[a]) {
                zl[a] = row[labels[a] - v0];
            }
            let cm = crate::cpu::softmax::row_max(row);
            if cm > mx[a] {
                // a new maximum: what was summed at the old one shrinks by e^(old - new)
                let scale = (mx[a] - cm).exp();
                sum[a] *= scale;
                acc.row_mut(a).mapv_inplace(|x| x * scale);
                mx[a] = cm;
            }
            sum[a] += crate::cpu::softmax::exp_shifted_inplace(row, mx[a]);
        }
        T::gemm(T::one(), &zc.view(), &wc, T::one(), &mut acc.view_mut());
    }
    let logp = (0..m).map(|a| zl[a] - mx[a] - sum[a].ln()).collect();
    for (a, mut row) in acc.axis_iter_mut(Axis(0)).enumerate() {
        let inv = T::one() / sum[a];
        row.zip_mut_with(&w.row(labels[a]), |x, &wl| *x = *x * inv - wl);
    }
    (logp, acc)
}
