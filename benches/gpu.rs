//! `cargo bench --bench gpu`: the WGSL matmul kernels against ndarray sgemm on the same machine,
//! in one run (the odd shapes of tests/gpu_model.rs), and a bert-tiny training step on the GPU next to the CPU step:
//! milliseconds, dispatches and submits per step. On lavapipe (a CPU Vulkan) this measures the
//! kernels' code, not a GPU. Prints a markdown table.

#[path = "common/mod.rs"]
mod common;
use bertscope::config::{BertConfig, Heads};
use bertscope::gpu::kernels::matmul::{matmul, Kernel, Operand, Shape};
use bertscope::gpu::train::GpuOptimizer;
use bertscope::gpu::{GpuContext, View};
use bertscope::model::adamw::{AdamWConfig, StepOpts};
use bertscope::model::backward::Targets;
use bertscope::model::forward::Batch;
use bertscope::model::BertParams;
use bertscope::rng::Rng;
use common::time;
use ndarray::Array2;

fn main() {
    let reps = std::env::var("BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let ctx = GpuContext::new_blocking().expect("a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers)");
    println!("adapter: {} ({})\n", ctx.info.name, ctx.info.backend);
    let best = if ctx.subgroup8 { Kernel::Subgroup } else { Kernel::Tiled };
    println!("| matmul M x K x N | ndarray sgemm GFLOP/s | WGSL {best:?} (used) GFLOP/s | WGSL tiled GFLOP/s | WGSL naive GFLOP/s | used / sgemm | used / naive |");
    println!("|---|---|---|---|---|---|---|");
    for (m, k, n) in [(1024, 128, 512), (1024, 512, 128), (128, 128, 512)] {
        let a = Array2::<f32>::from_shape_fn((m, k), |(x, y)| ((x * 7 + y * 3) % 11) as f32 * 0.1);
        let b = Array2::<f32>::from_shape_fn((k, n), |(x, y)| ((x * 5 + y) % 13) as f32 * 0.1);
        let flops = 2.0 * (m * k * n) as f64;
        let s_cpu = time(reps * 4, || {
            std::hint::black_box(a.dot(&b));
        });
        let ab = ctx.upload("a", a.as_slice().unwrap()).unwrap();
        let bb = ctx.upload("b", b.as_slice().unwrap()).unwrap();
        let cb = ctx.buffer("c", m * n).unwrap();
        // several products per submit, so submit and readback overhead does not dominate
        let per = 8;
        let gpu = |kernel: Kernel| {
            time(reps, || {
                let mut rec = ctx.recorder();
                for _ in 0..per {
                    let s = Shape::new(m, n, k);
                    matmul(
                        &mut rec,
                        Operand::rows(View::whole(&ab), k),
                        Operand::rows(View::whole(&bb), n),
                        None,
                        Operand::rows(View::whole(&cb), n),
                        s,
                        kernel,
                    )
                    .unwrap();
                }
                rec.read(View { buf: &cb, off: 0, len: 1 });
                rec.finish_blocking().unwrap();
            }) / per as f64
        };
        let (s_best, s_tiled, s_naive) = (gpu(best), gpu(Kernel::Tiled), gpu(Kernel::Naive));
        // sgemm again after the GPU runs, so a change in machine load shows in both
        let s_cpu = s_cpu.min(time(reps * 4, || {
            std::hint::black_box(a.dot(&b));
        }));
        let g = |s: f64| flops / s / 1e9;
        println!(
            "| {m} x {k} x {n} | {:.1} | {:.2} | {:.2} | {:.3} | {:.1}% | {:.0}x |",
            g(s_cpu),
            g(s_best),
            g(s_tiled),
            g(s_naive),
            100.0 * s_cpu / s_best,
            s_naive / s_best
        );
    }

    // A training step of bert-tiny (MLM, dropout on) at batch x seq, GPU vs CPU.
    let (bsz, t) = (8, 64);
    let cfg = BertConfig::preset("bert-tiny").unwrap();
    let p = BertParams::<f32>::init(&cfg, Heads::MASKED_LM, 1);
    let n = bsz * t;
    let mut rng = Rng::new(2);
    let ids: Vec<usize> = (0..n).map(|_| 1000 + rng.below(20000)).collect();
    let batch = Batch { b: bsz, t, input_ids: ids.clone(), token_type_ids: vec![0; n], attention_mask: vec![1; n] };
    let labels: Vec<i64> = ids.iter().map(|&id| if rng.uniform() < 0.15 { id as i64 } else { -100 }).collect();
    let targets = Targets { mlm_labels: Some(labels), nsp_labels: None, task: None };
    let adam = AdamWConfig::default();
    // (seconds per step, dispatches per step, readbacks per step) on one context
    let gpu_step = |ctx: &GpuContext| {
        let mut opt = GpuOptimizer::new(ctx, &cfg, &p).unwrap();
        let mut k = 0u64;
        let before = ctx.counters();
        let s = time(reps, || {
            k += 1;
            pollster::block_on(opt.train_step(ctx, &batch, &targets, &adam, StepOpts { lr: 1e-4, max_norm: 1.0, dropout_seed: Some(k) }))
                .unwrap();
        });
        let after = ctx.counters();
        let steps = (after.submits - before.submits) as f64;
        (s, (after.dispatches - before.dispatches) as f64 / steps, (after.readbacks - before.readbacks) as f64 / steps)
    };
    let used = gpu_step(&ctx);
    // the same step with the tiled matmul (a second device that does not enable subgroups)
    let tiled = ctx.subgroup8.then(|| {
        std::env::set_var("BS_SUBGROUP_MATMUL", "0");
        let c2 = GpuContext::new_blocking().unwrap();
        std::env::remove_var("BS_SUBGROUP_MATMUL");
        gpu_step(&c2)
    });
    let mut cpu_p = p.clone();
    let mut cpu_opt = bertscope::model::adamw::AdamW::new(&cpu_p, adam.clone());
    let s_cpu = time(reps, || {
        let (_, mut g, _) = bertscope::model::backward::loss_and_grads(&cpu_p, &cfg, &batch, &targets, Some(3)).unwrap();
        bertscope::model::adamw::clip_grad_norm(&mut g, 1.0);
        cpu_opt.update(&mut cpu_p, &g, 1e-4);
    });
    println!("\n| bert-tiny training step, {bsz} x {t} | ms / step | tokens / s | dispatches / step | submits / step | readbacks / step |");
    println!("|---|---|---|---|---|---|");
    let row = |what: String, (s, d, r): (f64, f64, f64)| {
        println!("| {what} | {:.1} | {:.0} | {d:.0} | 1 | {r:.0} |", s * 1e3, n as f64 / s);
    };
    row(format!("WGSL on {}, {best:?} matmul", ctx.info.name), used);
    if let Some(t) = tiled {
        row(format!("WGSL on {}, Tiled matmul", ctx.info.name), t);
    }
    println!("| CPU (ndarray, 1 thread) | {:.1} | {:.0} | - | - | - |", s_cpu * 1e3, n as f64 / s_cpu);
    if let Ok(l) = std::fs::read_to_string("/proc/loadavg") {
        println!("\nload average during the run: {}", l.trim());
    }
}
