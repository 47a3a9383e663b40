//! The engine against HF transformers (PyTorch): fixtures made by `scripts/make_fixtures.py`.
//! Tolerances: hidden states, logits, pooled 1e-4 absolute; attention 1e-5 absolute; loss 1e-5
//! relative; gradients max|ours - ref| <= 1e-3 * max|ref| + 1e-6 per tensor.

use bertscope::bundle::Bert;
use bertscope::checkpoint::canonical_name;
use bertscope::model::backward::{loss_and_grads, Targets};
use bertscope::model::forward::{forward, Batch, ForwardOptions, MlmRows};
use ndarray::{s, ArrayD, ArrayViewD, Axis, IxDyn};
use std::collections::HashMap;
use std::path::Path;

mod common;
use common::{load_fixture, root};

struct Case {
    name: String,
    model: String,
    f32s: HashMap<String, ArrayD<f32>>,
    i64s: HashMap<String, ArrayD<i64>>,
}

fn load_case(name: &str) -> Case {
    let f = load_fixture(name);
    Case { name: name.into(), model: f.meta["model"].clone(), f32s: f.f32s, i64s: f.i64s }
}

fn max_abs_diff(a: ArrayViewD<f32>, b: ArrayViewD<f32>) -> f32 {
    assert_eq!(a.shape(), b.shape());
    a.iter().zip(b.iter()).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

fn assert_close(what: &str, ours: ArrayViewD<f32>, theirs: ArrayViewD<f32>, tol: f32) {
    let d = max_abs_diff(ours, theirs);
    assert!(d <= tol, "{what}: max |diff| {d:e} > {tol:e}");
}

fn run_case(name: &str) -> usize {
    let c = load_case(name);
    let bert = Bert::from_dir(&root().join(&c.model)).unwrap();
    let cfg = &bert.cfg;
    let ids = &c.i64s["input_ids"];
    let (b, t) = (ids.shape()[0], ids.shape()[1]);
    let flat = |k: &str| c.i64s[k].iter().map(|&v| v as usize).collect::<Vec<_>>();
    let batch = Batch {
        b,
        t,
        input_ids: flat("input_ids"),
        token_type_ids: flat("token_type_ids"),
        attention_mask: c.i64s["attention_mask"].iter().map(|&v| v as u8).collect(),
    };
    let mut checks = 0;
    let tr = forward(&bert.params, cfg, &batch, &ForwardOptions { mlm_rows: MlmRows::All, ..Default::default() }).unwrap();
    let h = cfg.hidden_size;
    for (i, hs) in tr.hidden.iter().enumerate() {
        let ours = hs.view().into_shape_with_order((b, t, h)).unwrap().into_dyn();
        assert_close(&format!("{name} hidden_states.{i}"), ours, c.f32s[&format!("hidden_states.{i}")].view(), 1e-4);
        checks += 1;
    }
    for (i, l) in tr.layers.iter().enumerate() {
        // HF's eager attention gives padded query rows the same masked softmax; compare all rows.
        assert_close(&format!("{name} attentions.{i}"), l.attn.probs.view().into_dyn(), c.f32s[&format!("attentions.{i}")].view(), 1e-5);
        checks += 1;
    }
    if let Some(want) = c.f32s.get("logits") {
        let v = cfg.vocab_size;
        let ours = tr.mlm.as_ref().unwrap().logits.view().into_shape_with_order((b, t, v)).unwrap().into_dyn();
        assert_close(&format!("{name} logits"), ours, want.view(), 1e-4);
        checks += 1;
    }
    if let Some(want) = c.f32s.get("pooled") {
        assert_close(&format!("{name} pooled"), tr.pool.as_ref().unwrap().pooled.view().into_dyn(), want.view(), 1e-4);
        checks += 1;
    }
    if let Some(want) = c.f32s.get("nsp_logits") {
        let ours = tr.pool.as_ref().unwrap().nsp_logits.as_ref().unwrap().view().into_dyn();
        assert_close(&format!("{name} nsp_logits"), ours, want.view(), 1e-4);
        checks += 1;
    }
    if let Some(labels) = c.i64s.get("labels") {
        let targets = Targets {
            mlm_labels: Some(labels.iter().copied().collect()),
            nsp_labels: c.i64s.get("next_sentence_label").map(|l| l.iter().copied().collect()),
            task: None,
        };
        let (loss, grads, _) = loss_and_grads(&bert.params, cfg, &batch, &targets, None).unwrap();
        let want = c.f32s["loss"][[0]];
        assert!((loss.loss - want).abs() <= 1e-5 * want.abs().max(1.0), "{name} loss {} vs {want}", loss.loss);
        let ours: HashMap<String, ArrayViewD<f32>> = grads.tensors().into_iter().collect();
        let mut compared = 0;
        for (key, want) in &c.f32s {
            let Some(pname) = key.strip_prefix("grad.") else { continue };
            if pname.ends_with(".rows") {
                continue;
            }
            let canon = canonical_name(pname).unwrap_or_else(|| panic!("{name}: unknown parameter {pname}"));
            let g = &ours[&canon];
            let g = match c.i64s.get(&format!("{key}.rows")) {
                Some(rows) => {
                    let r: Vec<usize> = rows.iter().map(|&v| v as usize).collect();
                    g.select(Axis(0), &r)
                }
                None => g.to_owned(),
            };
            let scale = want.iter().fold(0f32, |m, v| m.max(v.abs()));
            let d = max_abs_diff(g.view(), want.view());
            // The floor is for attention key biases, whose true gradient is exactly 0 (softmax
            // ignores a per-row constant), so both sides hold only rounding noise (~1e-8).
            assert!(d <= 1e-3 * scale + 1e-6, "{name} grad {pname}: max |diff| {d:e} vs max |ref| {scale:e}");
            compared += 1;
        }
        assert_eq!(compared, ours.len(), "{name}: every parameter's gradient is compared");
        checks += compared + 1;
    }
    let _ = (s![..], IxDyn(&[0]), Path::new(&c.name));
    checks
}

#[test]
fn tiny_single_sentence_matches_pytorch() {
    assert!(run_case("tiny_single") >= 6);
}

#[test]
fn tiny_pair_matches_pytorch() {
    run_case("tiny_pair");
}

#[test]
fn tiny_gradients_match_pytorch() {
    run_case("tiny_grad");
}

#[test]
fn relu_padded_batch_matches_pytorch() {
    run_case("relu_batch");
}

#[test]
fn odd_sizes_untied_decoder_match_pytorch() {
    run_case("odd72_grad");
    run_case("odd72_t1");
}

#[test]
fn pretraining_heads_with_nsp_match_pytorch() {
    run_case("pair_nsp_grad");
}

#[test]
fn base_model_without_heads_matches_pytorch() {
    run_case("base_model");
}
