//! Dense layer as `torch.nn.Linear`: y = x W^T + b, with W stored (OUT, IN) as in HF checkpoints.

use crate::cpu::real::matmul;
use crate::cpu::real::Real;
use ndarray::{Array2, ArrayView1, ArrayView2, ArrayViewMut1, ArrayViewMut2, Axis};

/// Up to this many rows, `linear_forward` does matrix-vector products instead of a GEMM.
const GEMV_ROWS: usize = 4;

/// x (N, IN), w (OUT, IN), b (OUT) -> y (N, OUT)
pub fn linear_forward<T: Real>(x: ArrayView2<T>, w: ArrayView2<T>, b: Option<ArrayView1<T>>) -> Array2<T> {
    let mut y = if x.nrows() <= GEMV_ROWS && w.is_standard_layout() {
        // A few rows (the MLM decoder at a handful of [MASK]s): one matrix-vector product per row
        // reads W once per row and skips the GEMM's packing of all of W (V x H for the decoder).
        let mut y = Array2::zeros((x.nrows(), w.nrows()));
        for (mut yr, xr) in y.rows_mut().into_iter().zip(x.rows()) {
            yr.assign(&w.dot(&xr)); // (OUT)
        }
        y
    } else {
        matmul(x, w.t()) // (N, OUT)
    };
    if let Some(b) = b {
        y += &b;
    }
    y
}

/// Given dy (N, OUT): dw += dy^T x (OUT, IN), db += sum_n dy (OUT); returns dx = dy W (N, IN).
pub fn linear_backward<T: Real>(
    dy: ArrayView2<T>,
    x: ArrayView2<T>,
    w: ArrayView2<T>,
    dw: ArrayViewMut2<T>,
    db: Option<ArrayViewMut1<T>>,
) -> Array2<T> {
    // an empty dW / db: the caller wants only dx (`BertParams::input_grads_only`)
    if !dw.is_empty() {
        T::gemm(T::one(), &dy.t(), &x, T::one(), &mut { dw });
    }
    if let Some(mut db) = db.filter(|d| !d.is_empty()) {
        db += &dy.sum_axis(Axis(0));
    }
    matmul(dy, w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::testutil::{check_grad, rand_array};
    use ndarray::Array1;

    #[test]
    fn linear_backward_matches_finite_differences() {
        let (n, i, o) = (5, 7, 3);
        let x = rand_array(&[n, i], 1).into_dimensionality().unwrap();
        let w: Array2<f64> = rand_array(&[o, i], 2).into_dimensionality().unwrap();
        let b: Array1<f64> = rand_array(&[o], 3).into_dimensionality().unwrap();
        let r: Array2<f64> = rand_array(&[n, o], 4).into_dimensionality().unwrap();
        // loss = sum(y * r), so dy = r
        let loss = |x: &Array2<f64>, w: &Array2<f64>, b: &Array1<f64>| (linear_forward(x.view(), w.view(), Some(b.view())) * &r).sum();
        let mut dw = Array2::zeros((o, i));
        let mut db = Array1::zeros(o);
        let dx = linear_backward(r.view(), x.view(), w.view(), dw.view_mut(), Some(db.view_mut()));
        check_grad("dx", &x, &dx, |x| loss(x, &w, &b));
        check_grad("dw", &w, &dw, |w| loss(&x, w, &b));
        check_grad("db", &b, &db, |b| loss(&x, &w, b));
    }

    #[test]
    fn few_rows_take_the_matrix_vector_path_and_agree_with_gemm() {
        let w: Array2<f64> = rand_array(&[9, 6], 5).into_dimensionality().unwrap();
        let b: Array1<f64> = rand_array(&[9], 6).into_dimensionality().unwrap();
        for n in [1, GEMV_ROWS, GEMV_ROWS + 1] {
            let x: Array2<f64> = rand_array(&[n, 6], 7).into_dimensionality().unwrap();
            let y = linear_forward(x.view(), w.view(), Some(b.view()));
            let want = x.dot(&w.t()) + &b;
            assert!((&y - &want).iter().all(|d| d.abs() < 1e-12), "n = {n}");
        }
    }
}
