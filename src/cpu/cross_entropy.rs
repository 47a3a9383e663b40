//! Mean cross-entropy over labelled rows (`torch.nn.CrossEntropyLoss`, ignore_index = -100) and
//! its gradient with respect to the logits.

use crate::cpu::real::Real;
use crate::cpu::softmax::{exp_shifted, exp_shifted_inplace, row_max};
use ndarray::{Array2, ArrayView2};

pub const IGNORE: i64 = -100;

/// logits (N, C), targets (N) with IGNORE rows skipped -> (mean loss, dlogits (N, C) of the mean).
/// With no labelled row the loss is 0 and the gradient is zero (HF would give NaN).
pub fn cross_entropy_forward_backward<T: Real>(logits: ArrayView2<T>, targets: &[i64]) -> (T, Array2<T>) {
    let n_lab = targets.iter().filter(|&&t| t != IGNORE).count();
    let mut dlogits = Array2::zeros(logits.dim());
    if n_lab == 0 {
        return (T::zero(), dlogits);
    }
    let inv = T::one() / T::c(n_lab as f64);
    let mut loss = T::zero();
    for (i, &t) in targets.iter().enumerate() {
        if t == IGNORE {
            continue;
        }
        let t = t as usize;
        let mut row = dlogits.row_mut(i);
        let d = row.as_slice_mut().expect("contiguous");
        let x = logits.row(i);
        let xs = x.as_slice().expect("contiguous logits");
        // one pass of exp: d = exp(x - m), s = sum; loss = m + ln s - x_t; d = (d / s - onehot) / n
        let m = row_max(xs);
        let s = exp_shifted(xs, m, d);
        loss += m + s.ln() - x[t];
        let scale = inv / s;
        for dv in d.iter_mut() {
            *dv *= scale;
        }
        d[t] -= inv;
    }
    (loss * inv, dlogits)
}

/// As `cross_entropy_forward_backward`, but turns `logits` (N, C) into dlogits in place, so the
/// largest array of a training step (M x V) is not allocated twice. Also gives each row's
/// log-probability of its target (0 for an ignored row): what attributions read, so the logits
/// need not be kept.
pub fn cross_entropy_inplace<T: Real>(logits: &mut Array2<T>, targets: &[i64]) -> (T, Vec<T>) {
    let n_lab = targets.iter().filter(|&&t| t != IGNORE).count();
    let inv = if n_lab == 0 { T::zero() } else { T::one() / T::c(n_lab as f64) };
    let mut loss = T::zero();
    let mut logp = vec![T::zero(); targets.len()];
    for (i, &t) in targets.iter().enumerate() {
        let mut row = logits.row_mut(i);
        let d = row.as_slice_mut().expect("contiguous logits");
        if t == IGNORE {
            d.iter_mut().for_each(|v| *v = T::zero());
            continue;
        }
        let t = t as usize;
        let xt = d[t];
        let m = row_max(d);
        let s = exp_shifted_inplace(d, m);
        logp[i] = xt - m - s.ln();
        loss -= logp[i];
        let scale = inv / s;
        for dv in d.iter_mut() {
            *dv *= scale;
        }
        d[t] -= inv;
    }
    (loss * inv, logp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::testutil::{check_grad, rand_array};

    #[test]
    fn cross_entropy_gradient_matches_finite_differences() {
        let x: Array2<f64> = rand_array(&[4, 7], 1).into_dimensionality().unwrap();
        let targets = [3, IGNORE, 0, 6];
        let (loss, d) = cross_entropy_forward_backward(x.view(), &targets);
        assert!(loss > 0.0);
        check_grad("dlogits", &x, &d, |x| cross_entropy_forward_backward(x.view(), &targets).0);
        let mut y = x.clone();
        let (l2, logp) = cross_entropy_inplace(&mut y, &targets);
        assert!((l2 - loss).abs() < 1e-14 && (&y - &d).iter().all(|v| v.abs() < 1e-15));
        // each row's log-softmax at its target, 0 where ignored
        for (i, &t) in targets.iter().enumerate() {
            let row = x.row(i);
            let want = if t == IGNORE { 0.0 } else { row[t as usize] - row.mapv(f64::exp).sum().ln() };
            assert!((logp[i] - want).abs() < 1e-12, "row {i}: {} vs {want}", logp[i]);
        }
    }

    #[test]
    fn uniform_logits_give_log_c() {
        let x = Array2::<f32>::zeros((2, 10));
        let (loss, _) = cross_entropy_forward_backward(x.view(), &[1, 2]);
        assert!((loss - 10f32.ln()).abs() < 1e-6);
        let (loss, d) = cross_entropy_forward_backward(x.view(), &[IGNORE, IGNORE]);
        assert_eq!(loss, 0.0);
        assert!(d.iter().all(|&v| v == 0.0));
    }
}
