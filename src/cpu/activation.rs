//! Pointwise activations of the FFN and the MLM transform: exact erf GELU (BERT's `gelu`),
//! the tanh approximation (`gelu_new`), ReLU; and tanh for the pooler.

use crate::config::{Activation, PoolerActivation};
use crate::cpu::real::Real;
use ndarray::{Array2, ArrayView2, Zip};

#[inline(always)]
fn gelu<T: Real>(x: T) -> T {
    // 0.5 x (1 + erf(x / sqrt 2))
    T::c(0.5) * x * (T::one() + (x * T::c(std::f64::consts::FRAC_1_SQRT_2)).erf())
}

#[inline(always)]
fn gelu_grad<T: Real>(x: T) -> T {
    let cdf = T::c(0.5) * (T::one() + (x * T::c(std::f64::consts::FRAC_1_SQRT_2)).erf());
    let pdf = (-(x * x) * T::c(0.5)).exp_fast() * T::c(0.398_942_280_401_432_7); // 1/sqrt(2 pi)
    cdf + x * pdf
}

const GELU_NEW_K: f64 = 0.797_884_560_802_865_4; // sqrt(2 / pi)

fn gelu_new<T: Real>(x: T) -> T {
    let u = T::c(GELU_NEW_K) * (x + T::c(0.044715) * x * x * x);
    T::c(0.5) * x * (T::one() + u.tanh())
}

fn gelu_new_grad<T: Real>(x: T) -> T {
    let u = T::c(GELU_NEW_K) * (x + T::c(0.044715) * x * x * x);
    let t = u.tanh();
    let du = T::c(GELU_NEW_K) * (T::one() + T::c(3.0 * 0.044715) * x * x);
    T::c(0.5) * (T::one() + t) + T::c(0.5) * x * (T::one() - t * t) * du
}

/// x (N, D) -> act(x) (N, D)
pub fn activation_forward<T: Real>(act: Activation, x: ArrayView2<T>) -> Array2<T> {
    match act {
        // over a plain slice, so the branch-free erf vectorises (a fifth of a fine-tuning step
        // went to GELU computed one value at a time)
        Activation::Gelu => {
            let mut y = x.to_owned();
            match y.as_slice_mut() {
                Some(s) => s.iter_mut().for_each(|v| *v = gelu(*v)),
                None => y.mapv_inplace(gelu),
            }
            y
        }
        Activation::GeluNew => x.mapv(gelu_new),
        Activation::Relu => x.mapv(|v| if v > T::zero() { v } else { T::zero() }),
    }
}

/// dout (N, D), pre-activation x (N, D) -> dx (N, D)
pub fn activation_backward<T: Real>(act: Activation, dout: ArrayView2<T>, x: ArrayView2<T>) -> Array2<T> {
    if let (Activation::Gelu, Some(g), Some(xs)) = (act, dout.as_slice(), x.as_slice()) {
        // plain slices: vectorises (see activation_forward)
        let d: Vec<T> = g.iter().zip(xs).map(|(&g, &v)| g * gelu_grad(v)).collect();
        return Array2::from_shape_vec(x.dim(), d).expect("same shape");
    }
    let mut dx = Array2::zeros(x.dim());
    Zip::from(&mut dx).and(&dout).and(&x).for_each(|d, &g, &v| {
        *d = g * match act {
            Activation::Gelu => gelu_grad(v),
            Activation::GeluNew => gelu_new_grad(v),
            Activation::Relu => {
                if v > T::zero() {
                    T::one()
                } else {
                    T::zero()
                }
            }
        };
    });
    dx
}

/// tanh (pooler): y = tanh(x); backward uses the output y.
pub fn tanh_forward<T: Real>(x: ArrayView2<T>) -> Array2<T> {
    x.mapv(|v| v.tanh())
}

pub fn tanh_backward<T: Real>(dout: ArrayView2<T>, y: ArrayView2<T>) -> Array2<T> {
    let mut dx = Array2::zeros(y.dim());
    Zip::from(&mut dx).and(&dout).and(&y).for_each(|d, &g, &t| *d = g * (T::one() - t * t));
    dx
}

/// The pooler slot's activation: tanh (BERT, RoBERTa) or ReLU (DistilBERT's pre_classifier).
pub fn pooler_act_forward<T: Real>(act: PoolerActivation, x: ArrayView2<T>) -> Array2<T> {
    match act {
        PoolerActivation::Tanh => tanh_forward(x),
        PoolerActivation::Relu => x.mapv(|v| v.max(T::zero())),
    }
}

/// Its backward from the output y (ReLU's slope is 1 where y > 0).
pub fn pooler_act_backward<T: Real>(act: PoolerActivation, dout: ArrayView2<T>, y: ArrayView2<T>) -> Array2<T> {
    match act {
        PoolerActivation::Tanh => tanh_backward(dout, y),
        PoolerActivation::Relu => {
            let mut dx = Array2::zeros(y.dim());
            Zip::from(&mut dx).and(&dout).and(&y).for_each(|d, &g, &t| *d = if t > T::zero() { g } else { T::zero() });
            dx
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::testutil::{check_grad, rand_array};

    #[test]
    fn gelu_known_values() {
        // 0.5 x (1 + erf(x / sqrt 2)) by Python math.erf
        let x = ndarray::arr2(&[[1.0f64, -0.5, 2.0]]);
        let y = activation_forward(Activation::Gelu, x.view());
        let want = [0.841_344_746_068_542_9, -0.154_268_769_362_993_44, 1.954_499_736_103_641_6];
        for (a, b) in y.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }

    #[test]
    fn activation_backward_matches_finite_differences() {
        let x: Array2<f64> = rand_array(&[3, 13], 5).into_dimensionality::<ndarray::Ix2>().unwrap() * 2.0;
        let r: Array2<f64> = rand_array(&[3, 13], 6).into_dimensionality().unwrap();
        for act in [Activation::Gelu, Activation::GeluNew, Activation::Relu] {
            let dx = activation_backward(act, r.view(), x.view());
            check_grad(&format!("{act:?}"), &x, &dx, |x| (activation_forward(act, x.view()) * &r).sum());
        }
        let y = tanh_forward(x.view());
        let dx = tanh_backward(r.view(), y.view());
        check_grad("tanh", &x, &dx, |x| (tanh_forward(x.view()) * &r).sum());
        for act in [PoolerActivation::Tanh, PoolerActivation::Relu] {
            let y = pooler_act_forward(act, x.view());
            let dx = pooler_act_backward(act, r.view(), y.view());
            check_grad("pooler", &x, &dx, |x| (pooler_act_forward(act, x.view()) * &r).sum());
        }
    }
}
