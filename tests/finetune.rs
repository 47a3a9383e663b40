//! Fine-tuning: the shipped model learns the bundled sentiment set (held-out accuracy well above
//! chance after a short run), a tagger and a span finder learn generated data, the saved folder
//! reads back with the same answers, and bad data is an error naming the line.

use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::config::TaskKind;
use bertscope::infer::task::{answer, classify};
use bertscope::train::finetune::{features, labels_in, FineTuneOptions, FineTuner};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shipped() -> Bert {
    Bert::from_dir(&root().join("www/models/bert-tiny")).unwrap()
}

fn tune(bert: Bert, kind: TaskKind, train: &str, steps: usize, batch: usize, lr: f64) -> FineTuner {
    let set = features(&bert, kind, "train", train, 48).unwrap();
    let opts = FineTuneOptions { steps, batch, seq: 48, lr, seed: 1, ..Default::default() };
    FineTuner::new(bert, set, opts, &Backend::cpu()).unwrap()
}

#[test]
fn sentiment_from_the_shipped_model_beats_chance_on_the_held_out_split() {
    let train = std::fs::read_to_string(root().join("www/datasets/sentiment/train.jsonl")).unwrap();
    let test = std::fs::read_to_string(root().join("www/datasets/sentiment/test.jsonl")).unwrap();
    let mut labels = labels_in(TaskKind::SequenceClassification, "train", &train).unwrap();
    labels.sort();
    assert_eq!(labels, ["negative", "positive"]);
    let bert = shipped().with_task_head(TaskKind::SequenceClassification, &labels, 1).unwrap();
    assert!(bert.params.mlm.is_none() && bert.params.pooler.is_some());
    let held = features(&bert, TaskKind::SequenceClassification, "test", &test, 48).unwrap();
    let mut t = tune(bert, TaskKind::SequenceClassification, &train, 120, 32, 2e-4);
    let (loss0, acc0) = block_on(t.evaluate(&held)).unwrap();
    for _ in 0..120 {
        block_on(t.step()).unwrap();
    }
    let (loss1, acc1) = block_on(t.evaluate(&held)).unwrap();
    // 142 of 296 test reviews are positive: always guessing one class scores at most 52%
    assert!(acc1 >= 0.8, "held-out accuracy {acc0} -> {acc1}");
    assert!(loss1 < loss0, "held-out loss {loss0} -> {loss1}");

    // saved and read back: the same probabilities, the labels by name
    let dir = tempfile::tempdir().unwrap();
    t.bert.save_dir(dir.path()).unwrap();
    let back = Bert::from_dir(dir.path()).unwrap();
    let text = "the food was wonderful and the staff were kind.";
    let a = block_on(classify(&mut Backend::cpu(), &t.bert, text, None)).unwrap();
    let b = block_on(classify(&mut Backend::cpu(), &back, text, None)).unwrap();
    assert_eq!(a.labels, b.labels);
    assert_eq!(b.labels.as_ref().unwrap()[0].label, "positive");
}

#[test]
fn a_tagger_and_a_span_finder_learn_generated_data() {
    let names = ["alice", "bob", "carol", "david", "emma", "frank"];
    let places = ["paris", "london", "rome", "berlin", "madrid", "vienna"];
    let (mut tags, mut spans) = (String::new(), String::new());
    for i in 0..60 {
        let (n, p) = (names[i % 6], places[(i * 5 + 1) % 6]);
        tags += &format!("{{\"tokens\":[\"{n}\",\"lives\",\"in\",\"{p}\"],\"tags\":[\"B-PER\",\"O\",\"O\",\"B-LOC\"]}}\n");
        let context = format!("{n} lives in {p} and works there.");
        let start = context.find(p).unwrap();
        spans += &format!(
            "{{\"question\":\"where does {n} live?\",\"context\":\"{context}\",\"answer\":{{\"text\":\"{p}\",\"start\":{start}}}}}\n"
        );
    }
    let base = Bert::from_dir(&root().join("www/models/bert-tiny-base")).unwrap();

    let labels = labels_in(TaskKind::TokenClassification, "tags", &tags).unwrap();
    assert_eq!(labels, ["B-PER", "O", "B-LOC"]);
    let tagger = base.with_task_head(TaskKind::TokenClassification, &labels, 2).unwrap();
    let held = features(&tagger, TaskKind::TokenClassification, "tags", &tags, 48).unwrap();
    let mut t = tune(tagger, TaskKind::TokenClassification, &tags, 60, 16, 1e-3);
    for _ in 0..60 {
        block_on(t.step()).unwrap();
    }
    let (_, acc) = block_on(t.evaluate(&held)).unwrap();
    assert!(acc > 0.95, "tag accuracy {acc}");

    let qa = base.with_task_head(TaskKind::QuestionAnswering, &[], 3).unwrap();
    assert_eq!(qa.params.heads().task.unwrap().outputs, 2);
    let held = features(&qa, TaskKind::QuestionAnswering, "spans", &spans, 48).unwrap();
    let mut t = tune(qa, TaskKind::QuestionAnswering, &spans, 80, 16, 1e-3);
    let (loss0, _) = block_on(t.evaluate(&held)).unwrap();
    for _ in 0..80 {
        block_on(t.step()).unwrap();
    }
    let (loss1, acc) = block_on(t.evaluate(&held)).unwrap();
    assert!(loss1 < 0.5 * loss0 && acc > 0.8, "span loss {loss0} -> {loss1}, exact match {acc}");
    let a = block_on(answer(&mut Backend::cpu(), &t.bert, "where does carol live?", "carol lives in rome and works there.", 1)).unwrap();
    assert_eq!(a.answers[0].text, "rome");
}

#[test]
fn bad_data_names_the_line() {
    let bert = Bert::from_dir(&root().join("tests/fixtures/models/task_seqcls")).unwrap();
    let err = |kind, text: &str| features(&bert, kind, "data.jsonl", text, 32).unwrap_err().to_string();
    let e = err(TaskKind::SequenceClassification, "{\"text\":\"a\",\"label\":\"neutral\"}\n\n{\"text\":\"b\",\"label\":\"happy\"}\n");
    assert!(e.contains("data.jsonl line 3") && e.contains("unknown label `happy`") && e.contains("negative, neutral, positive"), "{e}");
    let e = err(TaskKind::SequenceClassification, "{\"txt\":\"a\"}\n");
    assert!(e.contains("line 1") && e.contains("text"), "{e}");
    assert!(err(TaskKind::SequenceClassification, "\n\n").contains("data.jsonl is empty"));
    let e = err(TaskKind::TokenClassification, "{\"tokens\":[\"a\",\"b\"],\"tags\":[\"O\"]}\n");
    assert!(e.contains("line 1") && e.contains("2 words but 1 tags"), "{e}");
    let e =
        err(TaskKind::QuestionAnswering, "{\"question\":\"q\",\"context\":\"the cat sat\",\"answer\":{\"text\":\"cat\",\"start\":0}}\n");
    assert!(e.contains("line 1") && e.contains("not at character 0"), "{e}");
    assert!(labels_in(TaskKind::SequenceClassification, "x.jsonl", "").unwrap_err().to_string().contains("no labelled lines"));
}
