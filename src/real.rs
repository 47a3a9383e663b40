//! The float type the CPU engine is generic over: f32 for real use, f64 for finite-difference checks.

use ndarray::{LinalgScalar, ScalarOperand};
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
    fn c(x: f64) -> Self;
    fn to_f64c(self) -> f64;
}

impl Real for f32 {
    fn erf(self) -> Self {
        libm::erff(self)
    }
    fn c(x: f64) -> Self {
        x as f32
    }
    fn to_f64c(self) -> f64 {
        self as f64
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
