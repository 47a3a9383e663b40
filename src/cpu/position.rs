//! Sinusoidal position encoding of Attention Is All You Need: PE[p, 2k] = sin(p w_k),
//! PE[p, 2k+1] = cos(p w_k), with w_k = 1 / 10000^(2k / H).

use crate::cpu::real::Real;
use ndarray::Array2;

/// (P, H)
pub fn sinusoidal_table<T: Real>(positions: usize, hidden: usize) -> Array2<T> {
    Array2::from_shape_fn((positions, hidden), |(p, j)| {
        let k = (j / 2) as f64;
        let w = 1.0 / 10000f64.powf(2.0 * k / hidden as f64);
        let a = p as f64 * w;
        T::c(if j % 2 == 0 { a.sin() } else { a.cos() })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_rows_are_sin_cos() {
        let pe: Array2<f64> = sinusoidal_table(4, 6);
        assert_eq!(pe[[0, 0]], 0.0);
        assert_eq!(pe[[0, 1]], 1.0);
        assert!((pe[[1, 0]] - 1f64.sin()).abs() < 1e-15);
        assert!((pe[[3, 2]] - (3.0 / 10000f64.powf(2.0 / 6.0)).sin()).abs() < 1e-15);
    }
}
