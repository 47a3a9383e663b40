//! `cargo bench --bench train`: native CPU training throughput on bert-tiny, batch 32 x seq 64,
//! 15% of positions labelled, AdamW + clipping, dropout 0.1, one thread. With BENCH_MODEL=minilm:
//! the shipped MiniLM's recipe (6 layers x 12 heads, hidden 384, FFN 1536; 20% labelled, word
//! embeddings frozen, dropout off). Prints one JSON line (the side-by-side table with PyTorch is
//! `bash scripts/bench_train.sh`).

// As in the CLI: reuse freed activations instead of faulting in fresh pages every step.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use bertscope::config::{BertConfig, Heads};
use bertscope::model::backward::Targets;
use bertscope::model::forward::Batch;
use bertscope::model::BertParams;
use bertscope::rng::Rng;
use bertscope::train::options::RunOptions;
use bertscope::train::trainer::{TrainOptions, Trainer};
use std::time::Instant;

fn main() {
    let steps: usize = std::env::var("BENCH_STEPS").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    let (b, t) = (32, 64);
    let minilm = std::env::var("BENCH_MODEL").is_ok_and(|m| m == "minilm");
    let cfg = if minilm { BertConfig::new(30522, 384, 6, 12, 1536, 512) } else { BertConfig::preset("bert-tiny").unwrap() };
    let label_prob = if minilm { 0.2 } else { 0.15 };
    let vocab: String = (0..cfg.vocab_size)
        .map(|i| match i {
            0 => "[PAD]\n".to_string(),
            100 => "[UNK]\n".into(),
            101 => "[CLS]\n".into(),
            102 => "[SEP]\n".into(),
            103 => "[MASK]\n".into(),
            _ => format!("w{i}\n"),
        })
        .collect();
    let tok = bertscope::tokenize::BertTokenizer::from_vocab_txt(&vocab, true, 512).unwrap();
    let mut bert = bertscope::bundle::Bert::from_scratch(cfg.clone(), tok, Heads::MASKED_LM, 0).unwrap();
    bert.params = BertParams::init(&cfg, Heads::MASKED_LM, 0);
    let opts = TrainOptions {
        run: RunOptions { steps: 1000, batch: b, seq: t, lr: 1e-4, dropout: !minilm, ..Default::default() },
        freeze_word_embeddings: minilm,
        ..Default::default()
    };
    let mut tr = Trainer::bare(bert, opts).unwrap();
    let mut rng = Rng::new(1);
    let ids: Vec<usize> = (0..b * t).map(|_| 1000 + rng.below(20000)).collect();
    let labels: Vec<i64> = ids.iter().map(|&i| if rng.uniform() < label_prob { i as i64 } else { -100 }).collect();
    let batch = Batch { b, t, input_ids: ids, token_type_ids: vec![0; b * t], attention_mask: vec![1; b * t] };
    let targets = Targets { mlm_labels: Some(labels), nsp_labels: None, task: None };
    for _ in 0..3 {
        bertscope::backend::block_on(tr.step_on(&batch, &targets)).unwrap();
    }
    let mut times: Vec<f64> = (0..steps)
        .map(|_| {
            let s = Instant::now();
            bertscope::backend::block_on(tr.step_on(&batch, &targets)).unwrap();
            s.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let med = times[steps / 2];
    println!(
        "{}",
        serde_json::json!({"framework": "bertscope (native CPU)", "model": if minilm { "minilm" } else { "bert-tiny" }, "threads": 1, "ms_per_step": med * 1e3, "tokens_per_s": (b * t) as f64 / med})
    );
}
