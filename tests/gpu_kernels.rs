//! Every WGSL kernel against its CPU twin (src/cpu), on odd shapes that are not multiples of the
//! workgroup size. Needs a GPU adapter: in CI that is lavapipe (mesa-vulkan-drivers); a missing
//! adapter fails these tests rather than skipping them.
//!
//! Over 400 lines: every file under tests/ is a binary that links the whole crate, so related
//! checks share one file rather than add another link to each test run.
#![cfg(feature = "gpu")]

use bertscope::config::Activation;
use bertscope::cpu::activation::{activation_backward, activation_forward, tanh_backward, tanh_forward};
use bertscope::cpu::attention::{attention_backward, attention_forward, AttnShape};
use bertscope::cpu::cross_entropy::{cross_entropy_forward_backward, IGNORE};
use bertscope::cpu::embedding::{embedding_backward, embedding_forward};
use bertscope::cpu::layernorm::{layernorm_backward, layernorm_forward};
use bertscope::cpu::linear::{linear_backward, linear_forward};
use bertscope::gpu::kernels::attention::{self as gattn, AttnDims, AttnDropout};
use bertscope::gpu::kernels::elementwise::{self as ew, keep_factor, Act};
use bertscope::gpu::kernels::matmul::{self as mm, Kernel, Operand, Shape};
use bertscope::gpu::kernels::{adamw as gadamw, cross_entropy as gce, embedding as gemb, layernorm as gln, reduce};
use bertscope::gpu::{GpuContext, View};
use bertscope::rng::Rng;
use ndarray::{Array1, Array2, Array4};

thread_local! {
    // One device per test thread (the context counts with Cells, so it is not shared).
    static CTX: &'static GpuContext = Box::leak(Box::new(
        GpuContext::new_blocking().expect("a GPU adapter is required (CI: apt-get install mesa-vulkan-drivers for lavapipe)"),
    ));
}

/// The tests take turns: two llvmpipe devices compiling and running the large subgroup matmul at
/// once on a 2-core machine took 95 s against 8 s one after the other.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn ctx() -> &'static GpuContext {
    CTX.with(|c| *c)
}

fn rand2(r: usize, c: usize, seed: u64) -> Array2<f32> {
    let mut rng = Rng::new(seed);
    Array2::from_shape_simple_fn((r, c), || rng.normal() as f32)
}

fn up(a: &[f32]) -> wgpu::Buffer {
    ctx().upload("t", a).unwrap()
}

fn up2(a: &Array2<f32>) -> wgpu::Buffer {
    up(a.as_standard_layout().as_slice().unwrap())
}

fn v(b: &wgpu::Buffer) -> View<'_> {
    View::whole(b)
}

fn close(name: &str, got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "{name}: length");
    let scale = want.iter().fold(1.0f32, |m, x| m.max(x.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol * scale, "{name}[{i}]: gpu {g} vs cpu {w} (scale {scale})");
    }
}

