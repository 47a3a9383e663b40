//! The `bertscope` binary end to end: output formats scripts rely on, agreement with the PyTorch
//! fixtures through the CLI, and clear errors (exit 1, no panic) on bad input.
//!
//! Over 400 lines: every file under tests/ is a binary that links the whole crate, so related
//! checks share one file rather than add another link to each test run.

use bertscope::tensorfile::{parse, read_f32};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn default_model() -> String {
    root().join("www/models/bert-tiny-base").display().to_string()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bertscope")).args(args).output().expect("run bertscope")
}

fn ok_json(args: &[&str]) -> serde_json::Value {
    let o = run(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

/// A failure with a message that contains `want`, and no panic.
fn fails_with(args: &[&str], want: &str) {
    let o = run(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{args:?} should fail: {err}");
    assert!(err.contains(want), "{args:?}: expected `{want}` in: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
}

#[test]
fn tokenize_prints_the_fixed_json() {
    let j = ok_json(&["tokenize", "--model", &default_model(), "--text", "Hello there", "--pair", "General Kenobi"]);
    assert_eq!(j["tokens"][0], "[CLS]");
    let n = j["tokens"].as_array().unwrap().len();
    for k in ["input_ids", "token_type_ids", "attention_mask"] {
        assert_eq!(j[k].as_array().unwrap().len(), n, "{k}");
    }
    assert_eq!(j["token_type_ids"][n - 1], 1);
}

#[test]
fn fill_predicts_at_each_mask() {
    let m = default_model();
    let j = ok_json(&["fill", "--model", &m, "--text", "the cat sat on the [MASK] and the [MASK].", "--top-k", "4"]);
    let masks = j["masks"].as_array().unwrap();
    assert_eq!(masks.len(), 2);
    for mk in masks {
        let preds = mk["predictions"].as_array().unwrap();
        assert_eq!(preds.len(), 4);
        let probs: Vec<f64> = preds.iter().map(|p| p["prob"].as_f64().unwrap()).collect();
        assert!(probs.windows(2).all(|w| w[0] >= w[1]) && probs.iter().sum::<f64>() <= 1.0 + 1e-6);
        assert!(preds[0]["token"].is_string() && preds[0]["id"].is_u64());
        assert_eq!(j["tokens"][mk["position"].as_u64().unwrap() as usize], "[MASK]");
    }
}

#[test]
fn inspect_writes_what_pytorch_computes_on_both_devices() {
    // GPU tolerances (docs/testing.md): attention 1e-4, logits 1e-3; the CPU path's are tighter.
    for (device, tols) in [("cpu", [1e-4f32, 1e-5, 1e-4]), ("gpu", [1e-3, 1e-4, 1e-3])] {
        inspect_matches_pytorch(device, tols);
    }
}

fn inspect_matches_pytorch(device: &str, tols: [f32; 3]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.safetensors");
    let o = run(&[
        "inspect",
        "--model",
        &default_model(),
        "--text",
        "The capital of France is [MASK].",
        "--device",
        device,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ours = std::fs::read(&out).unwrap();
    let ours = parse(&ours).unwrap();
    let refb = std::fs::read(root().join("tests/fixtures/ref/tiny_single.safetensors")).unwrap();
    let reference = parse(&refb).unwrap();
    let mut names: Vec<String> = ours.names().into_iter().map(String::from).collect();
    names.sort();
    assert_eq!(
        names,
        ["attentions.0", "attentions.1", "hidden_states.0", "hidden_states.1", "hidden_states.2", "input_ids", "logits", "token_type_ids"]
    );
    for (name, tol) in [("hidden_states.2", tols[0]), ("attentions.1", tols[1]), ("logits", tols[2])] {
        let a = read_f32(name, &ours.tensor(name).unwrap()).unwrap();
        let b = read_f32(name, &reference.tensor(name).unwrap()).unwrap();
        let b = b.index_axis(ndarray::Axis(0), 0); // the fixture has a batch axis
        assert_eq!(a.shape(), b.shape(), "{name}");
        let d = a.iter().zip(b.iter()).fold(0f32, |m, (x, y)| m.max((x - y).abs()));
        assert!(d <= tol, "{device} {name}: {d:e}");
    }
}

#[test]
fn grad_writes_gradients_under_the_files_own_names() {
    // The batch of the PyTorch fixture `tiny_grad`, through the CLI.
    let refb = std::fs::read(root().join("tests/fixtures/ref/tiny_grad.safetensors")).unwrap();
    let reference = parse(&refb).unwrap();
    let rows = |k: &str| -> Vec<Vec<i64>> {
        let a = bertscope::tensorfile::read_i64(k, &reference.tensor(k).unwrap()).unwrap();
        a.outer_iter().map(|r| r.iter().copied().collect()).collect()
    };
    let batch = serde_json::json!({
        "input_ids": rows("input_ids"), "token_type_ids": rows("token_type_ids"),
        "attention_mask": rows("attention_mask"), "labels": rows("labels"),
    });
    let dir = tempfile::tempdir().unwrap();
    let bj = dir.path().join("b.json");
    std::fs::write(&bj, batch.to_string()).unwrap();
    for device in ["cpu", "gpu"] {
        grad_matches_pytorch(&reference, &bj, device);
    }
}

fn grad_matches_pytorch(reference: &safetensors::SafeTensors<'_>, bj: &Path, device: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.safetensors");
    let o =
        run(&["grad", "--model", &default_model(), "--batch", bj.to_str().unwrap(), "--device", device, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let gb = std::fs::read(&out).unwrap();
    let g = parse(&gb).unwrap();
    let loss = read_f32("loss", &g.tensor("loss").unwrap()).unwrap()[[0]];
    let want = read_f32("loss", &reference.tensor("loss").unwrap()).unwrap()[[0]];
    assert!((loss - want).abs() < 1e-5 * want, "{device}: loss {loss} vs {want}");
    // the default model stores LayerNorm as gamma/beta, and so does the gradient file
    let ours = read_f32("g", &g.tensor("bert.encoder.layer.1.output.LayerNorm.gamma").unwrap()).unwrap();
    let theirs = read_f32("r", &reference.tensor("grad.bert.encoder.layer.1.output.LayerNorm.weight").unwrap()).unwrap();
    let scale = theirs.iter().fold(0f32, |m, v| m.max(v.abs()));
    let d = ours.iter().zip(theirs.iter()).fold(0f32, |m, (x, y)| m.max((x - y).abs()));
    let tol = if device == "gpu" { 1e-2 } else { 1e-3 };
    assert!(d <= tol * scale, "{device}: {d:e} vs {scale:e}");
    assert!(g.tensor("bert.encoder.layer.1.output.LayerNorm.weight").is_err());
}

#[test]
fn params_counts_bert_base() {
    let j = ok_json(&["params", "--preset", "bert-base"]);
    assert_eq!(j["counts"]["total"], 109_482_240);
    let j = ok_json(&["params", "--model", &default_model()]);
    assert_eq!(j["heads"]["mlm"], true);
    assert_eq!(j["counts"]["total"], 4_416_698);
}

fn model_copy(dir: &Path) -> PathBuf {
    let m = dir.join("m");
    std::fs::create_dir_all(&m).unwrap();
    for f in ["config.json", "model.safetensors", "tokenizer.json"] {
        std::fs::copy(root().join("www/models/bert-tiny-base").join(f), m.join(f)).unwrap();
    }
    m
}

#[test]
fn bad_models_and_inputs_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let m = model_copy(dir.path());
    let ms = m.to_str().unwrap();
    fails_with(&["fill", "--model", "/nonexistent/model", "--text", "x"], "is not a model folder");
    fails_with(&["params", "--preset", "bert-huge"], "unknown preset");

    // truncated weights
    let w = std::fs::read(m.join("model.safetensors")).unwrap();
    std::fs::write(m.join("model.safetensors"), &w[..w.len() / 3]).unwrap();
    fails_with(&["fill", "--model", ms, "--text", "[MASK]"], "not a valid safetensors file");

    // a config that does not match the weights
    std::fs::write(m.join("model.safetensors"), &w).unwrap();
    let cfg = std::fs::read_to_string(m.join("config.json")).unwrap();
    std::fs::write(m.join("config.json"), cfg.replace("\"intermediate_size\": 512", "\"intermediate_size\": 500")).unwrap();
    fails_with(&["fill", "--model", ms, "--text", "[MASK]"], "bert.encoder.layer.0.intermediate.dense.weight");
    std::fs::write(m.join("config.json"), "{ not json").unwrap();
    fails_with(&["fill", "--model", ms, "--text", "[MASK]"], "config.json");
    std::fs::write(m.join("config.json"), &cfg).unwrap();

    // NaN in a weight
    let st = parse(&w).unwrap();
    let name = "bert.encoder.layer.0.attention.self.query.bias";
    let view = st.tensor(name).unwrap();
    let off = view.data().as_ptr() as usize - w.as_ptr() as usize;
    let mut bad = w.clone();
    bad[off..off + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    std::fs::write(m.join("model.safetensors"), &bad).unwrap();
    fails_with(&["fill", "--model", ms, "--text", "[MASK]"], name);
    std::fs::write(m.join("model.safetensors"), &w).unwrap();

    // batches that do not fit
    let bj = dir.path().join("b.json");
    for (batch, want) in [
        (r#"{"input_ids": [[101, 102]], "labels": [[-100]]}"#, "labels must be 1 rows of 2"),
        (r#"{"input_ids": [[101, 99999999]], "labels": [[-100, -100]]}"#, "outside the vocabulary"),
        (r#"{"input_ids": [[101, -3]], "labels": [[-100, -100]]}"#, "negative"),
        (r#"{"input_ids": [], "labels": []}"#, "empty batch"),
        (r#"{"input_ids": [[101, 102]], "labels": [[5, 40000]]}"#, "label 40000"),
        ("[1, 2", "batch JSON"),
    ] {
        std::fs::write(&bj, batch).unwrap();
        fails_with(&["grad", "--model", ms, "--batch", bj.to_str().unwrap(), "--out", "/tmp/unused.safetensors"], want);
    }
}

#[test]
fn hostile_text_never_crashes() {
    let m = default_model();
    let long = "word ".repeat(5000);
    for text in ["", "[MASK]", "[MASK] [MASK] [MASK]", "\u{1}\u{2}\u{7f}\u{200b}", "مرحبا بالعالم [MASK]", "🙂🙃 [MASK] 👍🏽", long.as_str()]
    {
        let o = run(&["fill", "--model", &m, "--text", text]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{:?}: {err}", text.chars().take(20).collect::<String>());
        let _: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    }
    let o = run(&["tokenize", "--model", &m, "--text", &long]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("truncated to 512"));
}

#[test]
fn train_on_the_gpu_logs_json_lines_and_saves_a_loadable_model() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let corpus = root().join("www/corpora/simple.txt");
    let o = run(&[
        "train",
        "--corpus",
        corpus.to_str().unwrap(),
        "--config",
        "scratch-tiny",
        "--vocab-size",
        "300",
        "--steps",
        "4",
        "--batch",
        "4",
        "--seq",
        "16",
        "--lr",
        "1e-3",
        "--log-every",
        "1",
        "--device",
        "gpu",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("training on the GPU"), "{err}");
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    assert_eq!(lines.len(), 4);
    assert!(lines.iter().all(|j| j["loss"].as_f64().is_some_and(f64::is_finite)));
    assert!(lines[3]["eval_loss"].as_f64().is_some());
    let j = ok_json(&["fill", "--model", out.to_str().unwrap(), "--text", "the [MASK] is here"]);
    assert_eq!(j["masks"].as_array().unwrap().len(), 1);
}

#[test]
fn convert_to_f16_halves_the_file_and_keeps_the_predictions() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f16");
    let out_s = out.display().to_string();
    let j = ok_json(&["convert", "--model", &default_model(), "--dtype", "f16", "--out", &out_s]);
    let f32_bytes = std::fs::metadata(root().join("www/models/bert-tiny-base/model.safetensors")).unwrap().len();
    let f16_bytes = j["bytes"].as_u64().unwrap();
    assert!(f16_bytes < f32_bytes * 51 / 100, "{f16_bytes} vs {f32_bytes}");
    // every weight moved by at most f16's rounding (2^-11 relative)
    assert!(j["max_rel_change"].as_f64().unwrap() <= 4.9e-4, "{j}");
    let st_bytes = std::fs::read(out.join("model.safetensors")).unwrap();
    let st = parse(&st_bytes).unwrap();
    assert!(st.tensors().iter().all(|(_, t)| t.dtype() == safetensors::Dtype::F16));
    assert!(out.join("tokenizer_config.json").is_file());
    let text = "the man went to the [MASK] to buy some milk.";
    let top = |m: &str| ok_json(&["fill", "--model", m, "--text", text])["masks"][0]["predictions"][0].clone();
    let (a, b) = (top(&default_model()), top(&out_s));
    assert_eq!(a["token"], b["token"]);
    assert!((a["prob"].as_f64().unwrap() - b["prob"].as_f64().unwrap()).abs() < 2e-3, "{a} vs {b}");
    fails_with(&["convert", "--model", "/nonexistent", "--dtype", "f16", "--out", &out_s], "nonexistent");
}

fn task_model(name: &str) -> String {
    root().join("tests/fixtures/models").join(name).display().to_string()
}

/// `inspect`'s tensors of a task model, by name.
fn inspect_task(model: &str, text: &str, pair: Option<&str>) -> std::collections::HashMap<String, ndarray::ArrayD<f32>> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.safetensors");
    let mut args = vec!["inspect", "--model", model, "--text", text, "--out", out.to_str().unwrap()];
    if let Some(p) = pair {
        args.extend(["--pair", p]);
    }
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    let st = parse(&bytes).unwrap();
    st.tensors()
        .into_iter()
        .filter(|(_, v)| v.dtype() == safetensors::Dtype::F32)
        .map(|(n, v)| (n.clone(), read_f32(&n, &v).unwrap()))
        .collect()
}

fn softmax(x: &[f32]) -> Vec<f32> {
    let m = x.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let e: Vec<f32> = x.iter().map(|v| (v - m).exp()).collect();
    let s: f32 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

#[test]
fn classify_tag_and_answer_print_the_fixed_json_from_the_heads_logits() {
    // classify: every label with its id2label name, most probable first, = softmax(task_logits)
    let m = task_model("task_seqcls");
    let j = ok_json(&["classify", "--model", &m, "--text", "the cat sat", "--pair", "the dog ran"]);
    let labels = j["labels"].as_array().unwrap();
    assert_eq!(labels.len(), 3);
    let want = softmax(inspect_task(&m, "the cat sat", Some("the dog ran"))["task_logits"].as_slice().unwrap());
    for w in labels.windows(2) {
        assert!(w[0]["prob"].as_f64() >= w[1]["prob"].as_f64(), "most probable first");
    }
    for l in labels {
        let id = l["id"].as_u64().unwrap() as usize;
        assert!((l["prob"].as_f64().unwrap() as f32 - want[id]).abs() < 1e-6);
        assert_eq!(l["label"], ["negative", "neutral", "positive"][id]);
    }
    assert_eq!(j["tokens"][0], "[CLS]");
    // a one-output head prints its score
    let r = task_model("task_regression");
    let j = ok_json(&["classify", "--model", &r, "--text", "the cat sat"]);
    let logit = inspect_task(&r, "the cat sat", None)["task_logits"][[0]];
    assert!((j["score"].as_f64().unwrap() as f32 - logit).abs() < 1e-6 && j.get("labels").is_none());

    // tag: one tag per token, specials included, the arg-max of each row
    let t = task_model("task_tokcls");
    let j = ok_json(&["tag", "--model", &t, "--text", "the cat sat on the mat"]);
    let tags = j["tags"].as_array().unwrap();
    let logits = &inspect_task(&t, "the cat sat on the mat", None)["task_logits"];
    assert_eq!(tags.len(), j["tokens"].as_array().unwrap().len());
    assert_eq!(tags.len(), logits.shape()[0]);
    for (i, tag) in tags.iter().enumerate() {
        let row: Vec<f32> = logits.index_axis(ndarray::Axis(0), i).iter().copied().collect();
        let best = (0..row.len()).fold(0, |b, k| if row[k] > row[b] { k } else { b });
        assert_eq!(tag["id"].as_u64().unwrap() as usize, best, "token {i}");
        assert!((tag["prob"].as_f64().unwrap() as f32 - softmax(&row)[best]).abs() < 1e-6);
    }

    // answer: spans inside the context, start <= end < start + 30, score = start + end logit
    let q = task_model("task_qa");
    let context = "the cat sat on the mat by the door";
    let j = ok_json(&["answer", "--model", &q, "--question", "where did the cat sit", "--context", context, "--top-k", "3"]);
    let answers = j["answers"].as_array().unwrap();
    assert_eq!(answers.len(), 3);
    let ins = inspect_task(&q, "where did the cat sit", Some(context));
    let tokens = j["tokens"].as_array().unwrap();
    let ctx_start = tokens.iter().position(|t| t == "[SEP]").unwrap() + 1;
    for w in answers.windows(2) {
        assert!(w[0]["score"].as_f64() >= w[1]["score"].as_f64(), "best first");
    }
    for a in answers {
        let (s, e) = (a["start"].as_u64().unwrap() as usize, a["end"].as_u64().unwrap() as usize);
        assert!(s >= ctx_start && s <= e && e < s + 30 && e < tokens.len() - 1, "{a}");
        let score = ins["start_logits"][[s]] + ins["end_logits"][[e]];
        assert!((a["score"].as_f64().unwrap() as f32 - score).abs() < 1e-5);
        assert!(context.contains(a["text"].as_str().unwrap()));
    }
    // the best span over every allowed pair
    let best = (ctx_start..tokens.len() - 1)
        .flat_map(|s| (s..(s + 30).min(tokens.len() - 1)).map(move |e| (s, e)))
        .map(|(s, e)| ins["start_logits"][[s]] + ins["end_logits"][[e]])
        .fold(f32::NEG_INFINITY, f32::max);
    assert!((answers[0]["score"].as_f64().unwrap() as f32 - best).abs() < 1e-5);

    // the wrong head, no head, an empty context: clear messages
    fails_with(&["classify", "--model", &q, "--text", "hi"], "BertForQuestionAnswering, not a BertForSequenceClassification");
    fails_with(&["tag", "--model", &default_model(), "--text", "hi"], "no task head");
    fails_with(&["answer", "--model", &q, "--question", "q", "--context", " "], "the context is empty");
    // on the GPU: the same labels and probabilities
    let g = ok_json(&["classify", "--model", &m, "--text", "the cat sat", "--pair", "the dog ran", "--device", "gpu"]);
    let c = ok_json(&["classify", "--model", &m, "--text", "the cat sat", "--pair", "the dog ran"]);
    for (a, b) in g["labels"].as_array().unwrap().iter().zip(c["labels"].as_array().unwrap()) {
        assert_eq!(a["id"], b["id"]);
        assert!((a["prob"].as_f64().unwrap() - b["prob"].as_f64().unwrap()).abs() < 1e-4, "{a} vs {b}");
    }
    // a regression head's gradient on the GPU: the same loss as on the CPU
    let dir = tempfile::tempdir().unwrap();
    let batch = dir.path().join("b.json");
    std::fs::write(&batch, r#"{"input_ids":[[2,7,9,3],[2,5,3,0]],"attention_mask":[[1,1,1,1],[1,1,1,0]],"labels":[0.5,-2.0]}"#).unwrap();
    let loss_on = |device: &str| {
        let out = dir.path().join(format!("g-{device}.safetensors"));
        let o = run(&["grad", "--model", &r, "--batch", batch.to_str().unwrap(), "--device", device, "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{device}: {}", String::from_utf8_lossy(&o.stderr));
        let bytes = std::fs::read(&out).unwrap();
        read_f32("loss", &parse(&bytes).unwrap().tensor("loss").unwrap()).unwrap()[[0]]
    };
    let (c, g) = (loss_on("cpu"), loss_on("gpu"));
    assert!((c - g).abs() < 1e-4 * c.abs().max(1.0), "regression loss {c} (cpu) vs {g} (gpu)");
}

#[test]
fn grad_takes_each_heads_labels() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("task_seqcls", r#"{"input_ids":[[2,7,9,3],[2,8,3,0]],"attention_mask":[[1,1,1,1],[1,1,1,0]],"labels":[2,0]}"#),
        ("task_regression", r#"{"input_ids":[[2,7,9,3]],"labels":[0.5]}"#),
        ("task_tokcls", r#"{"input_ids":[[2,7,9,3]],"labels":[[-100,1,2,-100]]}"#),
        ("task_qa", r#"{"input_ids":[[2,7,3,9,11,3]],"token_type_ids":[[0,0,0,1,1,1]],"start_positions":[3],"end_positions":[4]}"#),
    ];
    for (name, batch) in cases {
        let b = dir.path().join(format!("{name}.json"));
        std::fs::write(&b, batch).unwrap();
        let out = dir.path().join(format!("{name}.safetensors"));
        let o = run(&["grad", "--model", &task_model(name), "--batch", b.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let bytes = std::fs::read(&out).unwrap();
        let st = parse(&bytes).unwrap();
        let names: Vec<String> = st.names().into_iter().map(str::to_string).collect();
        let head = if name == "task_qa" { "qa_outputs.weight" } else { "classifier.weight" };
        assert!(names.iter().any(|n| n == head) && names.iter().any(|n| n == "loss"), "{name}: {names:?}");
        let loss = read_f32("loss", &st.tensor("loss").unwrap()).unwrap()[[0]];
        assert!(loss.is_finite() && loss > 0.0, "{name}: loss {loss}");
    }
    // labels of the wrong shape for the head name what is expected
    let b = dir.path().join("bad.json");
    std::fs::write(&b, r#"{"input_ids":[[2,7,9,3]],"labels":[[1,2,3,4]]}"#).unwrap();
    let out = dir.path().join("bad.safetensors");
    fails_with(
        &["grad", "--model", &task_model("task_seqcls"), "--batch", b.to_str().unwrap(), "--out", out.to_str().unwrap()],
        "B class ids",
    );
    std::fs::write(&b, r#"{"input_ids":[[2,7,9,3]],"labels":[7]}"#).unwrap();
    fails_with(
        &["grad", "--model", &task_model("task_seqcls"), "--batch", b.to_str().unwrap(), "--out", out.to_str().unwrap()],
        "num_labels 3",
    );
    std::fs::write(&b, r#"{"input_ids":[[2,7,9,3]]}"#).unwrap();
    fails_with(
        &["grad", "--model", &task_model("task_qa"), "--batch", b.to_str().unwrap(), "--out", out.to_str().unwrap()],
        "start_positions",
    );
}

/// `generate` prints HF generate's greedy and beam tokens in its fixed JSON; sampling is seeded;
/// `inspect --target` writes both halves' states and attentions, the same on the GPU; a wrong model or missing target
/// is a one-line error.
#[test]
fn an_encoder_decoder_generates_and_inspects() {
    let model = root().join("tests/fixtures/models/enc_dec").display().to_string();
    let refs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/ref/dec_generate.json")).unwrap()).unwrap();
    let case = &refs["cases"][0];
    let src = case["source"].as_str().unwrap();
    let want = |k: &str| case[k]["sequence"].as_array().unwrap()[1..].iter().map(|v| v.as_u64().unwrap()).collect::<Vec<_>>();
    let ids = |j: &serde_json::Value| j["ids"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect::<Vec<_>>();
    let g = ok_json(&["generate", "--model", &model, "--text", src, "--max-new", "8"]);
    assert_eq!(ids(&g), want("greedy"));
    assert_eq!(g["steps"].as_array().unwrap().len(), ids(&g).len());
    assert!(g["steps"][0]["top"].as_array().unwrap().len() == 5 && g["text"].is_string() && g["tokens"].is_array());
    let b = ok_json(&["generate", "--model", &model, "--text", src, "--max-new", "8", "--beams", "3"]);
    assert_eq!(ids(&b), want("beam"));
    let s1 = ok_json(&["generate", "--model", &model, "--text", src, "--temperature", "1.5", "--seed", "7"]);
    let s2 = ok_json(&["generate", "--model", &model, "--text", src, "--temperature", "1.5", "--seed", "7"]);
    assert_eq!(s1, s2, "the same seed samples the same tokens");
    let out = std::env::temp_dir().join("bertscope-cli-s2s.safetensors");
    let o = run(&["inspect", "--model", &model, "--text", "the cat sat", "--target", "a dog ran", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    let st = bertscope::tensorfile::parse(&bytes).unwrap();
    let shape = |n: &str| st.tensor(n).unwrap().shape().to_vec();
    let (s, t) = (shape("input_ids")[0], shape("decoder_input_ids")[0]);
    assert_eq!(shape("cross_attentions.1"), [3, t, s]);
    assert_eq!(shape("decoder_attentions.0"), [3, t, t]);
    assert_eq!(shape("encoder_hidden_states.2"), [s, 36]);
    assert_eq!(shape("logits")[0], t);
    // the same on the GPU: ids exact, attentions within 1e-4, hidden states and logits within 1e-3
    let gout = std::env::temp_dir().join("bertscope-cli-s2s-gpu.safetensors");
    let args = ["inspect", "--model", &model, "--text", "the cat sat", "--target", "a dog ran", "--device", "gpu"];
    let o = run(&[&args[..], &["--out", gout.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let gbytes = std::fs::read(&gout).unwrap();
    let gst = bertscope::tensorfile::parse(&gbytes).unwrap();
    assert_eq!(gst.names().len(), st.names().len());
    for name in st.names() {
        let (c, g) = (st.tensor(name).unwrap(), gst.tensor(name).unwrap());
        assert_eq!(c.shape(), g.shape(), "{name}");
        if name.ends_with("input_ids") {
            assert_eq!(c.data(), g.data(), "{name}");
            continue;
        }
        let (c, g) = (bertscope::tensorfile::read_f32(name, &c).unwrap(), bertscope::tensorfile::read_f32(name, &g).unwrap());
        let d = c.iter().zip(g.iter()).fold(0f32, |m, (x, y)| m.max((x - y).abs()));
        let tol = if name.contains("attentions") { 1e-4 } else { 1e-3 };
        assert!(d <= tol, "{name}: the GPU's differs by {d}");
    }
    fails_with(&["inspect", "--model", &model, "--text", "x", "--out", out.to_str().unwrap()], "needs --target");
    fails_with(&["generate", "--model", &default_model(), "--text", "x"], "not an encoder-decoder");
    let pairs = root().join("www/datasets/numbers/train.jsonl");
    fails_with(
        &[
            "train",
            "--init",
            &model,
            "--corpus",
            pairs.to_str().unwrap(),
            "--steps",
            "1",
            "--device",
            "gpu",
            "--out",
            out.to_str().unwrap(),
        ],
        "trains on the CPU path",
    );
}

/// `grad` of an encoder-decoder's batch (decoder_input_ids, labels) gives HF's loss and gradients
/// (the teacher-forced fixture of scripts/make_decoder_fixtures.py), on both devices.
#[test]
fn an_encoder_decoder_batch_gives_hf_loss_and_gradients() {
    let bytes = std::fs::read(root().join("tests/fixtures/ref/dec_teacher.safetensors")).unwrap();
    let st = bertscope::tensorfile::parse(&bytes).unwrap();
    let rows = |n: &str| {
        let v = st.tensor(n).unwrap();
        let a = bertscope::tensorfile::read_i64(n, &v).unwrap();
        let t = a.shape()[1];
        a.iter().copied().collect::<Vec<i64>>().chunks(t).map(|c| c.to_vec()).collect::<Vec<_>>()
    };
    let batch = serde_json::json!({
        "input_ids": rows("input_ids"), "attention_mask": rows("attention_mask"),
        "decoder_input_ids": rows("decoder_input_ids"), "decoder_attention_mask": rows("decoder_attention_mask"),
        "labels": rows("labels"),
    });
    let dir = std::env::temp_dir();
    let (bpath, out) = (dir.join("bertscope-cli-s2s-batch.json"), dir.join("bertscope-cli-s2s-grad.safetensors"));
    std::fs::write(&bpath, batch.to_string()).unwrap();
    let model = root().join("tests/fixtures/models/enc_dec").display().to_string();
    for (device, tol) in [("cpu", 1e-3), ("gpu", 1e-2)] {
        let args = ["grad", "--model", &model, "--batch", bpath.to_str().unwrap(), "--device", device, "--out", out.to_str().unwrap()];
        let o = run(&args);
        assert!(o.status.success(), "{device}: {}", String::from_utf8_lossy(&o.stderr));
        let got = std::fs::read(&out).unwrap();
        let g = bertscope::tensorfile::parse(&got).unwrap();
        let f32s = |s: &safetensors::SafeTensors<'_>, n: &str| bertscope::tensorfile::read_f32(n, &s.tensor(n).unwrap()).unwrap();
        let (loss, want) = (f32s(&g, "loss")[[0]], f32s(&st, "loss")[[0]]);
        assert!((loss - want).abs() < 1e-5 * want.abs().max(1.0), "{device}: loss {loss} vs HF's {want}");
        let mut graded = 0;
        for (key, _) in st.tensors().into_iter().filter(|(k, _)| k.starts_with("grad.")) {
            let name = &key["grad.".len()..];
            let (a, b) = (f32s(&g, name), f32s(&st, &key));
            let scale = b.iter().fold(0f32, |m, v| m.max(v.abs()));
            let d = a.iter().zip(b.iter()).fold(0f32, |m, (x, y)| m.max((x - y).abs()));
            assert!(d <= tol * scale + 1e-6, "{device} {name}: {d} vs max {scale}");
            graded += 1;
        }
        assert!(graded > 40, "{device}: {graded} gradients compared");
        std::fs::remove_file(&out).unwrap();
    }
}
