//! The float type the CPU engine is generic over: f32 for real use, f64 for finite-difference checks.

use ndarray::{Array2, ArrayView2, ArrayViewMut2, LinalgScalar, ScalarOperand};
use num_traits::Float;
use std::fmt::{Debug, Display};
use std::iter::Sum;
use std::ops::{AddAssign, DivAssign, MulAssign, SubAssign};

pub trait Real:
    Float
    + LinalgScalar
    + ScalarOperand
    + Debug
    + Display
    + Sum
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Default
    + Send
    + Sync
    + 'static
{
    fn erf(self) -> Self;
    /// e^x for softmax, cross-entropy and GELU's gradient: `exp` in f64; in f32 a branch-free polynomial (within
    /// 2 ulp of libm, tested) that vectorises, and exactly 0 below the smallest normal result.
    fn exp_fast(self) -> Self {
        self.exp()
    }
    fn c(x: f64) -> Self;
    fn to_f64c(self) -> f64;
    /// C = alpha A B + beta C: ndarray's GEMM; f32 in wasm has its own (`cpu::gemm`).
    fn gemm(alpha: Self, a: &ArrayView2<Self>, b: &ArrayView2<Self>, beta: Self, c: &mut ArrayViewMut2<Self>) {
        ndarray::linalg::general_mat_mul(alpha, a, b, beta, c)
    }
}

impl Real for f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn gemm(alpha: f32, a: &ArrayView2<f32>, b: &ArrayView2<f32>, beta: f32, c: &mut ArrayViewMut2<f32>) {
        crate::cpu::gemm::gemm(alpha, a, b, beta, c)
    }
    /// A rational approximation on [-4, 4] (the one Eigen and XLA use for f32): max abs error
    /// below 5e-7 against libm in f32 arithmetic (tested), and branch-free so GELU vectorises.
    #[inline(always)]
    fn erf(self) -> Self {
        let x = clamp_select(self, -4.0, 4.0);
        let x2 = x * x;
        let mut p = x2 * -2.726_142_3e-10 + 2.770_681_4e-8;
        p = x2 * p - 2.101_024e-6;
        p = x2 * p - 5.692_506_4e-5;
        p = x2 * p - 7.349_906_3e-4;
        p = x2 * p - 2.954_600_2e-3;
        p = x2 * p - 1.609_603_3e-2;
        let mut q = x2 * -1.456_607_2e-5 - 2.133_740_6e-4;
        q = x2 * q - 1.682_827e-3;
        q = x2 * q - 7.373_329e-3;
        q = x2 * q - 1.426_474e-2;
        x * p / q
    }
    #[inline(always)]
    fn exp_fast(self) -> Self {
        // Cephes expf: e^x = 2^n e^r, n = round(x log2 e), |r| <= ln2 / 2, degree-5 polynomial.
        const ROUND: f32 = 12_582_912.0; // 1.5 * 2^23: adding it rounds to an integer
        let x = clamp_select(self, -87.3, 88.7);
        let t = x * std::f32::consts::LOG2_E + ROUND;
        let n = t - ROUND;
        let r = x - n * 0.693_359_4 - n * -2.121_944_4e-4;
        let mut y = 1.987_569_1e-4f32;
        y = y * r + 1.398_199_9e-3;
        y = y * r + 8.333_452e-3;
        y = y * r + 4.166_579_6e-2;
        y = y * r + 0.166_666_65;
        y = y * r + 0.5;
        y = y * r * r + r + 1.0;
        let pow2 = f32::from_bits(((t.to_bits() as i32 - ROUND.to_bits() as i32 + 127) << 23) as u32);
        let keep = if self >= -87.3 { 1.0 } else { 0.0 };
        y * pow2 * keep
    }
    fn c(x: f64) -> Self {
        x as f32
    }
    fn to_f64c(self) -> f64 {
        self as f64
    }
}

/// x limited to [lo, hi] by comparisons, so a NaN stays NaN (`max`/`min` turn it into a bound:
/// erf(NaN) was -1, exp(NaN) 0). Not `clamp`: its NaN handling stops vectorisation.
#[inline(always)]
fn clamp_select(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x < lo { lo } else { x };
    if x > hi {
        hi
    } else {
        x
    }
}

impl Real for f64 {
    fn erf(self) -> Self {
        libm::erf(self)
    }
    fn c(x: f64) -> Self {
        x
    }
    fn to_f64c(self) -> f64 {
        self
    }
}

/// a (M, K) b (K, N) -> (M, N), through `Real::gemm`.
pub fn matmul<T: Real>(a: ArrayView2<T>, b: ArrayView2<T>) -> Array2<T> {
    let mut c = Array2::zeros((a.nrows(), b.ncols()));
    T::gemm(T::one(), &a, &b, T::zero(), &mut c.view_mut());
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_erf_is_accurate() {
        let mut worst = 0f64;
        for i in -70_000..=70_000 {
            let x = i as f64 / 10_000.0;
            let xf = x as f32;
            worst = worst.max((Real::erf(xf) as f64 - libm::erf(xf as f64)).abs());
        }
        assert!(worst < 5e-7, "max |erf error| {worst:e}");
    }

    #[test]
    fn f32_exp_is_within_two_ulp() {
        for i in -87_000..=88_000 {
            let x = i as f32 / 1000.0 + 0.000_37;
            let (got, want) = (x.exp_fast(), (x as f64).exp());
            let rel = ((got as f64 - want) / want).abs();
            assert!(rel < 2.5e-7, "exp({x}) = {got} vs {want}: rel {rel:e}");
        }
        assert_eq!(f32::MIN.exp_fast(), 0.0);
        assert_eq!((-100f32).exp_fast(), 0.0);
        assert_eq!(0f32.exp_fast(), 1.0);
        assert!(f32::NAN.exp_fast().is_nan() && Real::erf(f32::NAN).is_nan(), "NaN in, NaN out");
        assert!((Real::erf(9f32) - 1.0).abs() < 1e-6 && (Real::erf(-9f32) + 1.0).abs() < 1e-6, "clamped past 4");
    }
}
