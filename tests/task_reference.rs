//! The task heads against HF transformers (PyTorch): fixtures made by
//! `scripts/make_task_fixtures.py` (random BertForSequenceClassification with 3 labels and with one
//! output, BertForTokenClassification, BertForQuestionAnswering; a padded batch of two, pairs for the
//! classifier and QA). Tolerances: hidden states and task logits 1e-4 absolute; loss 1e-5 relative;
//! gradients max|ours - ref| <= 1e-3 * max|ref| + 1e-6 per tensor.

use bertscope::bundle::Bert;
use bertscope::checkpoint::canonical_name;
use bertscope::config::TaskKind;
use bertscope::model::backward::{loss_and_grads, Targets};
use bertscope::model::forward::{forward, Batch, ForwardOptions};
use bertscope::model::task::{span_logits, TaskLabels};

mod common;
use common::{close, load_fixture, root};

/// Forward, loss and every gradient of one case; returns how many tensors were compared.
fn run(name: &str, kind: TaskKind) -> usize {
    let c = load_fixture(name);
    let bert = Bert::from_dir(&root().join(&c.meta["model"])).unwrap();
    let head = bert.params.heads().task.expect("the model has its task head");
    assert_eq!(head.kind, kind, "{name}: the head's kind from config.json's architectures");
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
    let tr = forward(&bert.params, &bert.cfg, &batch, &ForwardOptions::default()).unwrap();
    let mut checks = c.compare_hidden(name, "", &tr.hidden, (b, t));
    let logits = &tr.task.as_ref().expect("the head ran").logits;
    let labels = match kind {
        TaskKind::QuestionAnswering => {
            for (col, key) in [(0, "start_logits"), (1, "end_logits")] {
                close(&format!("{name} {key}"), span_logits(logits.view(), b, t, col).view().into_dyn(), c.f32s[key].view(), 1e-4);
                checks += 1;
            }
            let pos = |k: &str| c.i64s[k].iter().copied().collect::<Vec<_>>();
            TaskLabels::Spans { start: pos("start_positions"), end: pos("end_positions") }
        }
        TaskKind::TokenClassification => {
            let ours = logits.view().into_shape_with_order((b, t, head.outputs)).unwrap().into_dyn();
            close(&format!("{name} logits"), ours, c.f32s["logits"].view(), 1e-4);
            checks += 1;
            TaskLabels::Tags(c.i64s["labels"].iter().copied().collect())
        }
        TaskKind::SequenceClassification => {
            close(&format!("{name} logits"), logits.view().into_dyn(), c.f32s["logits"].view(), 1e-4);
            checks += 1;
            match c.i64s.get("labels") {
                Some(l) => TaskLabels::Classes(l.iter().copied().collect()),
                None => TaskLabels::Scores(c.f32s["labels"].iter().map(|&v| v as f64).collect()),
            }
        }
    };
    let targets = Targets { mlm_labels: None, nsp_labels: None, task: Some(labels) };
    let (loss, grads, _) = loss_and_grads(&bert.params, &bert.cfg, &batch, &targets, None).unwrap();
    let want = c.f32s["loss"][[0]];
    assert!((loss.loss - want).abs() <= 1e-5 * want.abs().max(1.0), "{name} loss {} vs {want}", loss.loss);
    assert_eq!(loss.task_loss, Some(loss.loss));
    let f = load_fixture(name);
    let graded = f.compare_grads(name, grads.tensors(), canonical_name);
    checks + graded + 1
}

#[test]
fn sequence_classification_matches_hf() {
    let n = run("task_seqcls", TaskKind::SequenceClassification);
    assert!(n > 30);
    let bert = Bert::from_dir(&root().join("tests/fixtures/models/task_seqcls")).unwrap();
    assert_eq!((bert.cfg.num_labels(), bert.cfg.label_name(2).as_str(), bert.cfg.label_id("neutral")), (3, "positive", Some(1)));
}

#[test]
fn regression_with_one_output_matches_hf() {
    run("task_regression", TaskKind::SequenceClassification);
    let bert = Bert::from_dir(&root().join("tests/fixtures/models/task_regression")).unwrap();
    assert!(bert.cfg.is_regression());
}

#[test]
fn token_classification_matches_hf() {
    run("task_tokcls", TaskKind::TokenClassification);
}

#[test]
fn question_answering_matches_hf() {
    run("task_qa", TaskKind::QuestionAnswering);
}

#[test]
fn a_saved_task_model_loads_back_with_the_same_logits() {
    let dir = root().join("tests/fixtures/models/task_tokcls");
    let bert = Bert::from_dir(&dir).unwrap();
    let out = tempfile::tempdir().unwrap();
    bert.save_dir(out.path()).unwrap();
    let back = Bert::from_dir(out.path()).unwrap();
    assert_eq!(back.params.heads(), bert.params.heads());
    let cfg: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.path().join("config.json")).unwrap()).unwrap();
    assert_eq!(cfg["architectures"][0], "BertForTokenClassification");
    assert_eq!(cfg["id2label"]["3"], "B-LOC");
    let batch = Batch::single(vec![2, 7, 9, 3], vec![0; 4]);
    let a = forward(&bert.params, &bert.cfg, &batch, &ForwardOptions::default()).unwrap().task.unwrap().logits;
    let b = forward(&back.params, &back.cfg, &batch, &ForwardOptions::default()).unwrap().task.unwrap().logits;
    assert_eq!(a, b);
}