#[test]
fn linear_forward_and_backward_match_cpu_on_odd_shapes() {
    let _one_at_a_time = serial();
    for &(n, inp, out) in &[(1, 3, 5), (7, 13, 65), (65, 72, 37), (130, 33, 129)] {
        let x = rand2(n, inp, 1);
        let w = rand2(out, inp, 2);
        let b: Array1<f32> = rand2(1, out, 3).row(0).to_owned();
        let dy = rand2(n, out, 4);
        let want = linear_forward(x.view(), w.view(), Some(b.view()));
        let mut dw = rand2(out, inp, 5); // accumulates onto existing values
        let mut db = Array1::<f32>::zeros(out);
        let dw0 = dw.clone();
        let dx = linear_backward(dy.view(), x.view(), w.view(), dw.view_mut(), Some(db.view_mut()));
        let (xb, wb, bb, dyb) = (up2(&x), up2(&w), up(b.as_slice().unwrap()), up2(&dy));
        let yb = ctx().buffer("y", n * out).unwrap();
        let naive = ctx().buffer("y2", n * out).unwrap();
        let dxb = ctx().buffer("dx", n * inp).unwrap();
        let dwb = up2(&dw0);
        let dbb = ctx().buffer("db", out).unwrap();
        let mut rec = ctx().recorder();
        mm::linear(&mut rec, v(&xb), v(&wb), Some(v(&bb)), v(&yb), (n, inp, out)).unwrap();
        let s = Shape::new(n, out, inp);
        mm::matmul(
            &mut rec,
            Operand::rows(v(&xb), inp),
            Operand::transposed(v(&wb), inp),
            Some(v(&bb)),
            Operand::rows(v(&naive), out),
            s,
            Kernel::Naive,
        )
        .unwrap();
        mm::linear_backward(&mut rec, v(&dyb), v(&xb), v(&wb), Some((v(&dxb), false)), v(&dwb), (n, inp, out)).unwrap();
        reduce::colsum(&mut rec, v(&dyb), n, out, v(&dbb)).unwrap();
        let hs = [rec.read(v(&yb)), rec.read(v(&naive)), rec.read(v(&dxb)), rec.read(v(&dwb)), rec.read(v(&dbb))];
        let r = rec.finish_blocking().unwrap();
        let tag = format!("{n}x{inp}x{out}");
        close(&format!("y {tag}"), r.get(hs[0]), want.as_slice().unwrap(), 1e-5);
        close(&format!("naive {tag}"), r.get(hs[1]), want.as_slice().unwrap(), 1e-5);
        close(&format!("dx {tag}"), r.get(hs[2]), dx.as_slice().unwrap(), 1e-5);
        close(&format!("dw {tag}"), r.get(hs[3]), dw.as_slice().unwrap(), 1e-5);
        close(&format!("db {tag}"), r.get(hs[4]), db.as_slice().unwrap(), 1e-5);
    }
}

/// Every matmul kernel on every stride layout (A and B each row-major or transposed), batched
/// (z = z1 * inner + z2 with per-level offsets), with alpha, bias and accumulate, on shapes that are
/// not multiples of any tile (the subgroup kernel's tiles are 128 x 64 and 64 x 64).
#[test]
fn every_matmul_kernel_matches_cpu_on_every_layout_batched_with_bias_and_accumulate() {
    let _one_at_a_time = serial();
    let kernels = [Kernel::Auto, Kernel::Tiled, Kernel::Subgroup, Kernel::Naive];
    for &(m, k, n, outer, inner) in &[(1, 1, 1, 1, 1), (65, 72, 130, 1, 1), (130, 3, 9, 2, 3), (200, 33, 67, 1, 2)] {
        let z = outer * inner;
        for (ta, tb) in [(false, false), (false, true), (true, false), (true, true)] {
            // per batch: A (m, k) stored as (m, k) or (k, m); B (k, n) as (k, n) or (n, k)
            let a = rand2(z * m, k, 21);
            let b = rand2(z * k, n, 22);
            let c0 = rand2(z * m, n, 23);
            let bias: Vec<f32> = rand2(1, n, 24).row(0).to_vec();
            let blk_a = |zi: usize| a.slice(ndarray::s![zi * m..(zi + 1) * m, ..]).to_owned();
            let blk_b = |zi: usize| b.slice(ndarray::s![zi * k..(zi + 1) * k, ..]).to_owned();
            let store = |x: Array2<f32>, t: bool| if t { x.t().as_standard_layout().to_owned() } else { x };
            let a_st: Vec<f32> = (0..z).flat_map(|zi| store(blk_a(zi), ta).into_raw_vec_and_offset().0).collect();
            let b_st: Vec<f32> = (0..z).flat_map(|zi| store(blk_b(zi), tb).into_raw_vec_and_offset().0).collect();
            let (alpha, acc) = (0.5f32, true);
            let mut want = c0.clone();
            for zi in 0..z {
                let prod = blk_a(zi).dot(&blk_b(zi)) * alpha;
                let mut w = want.slice_mut(ndarray::s![zi * m..(zi + 1) * m, ..]);
                for ((i, j), v) in w.indexed_iter_mut() {
                    *v += prod[[i, j]] + bias[j];
                }
            }
            let (ab, bb, biasb) = (up(&a_st), up(&b_st), up(&bias));
            let operand = |buf, rows: usize, cols: usize, t: bool| {
                let o = if t { Operand::transposed(v(buf), rows) } else { Operand::rows(v(buf), cols) };
                // z1 = zi / inner, z2 = zi % inner: block zi starts at zi * rows * cols
                o.batch(inner * rows * cols, rows * cols)
            };
            for kernel in kernels {
                let cb = up(c0.as_slice().unwrap());
                let mut rec = ctx().recorder();
                let s = Shape { batch: (outer, inner), alpha, accumulate: acc, ..Shape::new(m, n, k) };
                let c_op = Operand::rows(v(&cb), n).batch(inner * m * n, m * n);
                let r = mm::matmul(&mut rec, operand(&ab, m, k, ta), operand(&bb, k, n, tb), Some(v(&biasb)), c_op, s, kernel);
                if kernel == Kernel::Subgroup && !ctx().subgroup8 {
                    let e = r.expect_err("the subgroup kernel on an adapter without 8-lane subgroups is an error");
                    assert!(e.to_string().contains("subgroup"), "{e}");
                    continue;
                }
                r.unwrap();
                let h = rec.read(v(&cb));
                let got = rec.finish_blocking().unwrap();
                close(&format!("{kernel:?} {m}x{k}x{n} z={outer}x{inner} ta={ta} tb={tb}"), got.get(h), want.as_slice().unwrap(), 1e-5);
            }
        }
    }
}

