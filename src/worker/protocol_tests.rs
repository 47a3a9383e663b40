//! Every message crosses the thread boundary through gloo-worker's codec (bincode 1): each one,
//! filled by the engine itself, must come back equal.
use super::*;
use crate::app::jobs::finetune::TuneSession;
use crate::app::jobs::pretrain::TrainSession;
use crate::app::jobs::translate::TranslateSession;
use crate::backend::block_on;
use crate::bundle::Bert;
use crate::config::TaskKind;
use crate::config::{BertConfig, Heads};
use crate::explain::embeddings::position_view;
use crate::explain::finetune::TuneSetup;
use crate::explain::finetune::{TuneData, TuneStart};
use crate::explain::snapshot::build;
use crate::explain::training::TrainSetup;
use crate::explain::training::{CorpusSource, TrainMode};
use crate::explain::Request;
use crate::tokenize::BertTokenizer;
use crate::worker::model_files::PickedFile;
use serde::{Deserialize, Serialize};

const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\n##s\nsat\non\nmat\ndog\nran\n.\n";
const CORPUS: &str = "the cat sat on the mat.\nthe dog ran.\nthe cats sat.\n\nthe dog sat on the mat.\nthe cat ran.\n";

fn round_trip<T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(what: &str, v: &T) {
    let bytes = bincode::serialize(v).unwrap_or_else(|e| panic!("{what}: cannot encode: {e}"));
    let back: T = bincode::deserialize(&bytes).unwrap_or_else(|e| panic!("{what}: cannot decode: {e}"));
    assert_eq!(&back, v, "{what} changed on its way through the codec");
}

