//! The whole model on the GPU against the CPU path (the spec): forward intermediates, gradients
//! and training steps, on bert-tiny (the shipped base weights) and odd shapes (T = 1, 7, 65, 130;
//! hidden 72 with 3 heads; ReLU, gelu_new, sinusoidal positions, untied decoder, NSP head), and an
//! encoder-decoder's decoder (causal self-attention, cross-attention, the encoder's gradient).
//! Tolerances: attention probabilities 1e-4 absolute, logits 1e-3, gradients 1e-2 relative.
//!
//! Over 400 lines: every file under tests/ is a binary that links the whole crate, so related
//! checks share one file rather than add another link to each test run.
#![cfg(feature = "gpu")]

use bertscope::bundle::Bert;
use bertscope::config::{BertConfig, Heads, PositionEncoding};
use bertscope::gpu::backward::record_backward;
use bertscope::gpu::forward::record_forward;
use bertscope::gpu::model::GpuModel;
use bertscope::gpu::train::GpuOptimizer;
use bertscope::gpu::{GpuContext, View};
use bertscope::model::adamw::clip_grad_norm;
use bertscope::model::adamw::{AdamW, AdamWConfig, StepOpts};
use bertscope::model::backward::{backward, Targets};
use bertscope::model::forward::{forward, Batch, ForwardOptions, ForwardTrace, MlmRows};
use bertscope::model::BertParams;
use bertscope::rng::Rng;
use ndarray::{Array2, ArrayViewD};
use std::path::Path;

mod common;

thread_local! {
    static CTX: &'static GpuContext = Box::leak(Box::new(
        GpuContext::new_blocking().expect("a GPU adapter is required (CI: apt-get install mesa-vulkan-drivers for lavapipe)"),
    ));
}

fn ctx() -> &'static GpuContext {
    CTX.with(|c| *c)
}

