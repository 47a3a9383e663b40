//! LayerNorm over the last axis as `torch.nn.LayerNorm` (biased variance, eps inside the sqrt).

use crate::cpu::real::Real;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, ArrayViewMut1, Axis, Zip};

/// x (N, H), gamma/beta (H) -> (out (N, H), mean (N), rstd (N))
pub fn layernorm_forward<T: Real>(
    x: ArrayView2<T>,
    gamma: ArrayView1<T>,
    beta: ArrayView1<T>,
    eps: f64,
) -> (Array2<T>, Array1<T>, Array1<T>) {
    let (n, h) = x.dim();
    let hn = T::c(h as f64);
    let mut out = Array2::zeros((n, h));
    let mut mean = Array1::zeros(n);
    let mut rstd = Array1::zeros(n);
    Zip::from(out.rows_mut()).and(x.rows()).and(&mut mean).and(&mut rstd).for_each(|mut o, xr, m, r| {
        let mu = xr.sum() / hn;
        let var = xr.iter().map(|&v| (v - mu) * (v - mu)).sum::<T>() / hn;
        let rs = T::one() / (var + T::c(eps)).sqrt();
        Zip::from(&mut o).and(&xr).and(&gamma).and(&beta).for_each(|o, &xv, &g, &b| {
            *o = (xv - mu) * rs * g + b;
        });
        *m = mu;
        *r = rs;
    });
    (out, mean, rstd)
}

/// dout (N, H) -> dx (N, H); dgamma, dbeta (H) accumulate.
pub fn layernorm_backward<T: Real>(
    dout: ArrayView2<T>,
    x: ArrayView2<T>,
    mean: ArrayView1<T>,
    rstd: ArrayView1<T>,
    gamma: ArrayView1<T>,
    mut dgamma: ArrayViewMut1<T>,
    mut dbeta: ArrayViewMut1<T>,
) -> Array2<T> {
    let (n, h) = x.dim();
    let hn = T::c(h as f64);
    let mut dx = Array2::zeros((n, h));
    for r in 0..n {
        let (mu, rs) = (mean[r], rstd[r]);
        let (xr, dr) = (x.row(r), dout.row(r));
        // dxhat = dout * gamma; dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))
        let mut sum_d = T::zero();
        let mut sum_dx = T::zero();
        for j in 0..h {
            let xhat = (xr[j] - mu) * rs;
            let dxhat = dr[j] * gamma[j];
            sum_d += dxhat;
            sum_dx += dxhat * xhat;
            dgamma[j] += dr[j] * xhat;
            dbeta[j] += dr[j];
        }
        let (md, mdx) = (sum_d / hn, sum_dx / hn);
        let mut dxr = dx.row_mut(r);
        for j in 0..h {
            let xhat = (xr[j] - mu) * rs;
            dxr[j] = rs * (dr[j] * gamma[j] - md - xhat * mdx);
        }
    }
    let _ = Axis(0);
    dx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::testutil::{check_grad, rand_array};

    #[test]
    fn layernorm_normalises_rows() {
        let x: Array2<f64> = rand_array(&[3, 9], 1).into_dimensionality().unwrap();
        let (y, _, _) = layernorm_forward(x.view(), Array1::ones(9).view(), Array1::zeros(9).view(), 1e-12);
        for row in y.rows() {
            assert!(row.mean().unwrap().abs() < 1e-12);
            assert!((row.mapv(|v| v * v).mean().unwrap() - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn layernorm_backward_matches_finite_differences() {
        let (n, h) = (4, 11);
        let x: Array2<f64> = rand_array(&[n, h], 1).into_dimensionality().unwrap();
        let g: Array1<f64> = rand_array(&[h], 2).into_dimensionality().unwrap();
        let b: Array1<f64> = rand_array(&[h], 3).into_dimensionality().unwrap();
        let r: Array2<f64> = rand_array(&[n, h], 4).into_dimensionality().unwrap();
        let loss = |x: &Array2<f64>, g: &Array1<f64>, b: &Array1<f64>| (layernorm_forward(x.view(), g.view(), b.view(), 1e-5).0 * &r).sum();
        let (_, mean, rstd) = layernorm_forward(x.view(), g.view(), b.view(), 1e-5);
        let mut dg = Array1::zeros(h);
        let mut db = Array1::zeros(h);
        let dx = layernorm_backward(r.view(), x.view(), mean.view(), rstd.view(), g.view(), dg.view_mut(), db.view_mut());
        check_grad("dx", &x, &dx, |x| loss(x, &g, &b));
        check_grad("dgamma", &g, &dg, |g| loss(&x, g, &b));
        check_grad("dbeta", &b, &db, |b| loss(&x, &g, b));
    }
}
