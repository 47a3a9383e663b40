//! Row softmax over the last axis (max-subtracted) and its backward.

use crate::cpu::real::Real;

const LANES: usize = 8;

/// max over a row, 8 independent lanes so it vectorises.
pub fn row_max<T: Real>(x: &[T]) -> T {
    let mut acc = [T::neg_infinity(); LANES];
    let mut chunks = x.chunks_exact(LANES);
    for c in &mut chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a = if v > *a { v } else { *a };
        }
    }
    let tail = chunks.remainder().iter().fold(T::neg_infinity(), |m, &v| m.max(v));
    acc.iter().fold(tail, |m, &v| m.max(v))
}

/// out = exp(x - m); returns the sum (8 lanes, so it vectorises).
pub fn exp_shifted<T: Real>(x: &[T], m: T, out: &mut [T]) -> T {
    let mut acc = [T::zero(); LANES];
    let mut xc = x.chunks_exact(LANES);
    let mut oc = out.chunks_exact_mut(LANES);
    for (xs, os) in (&mut xc).zip(&mut oc) {
        let os: &mut [T; LANES] = os.try_into().expect("LANES");
        for l in 0..LANES {
            os[l] = (xs[l] - m).exp_fast();
            acc[l] += os[l];
        }
    }
    let mut s = T::zero();
    for (o, &v) in oc.into_remainder().iter_mut().zip(xc.remainder()) {
        *o = (v - m).exp_fast();
        s += *o;
    }
    acc.iter().fold(s, |a, &b| a + b)
}

/// x = exp(x - m) in place; returns the sum.
pub fn exp_shifted_inplace<T: Real>(x: &mut [T], m: T) -> T {
    let mut acc = [T::zero(); LANES];
    let mut xc = x.chunks_exact_mut(LANES);
    for xs in &mut xc {
        let xs: &mut [T; LANES] = xs.try_into().expect("LANES");
        for l in 0..LANES {
            xs[l] = (xs[l] - m).exp_fast();
            acc[l] += xs[l];
        }
    }
    let mut s = T::zero();
    for v in xc.into_remainder() {
        *v = (*v - m).exp_fast();
        s += *v;
    }
    acc.iter().fold(s, |a, &b| a + b)
}

/// In place over one row: x -> softmax(x).
pub fn softmax_row<T: Real>(x: &mut [T]) {
    let m = row_max(x);
    let inv = T::one() / exp_shifted_inplace(x, m);
    for v in x.iter_mut() {
        *v *= inv;
    }
}

/// One row: given p = softmax(s) and dp, writes ds = p * (dp - sum(dp * p)).
pub fn softmax_row_backward<T: Real>(p: &[T], dp: &[T], ds: &mut [T]) {
    let dot: T = p.iter().zip(dp).map(|(&a, &b)| a * b).sum();
    for ((d, &a), &b) in ds.iter_mut().zip(p).zip(dp) {
        *d = a * (b - dot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::testutil::{check_grad, rand_array};
    use ndarray::Array1;

    #[test]
    fn softmax_is_stable_and_sums_to_one() {
        let mut x = [1000.0f32, 1001.0, 999.0];
        softmax_row(&mut x);
        assert!((x.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(x[1] > x[0] && x[0] > x[2]);
    }

    #[test]
    fn softmax_backward_matches_finite_differences() {
        let s: Array1<f64> = rand_array(&[9], 1).into_dimensionality().unwrap();
        let r: Array1<f64> = rand_array(&[9], 2).into_dimensionality().unwrap();
        let f = |s: &Array1<f64>| {
            let mut p = s.to_vec();
            softmax_row(&mut p);
            p.iter().zip(r.iter()).map(|(a, b)| a * b).sum::<f64>()
        };
        let mut p = s.to_vec();
        softmax_row(&mut p);
        let mut ds = vec![0.0; 9];
        softmax_row_backward(&p, r.as_slice().unwrap(), &mut ds);
        check_grad("ds", &s, &Array1::from(ds), f);
    }
}