fn max_abs(a: ArrayViewD<f32>, b: ArrayViewD<f32>) -> f32 {
    assert_eq!(a.shape(), b.shape());
    a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

fn compare_traces(tag: &str, g: &ForwardTrace<f32>, c: &ForwardTrace<f32>) {
    let probs_tol = 1e-4;
    let hid_tol = 1e-3;
    for (l, (gl, cl)) in g.layers.iter().zip(&c.layers).enumerate() {
        let d = max_abs(gl.attn.probs.view().into_dyn(), cl.attn.probs.view().into_dyn());
        assert!(d <= probs_tol, "{tag}: layer {l} attention probabilities differ by {d}");
        for (name, a, b) in [("q", &gl.q, &cl.q), ("context", &gl.context, &cl.context), ("ffn_act", &gl.ffn_act, &cl.ffn_act)] {
            let d = max_abs(a.view().into_dyn(), b.view().into_dyn());
            assert!(d <= hid_tol, "{tag}: layer {l} {name} differs by {d}");
        }
    }
    for (i, (a, b)) in g.hidden.iter().zip(&c.hidden).enumerate() {
        let d = max_abs(a.view().into_dyn(), b.view().into_dyn());
        assert!(d <= hid_tol, "{tag}: hidden state {i} differs by {d}");
    }
    let d = max_abs(g.emb.sum.view().into_dyn(), c.emb.sum.view().into_dyn());
    assert!(d <= 1e-5, "{tag}: embedding sum differs by {d}");
    let d = max_abs(g.emb.word.view().into_dyn(), c.emb.word.view().into_dyn());
    assert!(d == 0.0, "{tag}: word embeddings differ by {d}");
    if let (Some(gm), Some(cm)) = (&g.mlm, &c.mlm) {
        let d = max_abs(gm.logits.view().into_dyn(), cm.logits.view().into_dyn());
        assert!(d <= 1e-3, "{tag}: MLM logits differ by {d}");
    } else {
        assert!(g.mlm.is_none() && c.mlm.is_none(), "{tag}: MLM head ran on one path only");
    }
    if let (Some(gp), Some(cp)) = (&g.pool, &c.pool) {
        let d = max_abs(gp.pooled.view().into_dyn(), cp.pooled.view().into_dyn());
        assert!(d <= 1e-3, "{tag}: pooled differs by {d}");
        if let (Some(a), Some(b)) = (&gp.nsp_logits, &cp.nsp_logits) {
            let d = max_abs(a.view().into_dyn(), b.view().into_dyn());
            assert!(d <= 1e-3, "{tag}: NSP logits differ by {d}");
        }
    }
}

fn random_batch(cfg: &BertConfig, b: usize, t: usize, seed: u64) -> (Batch, Targets) {
    let mut rng = Rng::new(seed);
    let n = b * t;
    let input_ids: Vec<usize> = (0..n).map(|_| rng.below(cfg.vocab_size)).collect();
    let token_type_ids: Vec<usize> = (0..n).map(|i| ((i % t) * 2 >= t) as usize).collect();
    let mut attention_mask = vec![1u8; n];
    if b > 1 && t > 3 {
        for j in t - t / 3..t {
            attention_mask[t + j] = 0; // second sequence padded
        }
    }
    let labels: Vec<i64> =
        (0..n).map(|i| if attention_mask[i] == 1 && (i % 5 == 2 || t == 1) { input_ids[(i * 7) % n] as i64 } else { -100 }).collect();
    let nsp: Vec<i64> = (0..b).map(|i| (i % 2) as i64).collect();
    (Batch { b, t, input_ids, token_type_ids, attention_mask }, Targets { mlm_labels: Some(labels), nsp_labels: Some(nsp), task: None })
}

fn odd_cfg(act: &str, pos: PositionEncoding, tie: bool) -> BertConfig {
    let mut c = BertConfig::new(101, 72, 2, 3, 37, 160);
    c.hidden_act = act.into();
    c.position_encoding = pos;
    c.tie_word_embeddings = tie;
    c.type_vocab_size = 2;
    c
}

fn perturbed(cfg: &BertConfig, heads: Heads, seed: u64) -> BertParams<f32> {
    // LayerNorm gains and biases away from 1 / 0 so every path is exercised.
    let mut p = BertParams::<f32>::init(cfg, heads, seed);
    let mut rng = Rng::new(seed + 1);
    for (name, mut t) in p.tensors_mut() {
        let base = if name.contains("LayerNorm.weight") { 1.0 } else { 0.0 };
        if name.ends_with("bias") || name.contains("LayerNorm") {
            t.mapv_inplace(|_| base + 0.1 * rng.normal() as f32);
        }
    }
    p
}

#[test]
fn forward_matches_cpu_on_bert_tiny() {
    let bert = Bert::from_dir(Path::new("www/models/bert-tiny-base")).unwrap();
    let m = GpuModel::upload(ctx(), &bert.cfg, &bert.params).unwrap();
    let e1 = bert.tokenizer.encode("the cat sat on the [MASK] near the river bank .", None).unwrap();
    let b1 = Batch::single(e1.input_ids.iter().map(|&i| i as usize).collect(), e1.token_type_ids.iter().map(|&i| i as usize).collect());
    let opts = ForwardOptions::default();
    let g = forward_blocking(ctx(), &m, &b1, &opts).unwrap();
    let c = forward(&bert.params, &bert.cfg, &b1, &opts).unwrap();
    compare_traces("bert-tiny sentence", &g, &c);
    // a padded batch with a head switched off
    let (batch, _) = random_batch(&bert.cfg, 2, 9, 3);
    let mut hm = Array2::<f32>::ones((bert.cfg.num_hidden_layers, bert.cfg.num_attention_heads));
    hm[[1, 0]] = 0.0;
    let opts = ForwardOptions { head_mask: Some(hm), ..Default::default() };
    let g = forward_blocking(ctx(), &m, &batch, &opts).unwrap();
    let c = forward(&bert.params, &bert.cfg, &batch, &opts).unwrap();
    compare_traces("bert-tiny padded batch, head mask", &g, &c);
}

#[test]
fn forward_matches_cpu_on_odd_shapes() {
    let cases = [
        ("gelu", PositionEncoding::Learned, true, Heads::PRETRAINING, 1, 1),
        ("relu", PositionEncoding::Learned, false, Heads::MASKED_LM, 2, 7),
        ("gelu_new", PositionEncoding::Sinusoidal, true, Heads::PRETRAINING, 1, 65),
        ("gelu", PositionEncoding::Learned, false, Heads::BASE_MODEL, 1, 130),
    ];
    for (i, &(act, pos, tie, heads, b, t)) in cases.iter().enumerate() {
        let cfg = odd_cfg(act, pos, tie);
        let p = perturbed(&cfg, heads, 10 + i as u64);
        let m = GpuModel::upload(ctx(), &cfg, &p).unwrap();
        let (batch, _) = random_batch(&cfg, b, t, 20 + i as u64);
        let opts = ForwardOptions::default();
        let g = forward_blocking(ctx(), &m, &batch, &opts).unwrap();
        let c = forward(&p, &cfg, &batch, &opts).unwrap();
        compare_traces(&format!("{act} {pos:?} tie {tie} B{b} T{t}"), &g, &c);
    }
}

/// Per tensor: max |gpu - cpu| <= 1e-2 * max |cpu| (+ a floor for tensors whose gradient is ~0).
fn compare_grads(tag: &str, g: &BertParams<f32>, c: &BertParams<f32>) {
    for ((name, a), (_, b)) in g.tensors().into_iter().zip(c.tensors()) {
        let scale = b.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let d = max_abs(a.view(), b.view());
        assert!(d <= 1e-2 * scale + 1e-6, "{tag}: gradient of {name} differs by {d} (max |cpu| {scale})");
    }
}

fn gpu_grads(cfg: &BertConfig, p: &BertParams<f32>, batch: &Batch, targets: &Targets, seed: Option<u64>) -> (BertParams<f32>, f32) {
    let c = ctx();
    let m = GpuModel::upload(c, cfg, p).unwrap();
    let grads = c.buffer("grads", m.layout.total).unwrap();
    let mut rec = c.recorder();
    let opts = targets.forward_options(seed);
    let tr = record_forward(&mut rec, &m, batch, &opts, false).unwrap();
    let reads = record_backward(&mut rec, &m, &grads, batch, &tr, targets, None).unwrap();
    let h = rec.read(View::whole(&grads));
    let rb = rec.finish_blocking().unwrap();
    let mut out = p.zeros_like();
    m.layout.unflatten(rb.get(h), &mut out);
    (out, reads.loss(&rb).loss)
}

#[test]
fn gradients_match_cpu_on_bert_tiny_and_odd_shapes() {
    let bert = Bert::from_dir(Path::new("www/models/bert-tiny-base")).unwrap();
    let mut cases: Vec<(String, BertConfig, BertParams<f32>, usize, usize)> =
        vec![("bert-tiny".into(), bert.cfg.clone(), bert.params.clone(), 2, 12)];
    for (i, &(act, pos, tie, t)) in [
        ("gelu", PositionEncoding::Learned, true, 1),
        ("relu", PositionEncoding::Learned, false, 7),
        ("gelu_new", PositionEncoding::Sinusoidal, true, 65),
    ]
    .iter()
    .enumerate()
    {
        let cfg = odd_cfg(act, pos, tie);
        cases.push((format!("{act} T{t}"), cfg.clone(), perturbed(&cfg, Heads::PRETRAINING, 30 + i as u64), 2, t));
    }
    for (tag, cfg, p, b, t) in cases {
        let (batch, mut targets) = random_batch(&cfg, b, t, 40);
        if !p.heads().nsp {
            targets.nsp_labels = None;
        }
        let opts = targets.forward_options(None);
        let mut tr = forward(&p, &cfg, &batch, &opts).unwrap();
        let mut cg = p.zeros_like();
        let closs = backward(&p, &cfg, &batch, &mut tr, &targets, &mut cg).unwrap();
        let (gg, gloss) = gpu_grads(&cfg, &p, &batch, &targets, None);
        assert!((gloss - closs.loss).abs() <= 1e-4 * closs.loss.abs().max(1.0), "{tag}: loss {gloss} vs {}", closs.loss);
        compare_grads(&tag, &gg, &cg);
    }
}

#[test]
fn training_steps_match_cpu_and_take_one_submit_and_one_readback_each() {
    let bert = Bert::from_dir(Path::new("www/models/bert-tiny-base")).unwrap();
    let (cfg, p0) = (bert.cfg.clone(), bert.params.clone());
    let c = ctx();
    let mut opt = GpuOptimizer::new(c, &cfg, &p0).unwrap();
    let mut cpu = p0.clone();
    let mut adam = AdamW::new(&cpu, AdamWConfig::default());
    let mut grads = cpu.zeros_like();
    for step in 0..4 {
        let (batch, mut targets) = random_batch(&cfg, 3, 16, 50 + step);
        targets.nsp_labels = None;
        let lr = 1e-3 * (step + 1) as f64;
        let before = c.counters();
        let gs = pollster::block_on(opt.train_step(
            c,
            &batch,
            &targets,
            &AdamWConfig::default(),
            StepOpts { lr, max_norm: 1.0, dropout_seed: None },
        ))
        .unwrap();
        let after = c.counters();
        assert_eq!((after.submits - before.submits, after.readbacks - before.readbacks), (1, 1), "one submit, one readback per step");
        let opts = targets.forward_options(None);
        let mut tr = forward(&cpu, &cfg, &batch, &opts).unwrap();
        grads.fill_zero();
        let loss = backward(&cpu, &cfg, &batch, &mut tr, &targets, &mut grads).unwrap();
        let norm = clip_grad_norm(&mut grads, 1.0);
        adam.update(&mut cpu, &grads, lr);
        assert!((gs.loss.loss - loss.loss).abs() <= 1e-3 * loss.loss, "step {step}: loss gpu {} cpu {}", gs.loss.loss, loss.loss);
        assert!((gs.grad_norm - norm).abs() <= 1e-3 * norm, "step {step}: grad norm gpu {} cpu {norm}", gs.grad_norm);
    }
    let gp = pollster::block_on(opt.params(c)).unwrap();
    // Adam divides by sqrt(v): where a gradient is ~0, rounding differences can flip an update of
    // up to lr, so the bound on single weights is the summed lr; on average they must agree closely.
    let lr_sum: f64 = (1..=4).map(|s| 1e-3 * s as f64).sum();
    let (mut sum, mut count) = (0.0f64, 0usize);
    for ((name, a), (_, b)) in gp.tensors().into_iter().zip(cpu.tensors()) {
        let d = max_abs(a.view(), b.view());
        assert!(d as f64 <= 2.0 * lr_sum, "after 4 steps {name} differs by {d}");
        sum += a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs() as f64).sum::<f64>();
        count += a.len();
    }
    let mean = sum / count as f64;
    assert!(mean <= 2e-6, "after 4 steps the weights differ by {mean} on average");
    let moved = max_abs(gp.tensors()[0].1.view(), p0.tensors()[0].1.view());
    assert!(moved > 1e-4, "training moved the weights ({moved})");
}

