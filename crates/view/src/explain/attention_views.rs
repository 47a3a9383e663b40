//! Views derived from a snapshot's attention (each head a (T*T) row-major softmax, query row, key
//! column): [CLS]/[SEP] hidden with each row renormalised, the mean over heads (of one layer or of
//! all), and attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers",
//! eq. 1: per layer Â = rownorm(0.5 Ā + 0.5 I), R_ℓ = Â_ℓ · R_{ℓ-1}, R_0 = Â_0).
//!
//! The page calls these from its components rather than from the worker: they are a few passes over
//! numbers the snapshot already carries (O(L·NH·T²) for the mean, O(L·T³) for rollout), so the
//! per-keystroke snapshot stays as it is and the "hide specials" toggle needs no round trip.

use super::snapshot::{LayerSummary, MaskLens, MaskPredictions, Snapshot};

/// Rollout is L products of T x T matrices; above this many tokens the page does not compute it on
/// the UI thread (bert-base at 512 tokens would be ~1.6 G multiply-adds).
pub const ROLLOUT_MAX_TOKENS: usize = 256;

/// Positions of the tokens that are not special ([CLS], [SEP], ...), in order.
pub fn content_positions(s: &Snapshot) -> Vec<usize> {
    s.tokens.iter().enumerate().filter(|(_, t)| !t.special).map(|(i, _)| i).collect()
}

/// Scales every row of the (N*N) matrix `a` to sum to 1. A row with no mass left (every weight was
/// on a dropped token, or underflowed to 0) becomes uniform, so it still reads as a distribution.
pub fn renormalise_rows(a: &mut [f32], n: usize) {
    for row in a.chunks_mut(n.max(1)) {
        let sum: f32 = row.iter().sum();
        if sum > 0.0 && sum.is_finite() {
            row.iter_mut().for_each(|v| *v /= sum);
        } else {
            row.iter_mut().for_each(|v| *v = 1.0 / n as f32);
        }
    }
}

/// The (K*K) sub-matrix of the (N*N) matrix `a` on the rows and columns `keep` (K of them), each
/// row renormalised to sum 1: the attention a token would give if only the kept tokens existed.
pub fn restrict(a: &[f32], n: usize, keep: &[usize]) -> Vec<f32> {
    let k = keep.len();
    let mut out = Vec::with_capacity(k * k); // (K*K)
    for &i in keep {
        out.extend(keep.iter().map(|&j| a[i * n + j]));
    }
    renormalise_rows(&mut out, k);
    out
}

/// The snapshot with [CLS]/[SEP] (every special token) dropped: tokens, every head's attention
/// (rows renormalised), per-token hidden summaries and prediction positions follow the kept tokens.
/// The hidden mean/std stay those of the full input. Returns a clone when there is nothing to drop
/// or nothing would be left.
pub fn without_specials(s: &Snapshot) -> Snapshot {
    let keep = content_positions(s);
    if keep.len() == s.len() || keep.is_empty() {
        return s.clone();
    }
    let n = s.len();
    let pick = |v: &[f32]| keep.iter().map(|&i| v[i]).collect::<Vec<f32>>();
    let new_pos = |p: usize| keep.iter().position(|&i| i == p);
    Snapshot {
        tokens: keep.iter().map(|&i| s.tokens[i].clone()).collect(),
        scheme: s.scheme.clone(),
        family: s.family.clone(),
        mask_token: s.mask_token.clone(),
        anatomy: s.anatomy.clone(),
        lens: s.lens.iter().filter_map(|m| Some(MaskLens { position: new_pos(m.position)?, layers: m.layers.clone() })).collect(),
        attention: s.attention.iter().map(|a| restrict(a, n, &keep)).collect(),
        hidden: s
            .hidden
            .iter()
            .map(|h| LayerSummary { norm: pick(&h.norm), cos_prev: pick(&h.cos_prev), mean: h.mean, std: h.std })
            .collect(),
        predictions: s
            .predictions
            .iter()
            .filter_map(|m| Some(MaskPredictions { position: new_pos(m.position)?, top: m.top.clone() }))
            .collect(),
        seq: s.seq,
        layers: s.layers,
        heads: s.heads,
        is_next: s.is_next,
        heads_off: s.heads_off.clone(),
        truncated: s.truncated,
        forward_ms: s.forward_ms,
        device: s.device.clone(),
        // the step-by-step details and the task output index the full sequence: not carried here
        task: None,
        head_detail: None,
        ffn_detail: None,
        embeddings: Default::default(),
    }
}

/// The element-wise mean of equally sized matrices (empty for none).
pub fn mean(mats: &[&[f32]]) -> Vec<f32> {
    let Some(first) = mats.first() else { return vec![] };
    let mut out = vec![0.0f32; first.len()];
    for m in mats {
        out.iter_mut().zip(m.iter()).for_each(|(o, v)| *o += v);
    }
    let k = mats.len() as f32;
    out.iter_mut().for_each(|o| *o /= k);
    out
}

