//! Inverted dropout masks, seeded: a mask holds 0 (dropped) or 1/(1-p) (kept).

use crate::cpu::real::Real;
use crate::rng::Rng;
use ndarray::{Array, Dimension, ShapeBuilder};

pub fn dropout_mask<T: Real, D: Dimension, Sh: ShapeBuilder<Dim = D>>(shape: Sh, p: f64, rng: &mut Rng) -> Array<T, D> {
    let keep = T::c(1.0 / (1.0 - p));
    Array::from_shape_simple_fn(shape, || if rng.uniform() < p { T::zero() } else { keep })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    #[test]
    fn drops_about_p_and_keeps_the_mean() {
        let mut rng = Rng::new(3);
        let m: Array2<f64> = dropout_mask((100, 100), 0.1, &mut rng);
        let dropped = m.iter().filter(|&&v| v == 0.0).count();
        assert!((800..1200).contains(&dropped), "{dropped}");
        assert!((m.mean().unwrap() - 1.0).abs() < 0.03);
    }
}