#[test]
fn a_non_finite_step_stops_and_keeps_the_weights() {
    let cfg = odd_cfg("gelu", PositionEncoding::Learned, true);
    let mut p = perturbed(&cfg, Heads::MASKED_LM, 60);
    p.layers[0].query.weight[[0, 0]] = f32::NAN;
    let c = ctx();
    let mut opt = GpuOptimizer::new(c, &cfg, &p).unwrap();
    let (batch, mut targets) = random_batch(&cfg, 1, 7, 61);
    targets.nsp_labels = None;
    let e = pollster::block_on(opt.train_step(
        c,
        &batch,
        &targets,
        &AdamWConfig::default(),
        StepOpts { lr: 1e-3, max_norm: 1.0, dropout_seed: None },
    ))
    .unwrap_err();
    assert!(e.to_string().contains("not finite"), "{e}");
    let after = pollster::block_on(opt.params(c)).unwrap();
    let d = max_abs(after.layers[1].key.weight.view().into_dyn(), p.layers[1].key.weight.view().into_dyn());
    assert_eq!(d, 0.0, "weights unchanged after a non-finite step");
    assert_eq!(opt.step, 0);
}

#[test]
fn dropout_training_on_the_gpu_is_seeded_and_lowers_the_loss() {
    let bert = Bert::from_dir(Path::new("www/models/bert-tiny-base")).unwrap();
    let c = ctx();
    let (batch, mut targets) = random_batch(&bert.cfg, 2, 12, 70);
    targets.nsp_labels = None;
    let (g1, l1) = gpu_grads(&bert.cfg, &bert.params, &batch, &targets, Some(5));
    let (g2, l2) = gpu_grads(&bert.cfg, &bert.params, &batch, &targets, Some(5));
    let (_, l3) = gpu_grads(&bert.cfg, &bert.params, &batch, &targets, Some(6));
    assert_eq!(l1, l2, "same seed, same loss");
    assert_ne!(l1, l3, "another seed, other dropout masks");
    compare_grads("same dropout seed", &g1, &g2);
    let mut opt = GpuOptimizer::new(c, &bert.cfg, &bert.params).unwrap();
    let mut losses = Vec::new();
    for s in 0..15 {
        let st = pollster::block_on(opt.train_step(
            c,
            &batch,
            &targets,
            &AdamWConfig::default(),
            StepOpts { lr: 2e-3, max_norm: 1.0, dropout_seed: Some(s) },
        ))
        .unwrap();
        losses.push(st.loss.loss);
    }
    assert!(losses[14] < 0.5 * losses[0], "one batch, 15 steps: loss {} -> {}", losses[0], losses[14]);
}