/// Ā_ℓ: the mean over the heads of `layer` (T*T).
pub fn layer_mean(s: &Snapshot, layer: usize) -> Vec<f32> {
    let heads: Vec<&[f32]> = (0..s.heads).map(|h| s.head(layer, h)).collect();
    mean(&heads)
}

/// The mean over every head of every layer (T*T) (= the mean of the per-layer means).
pub fn all_mean(s: &Snapshot) -> Vec<f32> {
    let heads: Vec<&[f32]> = s.attention.iter().map(|a| a.as_slice()).collect();
    mean(&heads)
}

/// The values of cell (`row`, `col`) in every head of `layer`, head 0 first: the terms of the mean.
pub fn head_terms(s: &Snapshot, layer: usize, row: usize, col: usize) -> Vec<f32> {
    let n = s.len();
    (0..s.heads).map(|h| s.head(layer, h)[row * n + col]).collect()
}

/// Â = rownorm(0.5 A + 0.5 I): the residual connection added to a layer's attention (N*N).
pub fn residual_mix(a: &[f32], n: usize) -> Vec<f32> {
    let mut out: Vec<f32> = a.iter().map(|v| 0.5 * v).collect();
    for i in 0..n {
        out[i * n + i] += 0.5;
    }
    renormalise_rows(&mut out, n);
    out
}

/// C = A · B for (N*N) row-major matrices.
pub fn matmul(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for i in 0..n {
        for k in 0..n {
            let aik = a[i * n + k];
            if aik == 0.0 {
                continue;
            }
            let (crow, brow) = (&mut c[i * n..(i + 1) * n], &b[k * n..(k + 1) * n]);
            crow.iter_mut().zip(brow).for_each(|(cv, bv)| *cv += aik * bv);
        }
    }
    c
}

/// One layer of rollout: this layer's mixed attention Â_ℓ and the rollout R_ℓ up to it (both N*N).
#[derive(Clone, Debug, PartialEq)]
pub struct RolloutStep {
    pub mixed: Vec<f32>,
    pub rollout: Vec<f32>,
}

/// Attention rollout from the per-layer head means (layer 0 first, each N*N): one step per layer.
pub fn rollout(layer_means: &[Vec<f32>], n: usize) -> Vec<RolloutStep> {
    let mut steps: Vec<RolloutStep> = Vec::with_capacity(layer_means.len());
    for a in layer_means {
        let mixed = residual_mix(a, n);
        let rollout = match steps.last() {
            Some(prev) => matmul(&mixed, &prev.rollout, n),
            None => mixed.clone(),
        };
        steps.push(RolloutStep { mixed, rollout });
    }
    steps
}

/// Rollout of a snapshot: the head mean of each layer, then `rollout`.
pub fn snapshot_rollout(s: &Snapshot) -> Vec<RolloutStep> {
    let means: Vec<Vec<f32>> = (0..s.layers).map(|l| layer_mean(s, l)).collect();
    rollout(&means, s.len())
}

