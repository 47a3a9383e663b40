//! `cargo bench --bench engine`: CPU engine speed on bert-tiny (batch 8 x seq 128), next to
//! ndarray's own sgemm measured in the same run. Prints a markdown table.

// Large activations are allocated every forward; mimalloc reuses them instead of faulting in
// fresh pages from the OS each time (about a fifth of a bert-tiny forward with glibc malloc).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "common/mod.rs"]
mod common;
use bertscope::config::{BertConfig, Heads};
use bertscope::model::adamw::{AdamW, AdamWConfig};
use bertscope::model::backward::{loss_and_grads, Targets};
use bertscope::model::forward::{forward, Batch, ForwardOptions, MlmRows};
use bertscope::model::BertParams;
use bertscope::rng::Rng;
use common::time;
use ndarray::Array2;

/// Median seconds of `reps` runs after one warm-up.

fn main() {
    let reps = std::env::var("BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(7);
    let cfg = BertConfig::preset("bert-tiny").unwrap();
    let (b, t, h, i, v) = (8, 128, cfg.hidden_size, cfg.intermediate_size, cfg.vocab_size);
    let n = b * t;
    let p = BertParams::<f32>::init(&cfg, Heads::MASKED_LM, 1);
    let mut rng = Rng::new(2);
    let ids: Vec<usize> = (0..n).map(|_| 1000 + rng.below(20000)).collect();
    let batch = Batch { b, t, input_ids: ids.clone(), token_type_ids: vec![0; n], attention_mask: vec![1; n] };
    let labels: Vec<i64> = ids.iter().map(|&id| if rng.uniform() < 0.15 { id as i64 } else { -100 }).collect();
    let targets = Targets { mlm_labels: Some(labels), nsp_labels: None, task: None };
    let m = targets.labelled_rows().len();

    // ndarray sgemm on the shapes the model multiplies: (N,H)x(H,H), (N,H)x(H,I), (N,I)x(I,H).
    let mut rows = Vec::new();
    let mut sgemm_flops = 0.0;
    let mut sgemm_secs = 0.0;
    for (mm, kk, nn) in [(n, h, h), (n, h, i), (n, i, h)] {
        let a = Array2::<f32>::from_shape_fn((mm, kk), |(x, y)| ((x * 7 + y * 3) % 11) as f32 * 0.1);
        let w = Array2::<f32>::from_shape_fn((kk, nn), |(x, y)| ((x * 5 + y) % 13) as f32 * 0.1);
        let s = time(reps * 3, || {
            std::hint::black_box(a.dot(&w));
        });
        let f = 2.0 * (mm * kk * nn) as f64;
        sgemm_flops += f;
        sgemm_secs += s;
        rows.push((format!("ndarray sgemm {mm}x{kk}x{nn}"), s, f / s / 1e9, String::new()));
    }
    let sgemm_gflops = sgemm_flops / sgemm_secs / 1e9;
    rows.push(("ndarray sgemm, the three shapes together".into(), sgemm_secs, sgemm_gflops, "1.00x of sgemm".into()));

    // FLOPs of one encoder forward: QKV + O, FFN, and the two attention products.
    let enc_flops = cfg.num_hidden_layers as f64
        * (4.0 * 2.0 * (n * h * h) as f64 + 2.0 * 2.0 * (n * h * i) as f64 + 2.0 * 2.0 * (b * t * t * h) as f64);
    let head_flops = |rows: usize| 2.0 * (rows * h * h) as f64 + 2.0 * (rows * h * v) as f64;

    let enc_opts = ForwardOptions { mlm_rows: MlmRows::None, ..Default::default() };
    let s_enc = time(reps, || {
        std::hint::black_box(forward(&p, &cfg, &batch, &enc_opts).unwrap());
    });
    let g = enc_flops / s_enc / 1e9;
    rows.push(("forward, encoder only".into(), s_enc, g, format!("{:.2}x of sgemm", g / sgemm_gflops)));

    let all_opts = ForwardOptions { mlm_rows: MlmRows::All, ..Default::default() };
    let s_all = time(reps, || {
        std::hint::black_box(forward(&p, &cfg, &batch, &all_opts).unwrap());
    });
    let g = (enc_flops + head_flops(n)) / s_all / 1e9;
    rows.push(("forward + MLM logits at all 1024 rows".into(), s_all, g, format!("{:.2}x of sgemm", g / sgemm_gflops)));

    let lab_opts = ForwardOptions { mlm_rows: MlmRows::Rows(targets.labelled_rows()), ..Default::default() };
    let s_fwd = time(reps, || {
        std::hint::black_box(forward(&p, &cfg, &batch, &lab_opts).unwrap());
    });
    rows.push((
        format!("forward + MLM logits at the {m} labelled rows"),
        s_fwd,
        (enc_flops + head_flops(m)) / s_fwd / 1e9,
        "1.00x (train fwd)".into(),
    ));

    let mut q = p.clone();
    let mut opt = AdamW::new(&q, AdamWConfig::default());
    let s_step = time(reps, || {
        let (_, grads, _) = loss_and_grads(&q, &cfg, &batch, &targets, None).unwrap();
        opt.update(&mut q, &grads, 1e-4);
    });
    rows.push((
        "training step (fwd + bwd + AdamW)".into(),
        s_step,
        3.0 * (enc_flops + head_flops(m)) / s_step / 1e9,
        format!("{:.2}x of train fwd", s_step / s_fwd),
    ));

    let page = page_keystroke(reps * 5);

    println!("bert-tiny (L=2, H=128, NH=2, I=512, V=30522), batch {b} x seq {t}, 1 thread, median of {reps}");
    println!();
    println!("| what | ms | GFLOP/s | ratio |");
    println!("|---|---:|---:|---|");
    for (what, s, g, r) in rows {
        println!("| {what} | {:.2} | {:.1} | {r} |", s * 1e3, g);
    }
    if let Some(page) = page {
        println!();
        println!("The page's keystroke on the shipped model (www/models/bert-tiny), the measure test's sentence:");
        println!();
        println!("| step | ms |");
        println!("|---|---:|");
        for (what, s) in page {
            println!("| {what} | {:.3} |", s * 1e3);
        }
    }
}

/// What the worker does for one keystroke of the e2e measure test (21 tokens, one [MASK]):
/// tokenise, forward, snapshot; None without the shipped model.
fn page_keystroke(reps: usize) -> Option<Vec<(String, f64)>> {
    use bertscope::bundle::Bert;
    use bertscope::explain::snapshot::{finish, prepare};
    use bertscope::explain::Request;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("www/models/bert-tiny");
    let files = bertscope::bundle::ModelFiles::read_dir(&dir).ok()?;
    let bert = Bert::from_files(&files).ok()?;
    let tok_json = files.tokenizer_json.clone()?;
    let s_tok = time(reps / 5, || {
        std::hint::black_box(bertscope::tokenize::BertTokenizer::from_tokenizer_json(&tok_json, 512).unwrap());
    });
    let s_load = time(reps / 5, || {
        std::hint::black_box(Bert::from_files(&files).unwrap());
    });
    let s_pos = time(reps / 5, || {
        std::hint::black_box(bertscope::explain::embeddings::position_view(&bert));
    });
    let text = "the quick brown fox jumps over the lazy dog while the [MASK] sleeps under the old oak tree.";
    let req = Request { text: text.into(), top_k: 5, ..Default::default() };
    let prep = prepare(&bert, &req).ok()?;
    let t = prep.batch.t;
    let s_prep = time(reps, || {
        std::hint::black_box(prepare(&bert, &req).unwrap());
    });
    let s_fwd = time(reps, || {
        std::hint::black_box(forward(&bert.params, &bert.cfg, &prep.batch, &prep.opts).unwrap());
    });
    let enc_opts = ForwardOptions { mlm_rows: MlmRows::None, ..prep.opts.clone() };
    let s_enc = time(reps, || {
        std::hint::black_box(forward(&bert.params, &bert.cfg, &prep.batch, &enc_opts).unwrap());
    });
    let trace = forward(&bert.params, &bert.cfg, &prep.batch, &prep.opts).unwrap();
    let s_fin = time(reps, || {
        let p = prepare(&bert, &req).unwrap();
        std::hint::black_box(finish(&bert, &req, p, &trace));
    }) - s_prep;
    Some(vec![
        ("load: model from its files (tokenizer + weights)".into(), s_load),
        ("load: of which tokenizer.json".into(), s_tok),
        ("load: position views (sent once per model)".into(), s_pos),
        (format!("tokenise + prepare ({t} tokens)"), s_prep),
        ("forward, encoder only".into(), s_enc),
        ("forward + MLM logits at the [MASK]".into(), s_fwd),
        ("snapshot from the trace (finish)".into(), s_fin),
    ])
}