#[test]
fn a_lost_device_is_a_clear_error_and_the_cpu_path_carries_on() {
    // a device of its own: this one is destroyed
    let ctx = GpuContext::new_blocking().expect("a GPU adapter is required");
    let cfg = odd_cfg("gelu", PositionEncoding::Learned, true);
    let p = perturbed(&cfg, Heads::MASKED_LM, 5);
    let (batch, _) = random_batch(&cfg, 1, 7, 6);
    let opts = ForwardOptions { mlm_rows: MlmRows::All, ..Default::default() };
    let m = GpuModel::upload(&ctx, &cfg, &p).unwrap();
    forward_blocking(&ctx, &m, &batch, &opts).expect("a forward before the loss");
    ctx.device.destroy();
    let e = forward_blocking(&ctx, &m, &batch, &opts).err().expect("a forward on a destroyed device fails");
    let msg = e.to_string();
    assert!(msg.contains("lost") || msg.contains("stopped working"), "unclear error: {msg}");
    assert!(ctx.check_alive().is_err(), "the context knows its device is gone");
    // the caller falls back without restarting: the CPU path answers, and a new context works
    let cpu = forward(&p, &cfg, &batch, &opts).unwrap();
    let fresh = GpuContext::new_blocking().unwrap();
    let m2 = GpuModel::upload(&fresh, &cfg, &p).unwrap();
    compare_traces("after a lost device", &forward_blocking(&fresh, &m2, &batch, &opts).unwrap(), &cpu);
}

/// The GPU forward, waited on (the library is async at its core).
fn forward_blocking(
    ctx: &bertscope::gpu::GpuContext,
    m: &bertscope::gpu::model::GpuModel,
    batch: &bertscope::model::forward::Batch,
    opts: &bertscope::model::forward::ForwardOptions<f32>,
) -> bertscope::Result<bertscope::model::forward::ForwardTrace<f32>> {
    bertscope::backend::block_on(bertscope::gpu::trace_read::forward(ctx, m, batch, opts))
}

#[test]
fn the_backend_runs_forward_gradients_and_training_the_same_on_cpu_and_gpu() {
    use bertscope::backend::{block_on, Backend};
    use bertscope::train::options::RunOptions;
    use bertscope::train::trainer::{TrainOptions, Trainer};
    let bert = Bert::from_dir(Path::new("www/models/bert-tiny-base")).unwrap();
    let mut cpu = Backend::cpu();
    let mut gpu = block_on(Backend::open_gpu()).expect("a GPU adapter is required");
    assert!(!cpu.is_gpu() && gpu.is_gpu());
    let (batch, mut targets) = random_batch(&bert.cfg, 2, 9, 31);
    targets.nsp_labels = None;
    let opts = ForwardOptions { mlm_rows: MlmRows::All, ..Default::default() };
    let c = block_on(cpu.forward(&bert, (0, 0), &batch, &opts)).unwrap();
    let g = block_on(gpu.forward(&bert, (0, 0), &batch, &opts)).unwrap();
    compare_traces("backend forward", &g, &c);
    let (cl, cg) = block_on(cpu.loss_and_grads(&bert, (0, 0), &batch, &targets)).unwrap();
    let (gl, gg) = block_on(gpu.loss_and_grads(&bert, (0, 0), &batch, &targets)).unwrap();
    assert!((cl.loss - gl.loss).abs() < 1e-4, "loss {} vs {}", cl.loss, gl.loss);
    compare_grads("backend gradients", &gg, &cg);
    // a label outside the vocabulary is an input error on both paths, before any work
    let bad = Targets { mlm_labels: Some(vec![bert.cfg.vocab_size as i64; batch.b * batch.t]), nsp_labels: None, task: None };
    for b in [&mut cpu, &mut gpu] {
        let e = block_on(b.loss_and_grads(&bert, (0, 0), &batch, &bad)).unwrap_err().to_string();
        assert!(e.contains("vocabulary"), "{e}");
    }
    // the trainer through either backend: the same steps, the same losses within tolerance
    let corpus = std::fs::read_to_string("www/corpora/simple.txt").unwrap();
    let run = RunOptions { steps: 4, batch: 4, seq: 32, lr: 1e-3, dropout: false, ..Default::default() };
    let opts = TrainOptions { run, eval_sequences: 8, ..Default::default() };
    let mut on_cpu = Trainer::new(bert.clone(), &corpus, opts.clone()).unwrap();
    let mut on_gpu = Trainer::new(bert.clone(), &corpus, opts).unwrap();
    block_on(on_gpu.use_backend(&gpu)).unwrap();
    assert!(on_gpu.on_gpu() && !on_cpu.on_gpu());
    for _ in 0..4 {
        let (a, b) = (block_on(on_cpu.step()).unwrap().point, block_on(on_gpu.step()).unwrap().point);
        assert!((a.loss - b.loss).abs() < 2e-3 * a.loss.abs().max(1.0), "step {}: loss {} (cpu) vs {} (gpu)", a.step, a.loss, b.loss);
    }
    let (ea, eb) = (block_on(on_cpu.evaluate()).unwrap(), block_on(on_gpu.evaluate()).unwrap());
    assert!((ea.loss - eb.loss).abs() < 2e-3 * ea.loss.abs(), "held-out loss {} vs {}", ea.loss, eb.loss);
    // the GPU's weights come back to the CPU copy only when synced
    let stale = on_gpu.bert.params.clone();
    block_on(on_gpu.sync()).unwrap();
    let moved = stale.tensors().into_iter().zip(on_gpu.bert.params.tensors()).any(|((_, a), (_, b))| a != b);
    assert!(moved, "sync brings the trained weights back");
    compare_grads("trained weights", &on_gpu.bert.params, &on_cpu.bert.params);
}