/// Attention of `nh` heads of width `hd` (T queries on TK keys, `causal` or not) on the GPU
/// against the CPU twin: scores, probabilities (exactly 0 above the diagonal when causal),
/// context and the three gradients, with and without dropout; `mask` (B, TK) pads keys.
fn check_attention(b: usize, t: usize, tk: usize, nh: usize, hd: usize, causal: bool, mask: &Array2<f32>, head: &Array1<f32>) {
    let h = nh * hd;
    let (q, k, vv, dctx) = (rand2(b * t, h, 11), rand2(b * tk, h, 12), rand2(b * tk, h, 13), rand2(b * t, h, 14));
    for drop in [None, Some(AttnDropout { p: 0.2, seed: 77 })] {
        let dmask = drop.map(|d| {
            Array4::from_shape_fn((b, nh, t, tk), |(bi, hi, i, j)| keep_factor(d.seed, ((((bi * nh + hi) * t + i) * tk) + j) as u32, d.p))
        });
        let sh = AttnShape { b, t, nh, tk, causal };
        let (ctx_cpu, cache) = attention_forward(q.view(), k.view(), vv.view(), &sh, mask.view(), Some(head.view()), dmask);
        let (dq, dk, dv) = attention_backward(dctx.view(), q.view(), k.view(), vv.view(), &sh, Some(head.view()), &cache);
        let d = AttnDims { b, t, nh, hd, tk, causal };
        let bufs: Vec<wgpu::Buffer> = [&q, &k, &vv, &dctx].iter().map(|a| up2(a)).collect();
        let (mb, hb) = (up2(mask), up(head.as_slice().unwrap()));
        let big = b * nh * t * tk;
        let mk = |l| ctx().buffer(l, big).unwrap();
        let (scores, probs, pw, dp, ds) = (mk("scores"), mk("probs"), mk("pw"), mk("dp"), mk("ds"));
        let (cx, dqb) = (ctx().buffer("ctx", b * t * h).unwrap(), ctx().buffer("dq", b * t * h).unwrap());
        let (dkb, dvb) = (ctx().buffer("dk", b * tk * h).unwrap(), ctx().buffer("dv", b * tk * h).unwrap());
        let mut rec = ctx().recorder();
        let (qv, kv, vv_, dcv) = (v(&bufs[0]), v(&bufs[1]), v(&bufs[2]), v(&bufs[3]));
        let m = gattn::Multiplier { head: v(&hb), drop, weighted: true };
        gattn::attention_forward(&mut rec, &d, (qv, kv, vv_), v(&mb), m, [v(&scores), v(&probs), v(&pw), v(&cx)]).unwrap();
        let (dpv, dsv, dqv, dkv, dvv) = (v(&dp), v(&ds), v(&dqb), v(&dkb), v(&dvb));
        gattn::attention_backward(&mut rec, &d, dcv, (qv, kv, vv_), (v(&probs), v(&pw)), m, [dpv, dsv, dqv, dkv, dvv]).unwrap();
        let hs = [rec.read(v(&scores)), rec.read(v(&probs)), rec.read(v(&cx)), rec.read(v(&dqb)), rec.read(v(&dkb)), rec.read(v(&dvb))];
        let r = rec.finish_blocking().unwrap();
        let tag = format!("b{b} t{t} tk{tk} nh{nh} hd{hd} causal {causal} drop {}", drop.is_some());
        close(&format!("scores {tag}"), r.get(hs[0]), cache.scores.as_slice().unwrap(), 1e-5);
        let pg = r.get(hs[1]);
        let worst = pg.iter().zip(cache.probs.iter()).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(worst <= 1e-5, "probs {tag}: max abs diff {worst}"); // the stated tolerance is 1e-4 absolute
        if causal {
            for (idx, &p) in pg.iter().enumerate() {
                let (i, j) = ((idx / tk) % t, idx % tk);
                assert!(j <= i || p == 0.0, "{tag}: weight {p} above the diagonal at ({i}, {j})");
            }
        }
        close(&format!("ctx {tag}"), r.get(hs[2]), ctx_cpu.as_slice().unwrap(), 1e-4);
        close(&format!("dq {tag}"), r.get(hs[3]), dq.as_slice().unwrap(), 1e-4);
        close(&format!("dk {tag}"), r.get(hs[4]), dk.as_slice().unwrap(), 1e-4);
        close(&format!("dv {tag}"), r.get(hs[5]), dv.as_slice().unwrap(), 1e-4);
    }
}

