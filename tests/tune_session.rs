//! Fine-tuning as the page runs it (`app::jobs::finetune`): from the shipped model with the
//! random-weights run beside it, held-out scores that add up (the confusion matrix counts every
//! held-out review; its diagonal is the accuracy), the batch with the model's answers, a sentence
//! before and after; per-tag scores for a tagger, exact match and F1 for a span finder; bad data
//! named by line, the loaded model untouched.

use bertscope::app::jobs::finetune::TuneSession;
use bertscope::app::jobs::Job;
use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::config::TaskKind;
use bertscope::explain::finetune::{TuneData, TuneExample, TuneSetup, TuneStart};
use bertscope::explain::snapshot::TaskOutput;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shipped() -> Bert {
    Bert::from_dir(&root().join("www/models/bert-tiny")).unwrap()
}

fn sentiment(n_train: usize, n_test: usize) -> (String, String) {
    let read = |f: &str, n: usize| {
        let t = std::fs::read_to_string(root().join("www/datasets/sentiment").join(f)).unwrap();
        t.lines().take(n).map(|l| format!("{l}\n")).collect::<String>()
    };
    (read("train.jsonl", n_train), read("test.jsonl", n_test))
}

#[test]
fn sentiment_with_the_random_weights_run_beside_it() {
    let (train, test) = sentiment(400, 60);
    let setup = TuneSetup {
        compare: true,
        steps: 30,
        batch: 16,
        seq: 48,
        eval_every: 10,
        ..TuneSetup::defaults(TaskKind::SequenceClassification, TuneData::Text { train: train.clone(), test: Some(test.clone()) })
    };
    let base = shipped();
    let mut run = TuneSession::new(&base, &train, Some(&test), &setup, &Backend::cpu()).unwrap();
    assert!(base.params.task.is_none() && base.params.mlm.is_some(), "the loaded model is not changed");
    assert_eq!((run.train_examples(), run.eval_examples()), (400, 60));
    assert!(run.random.is_some());

    let s0 = block_on(run.score()).unwrap();
    assert_eq!(s0.main.labels, ["negative", "positive"]);
    let r0 = s0.random.as_ref().unwrap();
    let total: usize = s0.main.confusion.iter().flatten().sum();
    assert_eq!(total, 60, "the confusion matrix counts every held-out review");
    let diag = (s0.main.confusion[0][0] + s0.main.confusion[1][1]) as f32 / 60.0;
    assert!((diag - s0.main.accuracy).abs() < 1e-6, "its diagonal is the accuracy");

    let mut steps = vec![];
    let mut scores = vec![];
    while !run.finished() {
        let (st, sc) = block_on(run.step()).unwrap();
        steps.push(st);
        scores.extend(sc);
    }
    assert_eq!(steps.iter().map(|s| s.main.step).collect::<Vec<_>>(), (1..=30).collect::<Vec<_>>());
    assert!(steps.iter().all(|s| s.random.as_ref().is_some_and(|r| r.step == s.main.step)), "the two runs step together");
    assert_ne!(steps[0].main.loss, steps[0].random.as_ref().unwrap().loss, "the random run is another model");
    assert_eq!(scores.iter().map(|s| s.step).collect::<Vec<_>>(), [10, 20, 30]);
    let evals: Vec<usize> = steps.iter().filter(|s| s.main.eval_acc.is_some()).map(|s| s.main.step).collect();
    assert_eq!(evals, [10, 20, 30]);
    let last = scores.last().unwrap();
    assert_eq!(steps[29].main.eval_acc, Some(last.main.accuracy));
    assert_eq!(steps[29].random.as_ref().unwrap().eval_acc, Some(last.random.as_ref().unwrap().accuracy));
    assert!(last.main.loss < s0.main.loss, "the held-out loss falls: {} -> {}", s0.main.loss, last.main.loss);
    assert!(last.main.accuracy > last.random.as_ref().unwrap().accuracy, "pre-training helps: {last:?} (random before: {r0:?})");

    let b = block_on(run.batch_view(4)).unwrap();
    assert_eq!((b.step, b.examples.len()), (30, 4));
    for e in &b.examples {
        let TuneExample::Class { text, gold, predicted, prob } = e else { panic!("{e:?}") };
        assert!(!text.is_empty() && !text.contains("##") && !text.contains("[CLS]"), "{text}");
        assert!(["negative", "positive"].contains(&gold.as_str()) && ["negative", "positive"].contains(&predicted.as_str()));
        assert!((0.5..=1.0).contains(prob));
    }

    let p = run.probe("the food was wonderful and the staff were kind.", None).unwrap();
    assert_eq!(p.tokens.first().map(String::as_str), Some("[CLS]"));
    assert_eq!((p.cls_before.len(), p.cls_after.len()), (p.tokens.len(), p.tokens.len()));
    assert!((p.cls_after.iter().sum::<f32>() - 1.0).abs() < 1e-4, "a softmax row");
    assert_ne!(p.cls_before, p.cls_after, "fine-tuning changed what [CLS] attends to");
    let (Some(TaskOutput::Classes(before)), Some(TaskOutput::Classes(after))) = (&p.before, &p.after) else { panic!("{p:?}") };
    assert_ne!(before, after);
    assert!(block_on(run.step()).is_err(), "no step past the end");
}