#[test]
fn task_heads_run_forward_on_the_gpu_as_on_the_cpu() {
    use bertscope::backend::{block_on, Backend};
    use bertscope::model::task::TaskLabels;
    let mut gpu = block_on(Backend::open_gpu()).expect("a GPU adapter is required");
    for name in ["task_seqcls", "task_regression", "task_tokcls", "task_qa"] {
        let bert = Bert::from_dir(&Path::new("tests/fixtures/models").join(name)).unwrap();
        let (batch, _) = random_batch(&bert.cfg, 2, 9, 77);
        let opts = ForwardOptions::default();
        let c = block_on(Backend::cpu().forward(&bert, (0, 0), &batch, &opts)).unwrap();
        let g = block_on(gpu.forward(&bert, (1, name.len()), &batch, &opts)).unwrap();
        compare_traces(name, &g, &c);
        let (gt, ct) = (g.task.as_ref().unwrap(), c.task.as_ref().unwrap());
        let d = max_abs(gt.logits.view().into_dyn(), ct.logits.view().into_dyn());
        assert!(d <= 1e-4, "{name}: task logits differ by {d}");
        assert_eq!(gt.logits.dim(), ct.logits.dim());
    }
    // loss and every gradient of each head on the GPU, against the CPU path
    let t = 9;
    let mut tags = vec![-100i64; 2 * t];
    for (i, v) in tags.iter_mut().enumerate().skip(1).step_by(2) {
        *v = (i % 5) as i64;
    }
    let cases = [
        ("task_seqcls", TaskLabels::Classes(vec![0, 2])),
        ("task_tokcls", TaskLabels::Tags(tags)),
        ("task_qa", TaskLabels::Spans { start: vec![2, 40], end: vec![4, -3] }),
        ("task_regression", TaskLabels::Scores(vec![0.5, -1.0])),
    ];
    for (i, (name, labels)) in cases.into_iter().enumerate() {
        let bert = Bert::from_dir(&Path::new("tests/fixtures/models").join(name)).unwrap();
        let (batch, _) = random_batch(&bert.cfg, 2, t, 80 + i as u64);
        let targets = Targets { mlm_labels: None, nsp_labels: None, task: Some(labels) };
        let (cl, cg) = block_on(Backend::cpu().loss_and_grads(&bert, (0, 0), &batch, &targets)).unwrap();
        let (gl, gg) = block_on(gpu.loss_and_grads(&bert, (3, i), &batch, &targets)).unwrap();
        assert!((cl.loss - gl.loss).abs() < 1e-4 * cl.loss.abs().max(1.0), "{name}: loss {} (cpu) vs {} (gpu)", cl.loss, gl.loss);
        assert_eq!(gl.task_loss, Some(gl.loss));
        compare_grads(name, &gg, &cg);
    }
}

