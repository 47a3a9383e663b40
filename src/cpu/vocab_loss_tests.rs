//! `vocab_loss` against its definition (f64) on odd shapes, on each path.
use super::*;
use ndarray::Array1;

fn case(m: usize, d: usize, v: usize, seed: usize) -> (Array2<f32>, Array2<f32>, Array1<f32>, Vec<usize>) {
    let f = |i: usize| ((i.wrapping_mul(2654435761).wrapping_add(seed * 97) % 1000) as f32 / 1000.0 - 0.5) * 2.0;
    let h = Array2::from_shape_fn((m, d), |(i, j)| f(i * 131 + j));
    let w = Array2::from_shape_fn((v, d), |(i, j)| f(i * 17 + j * 3 + 7) * 0.5);
    let b = Array1::from_shape_fn(v, |i| f(i + 5) * 0.1);
    let labels = (0..m).map(|i| (i * 37 + seed) % v).collect();
    (h, w, b, labels)
}

/// The reference in f64 on the same inputs.
fn reference(h: &Array2<f32>, w: &Array2<f32>, b: &Array1<f32>, labels: &[usize]) -> (Vec<f64>, Array2<f64>) {
    vocab_loss_reference(h.mapv(|x| x as f64).view(), w.mapv(|x| x as f64).view(), b.mapv(|x| x as f64).view(), labels)
}

/// logp within 1e-4 (relative above 1), dh within `tol` of 1 + the largest |dh|.
fn assert_close(what: &str, (lp, dh): (&[f32], &[f32]), (lr, dr): (&[f64], &Array2<f64>), tol: f64) {
    for (a, r) in lp.iter().zip(lr) {
        assert!((*a as f64 - r).abs() < 1e-4 * (1.0 + r.abs()), "{what}: logp {a} vs {r}");
    }
    let scale = dr.iter().fold(0f64, |a, x| a.max(x.abs()));
    for (a, r) in dh.iter().zip(dr.iter()) {
        assert!((*a as f64 - r).abs() < tol * (1.0 + scale), "{what}: dh {a} vs {r}");
    }
}

#[test]
fn fused_matches_the_reference_on_odd_shapes() {
    // points across the 8- and 16-lane blocks, widths with and without a tail, vocabularies
    // below, at and across the chunk, rows in fours and a remainder
    for &(m, d, v) in &[(1, 8, 1), (1, 20, 7), (3, 24, 257), (5, 13, 300), (9, 32, 513), (17, 48, 1000), (33, 128, 2050), (40, 36, 256)] {
        let (h, w, b, labels) = case(m, d, v, m + d);
        let (lp, dh) = vocab_loss(h.view(), w.view(), b.view(), &labels);
        let (lr, dr) = reference(&h, &w, &b, &labels);
        assert_close(&format!("({m}, {d}, {v})"), (&lp, dh.as_slice().unwrap()), (&lr, &dr), 1e-5);
    }
}

#[test]
fn the_portable_path_matches_too() {
    let (h, w, b, labels) = case(11, 40, 700, 3);
    let (lp, dh) = fused::<false, 8>(h.as_slice().unwrap(), 11, 40, w.as_slice().unwrap(), b.as_slice().unwrap(), &labels);
    assert_close("portable", (&lp, &dh), (&reference(&h, &w, &b, &labels).0, &reference(&h, &w, &b, &labels).1), 1e-5);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn each_x86_path_matches() {
    let (h, w, b, labels) = case(19, 72, 900, 5);
    let (lr, dr) = reference(&h, &w, &b, &labels);
    let (hs, ws, bs) = (h.as_slice().unwrap(), w.as_slice().unwrap(), b.as_slice().unwrap());
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        let (lp, dh) = unsafe { fused_avx2(hs, 19, 72, ws, bs, &labels) };
        assert_close("avx2", (&lp, &dh), (&lr, &dr), 1e-5);
    }
    if std::arch::is_x86_feature_detected!("avx512f") {
        let (lp, dh) = unsafe { fused_avx512(hs, 19, 72, ws, bs, &labels) };
        assert_close("avx512", (&lp, &dh), (&lr, &dr), 1e-5);
    }
}

#[test]
fn a_large_logit_moves_the_running_maximum() {
    // the label's logit in the last chunk far above the rest: the early sums must be rescaled
    let (h, mut w, mut b, _) = case(2, 16, 600, 1);
    w.row_mut(590).fill(0.0);
    b[590] = 60.0;
    let labels = vec![590, 3];
    let (lp, dh) = vocab_loss(h.view(), w.view(), b.view(), &labels);
    assert_close(
        "large logit",
        (&lp, dh.as_slice().unwrap()),
        (&reference(&h, &w, &b, &labels).0, &reference(&h, &w, &b, &labels).1),
        1e-4,
    );
}

#[test]
fn ignored_rows_have_no_loss_and_no_gradient() {
    let (h, w, b, labels) = case(3, 16, 50, 2);
    let targets = [labels[0] as i64, IGNORE, labels[2] as i64];
    let (loss, logp, dh) = vocab_cross_entropy(h.view(), w.view(), b.view(), &targets);
    let (lr, _) = reference(&h, &w, &b, &labels);
    assert!((loss as f64 + (lr[0] + lr[2]) / 2.0).abs() < 1e-5, "the mean over the two labelled rows");
    assert!(logp[1] == 0.0 && dh.row(1).iter().all(|&x| x == 0.0));
}

#[test]
fn the_gemm_path_matches_on_odd_shapes() {
    // vocabularies below, at and across the 512-row chunk; rows in fours and a remainder; in f32
    // against f64, and in f64 to 1e-12
    for &(m, d, v) in &[(1, 8, 1), (3, 24, 511), (5, 13, 513), (9, 32, 1030), (33, 128, 2050)] {
        let (h, w, b, labels) = case(m, d, v, m + d);
        let (lr, dr) = reference(&h, &w, &b, &labels);
        let (lp, dh) = crate::cpu::vocab_loss_gemm::vocab_loss_gemm(h.view(), w.view(), b.view(), &labels);
        assert_close(&format!("f32 ({m}, {d}, {v})"), (&lp, dh.as_slice().unwrap()), (&lr, &dr), 1e-5);
        let (h64, w64, b64) = (h.mapv(|x| x as f64), w.mapv(|x| x as f64), b.mapv(|x| x as f64));
        let (lp, dh) = crate::cpu::vocab_loss_gemm::vocab_loss_gemm(h64.view(), w64.view(), b64.view(), &labels);
        assert!(lp.iter().zip(&lr).all(|(a, r)| (a - r).abs() < 1e-12), "f64 logp ({m}, {d}, {v})");
        assert!(dh.iter().zip(dr.iter()).all(|(a, r)| (a - r).abs() < 1e-12), "f64 dh ({m}, {d}, {v})");
    }
    // the label's logit far above the rest in the last chunk: the early sums are rescaled
    let (h, mut w, mut b, _) = case(2, 16, 1100, 1);
    w.row_mut(1090).fill(0.0);
    b[1090] = 60.0;
    let labels = vec![1090, 3];
    let (lr, dr) = reference(&h, &w, &b, &labels);
    let (lp, dh) = crate::cpu::vocab_loss_gemm::vocab_loss_gemm(h.view(), w.view(), b.view(), &labels);
    assert_close("gemm, large logit", (&lp, dh.as_slice().unwrap()), (&lr, &dr), 1e-4);
}
