//! Mean squared error of a one-output head (HF's regression: `MSELoss(logits.squeeze(), labels)`):
//! pred (R, 1), targets (R) -> (mean (pred - y)^2, d pred (R, 1)).

use crate::cpu::real::Real;
use ndarray::{Array2, ArrayView2};

pub fn mse_forward_backward<T: Real>(pred: ArrayView2<T>, targets: &[f64]) -> (T, Array2<T>) {
    let n = T::c(targets.len().max(1) as f64);
    let mut d = Array2::zeros(pred.dim());
    let mut loss = T::zero();
    for (i, &y) in targets.iter().enumerate() {
        let e = pred[[i, 0]] - T::c(y);
        loss += e * e / n;
        d[[i, 0]] = T::c(2.0) * e / n;
    }
    (loss, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::testutil::{check_grad, rand_array};

    #[test]
    fn mse_gradient_matches_finite_differences() {
        let x: Array2<f64> = rand_array(&[5, 1], 3).into_dimensionality().unwrap();
        let y = [0.5, -1.0, 2.0, 0.0, 1.5];
        let (loss, d) = mse_forward_backward(x.view(), &y);
        let want: f64 = x.iter().zip(&y).map(|(a, b)| (a - b) * (a - b)).sum::<f64>() / 5.0;
        assert!((loss - want).abs() < 1e-14);
        check_grad("dpred", &x, &d, |x| mse_forward_backward(x.view(), &y).0);
    }
}