#[test]
fn fine_tuning_steps_on_the_gpu_follow_the_cpu() {
    use bertscope::backend::{block_on, Backend};
    use bertscope::config::TaskKind;
    use bertscope::train::finetune::{features, FineTuneOptions, FineTuner};
    let gpu = block_on(Backend::open_gpu()).expect("a GPU adapter is required");
    let base = Bert::from_dir(Path::new("www/models/bert-tiny-base")).unwrap();
    let labels = ["negative".to_string(), "positive".to_string()];
    let bert = base.with_task_head(TaskKind::SequenceClassification, &labels, 5).unwrap();
    let data = std::fs::read_to_string("www/datasets/sentiment/test.jsonl").unwrap();
    let set = features(&bert, TaskKind::SequenceClassification, "test", &data, 32).unwrap();
    let opts = FineTuneOptions { steps: 5, batch: 8, seq: 32, lr: 1e-4, dropout: false, ..Default::default() };
    let mut on_cpu = FineTuner::new(bert.clone(), set.clone(), opts.clone(), &Backend::cpu()).unwrap();
    let mut on_gpu = FineTuner::new(bert, set.clone(), opts, &gpu).unwrap();
    for _ in 0..5 {
        let (a, b) = (block_on(on_cpu.step()).unwrap(), block_on(on_gpu.step()).unwrap());
        assert!((a.loss - b.loss).abs() < 2e-3 * a.loss.abs().max(1.0), "step {}: loss {} (cpu) vs {} (gpu)", a.step, a.loss, b.loss);
        assert_eq!(a.acc, b.acc, "step {}", a.step);
    }
    let (ca, cb) = (block_on(on_cpu.evaluate(&set[..64])).unwrap(), block_on(on_gpu.evaluate(&set[..64])).unwrap());
    assert!((ca.0 - cb.0).abs() < 2e-3 && (ca.1 - cb.1).abs() < 0.02, "held out: {ca:?} (cpu) vs {cb:?} (gpu)");
    // the page's scores (the head's answers read back from the device): the same confusion matrix
    let (sa, sb) = (block_on(on_cpu.score(&set[..64])).unwrap(), block_on(on_gpu.score(&set[..64])).unwrap());
    assert!((sa.loss - sb.loss).abs() < 2e-3, "scored loss {} (cpu) vs {} (gpu)", sa.loss, sb.loss);
    let moved: usize = sa.confusion.iter().flatten().zip(sb.confusion.iter().flatten()).map(|(a, b)| a.abs_diff(*b)).sum();
    assert!(moved <= 2, "confusion {:?} (cpu) vs {:?} (gpu)", sa.confusion, sb.confusion);
    assert_eq!(sb.confusion.iter().flatten().sum::<usize>(), 64);
    block_on(on_gpu.sync()).unwrap();
    compare_grads("fine-tuned weights", &on_gpu.bert.params, &on_cpu.bert.params);
}

#[test]
fn attributions_on_the_gpu_follow_the_cpu() {
    use bertscope::backend::{block_on, Backend};
    use bertscope::infer::attribute::{attribute, Method};
    let mut gpu = block_on(Backend::open_gpu()).expect("a GPU adapter is required");
    let cases = [
        ("www/models/bert-tiny", "the man went to the [MASK] to buy milk.", None, "mask:6:store"),
        ("tests/fixtures/models/task_seqcls", "the cat sat", Some("the dog ran"), "class:positive"),
        ("tests/fixtures/models/task_qa", "who sat", Some("the cat sat on the mat"), "start:4"),
    ];
    for (dir, text, pair, target) in cases {
        let bert = Bert::from_dir(Path::new(dir)).unwrap();
        gpu.forget_weights();
        for (method, steps) in [(Method::Grad, 1), (Method::GradXInput, 1), (Method::Ig, 8)] {
            let c = block_on(attribute(&mut Backend::cpu(), &bert, (0, 0), (text, pair), target, method, steps)).unwrap();
            let g = block_on(attribute(&mut gpu, &bert, (0, 0), (text, pair), target, method, steps)).unwrap();
            let scale = c.scores.iter().fold(1e-6f32, |m, v| m.max(v.abs()));
            let d = c.scores.iter().zip(&g.scores).fold(0f32, |m, (a, b)| m.max((a - b).abs()));
            assert!(d <= 1e-3 * scale, "{dir} {target} {method:?}: GPU {:?} vs CPU {:?}", g.scores, c.scores);
            // f comes from the CPU on both: its forward (GPU), or the loss that computed the logits
            // chunk by chunk (CPU integrated gradients): the same up to f32 summation order
            assert!((c.value - g.value).abs() < 2e-5 * c.value.abs().max(1.0), "f: {} (cpu) vs {} (gpu)", c.value, g.value);
            if let (Some(a), Some(b)) = (c.completeness_gap, g.completeness_gap) {
                assert!((a - b).abs() <= 1e-3 * a.abs().max(1.0), "{dir} gap {a} vs {b}");
            }
        }
    }
}

/// DistilBERT (no segments; sinusoidal table; ReLU pre_classifier) and RoBERTa (positions from
/// pad_token_id + 1, pads skipped) on the GPU against the CPU path: the HF fixtures' padded batches,
/// forward intermediates, loss and every gradient.
#[test]
fn distilbert_and_roberta_run_on_the_gpu_as_on_the_cpu() {
    use bertscope::backend::{block_on, Backend};
    use bertscope::model::task::TaskLabels;
    let mut gpu = block_on(Backend::open_gpu()).expect("a GPU adapter is required");
    for (i, name) in ["distil_mlm", "distil_seqcls", "roberta_mlm", "roberta_seqcls", "roberta_tokcls"].into_iter().enumerate() {
        let f = common::load_fixture(&format!("fam_{name}"));
        let bert = Bert::from_dir(&Path::new("tests/fixtures/models").join(name)).unwrap();
        let batch = f.batch();
        let opts = ForwardOptions { mlm_rows: MlmRows::All, ..Default::default() };
        let c = block_on(Backend::cpu().forward(&bert, (0, 0), &batch, &opts)).unwrap();
        let g = block_on(gpu.forward(&bert, (5, i), &batch, &opts)).unwrap();
        compare_traces(name, &g, &c);
        let d = max_abs(g.emb.position.view().into_dyn(), c.emb.position.view().into_dyn());
        assert!(d == 0.0, "{name}: position rows differ by {d}");
        let labels: Vec<i64> = f.i64s["labels"].iter().copied().collect();
        let targets = match bert.params.heads().task.map(|t| t.kind) {
            None => Targets { mlm_labels: Some(labels), nsp_labels: None, task: None },
            Some(bertscope::config::TaskKind::SequenceClassification) => {
                Targets { mlm_labels: None, nsp_labels: None, task: Some(TaskLabels::Classes(labels)) }
            }
            Some(_) => Targets { mlm_labels: None, nsp_labels: None, task: Some(TaskLabels::Tags(labels)) },
        };
        let (cl, cg) = block_on(Backend::cpu().loss_and_grads(&bert, (0, 0), &batch, &targets)).unwrap();
        let (gl, gg) = block_on(gpu.loss_and_grads(&bert, (6, i), &batch, &targets)).unwrap();
        assert!((cl.loss - gl.loss).abs() < 1e-4 * cl.loss.abs().max(1.0), "{name}: loss {} (cpu) vs {} (gpu)", cl.loss, gl.loss);
        compare_grads(name, &gg, &cg);
    }
}

