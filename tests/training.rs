//! Training end to end on the bundled simple-English corpus: the loss falls, a seed reproduces a
//! run, a non-finite loss stops training with the weights untouched, and a saved model reloads.

use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::config::{BertConfig, Heads};
use bertscope::tokenize::BertTokenizer;
use bertscope::train::options::RunOptions;
use bertscope::train::trainer::{TrainOptions, Trainer};
use std::path::PathBuf;

fn corpus() -> String {
    std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("www/corpora/simple.txt")).unwrap()
}

fn scratch(text: &str, seed: u64) -> Bert {
    let mut cfg = BertConfig::preset("scratch-tiny").unwrap();
    cfg.hidden_size = 32;
    cfg.intermediate_size = 64;
    let tok = BertTokenizer::train_wordpiece(text, 600, cfg.max_position_embeddings).unwrap();
    Bert::from_scratch(cfg, tok, Heads::PRETRAINING, seed).unwrap()
}

fn opts(steps: usize) -> TrainOptions {
    TrainOptions {
        run: RunOptions { steps, batch: 8, seq: 32, lr: 3e-3, seed: 11, warmup: Some(5), ..Default::default() },
        ..Default::default()
    }
}

#[test]
fn loss_falls_and_runs_reproduce() {
    let text = corpus();
    let mut t = Trainer::new(scratch(&text, 1), &text, opts(80)).unwrap();
    let before = block_on(t.evaluate()).unwrap();
    let losses: Vec<f32> = (0..80).map(|_| block_on(t.step()).unwrap().point.mlm_loss.unwrap()).collect();
    let first: f32 = losses[..10].iter().sum::<f32>() / 10.0;
    let last: f32 = losses[70..].iter().sum::<f32>() / 10.0;
    assert!(last < first - 0.5, "mean MLM loss {first} -> {last}");
    let after = block_on(t.evaluate()).unwrap();
    assert!(after.loss < before.loss - 0.5 && after.mlm_acc > before.mlm_acc, "{before:?} -> {after:?}");
    assert!(after.sequences > 10);
    // the page shows the masking of the last batch
    assert_eq!(t.last_batch.len(), 8);
    assert!(t.last_batch.iter().all(|m| m.masked.labels.iter().any(|&l| l >= 0)));

    let mut u = Trainer::new(scratch(&text, 1), &text, opts(80)).unwrap();
    let again: Vec<f32> = (0..5).map(|_| block_on(u.step()).unwrap().point.mlm_loss.unwrap()).collect();
    assert_eq!(again, losses[..5]);
}

#[test]
fn non_finite_loss_stops_and_keeps_the_weights() {
    let text = corpus();
    let mut bert = scratch(&text, 2);
    bert.params.layers[0].out_ln.gamma.fill(f32::MAX);
    let mut t = Trainer::new(bert, &text, opts(10)).unwrap();
    let before = t.bert.params.clone();
    let err = block_on(t.step()).unwrap_err().to_string();
    assert!(err.contains("not finite") && err.contains("weights are those before"), "{err}");
    assert_eq!(t.step, 0);
    for ((n, a), (_, b)) in t.bert.params.tensors().into_iter().zip(before.tensors()) {
        assert!(a.iter().zip(b.iter()).all(|(x, y)| x == y || (x.is_nan() && y.is_nan())), "{n} changed");
    }
}

#[test]
fn a_trained_model_saves_and_reloads() {
    let text = corpus();
    let mut t = Trainer::new(scratch(&text, 3), &text, opts(5)).unwrap();
    for _ in 0..5 {
        block_on(t.step()).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    t.bert.save_dir(dir.path()).unwrap();
    let back = Bert::from_dir(dir.path()).unwrap();
    let a = block_on(bertscope::infer::fill(&mut Backend::cpu(), &t.bert, "the dog [MASK] to the park.", None, 3, None)).unwrap();
    let b = block_on(bertscope::infer::fill(&mut Backend::cpu(), &back, "the dog [MASK] to the park.", None, 3, None)).unwrap();
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
}

#[test]
fn bad_options_are_refused() {
    let text = corpus();
    for (o, want) in [
        (TrainOptions { run: RunOptions { lr: 5.0, ..opts(5).run }, ..opts(5) }, "learning rate"),
        (TrainOptions { run: RunOptions { seq: 4, ..opts(5).run }, ..opts(5) }, "seq"),
        (TrainOptions { run: RunOptions { seq: 4096, ..opts(5).run }, ..opts(5) }, "max_position_embeddings"),
    ] {
        let err = Trainer::new(scratch(&text, 4), &text, o).err().unwrap().to_string();
        assert!(err.contains(want), "{err}");
    }
    let err = Trainer::new(scratch(&text, 4), "one sentence only", opts(5)).err().unwrap().to_string();
    assert!(err.contains("two sentences"), "{err}");
}