#[test]
fn attention_forward_and_backward_match_cpu_with_padding_head_mask_and_dropout() {
    let _one_at_a_time = serial();
    for &(b, t, nh, hd) in &[(1, 1, 2, 4), (2, 7, 3, 5), (1, 65, 2, 8), (2, 130, 3, 24)] {
        let mut mask = Array2::<f32>::ones((b, t));
        if t > 2 {
            mask[[0, t - 1]] = 0.0; // padding key in the first sequence
            mask[[0, t - 2]] = 0.0;
        }
        let head: Array1<f32> = Array1::from_shape_fn(nh, |i| if i == 1 { 0.0 } else { 1.0 - 0.25 * i as f32 });
        check_attention(b, t, t, nh, hd, false, &mask, &head);
    }
}

#[test]
fn layernorm_with_residual_forward_and_backward_match_cpu() {
    let _one_at_a_time = serial();
    for &(n, hh) in &[(1, 3), (7, 72), (65, 129)] {
        let (x, res, dout) = (rand2(n, hh, 21), rand2(n, hh, 22), rand2(n, hh, 23));
        let gamma: Array1<f32> = rand2(1, hh, 24).row(0).to_owned();
        let beta: Array1<f32> = rand2(1, hh, 25).row(0).to_owned();
        let sum = &x + &res;
        let (out, mean, rstd) = layernorm_forward(sum.view(), gamma.view(), beta.view(), 1e-12);
        let (mut dg, mut db) = (Array1::<f32>::zeros(hh), Array1::<f32>::zeros(hh));
        let dx = layernorm_backward(dout.view(), sum.view(), mean.view(), rstd.view(), gamma.view(), dg.view_mut(), db.view_mut());
        let (xb, rb, gb, bb, db_) = (up2(&x), up2(&res), up(gamma.as_slice().unwrap()), up(beta.as_slice().unwrap()), up2(&dout));
        let c = ctx();
        let (ob, sb, mb, rsb, dxb, dgb, dbb) = (
            c.buffer("o", n * hh).unwrap(),
            c.buffer("s", n * hh).unwrap(),
            c.buffer("m", n).unwrap(),
            c.buffer("r", n).unwrap(),
            c.buffer("dx", n * hh).unwrap(),
            c.buffer("dg", hh).unwrap(),
            c.buffer("db", hh).unwrap(),
        );
        let mut rec = c.recorder();
        gln::layernorm_forward(
            &mut rec,
            gln::LnIn { x: v(&xb), residual: Some((v(&rb), v(&sb))), gamma: v(&gb), beta: v(&bb) },
            gln::LnOut { out: v(&ob), mean: v(&mb), rstd: v(&rsb) },
            (n, hh),
            1e-12,
        )
        .unwrap();
        gln::layernorm_backward(
            &mut rec,
            v(&db_),
            gln::LnSaved { x: v(&sb), mean: v(&mb), rstd: v(&rsb) },
            v(&gb),
            (v(&dxb), false),
            (v(&dgb), v(&dbb)),
            (n, hh),
        )
        .unwrap();
        let hs = [rec.read(v(&ob)), rec.read(v(&sb)), rec.read(v(&dxb)), rec.read(v(&dgb)), rec.read(v(&dbb)), rec.read(v(&rsb))];
        let r = rec.finish_blocking().unwrap();
        close("ln out", r.get(hs[0]), out.as_slice().unwrap(), 1e-5);
        close("ln sum", r.get(hs[1]), sum.as_slice().unwrap(), 1e-6);
        close("ln dx", r.get(hs[2]), dx.as_slice().unwrap(), 1e-4);
        close("ln dgamma", r.get(hs[3]), dg.as_slice().unwrap(), 1e-5);
        close("ln dbeta", r.get(hs[4]), db.as_slice().unwrap(), 1e-5);
        close("ln rstd", r.get(hs[5]), rstd.as_slice().unwrap(), 1e-5);
    }
}