/// A fixture's encoder-decoder, its teacher-forced batch and labels, and the CPU's forward of it.
fn seq2seq_case(
    name: &str,
) -> (bertscope::seq2seq::Seq2Seq, bertscope::seq2seq::forward::Seq2SeqBatch, Vec<i64>, bertscope::seq2seq::forward::Seq2SeqTrace<f32>) {
    use bertscope::seq2seq::forward::{forward as s2s_forward, Seq2SeqBatch};
    let f = common::load_fixture(name);
    let m = bertscope::seq2seq::Seq2Seq::from_dir(&common::root().join(&f.meta["model"])).unwrap();
    let batch_of = |ids: &str, mask: &str| {
        let a = &f.i64s[ids];
        let (b, t) = (a.shape()[0], a.shape()[1]);
        let input_ids = a.iter().map(|&v| v as usize).collect();
        Batch { b, t, input_ids, token_type_ids: vec![0; b * t], attention_mask: f.i64s[mask].iter().map(|&v| v as u8).collect() }
    };
    let batch = Seq2SeqBatch { src: batch_of("input_ids", "attention_mask"), tgt: batch_of("decoder_input_ids", "decoder_attention_mask") };
    let labels = f.i64s["labels"].iter().copied().collect();
    let tr = s2s_forward(&m.params, &m.cfg, &batch, MlmRows::All).unwrap();
    (m, batch, labels, tr)
}

const SEQ2SEQ_CASES: [&str; 3] = ["dec_teacher", "dec_single", "dec_odd_teacher"];

/// An encoder-decoder's decoder forward on the GPU against the CPU path, on the HF fixtures' batches
/// (a padded batch of two, one first step, and an encoder narrower than its decoder through
/// `enc_to_dec_proj`): causal self-attention (exactly 0 above the diagonal), cross-attention (exactly
/// 0 at the source's padding), every cross block's output, hidden states, logits.
#[test]
fn a_decoder_forward_with_cross_attention_on_the_gpu_follows_the_cpu() {
    let mut padded_keys = 0;
    for name in SEQ2SEQ_CASES {
        let (m, batch, _, cpu) = seq2seq_case(name);
        let g = GpuModel::upload(ctx(), &m.cfg.decoder, &m.params.decoder).unwrap();
        let opts = ForwardOptions { mlm_rows: MlmRows::All, encoder: Some(cpu.states.clone()), ..Default::default() };
        let gt = forward_blocking(ctx(), &g, &batch.tgt, &opts).unwrap();
        compare_traces(name, &gt, &cpu.decoder);
        assert!(gt.mlm.is_some(), "{name}: the decoder's logits");
        let (t, s) = (batch.tgt.t, batch.src.t);
        for (l, (gl, cl)) in gt.layers.iter().zip(&cpu.decoder.layers).enumerate() {
            for ((bi, hi, i, j), &p) in gl.attn.probs.indexed_iter() {
                assert!(j <= i || p == 0.0, "{name}: layer {l} self-attention ({bi}, {hi}, {i}, {j}) above the diagonal is {p}");
            }
            let (gc, cc) = (gl.cross.as_ref().expect("a GPU cross trace"), cl.cross.as_ref().unwrap());
            assert_eq!(gc.attn.probs.dim(), (batch.tgt.b, m.cfg.decoder.num_attention_heads, t, s));
            let d = max_abs(gc.attn.probs.view().into_dyn(), cc.attn.probs.view().into_dyn());
            assert!(d <= 1e-4, "{name}: layer {l} cross-attention probabilities differ by {d}");
            for ((bi, _, _, j), &p) in gc.attn.probs.indexed_iter() {
                if batch.src.attention_mask[bi * s + j] == 0 {
                    assert!(p == 0.0, "{name}: layer {l} cross-attention to source padding ({bi}, {j}) is {p}");
                    padded_keys += 1;
                }
            }
            for (what, a, b) in [("k", &gc.k, &cc.k), ("context", &gc.context, &cc.context), ("ln_out", &gc.ln_out, &cc.ln_out)] {
                let d = max_abs(a.view().into_dyn(), b.view().into_dyn());
                assert!(d <= 1e-3, "{name}: layer {l} cross {what} differs by {d}");
            }
        }
        let enc = gt.encoder.as_ref().expect("the read-back trace carries the encoder states");
        assert!(enc.hidden == cpu.states.hidden && enc.mask == cpu.states.mask, "{name}: encoder states");
        // the decoder without its encoder: a message, not a forward without cross-attention
        let e = forward_blocking(ctx(), &g, &batch.tgt, &ForwardOptions::default()).expect_err("refused").to_string();
        assert!(e.contains("encoder"), "{e}");
    }
    assert!(padded_keys > 0, "a fixture pads a source");
}

