//! Scaled dot-product attention of HF `BertSelfAttention` (eager path), on projected Q, K, V:
//! scores = Q K^T / sqrt(HD) + mask, P = softmax(scores), P' = dropout(P) * head_mask, ctx = P' V.
//! The mask adds the float minimum to masked keys, as HF does: padding keys, and in a decoder's
//! self-attention (`causal`) every key after the query. Cross-attention (a decoder's queries on the
//! encoder's keys and values) is the same op with `tk`, the encoder's length, apart from `t`.

use crate::cpu::real::matmul;
use crate::cpu::real::Real;
use crate::cpu::softmax::{softmax_row, softmax_row_backward};
use ndarray::{s, Array2, Array4, ArrayView1, ArrayView2};

/// What the backward needs, and what the explainer shows.
#[derive(Clone, Debug)]
pub struct AttentionCache<T> {
    /// (B, NH, T, TK) Q K^T / sqrt(HD), before the mask.
    pub scores: Array4<T>,
    /// (B, NH, T, TK) softmax probabilities, masked keys at 0 (before dropout and head mask).
    pub probs: Array4<T>,
    /// (B, NH, T, TK) dropout scale factors (0 or 1/(1-p)), when dropout is on.
    pub drop: Option<Array4<T>>,
}

#[derive(Clone, Copy, Debug)]
pub struct AttnShape {
    pub b: usize,
    /// Queries per sequence.
    pub t: usize,
    pub nh: usize,
    /// Keys per sequence: `t` for self-attention, the encoder's length for cross-attention.
    pub tk: usize,
    /// Key j is masked for query i > ... when j > i (a decoder's self-attention).
    pub causal: bool,
}

impl AttnShape {
    /// Self-attention over T tokens, every key visible but padding.
    pub fn selfish(b: usize, t: usize, nh: usize) -> Self {
        AttnShape { b, t, nh, tk: t, causal: false }
    }
}

/// q (B*T, H), k, v (B*TK, H); mask (B, TK) with 1 = attend, 0 = padding; head_mask (NH)
/// multiplies P. Returns ctx (B*T, H) and the cache.
pub fn attention_forward<T: Real>(
    q: ArrayView2<T>,
    k: ArrayView2<T>,
    v: ArrayView2<T>,
    sh: &AttnShape,
    mask: ArrayView2<T>,
    head_mask: Option<ArrayView1<T>>,
    drop: Option<Array4<T>>,
) -> (Array2<T>, AttentionCache<T>) {
    let (b, t, nh, tk) = (sh.b, sh.t, sh.nh, sh.tk);
    let h = q.ncols();
    let hd = h / nh;
    let scale = T::one() / T::c(hd as f64).sqrt();
    let mut scores = Array4::zeros((b, nh, t, tk));
    let mut probs = Array4::zeros((b, nh, t, tk));
    let mut ctx = Array2::zeros((b * t, h));
    for bi in 0..b {
        let rows = bi * t..(bi + 1) * t;
        let keys = bi * tk..(bi + 1) * tk;
        // additive key mask (TK): 0 or the float minimum, as HF's extended attention mask
        let add: Vec<T> = mask.row(bi).iter().map(|&m| if m == T::zero() { T::min_value() } else { T::zero() }).collect();
        let all_keys = add.iter().all(|&a| a == T::zero()) && !sh.causal;
        for hi in 0..nh {
            let cols = hi * hd..(hi + 1) * hd;
            let qh = q.slice(s![rows.clone(), cols.clone()]); // (T, HD)
            let kh = k.slice(s![keys.clone(), cols.clone()]); // (TK, HD)
            let vh = v.slice(s![keys.clone(), cols.clone()]); // (TK, HD)
            let sc = matmul(qh, kh.t()) * scale; // (T, TK)
            let mut p = sc.clone();
            for (i, mut row) in p.rows_mut().into_iter().enumerate() {
                let r = row.as_slice_mut().expect("contiguous row");
                if !all_keys {
                    for (j, (x, &a)) in r.iter_mut().zip(&add).enumerate() {
                        // one mask, the minimum once: a padded future key is not masked twice
                        *x += if sh.causal && j > i { T::min_value() } else { a };
                    }
                }
                softmax_row(r);
            }
            let mut w = p.clone(); // P' = dropout(P) * head_mask
            if let Some(d) = &drop {
                w *= &d.slice(s![bi, hi, .., ..]);
            }
            if let Some(hm) = &head_mask {
                w *= hm[hi];
            }
            T::gemm(T::one(), &w.view(), &vh, T::zero(), &mut ctx.slice_mut(s![rows.clone(), cols])); // (T, HD)
            scores.slice_mut(s![bi, hi, .., ..]).assign(&sc);
            probs.slice_mut(s![bi, hi, .., ..]).assign(&p);
        }
    }
    (ctx, AttentionCache { scores, probs, drop })
}