#[test]
fn tags_and_spans_have_their_own_scores() {
    let tagger = Bert::from_dir(&root().join("tests/fixtures/models/task_tokcls")).unwrap();
    let labels: Vec<String> = (0..tagger.cfg.num_labels()).map(|i| tagger.cfg.label_name(i)).collect();
    let words = ["alice", "paris", "the", "cat", "sat", "bob"];
    let lines: String = (0..40)
        .map(|i| {
            let ws: Vec<&str> = (0..4).map(|j| words[(i + j * 5) % words.len()]).collect();
            let tags: Vec<&str> = (0..4).map(|j| labels[(i + j) % labels.len()].as_str()).collect();
            format!("{}\n", serde_json::json!({ "tokens": ws, "tags": tags }))
        })
        .collect();
    let setup = TuneSetup {
        steps: 2,
        batch: 8,
        eval_every: 1,
        ..TuneSetup::defaults(TaskKind::TokenClassification, TuneData::Text { train: lines.clone(), test: None })
    };
    let run = TuneSession::new(&tagger, &lines, None, &setup, &Backend::cpu()).unwrap();
    assert_eq!((run.train_examples(), run.eval_examples()), (36, 4), "every tenth line held out");
    let s = block_on(run.score()).unwrap();
    assert!(s.main.confusion.is_empty() && s.main.f1.is_none());
    let counted: usize = s.main.per_tag.iter().map(|t| t.total).sum();
    assert_eq!(counted, 16, "one scored position per word");
    let right: usize = s.main.per_tag.iter().map(|t| t.right).sum();
    assert!((right as f32 / 16.0 - s.main.accuracy).abs() < 1e-6);

    let qa = Bert::from_dir(&root().join("tests/fixtures/models/task_qa")).unwrap();
    let lines = r#"{"question": "who sat?", "context": "the cat sat on the mat", "answer": {"text": "the cat", "start": 0}}
{"question": "where did it sit?", "context": "the dog sat on the mat", "answer": {"text": "the mat", "start": 15}}
"#;
    let setup = TuneSetup {
        steps: 1,
        batch: 2,
        ..TuneSetup::defaults(TaskKind::QuestionAnswering, TuneData::Text { train: lines.into(), test: None })
    };
    let mut run = TuneSession::new(&qa, lines, Some(lines), &setup, &Backend::cpu()).unwrap();
    let s = block_on(run.score()).unwrap();
    let f1 = s.main.f1.unwrap();
    assert!((0.0..=1.0).contains(&f1) && f1 >= s.main.accuracy, "F1 {f1} is at least the exact match {}", s.main.accuracy);
    block_on(run.step()).unwrap();
    let b = block_on(run.batch_view(2)).unwrap();
    let golds: Vec<String> = b
        .examples
        .iter()
        .map(|e| match e {
            TuneExample::Span { gold, .. } => gold.clone(),
            e => panic!("{e:?}"),
        })
        .collect();
    let mut golds = golds;
    golds.sort();
    assert_eq!(golds, ["the cat", "the mat"]);
}