#[test]
fn activations_and_their_gradients_match_cpu() {
    let _one_at_a_time = serial();
    let x = rand2(13, 71, 31) * 3.0;
    let dy = rand2(13, 71, 32);
    let n = x.len();
    let (xb, dyb) = (up2(&x), up2(&dy));
    for act in [Activation::Gelu, Activation::GeluNew, Activation::Relu] {
        let (want, dwant) = (activation_forward(act, x.view()), activation_backward(act, dy.view(), x.view()));
        let (ob, gb) = (ctx().buffer("o", n).unwrap(), ctx().buffer("g", n).unwrap());
        let mut rec = ctx().recorder();
        ew::act_forward(&mut rec, act.into(), v(&xb), v(&ob), n).unwrap();
        ew::act_backward(&mut rec, act.into(), v(&xb), v(&dyb), v(&gb), n).unwrap();
        let hs = [rec.read(v(&ob)), rec.read(v(&gb))];
        let r = rec.finish_blocking().unwrap();
        close(&format!("{act:?}"), r.get(hs[0]), want.as_slice().unwrap(), 1e-5);
        close(&format!("{act:?}'"), r.get(hs[1]), dwant.as_slice().unwrap(), 1e-5);
    }
    let t = tanh_forward(x.view());
    let dt = tanh_backward(dy.view(), t.view());
    let tb = up2(&t);
    let (ob, gb) = (ctx().buffer("o", n).unwrap(), ctx().buffer("g", n).unwrap());
    let mut rec = ctx().recorder();
    ew::act_forward(&mut rec, Act::Tanh, v(&xb), v(&ob), n).unwrap();
    ew::act_backward(&mut rec, Act::Tanh, v(&tb), v(&dyb), v(&gb), n).unwrap();
    let hs = [rec.read(v(&ob)), rec.read(v(&gb))];
    let r = rec.finish_blocking().unwrap();
    close("tanh", r.get(hs[0]), t.as_slice().unwrap(), 1e-5);
    close("tanh'", r.get(hs[1]), dt.as_slice().unwrap(), 1e-5);
}

