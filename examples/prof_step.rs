// Large activations are allocated every forward; mimalloc reuses them instead of faulting in
// fresh pages from the OS each time (about a fifth of a bert-tiny forward with glibc malloc).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use bertscope::config::{BertConfig, Heads};
use bertscope::model::adamw::{AdamW, AdamWConfig};
use bertscope::model::backward::{loss_and_grads, Targets};
use bertscope::model::forward::Batch;
use bertscope::model::BertParams;
use bertscope::rng::Rng;
use std::time::Instant;
fn main() {
    let cfg = BertConfig::preset("bert-tiny").unwrap();
    let (b, t) = (8, 128);
    let n = b * t;
    let mut p = BertParams::<f32>::init(&cfg, Heads::MASKED_LM, 1);
    let mut rng = Rng::new(2);
    let ids: Vec<usize> = (0..n).map(|_| 1000 + rng.below(20000)).collect();
    let batch = Batch { b, t, input_ids: ids.clone(), token_type_ids: vec![0; n], attention_mask: vec![1; n] };
    let labels: Vec<i64> = ids.iter().map(|&id| if rng.uniform() < 0.15 { id as i64 } else { -100 }).collect();
    let targets = Targets { mlm_labels: Some(labels), nsp_labels: None, task: None };
    let mut opt = AdamW::new(&p, AdamWConfig::default());
    if std::env::var("MODE").as_deref() == Ok("fwd") {
        let o = bertscope::model::ForwardOptions { mlm_rows: bertscope::model::MlmRows::None, ..Default::default() };
        for _ in 0..60 {
            let s = Instant::now();
            std::hint::black_box(bertscope::model::forward(&p, &cfg, &batch, &o).unwrap());
            eprintln!("fwd {:?}", s.elapsed());
        }
        return;
    }
    for _ in 0..20 {
        let s = Instant::now();
        let (_, g, _) = loss_and_grads(&p, &cfg, &batch, &targets, None).unwrap();
        let s1 = s.elapsed();
        opt.update(&mut p, &g, 1e-4);
        eprintln!("fwd+bwd {:?} total {:?}", s1, s.elapsed());
    }
}
