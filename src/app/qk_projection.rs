//! AttentionViz's joint scatter of one head's queries and keys: the keys moved so their mean is
//! the queries' mean (softmax does not change when every key moves by the same vector, so this
//! loses nothing of what the head does), then queries and keys projected together on the two
//! principal components of all 2M centred rows. The CLI's exact scan (`corpus_views`) and the
//! page's index (`corpus_index`) both project through here.

use ndarray::{Array2, ArrayView2};

/// The fitted projection: both means and the two axes.
#[derive(Clone, Debug, PartialEq)]
pub struct QkProjection {
    mean_q: Vec<f64>,
    mean_k: Vec<f64>,
    /// (HD, 2): the first two principal components, as columns.
    axes: Array2<f64>,
    /// The share of the variance each component explains.
    pub explained: [f32; 2],
}

fn mean(rows: ArrayView2<f32>) -> Vec<f64> {
    let m = rows.nrows().max(1) as f64;
    (0..rows.ncols()).map(|j| rows.column(j).iter().map(|&x| x as f64).sum::<f64>() / m).collect()
}

impl QkProjection {
    /// Fits the projection to M queries and M keys (each (M, HD), M >= 2).
    pub fn fit(qs: ArrayView2<f32>, ks: ArrayView2<f32>) -> QkProjection {
        let (m, hd) = qs.dim();
        assert!(m >= 2 && ks.dim() == (m, hd), "M >= 2 queries and as many keys");
        let (mean_q, mean_k) = (mean(qs), mean(ks));
        // the covariance of the 2M centred rows, accumulated without forming them
        let mut cov = Array2::<f64>::zeros((hd, hd));
        let mut row = vec![0f64; hd];
        for (rows, mu) in [(qs, &mean_q), (ks, &mean_k)] {
            for r in rows.rows() {
                for j in 0..hd {
                    row[j] = r[j] as f64 - mu[j];
                }
                for a in 0..hd {
                    let ra = row[a];
                    for b in a..hd {
                        cov[[a, b]] += ra * row[b];
                    }
                }
            }
        }
        for a in 0..hd {
            for b in 0..a {
                cov[[a, b]] = cov[[b, a]];
            }
        }
        cov /= (2 * m - 1) as f64;
        let (values, vectors) = symmetric_eigen(cov);
        let total: f64 = values.iter().sum::<f64>().max(1e-30);
        let axes = vectors.slice(ndarray::s![.., 0..2.min(hd)]).to_owned();
        let share = |i: usize| values.get(i).map_or(0.0, |v| (v / total) as f32);
        QkProjection { mean_q, mean_k, axes, explained: [share(0), share(1)] }
    }

    fn project(&self, v: &[f32], mu: &[f64]) -> [f32; 2] {
        let mut out = [0f64; 2];
        for (c, o) in out.iter_mut().enumerate().take(self.axes.ncols()) {
            *o = v.iter().zip(mu).enumerate().map(|(j, (&x, m))| (x as f64 - m) * self.axes[[j, c]]).sum();
        }
        [out[0] as f32, out[1] as f32]
    }

    /// A query's point (HD values).
    pub fn query(&self, q: &[f32]) -> [f32; 2] {
        self.project(q, &self.mean_q)
    }

    /// A key's point: moved by the same shift as the fitted keys.
    pub fn key(&self, k: &[f32]) -> [f32; 2] {
        self.project(k, &self.mean_k)
    }
}

/// Eigenvalues (largest first) and eigenvectors (columns) of a symmetric matrix, by cyclic Jacobi
/// rotations; each vector's largest entry made positive (a sign convention).
fn symmetric_eigen(mut a: Array2<f64>) -> (Vec<f64>, Array2<f64>) {
    let n = a.nrows();
    let mut v = Array2::<f64>::eye(n);
    for _sweep in 0..100 {
        let off: f64 = (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j))).map(|(i, j)| a[[i, j]] * a[[i, j]]).sum();
        if off < 1e-24 * (1.0 + (0..n).map(|i| a[[i, i]] * a[[i, i]]).sum::<f64>()) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                if a[[p, q]].abs() < 1e-300 {
                    continue;
                }
                let theta = (a[[q, q]] - a[[p, p]]) / (2.0 * a[[p, q]]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[[k, p]], a[[k, q]]);
                    a[[k, p]] = c * akp - s * akq;
                    a[[k, q]] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[[p, k]], a[[q, k]]);
                    a[[p, k]] = c * apk - s * aqk;
                    a[[q, k]] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[[k, p]], v[[k, q]]);
                    v[[k, p]] = c * vkp - s * vkq;
                    v[[k, q]] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[[j, j]].total_cmp(&a[[i, i]]));
    let values = order.iter().map(|&i| a[[i, i]].max(0.0)).collect();
    let mut vectors = Array2::<f64>::zeros((n, n));
    for (c, &i) in order.iter().enumerate() {
        let col = v.column(i);
        let big = col.iter().fold(0f64, |m, &x| if x.abs() > m.abs() { x } else { m });
        let sign = if big < 0.0 { -1.0 } else { 1.0 };
        for r in 0..n {
            vectors[[r, c]] = sign * col[r];
        }
    }
    (values, vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_finds_the_eigenpairs_of_a_known_matrix() {
        // eigenvalues 6, 3, 1 of a rotated diagonal matrix
        let r = ndarray::arr2(&[[2.0 / 3.0, -2.0 / 3.0, 1.0 / 3.0], [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0], [2.0 / 3.0, 1.0 / 3.0, -2.0 / 3.0]]);
        let d = Array2::from_diag(&ndarray::arr1(&[3.0, 6.0, 1.0]));
        let a = r.dot(&d).dot(&r.t());
        let (values, vectors) = symmetric_eigen(a.clone());
        for (got, want) in values.iter().zip([6.0, 3.0, 1.0]) {
            assert!((got - want).abs() < 1e-10, "{values:?}");
        }
        for c in 0..3 {
            let v = vectors.column(c);
            let av = a.dot(&v);
            for i in 0..3 {
                assert!((av[i] - values[c] * v[i]).abs() < 1e-10, "A v = lambda v for column {c}");
            }
        }
    }
}