#[test]
fn dropout_masks_a_fraction_near_p_and_repeats_with_the_seed() {
    let _one_at_a_time = serial();
    let n = 10_007;
    let ones = vec![1.0f32; n];
    let (a, b) = (up(&ones), up(&ones));
    let mut rec = ctx().recorder();
    ew::dropout(&mut rec, v(&a), n, 0.1, 5).unwrap();
    ew::dropout(&mut rec, v(&b), n, 0.1, 5).unwrap();
    let hs = [rec.read(v(&a)), rec.read(v(&b))];
    let r = rec.finish_blocking().unwrap();
    assert_eq!(r.get(hs[0]), r.get(hs[1]));
    let want: Vec<f32> = (0..n as u32).map(|i| keep_factor(5, i, 0.1)).collect();
    close("dropout", r.get(hs[0]), &want, 1e-6);
    let zeros = want.iter().filter(|&&x| x == 0.0).count() as f64 / n as f64;
    assert!((zeros - 0.1).abs() < 0.02, "dropped fraction {zeros}");
}

#[test]
fn embedding_sum_gather_and_scatter_match_cpu() {
    let _one_at_a_time = serial();
    let (vocab, h, b, t) = (37, 13, 3, 7);
    let word = rand2(vocab, h, 41);
    let pos = rand2(t, h, 42);
    let tt = rand2(2, h, 43);
    let mut rng = Rng::new(44);
    let ids: Vec<usize> = (0..b * t).map(|_| (rng.uniform() * 5.0) as usize).collect(); // repeats
    let tids: Vec<usize> = (0..b * t).map(|i| (i / 4) % 2).collect();
    let mut want = embedding_forward(word.view(), &ids) + embedding_forward(tt.view(), &tids);
    for r in 0..b * t {
        let mut row = want.row_mut(r);
        row += &pos.row(r % t);
    }
    let d = rand2(b * t, h, 45);
    let mut dword = Array2::<f32>::zeros((vocab, h));
    embedding_backward(d.view(), &ids, dword.view_mut());
    let (wb, pb, tb, db) = (up2(&word), up2(&pos), up2(&tt), up2(&d));
    let out = ctx().buffer("e", b * t * h).unwrap();
    let g = ctx().buffer("g", 4 * h).unwrap();
    let dw = ctx().buffer("dw", vocab * h).unwrap();
    let mut rec = ctx().recorder();
    gemb::embed_sum(&mut rec, v(&wb), v(&pb), v(&tb), (&ids, &tids), (t, h), v(&out)).unwrap();
    gemb::gather(&mut rec, v(&wb), &[3, 0, 36, 3], h, v(&g)).unwrap();
    gemb::scatter_add(&mut rec, v(&db), &ids, h, v(&dw)).unwrap();
    let hs = [rec.read(v(&out)), rec.read(v(&g)), rec.read(v(&dw))];
    let r = rec.finish_blocking().unwrap();
    close("embed sum", r.get(hs[0]), want.as_slice().unwrap(), 1e-6);
    close("gather", r.get(hs[1]), embedding_forward(word.view(), &[3, 0, 36, 3]).as_slice().unwrap(), 0.0);
    close("scatter", r.get(hs[2]), dword.as_slice().unwrap(), 1e-6);
}

#[test]
fn sum_of_squares_matches_cpu() {
    let _one_at_a_time = serial();
    for n in [1usize, 63, 1000, 100_003] {
        let x: Vec<f32> = rand2(1, n, 51).into_raw_vec_and_offset().0;
        let want: f64 = x.iter().map(|&a| (a as f64) * (a as f64)).sum();
        let (xb, scratch, out) = (up(&x), ctx().buffer("s", reduce::SUMSQ_SCRATCH).unwrap(), ctx().buffer("o", 1).unwrap());
        let mut rec = ctx().recorder();
        reduce::sumsq(&mut rec, v(&xb), n, v(&scratch), v(&out)).unwrap();
        let h = rec.read(v(&out));
        let got = rec.finish_blocking().unwrap().get(h)[0] as f64;
        assert!((got - want).abs() <= 1e-5 * want, "n {n}: {got} vs {want}");
    }
}