/// dctx (B*T, H) -> (dq (B*T, H), dk (B*TK, H), dv (B*TK, H)).
pub fn attention_backward<T: Real>(
    dctx: ArrayView2<T>,
    q: ArrayView2<T>,
    k: ArrayView2<T>,
    v: ArrayView2<T>,
    sh: &AttnShape,
    head_mask: Option<ArrayView1<T>>,
    cache: &AttentionCache<T>,
) -> (Array2<T>, Array2<T>, Array2<T>) {
    let (b, t, nh, tk) = (sh.b, sh.t, sh.nh, sh.tk);
    let h = q.ncols();
    let hd = h / nh;
    let scale = T::one() / T::c(hd as f64).sqrt();
    let mut dq = Array2::zeros((b * t, h));
    let mut dk = Array2::zeros((b * tk, h));
    let mut dv = Array2::zeros((b * tk, h));
    let mut ds = Array2::<T>::zeros((t, tk));
    for bi in 0..b {
        let rows = bi * t..(bi + 1) * t;
        let keys = bi * tk..(bi + 1) * tk;
        for hi in 0..nh {
            let cols = hi * hd..(hi + 1) * hd;
            let qh = q.slice(s![rows.clone(), cols.clone()]);
            let kh = k.slice(s![keys.clone(), cols.clone()]);
            let vh = v.slice(s![keys.clone(), cols.clone()]);
            let dch = dctx.slice(s![rows.clone(), cols.clone()]); // (T, HD)
            let p = cache.probs.slice(s![bi, hi, .., ..]); // (T, TK)
                                                           // multiplier m = drop * head_mask, so P' = P * m
            let mut m = Array2::<T>::ones((t, tk));
            if let Some(d) = &cache.drop {
                m *= &d.slice(s![bi, hi, .., ..]);
            }
            if let Some(hm) = &head_mask {
                m *= hm[hi];
            }
            let w = &p * &m; // P'
                             // ctx = P' V  =>  dV = P'^T dctx, dP' = dctx V^T
            T::gemm(T::one(), &w.t(), &dch, T::zero(), &mut dv.slice_mut(s![keys.clone(), cols.clone()]));
            let dp = matmul(dch, vh.t()) * &m; // (T, TK) dP
            for i in 0..t {
                let pr = p.row(i);
                let dpr = dp.row(i);
                let mut dsr = ds.row_mut(i);
                softmax_row_backward(
                    pr.as_slice().expect("contiguous"),
                    dpr.as_slice().expect("contiguous"),
                    dsr.as_slice_mut().expect("contiguous"),
                );
            }
            // scores = Q K^T * scale
            T::gemm(scale, &ds.view(), &kh, T::zero(), &mut dq.slice_mut(s![rows.clone(), cols.clone()]));
            T::gemm(scale, &ds.t(), &qh, T::zero(), &mut dk.slice_mut(s![keys.clone(), cols]));
        }
    }
    (dq, dk, dv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::testutil::{check_grad, rand_array};
    use ndarray::{arr1, arr2, Array1};

    fn setup() -> (Array2<f64>, Array2<f64>, Array2<f64>, Array2<f64>, AttnShape) {
        let (b, t, h) = (2, 5, 6);
        let q = rand_array(&[b * t, h], 1).into_dimensionality().unwrap();
        let k = rand_array(&[b * t, h], 2).into_dimensionality().unwrap();
        let v = rand_array(&[b * t, h], 3).into_dimensionality().unwrap();
        let r = rand_array(&[b * t, h], 4).into_dimensionality().unwrap();
        (q, k, v, r, AttnShape::selfish(b, t, 3))
    }

    #[test]
    fn padding_keys_get_zero_probability() {
        let (q, k, v, _, sh) = setup();
        let mask = arr2(&[[1.0, 1.0, 1.0, 0.0, 0.0], [1.0; 5]]);
        let (_, c) = attention_forward(q.view(), k.view(), v.view(), &sh, mask.view(), None, None);
        for hi in 0..3 {
            for i in 0..5 {
                assert_eq!(c.probs[[0, hi, i, 3]], 0.0);
                let row_sum: f64 = c.probs.slice(s![0, hi, i, ..]).sum();
                assert!((row_sum - 1.0).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn attention_backward_matches_finite_differences() {
        let (q, k, v, r, sh) = setup();
        let mask = arr2(&[[1.0, 1.0, 1.0, 1.0, 0.0], [1.0; 5]]);
        let hm: Array1<f64> = arr1(&[1.0, 0.0, 0.5]);
        let mut rng = crate::rng::Rng::new(9);
        let drop = Array4::from_shape_simple_fn((2, 3, 5, 5), || if rng.uniform() < 0.2 { 0.0 } else { 1.25 });
        let loss = |q: &Array2<f64>, k: &Array2<f64>, v: &Array2<f64>| {
            let (c, _) = attention_forward(q.view(), k.view(), v.view(), &sh, mask.view(), Some(hm.view()), Some(drop.clone()));
            (c * &r).sum()
        };
        let (_, cache) = attention_forward(q.view(), k.view(), v.view(), &sh, mask.view(), Some(hm.view()), Some(drop.clone()));
        let (dq, dk, dv) = attention_backward(r.view(), q.view(), k.view(), v.view(), &sh, Some(hm.view()), &cache);
        check_grad("dq", &q, &dq, |q| loss(q, &k, &v));
        check_grad("dk", &k, &dk, |k| loss(&q, k, &v));
        check_grad("dv", &v, &dv, |v| loss(&q, &k, v));
    }

    #[test]
    fn causal_and_cross_attention_match_finite_differences() {
        // a decoder's self-attention (T = 5, causal, one padded key) and cross-attention of its
        // 5 queries on 4 encoder keys (one padded)
        let (b, t, tk, h) = (2, 5, 4, 6);
        let q: Array2<f64> = rand_array(&[b * t, h], 11).into_dimensionality().unwrap();
        let r: Array2<f64> = rand_array(&[b * t, h], 14).into_dimensionality().unwrap();
        for (sh, mask) in [
            (AttnShape { b, t, nh: 3, tk: t, causal: true }, arr2(&[[1.0, 1.0, 1.0, 1.0, 0.0], [1.0; 5]])),
            (AttnShape { b, t, nh: 2, tk, causal: false }, arr2(&[[1.0, 1.0, 0.0, 0.0], [1.0; 4]])),
        ] {
            let k: Array2<f64> = rand_array(&[b * sh.tk, h], 12).into_dimensionality().unwrap();
            let v: Array2<f64> = rand_array(&[b * sh.tk, h], 13).into_dimensionality().unwrap();
            let (_, cache) = attention_forward(q.view(), k.view(), v.view(), &sh, mask.view(), None, None);
            for bi in 0..b {
                for i in 0..t {
                    for j in 0..sh.tk {
                        if (sh.causal && j > i) || mask[[bi, j]] == 0.0 {
                            assert_eq!(cache.probs[[bi, 0, i, j]], 0.0, "masked key {j} of query {i}");
                        }
                    }
                }
            }
            let loss = |q: &Array2<f64>, k: &Array2<f64>, v: &Array2<f64>| {
                (attention_forward(q.view(), k.view(), v.view(), &sh, mask.view(), None, None).0 * &r).sum()
            };
            let (dq, dk, dv) = attention_backward(r.view(), q.view(), k.view(), v.view(), &sh, None, &cache);
            check_grad("dq", &q, &dq, |q| loss(q, &k, &v));
            check_grad("dk", &k, &dk, |k| loss(&q, k, &v));
            check_grad("dv", &v, &dv, |v| loss(&q, &k, v));
        }
    }
}