/// The decoder's loss and gradients on the GPU against `backward_full` on the CPU, on the same
/// fixtures: every parameter's gradient (the cross blocks' among them) and the encoder states'
/// gradient (B*S, H) that the encoder's backward starts from.
#[test]
fn a_decoder_backward_through_cross_attention_on_the_gpu_follows_the_cpu() {
    use bertscope::model::backward::backward_full;
    for name in SEQ2SEQ_CASES {
        let (m, batch, labels, cpu) = seq2seq_case(name);
        let (cfg, p) = (&m.cfg.decoder, &m.params.decoder);
        let targets = Targets { mlm_labels: Some(labels), nsp_labels: None, task: None };
        let mut opts = targets.forward_options(None);
        opts.encoder = Some(cpu.states.clone());
        let mut tr = forward(p, cfg, &batch.tgt, &opts).unwrap();
        let mut cg = p.zeros_like();
        let out = backward_full(p, cfg, &batch.tgt, &mut tr, &targets, None, &mut cg).unwrap();
        let cd = out.d_encoder.expect("the CPU's encoder gradient");

        let c = ctx();
        let g = GpuModel::upload(c, cfg, p).unwrap();
        let grads = c.buffer("grads", g.layout.total).unwrap();
        let mut rec = c.recorder();
        let gtr = record_forward(&mut rec, &g, &batch.tgt, &opts, false).unwrap();
        let reads = record_backward(&mut rec, &g, &grads, &batch.tgt, &gtr, &targets, None).unwrap();
        let hg = rec.read(View::whole(&grads));
        let hd = rec.read(View::whole(reads.d_encoder.as_ref().expect("a decoder's backward gives the encoder's gradient")));
        let rb = rec.finish_blocking().unwrap();
        let mut gg = p.zeros_like();
        g.layout.unflatten(rb.get(hg), &mut gg);
        let gloss = reads.loss(&rb).loss;
        assert!((gloss - out.loss.loss).abs() <= 1e-4 * out.loss.loss.abs().max(1.0), "{name}: loss {gloss} vs {}", out.loss.loss);
        compare_grads(name, &gg, &cg);
        // (the key bias's true gradient is 0: softmax ignores what it adds to a whole row of scores)
        let moved = |n: &str, t: &ArrayViewD<f32>| n.contains("crossattention") && !n.ends_with("key.bias") && t.iter().any(|&x| x != 0.0);
        let cross_grads = gg.tensors().into_iter().filter(|(n, t)| moved(n, t)).count();
        assert_eq!(cross_grads, 9 * cfg.num_hidden_layers, "{name}: every cross-attention tensor gets a gradient");
        let gd = Array2::from_shape_vec(cd.dim(), rb.get(hd).to_vec()).unwrap();
        let scale = cd.iter().fold(0.0f32, |a, x| a.max(x.abs()));
        let d = max_abs(gd.view().into_dyn(), cd.view().into_dyn());
        assert!(scale > 0.0 && d <= 1e-2 * scale + 1e-6, "{name}: d_encoder differs by {d} (max |cpu| {scale})");
    }
}

/// The whole encoder-decoder's loss and gradients through a GPU `Backend` (the encoder's forward,
/// the decoder's forward and backward, the encoder's backward from the decoder's gradient, and
/// `enc_to_dec_proj` in dec_odd_teacher) against the CPU's `Backend`: the loss and every gradient.
#[test]
fn an_encoder_decoder_loss_and_gradients_on_a_gpu_backend_follow_the_cpu() {
    use bertscope::backend::{block_on, Backend};
    let mut gpu = block_on(Backend::open_gpu()).expect("a GPU adapter is required");
    for (i, name) in SEQ2SEQ_CASES.into_iter().enumerate() {
        let (m, batch, labels, _) = seq2seq_case(name);
        let (cl, cg) = block_on(Backend::cpu().seq2seq_loss_and_grads(&m, (0, 0), &batch, &labels)).unwrap();
        let before = gpu.context().unwrap().counters();
        let (gl, gg) = block_on(gpu.seq2seq_loss_and_grads(&m, (7, i), &batch, &labels)).unwrap();
        let after = gpu.context().unwrap().counters();
        assert_eq!((after.submits - before.submits, after.readbacks - before.readbacks), (3, 3), "{name}: three submits");
        assert!((cl - gl).abs() <= 1e-4 * cl.abs().max(1.0), "{name}: loss {cl} (cpu) vs {gl} (gpu)");
        let (gt, ct) = (gg.tensors(), cg.tensors());
        assert_eq!(gt.len(), ct.len());
        assert_eq!(gt.iter().filter(|(n, _)| n.starts_with("enc_to_dec_proj")).count(), if name == "dec_odd_teacher" { 2 } else { 0 });
        for ((n, a), (_, b)) in gt.into_iter().zip(ct) {
            let scale = b.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            let d = max_abs(a.view(), b.view());
            assert!(d <= 1e-2 * scale + 1e-6, "{name}: gradient of {n} differs by {d} (max |cpu| {scale})");
        }
        let moved = gg.encoder.layers[0].query.weight.iter().any(|&x| x != 0.0);
        assert!(moved, "{name}: the encoder's gradient arrives from the decoder");
    }
}