#[test]
fn cross_entropy_matches_cpu_with_ignored_rows() {
    let _one_at_a_time = serial();
    for &(rows, cols) in &[(1, 2), (5, 7), (9, 1000)] {
        let logits = rand2(rows, cols, 61) * 4.0;
        let targets: Vec<i64> = (0..rows).map(|r| if r % 3 == 1 { IGNORE } else { ((r * 7) % cols) as i64 }).collect();
        let (loss, dl) = cross_entropy_forward_backward(logits.view(), &targets);
        let lb = up2(&logits);
        let stats = ctx().buffer("stats", 2 * rows).unwrap();
        let mut rec = ctx().recorder();
        gce::cross_entropy(&mut rec, v(&lb), &targets, cols, v(&stats)).unwrap();
        let hs = [rec.read(v(&lb)), rec.read(v(&stats))];
        let r = rec.finish_blocking().unwrap();
        close("dlogits", r.get(hs[0]), dl.as_slice().unwrap(), 1e-5);
        let st = r.get(hs[1]);
        let n_lab = targets.iter().filter(|&&t| t != IGNORE).count() as f32;
        let gl: f32 = (0..rows).map(|i| st[2 * i]).sum::<f32>() / n_lab;
        assert!((gl - loss).abs() <= 1e-5 * loss.abs().max(1.0), "loss {gl} vs {loss}");
        for i in 0..rows {
            let row = logits.row(i);
            let am = row.iter().enumerate().fold(0, |b, (j, &x)| if x > row[b] { j } else { b });
            assert_eq!(st[2 * i + 1] as usize, am, "argmax row {i}");
        }
    }
}

#[test]
fn mse_matches_cpu() {
    let _one_at_a_time = serial();
    for rows in [1usize, 7, 130] {
        let pred = rand2(rows, 1, 71) * 3.0;
        let y: Vec<f64> = (0..rows).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
        let (loss, d) = bertscope::cpu::mse::mse_forward_backward(pred.view(), &y);
        let pb = up2(&pred);
        let stats = ctx().buffer("stats", 2 * rows).unwrap();
        let mut rec = ctx().recorder();
        let yf: Vec<f32> = y.iter().map(|&v| v as f32).collect();
        gce::mse(&mut rec, v(&pb), &yf, v(&stats)).unwrap();
        let hs = [rec.read(v(&pb)), rec.read(v(&stats))];
        let r = rec.finish_blocking().unwrap();
        close("dpred", r.get(hs[0]), d.as_slice().unwrap(), 1e-5);
        let gl: f32 = (0..rows).map(|i| r.get(hs[1])[2 * i]).sum::<f32>() / rows as f32;
        assert!((gl - loss).abs() <= 1e-5 * loss.abs().max(1.0), "loss {gl} vs {loss}");
    }
}

