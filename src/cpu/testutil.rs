//! Test helpers: seeded random arrays and a central-difference gradient check in f64.

use crate::rng::Rng;
use ndarray::{Array, ArrayD, Dimension, IxDyn};

pub fn rand_array(shape: &[usize], seed: u64) -> ArrayD<f64> {
    let mut rng = Rng::new(seed);
    ArrayD::from_shape_simple_fn(IxDyn(shape), || rng.normal())
}

/// Compares `analytic` with central differences of `f` at `x`, element by element:
/// |a - n| <= 1e-7 + 1e-5 * max|n| over the tensor.
pub fn check_grad<D: Dimension>(name: &str, x: &Array<f64, D>, analytic: &Array<f64, D>, f: impl Fn(&Array<f64, D>) -> f64) {
    assert_eq!(x.shape(), analytic.shape(), "{name}: gradient shape");
    let h = 1e-6;
    let mut xp = x.as_standard_layout().to_owned();
    let mut numeric = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        let orig = xp.as_slice().expect("standard layout")[i];
        xp.as_slice_mut().expect("standard layout")[i] = orig + h;
        let fp = f(&xp);
        xp.as_slice_mut().expect("standard layout")[i] = orig - h;
        let fm = f(&xp);
        xp.as_slice_mut().expect("standard layout")[i] = orig;
        numeric.push((fp - fm) / (2.0 * h));
    }
    let scale = numeric.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for ((a, n), i) in analytic.iter().zip(numeric.iter()).zip(0..) {
        assert!((a - n).abs() <= 1e-7 + 1e-5 * scale, "{name}[{i}]: analytic {a} vs numeric {n} (scale {scale})");
    }
}
