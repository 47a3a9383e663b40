//! Row softmax over the last axis (max-subtracted) and its backward.

use crate::real::Real;

/// In place over one row: x -> softmax(x).
pub fn softmax_row<T: Real>(x: &mut [T]) {
    let m = x.iter().fold(T::neg_infinity(), |m, &v| m.max(v));
    let mut s = T::zero();
    for v in x.iter_mut() {
        *v = (*v - m).exp();
        s += *v;
    }
    let inv = T::one() / s;
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