#[test]
fn adamw_with_clipping_matches_cpu() {
    let _one_at_a_time = serial();
    use bertscope::config::{BertConfig, Heads};
    use bertscope::model::adamw::{decays, AdamW, AdamWConfig};
    use bertscope::model::BertParams;
    let cfg = BertConfig::new(23, 12, 1, 3, 17, 9);
    let mut p = BertParams::<f32>::init(&cfg, Heads::MASKED_LM, 3);
    let mut g = p.map(|x| x * 50.0 + 0.01); // large, so clipping bites
    let max_norm = 1.0f64;
    let p0 = p.clone();
    let mut opt = AdamW::new(&p, AdamWConfig::default());
    let lrs = [1e-3, 5e-4];
    // CPU: clip, then update, twice
    let sq: f64 = g.tensors().iter().map(|(_, t)| t.iter().map(|&x| (x as f64).powi(2)).sum::<f64>()).sum();
    let coef = (max_norm / (sq.sqrt() + 1e-6)).min(1.0) as f32;
    let clipped = g.map(|x| x * coef);
    for lr in lrs {
        opt.update(&mut p, &clipped, lr);
    }
    // GPU: each tensor as its own range, the squared norm computed on the GPU
    let c = ctx();
    let flat_g: Vec<f32> = g.tensors().iter().flat_map(|(_, t)| t.iter().copied().collect::<Vec<_>>()).collect();
    let gb = up(&flat_g);
    let (scratch, sqb) = (c.buffer("s", reduce::SUMSQ_SCRATCH).unwrap(), c.buffer("sq", 1).unwrap());
    let tensors: Vec<(String, Vec<f32>)> = p0.tensors().iter().map(|(n, t)| (n.clone(), t.iter().copied().collect())).collect();
    let bufs: Vec<(wgpu::Buffer, wgpu::Buffer, wgpu::Buffer, wgpu::Buffer)> = tensors
        .iter()
        .zip(g.tensors())
        .map(|((_, t), (_, gt))| {
            let gv: Vec<f32> = gt.iter().copied().collect();
            (up(t), up(&gv), c.buffer("m", t.len()).unwrap(), c.buffer("v", t.len()).unwrap())
        })
        .collect();
    let mut rec = c.recorder();
    reduce::sumsq(&mut rec, v(&gb), flat_g.len(), v(&scratch), v(&sqb)).unwrap();
    for (step, lr) in lrs.iter().enumerate() {
        let s = gadamw::AdamWStep { lr: *lr, weight_decay: 0.01, beta1: 0.9, beta2: 0.999, eps: 1e-8, step: step as u64 + 1, max_norm };
        for ((name, _), (pb, gbt, mb, vb)) in tensors.iter().zip(&bufs) {
            let x = gadamw::Moments { params: v(pb), grads: v(gbt), m: v(mb), v: v(vb) };
            gadamw::adamw(&mut rec, x, v(&sqb), decays(name), &s).unwrap();
        }
    }
    let hs: Vec<_> = bufs.iter().map(|(pb, ..)| rec.read(v(pb))).collect();
    let r = rec.finish_blocking().unwrap();
    for ((name, want), h) in p.tensors().iter().zip(&hs) {
        let want: Vec<f32> = want.iter().copied().collect();
        close(name, r.get(*h), &want, 1e-5);
    }
    g.fill_zero();
}

#[test]
fn one_recorder_is_one_submit_and_one_readback() {
    let _one_at_a_time = serial();
    let c = ctx();
    let before = c.counters();
    let x = up(&[1.0, 2.0, 3.0]);
    let y = c.buffer("y", 3).unwrap();
    let mut rec = c.recorder();
    ew::act_forward(&mut rec, Act::Relu, v(&x), v(&y), 3).unwrap();
    ew::add_into(&mut rec, v(&x), v(&y), 3).unwrap();
    let h1 = rec.read(v(&y));
    let h2 = rec.read(v(&x));
    let r = rec.finish_blocking().unwrap();
    assert_eq!(r.get(h1), &[2.0, 4.0, 6.0]);
    assert_eq!(r.get(h2), &[1.0, 2.0, 3.0]);
    let after = c.counters();
    assert_eq!(after.submits - before.submits, 1);
    assert_eq!(after.readbacks - before.readbacks, 1);
    assert_eq!(after.dispatches - before.dispatches, 2);
}

#[test]
fn a_buffer_larger_than_the_adapter_allows_is_a_clear_error() {
    let _one_at_a_time = serial();
    let c = ctx();
    let too_many = (c.limits.max_buffer_size / 4 + 1) as usize;
    let e = c.buffer("huge", too_many).unwrap_err().to_string();
    assert!(e.contains("more than this GPU allows") && e.contains("CPU path"), "{e}");
}

/// A decoder's attention on the GPU against its CPU twin: causal self-attention (keys after the
/// query masked, a padded key too) and cross-attention with another key length (T queries on TK
/// encoder keys, the encoder's padding masked), with and without dropout, on odd shapes.
#[test]
fn causal_and_cross_attention_match_cpu() {
    let _one_at_a_time = serial();
    for &(b, t, tk, nh, hd, causal) in &[
        (2, 7, 7, 3, 5, true),
        (1, 1, 1, 2, 4, true),
        (2, 65, 65, 2, 8, true),
        (2, 7, 13, 3, 5, false),
        (1, 1, 9, 2, 4, false),
        (2, 33, 5, 2, 8, false),
    ] {
        let mut mask = Array2::<f32>::ones((b, tk));
        if tk > 2 {
            mask[[b - 1, tk - 1]] = 0.0;
        }
        check_attention(b, t, tk, nh, hd, causal, &mask, &Array1::<f32>::ones(nh));
    }
}