/// The terms Â_ℓ[row, k] · R_{ℓ-1}[k, col] (k = 0..N) that sum to R_ℓ[row, col], as (k, â, r).
pub fn rollout_terms(mixed: &[f32], prev: &[f32], n: usize, row: usize, col: usize) -> Vec<(usize, f32, f32)> {
    (0..n).map(|k| (k, mixed[row * n + k], prev[k * n + col])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::snapshot::Token;

    fn close(a: &[f32], b: &[f32], tol: f32) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    fn token(text: &str, special: bool) -> Token {
        Token { text: text.into(), id: 0, segment: 0, attention: 1, special, continuation: false, masked_from: None }
    }

    /// [CLS] a b [SEP], one layer, two heads.
    fn snap(h0: Vec<f32>, h1: Vec<f32>) -> Snapshot {
        Snapshot {
            seq: 1,
            tokens: vec![token("[CLS]", true), token("a", false), token("b", false), token("[SEP]", true)],
            scheme: "WordPiece".into(),
            family: "BERT".into(),
            mask_token: "[MASK]".into(),
            anatomy: None,
            lens: vec![],
            layers: 1,
            heads: 2,
            attention: vec![h0, h1],
            hidden: vec![LayerSummary { norm: vec![1.0, 2.0, 3.0, 4.0], cos_prev: vec![1.0; 4], mean: 0.5, std: 1.0 }],
            predictions: vec![MaskPredictions { position: 2, top: vec![] }],
            is_next: None,
            heads_off: vec![],
            truncated: false,
            task: None,
            forward_ms: 0.0,
            device: String::new(),
            head_detail: None,
            ffn_detail: None,
            embeddings: Default::default(),
        }
    }

    #[rustfmt::skip]
    const A4: [f32; 16] = [
        0.4, 0.1, 0.2, 0.3,
        0.5, 0.2, 0.2, 0.1,
        0.1, 0.3, 0.1, 0.5,
        0.25, 0.25, 0.25, 0.25,
    ];

    #[test]
    fn hiding_specials_drops_rows_and_columns_and_rows_sum_to_one() {
        let s = without_specials(&snap(A4.to_vec(), A4.to_vec()));
        assert_eq!(s.tokens.iter().map(|t| t.text.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        // rows 1, 2 and columns 1, 2 of A4: [0.2 0.2], [0.3 0.1], renormalised
        assert!(close(&s.attention[0], &[0.5, 0.5, 0.75, 0.25], 1e-6), "{:?}", s.attention[0]);
        for a in &s.attention {
            for row in a.chunks(2) {
                assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            }
        }
        assert_eq!(s.hidden[0].norm, [2.0, 3.0]);
        assert_eq!(s.predictions[0].position, 1, "position 2 is the second kept token");
        assert_eq!((s.layers, s.heads), (1, 2));
    }

    #[test]
    fn a_row_with_all_its_mass_on_specials_becomes_uniform() {
        let a = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0]; // every row looks at token 0 only
        assert_eq!(restrict(&a, 3, &[1, 2]), [0.5, 0.5, 0.5, 0.5]);
    }

    #[test]
    fn average_of_identical_heads_is_the_head() {
        let s = snap(A4.to_vec(), A4.to_vec());
        assert!(close(&layer_mean(&s, 0), &A4, 1e-7));
        assert!(close(&all_mean(&s), &A4, 1e-7));
    }

    #[test]
    fn average_is_the_mean_of_the_heads_cell_by_cell() {
        let other: Vec<f32> = A4.chunks(4).flat_map(|r| r.iter().rev().copied().collect::<Vec<_>>()).collect();
        let s = snap(A4.to_vec(), other.clone());
        let m = layer_mean(&s, 0);
        for i in 0..16 {
            assert!((m[i] - (A4[i] + other[i]) / 2.0).abs() < 1e-7);
        }
        assert_eq!(head_terms(&s, 0, 0, 1), [A4[1], other[1]]);
    }

    #[test]
    fn rollout_of_one_layer_with_identity_free_attention() {
        // no token attends to itself: the rollout diagonal is exactly the residual's 0.5
        #[rustfmt::skip]
        let a = [
            0.0, 0.6, 0.4,
            0.3, 0.0, 0.7,
            0.5, 0.5, 0.0,
        ];
        let r = rollout(&[a.to_vec()], 3);
        assert_eq!(r.len(), 1);
        #[rustfmt::skip]
        let want = [
            0.5, 0.3, 0.2,
            0.15, 0.5, 0.35,
            0.25, 0.25, 0.5,
        ];
        assert!(close(&r[0].rollout, &want, 1e-6), "{:?}", r[0].rollout);
        assert_eq!(r[0].mixed, r[0].rollout);
    }

    #[test]
    fn rollout_of_two_layers_hand_computed_3x3() {
        // layer 0: identity-free as above; layer 1: every token looks at token 0
        let a0 = vec![0.0, 0.6, 0.4, 0.3, 0.0, 0.7, 0.5, 0.5, 0.0];
        let a1 = vec![1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
        let r = rollout(&[a0, a1], 3);
        // Â_1 = [[1, 0, 0], [.5, .5, 0], [.5, 0, .5]]; R_0 rows r0 = [.5 .3 .2], r1 = [.15 .5 .35], r2 = [.25 .25 .5]
        // R_1 row 0 = r0; row 1 = .5 r0 + .5 r1 = [.325 .4 .275]; row 2 = .5 r0 + .5 r2 = [.375 .275 .35]
        assert!(close(&r[1].mixed, &[1.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.5, 0.0, 0.5], 1e-6));
        assert!(close(&r[1].rollout, &[0.5, 0.3, 0.2, 0.325, 0.4, 0.275, 0.375, 0.275, 0.35], 1e-6), "{:?}", r[1].rollout);
        for row in r[1].rollout.chunks(3) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6, "rollout rows stay distributions");
        }
        let terms = rollout_terms(&r[1].mixed, &r[0].rollout, 3, 1, 1);
        let sum: f32 = terms.iter().map(|(_, a, b)| a * b).sum();
        assert!((sum - r[1].rollout[4]).abs() < 1e-6);
    }

    #[test]
    fn residual_mix_renormalises_rows_that_do_not_sum_to_one() {
        let m = residual_mix(&[0.5, 0.5, 0.0, 0.0], 2); // row 1 has no mass: 0.5 I only, then / 0.5
        assert!(close(&m, &[0.75, 0.25, 0.0, 1.0], 1e-7), "{m:?}");
    }

    #[test]
    fn nothing_to_hide_is_a_clone() {
        let mut s = snap(A4.to_vec(), A4.to_vec());
        s.tokens.iter_mut().for_each(|t| t.special = false);
        assert_eq!(without_specials(&s), s);
    }
}