#[test]
fn every_message_survives_the_workers_codec() {
    let tok = BertTokenizer::from_vocab_txt(VOCAB, true, 32).unwrap();
    let bert = Bert::from_scratch(BertConfig::new(0, 12, 2, 3, 20, 32), tok, Heads::PRETRAINING, 3).unwrap();
    let req =
        Request { seq: 9, text: "the cat [MASK] on the mat.".into(), pair: Some("the dog ran.".into()), top_k: 3, ..Default::default() };
    let snap = build(&bert, &req).unwrap();
    assert!(!snap.predictions.is_empty());
    let info = crate::explain::snapshot::model_info(&bert);
    let setup = TrainSetup {
        batch: 2,
        seq: 16,
        steps: 2,
        vocab_size: 40,
        snap_every: 1,
        eval_every: 1,
        probe: "the cat [MASK].".into(),
        ..TrainSetup::defaults(TrainMode::Continue, CorpusSource::Text(CORPUS.repeat(12)))
    };
    let mut run = TrainSession::new(Some(&bert), &CORPUS.repeat(12), &setup).unwrap();
    let log = block_on(crate::app::jobs::Job::step(&mut run)).unwrap().0;
    let frame = run.frame().unwrap();
    let batch = run.masking_view(2, Some(4), 2).unwrap();
    let status = DeviceStatus {
        pref: DevicePref::Gpu,
        adapter: Some("vendor arch".into()),
        emulated: true,
        problem: Some("lost".into()),
        on_gpu: false,
        race: Some((1.5, 2.5)),
    };

    // a fine-tuning run of the QA fixture, stepped once, for the fine-tune messages
    let qa_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/models/task_qa");
    let qa = Bert::from_dir(&qa_dir).unwrap();
    let qa_lines = r#"{"question": "who sat?", "context": "the cat sat on the mat", "answer": {"text": "the cat", "start": 0}}
{"question": "where?", "context": "the dog ran on the mat", "answer": {"text": "the mat", "start": 15}}
"#;
    let tune_setup = TuneSetup {
        batch: 2,
        steps: 2,
        eval_every: 1,
        ..TuneSetup::defaults(TaskKind::QuestionAnswering, TuneData::Text { train: qa_lines.into(), test: Some(qa_lines.into()) })
    };
    let mut tune = TuneSession::new(&qa, qa_lines, Some(qa_lines), &tune_setup, &crate::backend::Backend::cpu()).unwrap();
    let (tune_step, tune_scores) = block_on(tune.step()).unwrap();
    let tune_scores = tune_scores.expect("evaluated every step");
    let tune_batch = block_on(tune.batch_view(2)).unwrap();
    let tune_probe = tune.probe("who sat?", Some("the cat sat on the mat")).unwrap();
    assert!(tune_probe.after.is_some() && !tune_batch.examples.is_empty());

    // a translation run of a few pairs, stepped once, and a beam search step for the decode view
    let pairs = "{\"source\": \"1 2\", \"target\": \"twelve\"}\n{\"source\": \"3\", \"target\": \"three\"}\n".repeat(3);
    use crate::explain::decode::{DecodeAction, DecodeRequest};
    use crate::explain::translate::{TranslateData, TranslateSetup};
    let tr_setup =
        TranslateSetup { steps: 2, batch: 2, eval_every: 1, ..TranslateSetup::defaults("custom", TranslateData::Text(pairs.clone())) };
    let mut tr = TranslateSession::new(&pairs, None, &tr_setup).unwrap();
    let (tr_point, tr_scores) = tr.step().unwrap();
    let tr_scores = tr_scores.expect("evaluated every step");
    let beam = crate::seq2seq::stepper::Method::Beam { k: 2, length_penalty: 1.0 };
    let decode = DecodeRequest { source: "1 2".into(), method: beam };
    let tr_view = tr.decode(&decode, DecodeAction::Step).unwrap();
    assert!(
        tr_view.beams.is_some() && tr_view.self_attn.iter().any(|a| a.scores.contains(&f32::NEG_INFINITY)) == (tr_view.prefix.len() > 1)
    );

    let to = vec![
        ToEngine::Load { base_url: "http://127.0.0.1/models/bert-tiny/".into() },
        ToEngine::LoadFiles(vec![
            PickedFile { name: "m/config.json".into(), bytes: b"{}".to_vec() },
            PickedFile { name: "m/model.safetensors".into(), bytes: vec![0, 255, 7] },
        ]),
        ToEngine::Explain(req.clone()),
        ToEngine::Explain(Request {
            why: Some(crate::explain::why::WhyRequest {
                target: Some("mask:3:sat".into()),
                method: Some(crate::infer::attribute::Method::GradXInput),
                steps: 32,
            }),
            ..req.clone()
        }),
        ToEngine::Device(DevicePref::Cpu),
        ToEngine::BenchAttribution { rounds: 3 },
        ToEngine::Survey(SurveyCmd::Start { url: "http://127.0.0.1/corpora/survey-sample.txt".into() }),
        ToEngine::Survey(SurveyCmd::Text { text: "the cat sat.\nthe dog ran.".into() }),
        ToEngine::Survey(SurveyCmd::Coref { dev_url: "http://127.0.0.1/datasets/coref/dev.jsonl".into(), test_url: "t".into() }),
        ToEngine::Search(crate::explain::corpus_search::SearchRequest { req: req.clone(), position: 2, layer: 1, head: Some(0), k: 20 }),
        ToEngine::QueriesKeys(crate::explain::qk_scatter::QkRequest { req: req.clone(), layer: 2, head: 1 }),
        ToEngine::Survey(SurveyCmd::Pause),
        ToEngine::Survey(SurveyCmd::Resume),
        ToEngine::Survey(SurveyCmd::Cancel),
        ToEngine::Train(TrainCmd::Start(setup.clone())),
        ToEngine::Train(TrainCmd::Step(TrainSetup { corpus: CorpusSource::Url("corpora/simple.txt".into()), ..setup.clone() })),
        ToEngine::Train(TrainCmd::Pause),
        ToEngine::Train(TrainCmd::Reset),
        ToEngine::Train(TrainCmd::Ask(Reroll { seed: Some(u64::MAX) })),
        ToEngine::Train(TrainCmd::Ask(Reroll { seed: None })),
        ToEngine::Train(TrainCmd::Use(true)),
        ToEngine::Train(TrainCmd::Save),
        ToEngine::Tune(TuneCmd::Start(tune_setup.clone())),
        ToEngine::Tune(TuneCmd::Start(TuneSetup {
            data: TuneData::Urls { train: "datasets/x/train.jsonl".into(), test: "datasets/x/test.jsonl".into() },
            start: TuneStart::Random,
            compare: true,
            tiny_base: "http://h/models/bert-tiny/".into(),
            ..tune_setup.clone()
        })),
        ToEngine::Tune(TuneCmd::Pause),
        ToEngine::Tune(TuneCmd::Reset),
        ToEngine::Tune(TuneCmd::Use(true)),
        ToEngine::Translate(TranslateCmd::Use(false)),
        ToEngine::Tune(TuneCmd::Save),
        ToEngine::Tune(TuneCmd::Ask(ProbeAsk { text: "who sat?".into(), pair: Some("the cat sat".into()) })),
        ToEngine::Translate(TranslateCmd::Start(tr_setup.clone())),
        ToEngine::Translate(TranslateCmd::Start(TranslateSetup {
            data: TranslateData::Urls { train: "datasets/numbers/train.jsonl".into(), test: "datasets/numbers/test.jsonl".into() },
            ..tr_setup.clone()
        })),
        ToEngine::Translate(TranslateCmd::Pause),
        ToEngine::Translate(TranslateCmd::Reset),
        ToEngine::Translate(TranslateCmd::Ask(DecodeAsk { req: decode.clone(), action: DecodeAction::RunToEnd })),
        ToEngine::Translate(TranslateCmd::Ask(DecodeAsk {
            req: DecodeRequest {
                source: "4 5 7".into(),
                method: crate::seq2seq::stepper::Method::Sample { temperature: 0.8, top_k: 5, seed: 9 },
            },
            action: DecodeAction::Restart,
        })),
        ToEngine::Translate(TranslateCmd::Step(tr_setup.clone())),
        ToEngine::Tune(TuneCmd::Step(tune_setup.clone())),
        ToEngine::Translate(TranslateCmd::Save),
    ];
    for m in &to {
        round_trip(&format!("{m:?}").chars().take(40).collect::<String>(), m);
    }
    let from = vec![
        FromEngine::Progress { loaded: 3, total: 9_000_000 },
        FromEngine::Loaded { info: info.clone(), bytes: 8_800_000, ms: 612.5 },
        FromEngine::LoadFailed("config.json: HTTP 404".into()),
        FromEngine::Snapshot(Box::new(snap.clone())),
        FromEngine::Snapshot(Box::new({
            // a fine-tuned model's snapshot carries its task output
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/models/task_qa");
            let qa = Bert::from_dir(&dir).unwrap();
            let s = build(&qa, &Request { pair: Some("the cat sat on the mat".into()), ..req.clone() }).unwrap();
            assert!(s.task.is_some());
            s
        })),
        FromEngine::Failed { seq: 4, message: "the text is empty".into() },
        FromEngine::Compare { seq: 9, predictions: snap.predictions.clone() },
        FromEngine::ModelChanged { info: info.clone(), trained: true },
        FromEngine::Device(status),
        FromEngine::Positions(Box::new(position_view(&bert))),
        FromEngine::Train(TrainEvent::Preparing("fetching the corpus…".into())),
        FromEngine::Train(TrainEvent::Ready {
            ready: Box::new(TrainReady { info, train_tokens: 120, eval_loss: 4.5, eval_acc: 0.1 }),
            setup_ms: 30.0,
            device: "CPU (wasm)".into(),
        }),
        FromEngine::Train(TrainEvent::Progress(Progress {
            points: vec![log],
            step: 1,
            total: 2,
            running: true,
            per_s: 1e4,
            ms_per_step: 3.0,
            memory: 1 << 24,
        })),
        FromEngine::Train(TrainEvent::Show(TrainShow::Frame(Box::new(frame)))),
        FromEngine::Train(TrainEvent::Show(TrainShow::Batch(Box::new(batch)))),
        FromEngine::Train(TrainEvent::Saved { step: 1, links: vec![("model.safetensors".into(), 1234, "blob:http://127.0.0.1/x".into())] }),
        FromEngine::Train(TrainEvent::Failed("the loss is not finite".into())),
        FromEngine::Train(TrainEvent::Reset),
        FromEngine::Tune(TuneEvent::Preparing("fetching the data set…".into())),
        FromEngine::Tune(TuneEvent::Ready {
            ready: Box::new(TuneReady {
                info: crate::explain::snapshot::model_info(&qa),
                train: 2,
                held_out: 2,
                scores: tune_scores.clone(),
            }),
            setup_ms: 12.0,
            device: "CPU (wasm)".into(),
        }),
        FromEngine::Tune(TuneEvent::Progress(Progress {
            points: vec![tune_step],
            step: 1,
            total: 2,
            running: true,
            per_s: 100.0,
            ..Default::default()
        })),
        FromEngine::Tune(TuneEvent::Show(TuneShow::Scores(Box::new(tune_scores)))),
        FromEngine::Tune(TuneEvent::Show(TuneShow::Batch(Box::new(tune_batch)))),
        FromEngine::Tune(TuneEvent::Show(TuneShow::Probe(Box::new(tune_probe)))),
        FromEngine::Tune(TuneEvent::Saved { step: 3, links: vec![("config.json".into(), 12, "blob:x".into())] }),
        FromEngine::Tune(TuneEvent::Failed("test.jsonl line 3: unknown label `maybe`".into())),
        FromEngine::Tune(TuneEvent::Reset),
        FromEngine::Translate(TranslateEvent::Preparing("learning a vocabulary…".into())),
        FromEngine::Translate(TranslateEvent::Ready {
            ready: Box::new(TranslateReady {
                info: tr.info(),
                train: tr.train_pairs(),
                held_out: tr.eval_pairs(),
                scores: tr_scores.clone(),
            }),
            setup_ms: 40.0,
            device: "CPU (wasm)".into(),
        }),
        FromEngine::Translate(TranslateEvent::Progress(Progress {
            points: vec![tr_point],
            step: 1,
            total: 2,
            per_s: 900.0,
            ..Default::default()
        })),
        FromEngine::Translate(TranslateEvent::Show(TranslateShow::Scores(Box::new(tr_scores)))),
        FromEngine::Translate(TranslateEvent::Show(TranslateShow::Decoded { view: Box::new(tr_view), ms: 1.25 })),
        FromEngine::Translate(TranslateEvent::Show(TranslateShow::DecodeFailed(
            "type a sentence to translate: the source is empty".into(),
        ))),
        FromEngine::Translate(TranslateEvent::Failed("the pasted data, line 3: not a pair".into())),
        FromEngine::Translate(TranslateEvent::Reset),
        FromEngine::Translate(TranslateEvent::Saved { step: 2, links: vec![("config.json".into(), 40, "blob:y".into())] }),
        FromEngine::Why(Box::new({
            let w = crate::explain::why::WhyRequest { target: None, method: Some(crate::infer::attribute::Method::Ig), steps: 4 };
            let prep = crate::explain::why::prepare(&bert, &snap, &w).expect("a [MASK] to explain");
            block_on(crate::explain::why::finish(&mut crate::backend::Backend::cpu(), &bert, (0, 0), prep)).unwrap()
        })),
        FromEngine::WhyFailed { seq: 3, message: "target `class:x`: no label".into() },
        FromEngine::Bench(Ok(block_on(crate::explain::attribute_bench::attribution_timings(&bert, 1, &|| 0.5)).unwrap())),
        FromEngine::Bench(Err("the model has no masked-LM head".into())),
        FromEngine::Survey(SurveyEvent::Progress { done: 3, total: 1000, ms: 12.5, running: true }),
        FromEngine::Survey(SurveyEvent::Done {
            report: Box::new({
                let mut s = crate::app::head_survey::HeadSurvey::new(&bert, "the cat sat.\nthe [MASK] ran.", 2).unwrap();
                block_on(s.run(&mut crate::backend::Backend::cpu(), &bert, (0, 0), 5)).unwrap();
                s.report()
            }),
            ms: 40.0,
            index_bytes: 1 << 20,
            memory: 1 << 26,
        }),
        FromEngine::Survey(SurveyEvent::CorefDone {
            report: Box::new({
                let items = crate::app::coref_probe::parse_items(
                    "{\"text\": \"the cat sat.\", \"pronoun\": [0, 3], \"antecedent\": [4, 7], \"distractor\": [8, 11]}",
                )
                .unwrap();
                block_on(crate::app::coref_probe::probe(&mut crate::backend::Backend::cpu(), &bert, (0, 0), &items, &items)).unwrap()
            }),
            ms: 9.0,
        }),
        FromEngine::Survey(SurveyEvent::Stopped(Some("The model changed".into()))),
        FromEngine::Survey(SurveyEvent::Stopped(None)),
        FromEngine::Search(Ok(Box::new(crate::explain::corpus_search::SearchView {
            token: "cat".into(),
            position: 2,
            layer: 1,
            head: None,
            matches: vec![crate::explain::corpus_search::IndexMatch {
                line: 4,
                position: 1,
                score: 0.93,
                pieces: vec!["[CLS]".into(), "cat".into(), "[SEP]".into()],
            }],
            same_word: 1,
            common: vec![("cat".into(), 1)],
            ms: 3.5,
        }))),
        FromEngine::Search(Err("Survey the 1,000 sentences first".into())),
        FromEngine::QueriesKeys(Ok(Box::new(crate::explain::qk_scatter::QkView {
            layer: 2,
            head: 1,
            explained: [0.4, 0.2],
            queries: vec![[0.5, -1.0]],
            keys: vec![[1.5, 2.0]],
            tokens: vec![(4, 1)],
            lines: vec![(4, vec!["[CLS]".into(), "cat".into(), "[SEP]".into()])],
            sentence: vec![crate::explain::qk_scatter::QkToken { text: "the".into(), query: [0.0, 1.0], key: [1.0, 0.0] }],
            attention: vec![vec![1.0]],
            ms: 80.0,
        }))),
        FromEngine::QueriesKeys(Err("Survey the sentences first".into())),
    ];
    for m in &from {
        round_trip(&format!("{m:?}").chars().take(40).collect::<String>(), m);
    }
    // every variant is in the lists (a new one fails to compile here until it is added)
    let to_kinds: std::collections::BTreeSet<usize> = to
        .iter()
        .map(|m| match m {
            ToEngine::Load { .. } => 0,
            ToEngine::LoadFiles(_) => 1,
            ToEngine::Explain(_) => 2,
            ToEngine::Device(_) => 3,
            ToEngine::BenchAttribution { .. } => 22,
            ToEngine::Survey(c) => match c {
                SurveyCmd::Start { .. } => 23,
                SurveyCmd::Coref { .. } => 27,
                SurveyCmd::Text { .. } => 30,
                SurveyCmd::Pause => 24,
                SurveyCmd::Resume => 25,
                SurveyCmd::Cancel => 26,
            },
            ToEngine::Search(_) => 28,
            ToEngine::QueriesKeys(_) => 29,
            ToEngine::Train(c) => 100 + cmd_kind(c),
            ToEngine::Tune(c) => 200 + cmd_kind(c),
            ToEngine::Translate(c) => 300 + cmd_kind(c),
        })
        .collect();
    assert_eq!(to_kinds.len(), 34, "ToEngine / JobCmd variants covered: {to_kinds:?}");

    let from_kinds: std::collections::BTreeSet<usize> = from
        .iter()
        .map(|m| match m {
            FromEngine::Progress { .. } => 0,
            FromEngine::Loaded { .. } => 1,
            FromEngine::LoadFailed(_) => 2,
            FromEngine::Snapshot(_) => 3,
            FromEngine::Failed { .. } => 4,
            FromEngine::Compare { .. } => 5,
            FromEngine::ModelChanged { .. } => 6,
            FromEngine::Device(_) => 7,
            FromEngine::Positions(_) => 8,
            FromEngine::Why(_) => 26,
            FromEngine::WhyFailed { .. } => 27,
            FromEngine::Bench(_) => 37,
            FromEngine::Survey(e) => match e {
                SurveyEvent::Progress { .. } => 38,
                SurveyEvent::Done { .. } => 39,
                SurveyEvent::CorefDone { .. } => 42,
                SurveyEvent::Stopped(Some(_)) => 40,
                SurveyEvent::Stopped(None) => 41,
            },
            FromEngine::Search(Ok(_)) => 43,
            FromEngine::Search(Err(_)) => 44,
            FromEngine::QueriesKeys(Ok(_)) => 45,
            FromEngine::QueriesKeys(Err(_)) => 46,
            FromEngine::Train(e) => {
                100 + event_kind(e)
                    + match e {
                        TrainEvent::Show(TrainShow::Batch(_)) => 1,
                        _ => 0,
                    }
            }
            FromEngine::Tune(e) => {
                200 + event_kind(e)
                    + match e {
                        TuneEvent::Show(TuneShow::Batch(_)) => 1,
                        TuneEvent::Show(TuneShow::Probe(_)) => 2,
                        _ => 0,
                    }
            }
            FromEngine::Translate(e) => {
                300 + event_kind(e)
                    + match e {
                        TranslateEvent::Show(TranslateShow::Decoded { .. }) => 1,
                        TranslateEvent::Show(TranslateShow::DecodeFailed(_)) => 2,
                        _ => 0,
                    }
            }
        })
        .collect();
    assert_eq!(from_kinds.len(), 47, "FromEngine / TrainEvent variants covered: {from_kinds:?}");
}

/// A long job's command, by kind (tens: a kind's own requests count from 50).
fn cmd_kind<S, A>(c: &JobCmd<S, A>) -> usize {
    match c {
        JobCmd::Start(_) => 0,
        JobCmd::Step(_) => 10,
        JobCmd::Pause => 20,
        JobCmd::Reset => 30,
        JobCmd::Save => 40,
        JobCmd::Use(_) => 50,
        JobCmd::Ask(_) => 60,
    }
}

/// A long job's event, by kind (tens: what it shows counts from 30).
fn event_kind<R, P, V>(e: &JobEvent<R, P, V>) -> usize {
    match e {
        JobEvent::Preparing(_) => 0,
        JobEvent::Ready { .. } => 10,
        JobEvent::Progress(_) => 20,
        JobEvent::Show(_) => 30,
        JobEvent::Saved { .. } => 40,
        JobEvent::Failed(_) => 50,
        JobEvent::Reset => 60,
    }
}