#[test]
fn bad_data_and_settings_are_messages() {
    let (train, test) = sentiment(40, 10);
    let base = shipped();
    let setup = TuneSetup::defaults(TaskKind::SequenceClassification, TuneData::Text { train: train.clone(), test: None });
    let err = |train: &str, test: Option<&str>, s: &TuneSetup| {
        TuneSession::new(&base, train, test, s, &Backend::cpu()).err().expect("an error").to_string()
    };
    let bad_test = format!("{test}{{\"text\": \"meh\", \"label\": \"maybe\"}}\n");
    let e = err(&train, Some(&bad_test), &setup);
    assert!(e.contains("line 11") && e.contains("maybe") && e.contains("negative, positive"), "{e}");
    let e = err("{\"text\": 1}\n{\"text\": 2}\n", None, &setup);
    assert!(e.contains("line 1"), "{e}");
    let e = err(&train, Some(&test), &TuneSetup { lr: 2.0, ..setup.clone() });
    assert!(e.contains("learning rate"), "{e}");
    let tags = TuneSetup { task: TaskKind::TokenClassification, ..setup.clone() };
    let e = err("{\"tokens\": [\"a\", \"b\"], \"tags\": [\"O\"]}\n{\"tokens\": [\"a\"], \"tags\": [\"O\"]}\n", None, &tags);
    assert!(e.contains("line 1") && e.contains("2 words but 1 tags"), "{e}");
    // random weights: no second run to compare with
    let r = TuneSession::new(&base, &train, Some(&test), &TuneSetup { start: TuneStart::Random, compare: true, ..setup }, &Backend::cpu())
        .unwrap();
    assert!(r.random.is_none());
}

#[test]
fn the_model_pre_trained_in_the_page_can_be_the_start() {
    use bertscope::app::jobs::pretrain::TrainSession;
    use bertscope::explain::training::{CorpusSource, TrainMode, TrainSetup};
    // a tiny BERT pre-trained from scratch on the reviews themselves (its own WordPiece vocabulary)
    let (train, test) = sentiment(200, 20);
    let corpus: String = train
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["text"].as_str().unwrap().to_string() + "\n")
        .collect::<Vec<_>>()
        .chunks(4)
        .map(|c| c.concat() + "\n")
        .collect();
    let pre = TrainSetup {
        steps: 3,
        batch: 4,
        seq: 32,
        vocab_size: 300,
        ..TrainSetup::defaults(TrainMode::Scratch, CorpusSource::Text(corpus.clone()))
    };
    let mut run = TrainSession::new(None, &corpus, &pre).unwrap();
    for _ in 0..3 {
        block_on(run.step()).unwrap();
    }
    let trained = &run.trainer.bert;
    let setup = TuneSetup {
        start: TuneStart::Trained,
        compare: true,
        steps: 2,
        batch: 8,
        ..TuneSetup::defaults(TaskKind::SequenceClassification, TuneData::Text { train: train.clone(), test: Some(test.clone()) })
    };
    let mut tune = TuneSession::new(trained, &train, Some(&test), &setup, &Backend::cpu()).unwrap();
    let b = &tune.main.bert;
    assert_eq!(b.tokenizer.vocab_size(), trained.tokenizer.vocab_size(), "the pre-trained model's own vocabulary");
    assert_eq!(b.params.emb.word.as_slice(), trained.params.emb.word.as_slice(), "its embeddings, not fresh ones");
    assert!(
        b.params.mlm.is_none() && b.params.nsp.is_none() && b.params.task.is_some(),
        "the pre-training heads make way for the task head"
    );
    assert!(tune.random.as_ref().is_some_and(|r| r.bert.params.emb.word != trained.params.emb.word));
    block_on(tune.step()).unwrap();
    assert!(trained.params.task.is_none(), "the pre-training run's model is untouched");
}

#[test]
fn a_classifier_of_other_labels_gets_a_new_head() {
    // the fixture classifies negative / neutral / positive; the data says ham / spam
    let base = Bert::from_dir(&root().join("tests/fixtures/models/task_seqcls")).unwrap();
    let lines: String = (0..20)
        .map(|i| format!("{}\n", serde_json::json!({"text": format!("the cat sat {i}"), "label": if i % 2 == 0 { "ham" } else { "spam" }})))
        .collect();
    let setup = TuneSetup {
        steps: 1,
        batch: 4,
        ..TuneSetup::defaults(TaskKind::SequenceClassification, TuneData::Text { train: lines.clone(), test: None })
    };
    let run = TuneSession::new(&base, &lines, None, &setup, &Backend::cpu()).unwrap();
    let b = &run.main.bert;
    assert_eq!((b.cfg.num_labels(), b.cfg.label_name(0), b.cfg.label_name(1)), (2, "ham".to_string(), "spam".to_string()));
    assert_eq!(b.params.emb.word, base.params.emb.word, "the encoder is kept");
    // the same labels: its own head is fine-tuned further
    let own: String = (0..20)
        .map(|i| format!("{}\n", serde_json::json!({"text": "the cat", "label": (["negative", "neutral", "positive"])[i % 3]})))
        .collect();
    let run = TuneSession::new(&base, &own, None, &setup, &Backend::cpu()).unwrap();
    assert_eq!(run.main.bert.params.task.as_ref().unwrap().linear.weight, base.params.task.as_ref().unwrap().linear.weight);
}
