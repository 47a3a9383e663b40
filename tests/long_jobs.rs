//! The page's long jobs through their one shape (`app::jobs::Job`), natively, with a host that
//! serves texts and models as the worker does: each kind sets itself up (what it says while
//! preparing, the texts it fetches, the model it starts from), steps, shows, answers its own
//! request and saves a model that loads back; a missing text or model is a message naming it.

use bertscope::app::jobs::finetune::TuneSession;
use bertscope::app::jobs::pretrain::TrainSession;
use bertscope::app::jobs::translate::TranslateSession;
use bertscope::app::jobs::{Host, Job, JobKind, StartModel};
use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::config::TaskKind;
use bertscope::explain::decode::{DecodeAction, DecodeRequest};
use bertscope::explain::finetune::{TuneData, TuneSetup, TuneStart};
use bertscope::explain::training::{CorpusSource, TrainMode, TrainSetup};
use bertscope::explain::translate::{TranslateData, TranslateSetup};
use bertscope::seq2seq::stepper::Method;
use bertscope_view::protocol::{DecodeAsk, ProbeAsk, Reroll, TrainShow, TranslateShow, TuneShow};
use std::collections::HashMap;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// The worker, as a run's set-up sees it: texts by URL, the loaded and bundled models, what was
/// said, what was fetched.
#[derive(Default)]
struct FakeHost {
    texts: HashMap<String, String>,
    loaded: Option<Bert>,
    tiny: Option<Bert>,
    said: Vec<String>,
    fetched: Vec<String>,
}

impl Host for FakeHost {
    async fn preparing(&mut self, what: &str) {
        self.said.push(what.into());
    }

    async fn fetch_text(&mut self, url: &str, what: &str) -> Result<String, String> {
        self.fetched.push(url.into());
        self.texts.get(url).cloned().ok_or_else(|| format!("cannot fetch {what} {url}: HTTP 404"))
    }

    async fn ready_model(&mut self, which: &StartModel) -> Result<(), String> {
        match which {
            StartModel::Tiny(url) => {
                self.fetched.push(url.clone());
                self.tiny = Some(Bert::from_dir(&root().join("www/models/bert-tiny")).unwrap());
                Ok(())
            }
            StartModel::Loaded if self.loaded.is_some() => Ok(()),
            StartModel::Loaded => Err("The model is not loaded yet.".into()),
            StartModel::Pretrained => Err("No model was pre-trained in the train tab yet.".into()),
        }
    }

    fn model(&self, which: &StartModel) -> Option<&Bert> {
        match which {
            StartModel::Loaded => self.loaded.as_ref(),
            StartModel::Tiny(_) => self.tiny.as_ref(),
            StartModel::Pretrained => None,
        }
    }

    fn backend(&self) -> Option<(&Backend, String)> {
        None
    }

    async fn backend_failed(&mut self, _why: String) {
        unreachable!("no backend was offered")
    }
}

/// `run` stepped to its end: the points' count and what it showed on the way.
fn run_out<J: Job>(run: &mut J) -> (usize, Vec<J::Show>) {
    let (mut points, mut shown) = (0, vec![]);
    while !run.finished() {
        let (_, units, show) = block_on(run.step()).unwrap();
        assert!(units > 0, "a step takes some units (the throughput)");
        points += 1;
        shown.extend(show);
    }
    assert!(block_on(run.step()).is_err(), "no step past the end");
    (points, shown)
}

#[test]
fn pretraining_fetches_its_corpus_trains_shows_and_saves() {
    let corpus = read("www/corpora/simple.txt").chars().take(40_000).collect::<String>();
    let mut host = FakeHost { texts: HashMap::from([("http://h/corpora/simple.txt".to_string(), corpus)]), ..Default::default() };
    let setup = TrainSetup {
        batch: 4,
        seq: 32,
        steps: 12,
        vocab_size: 200,
        snap_every: 4,
        eval_every: 6,
        ..TrainSetup::defaults(TrainMode::Scratch, CorpusSource::Url("http://h/corpora/simple.txt".into()))
    };
    assert_eq!(TrainSession::KIND, JobKind::Pretrain);
    let (mut run, ready, device) = block_on(TrainSession::prepare(&setup, &mut host)).unwrap();
    assert_eq!(host.fetched, ["http://h/corpora/simple.txt"]);
    assert_eq!(host.said[0], "fetching the corpus…");
    assert!(host.said[1].contains("200-piece WordPiece vocabulary"), "{:?}", host.said);
    assert_eq!(device, "CPU (wasm)");
    assert!(ready.train_tokens > 0 && ready.eval_loss.is_finite() && ready.info.layers == 2);
    assert!(matches!(block_on(run.shown(true)).unwrap(), Some(TrainShow::Frame(f)) if f.step == 0), "the probe's frame at step 0");
    assert!(block_on(run.shown(false)).unwrap().is_none(), "no batch before the first step");
    let (points, shown) = run_out(&mut run);
    assert_eq!((points, run.steps()), (12, (12, 12)));
    let frames: Vec<usize> = shown.iter().map(|s| if let TrainShow::Frame(f) = s { f.step } else { usize::MAX }).collect();
    assert_eq!(frames, [4, 8, 12], "a filmstrip frame every 4 steps");
    let a = block_on(TrainSession::ask(Some(&mut run), Reroll { seed: Some(3) }, &|| 0.0)).unwrap();
    assert!(matches!(a, Some(TrainShow::Batch(v)) if v.reroll_seed == Some(3) && !v.rows.is_empty()));
    assert!(block_on(TrainSession::ask(None, Reroll { seed: None }, &|| 0.0)).unwrap().is_none(), "no run: nothing to re-roll");
    let files = block_on(run.files()).unwrap();
    let back = Bert::from_files(&files).unwrap();
    assert_eq!(back.params.emb.word, run.trainer.bert.params.emb.word, "the saved weights are the run's");
    assert!(run.bert().is_some(), "the explainer can use the trained model");
}

#[test]
fn a_missing_corpus_or_model_is_a_message_naming_it() {
    let setup = TrainSetup::defaults(TrainMode::Scratch, CorpusSource::Url("http://h/corpora/gone.txt".into()));
    let e = block_on(TrainSession::prepare(&setup, &mut FakeHost::default())).err().unwrap();
    assert!(e.contains("the corpus") && e.contains("gone.txt"), "{e}");
    let text = read("www/corpora/simple.txt").chars().take(5_000).collect::<String>();
    let setup = TrainSetup { ..TrainSetup::defaults(TrainMode::Continue, CorpusSource::Text(text)) };
    let e = block_on(TrainSession::prepare(&setup, &mut FakeHost::default())).err().unwrap();
    assert_eq!(e, "The model is not loaded yet.");
    let bad = TrainSetup { batch: 0, ..setup };
    assert!(block_on(TrainSession::prepare(&bad, &mut FakeHost::default())).err().unwrap().contains("batch"));
}

#[test]
fn fine_tuning_starts_from_the_bundled_model_and_compares_a_sentence() {
    let (train, test) = (read("www/datasets/sentiment/train.jsonl"), read("www/datasets/sentiment/test.jsonl"));
    let take = |t: &str, n: usize| t.lines().take(n).map(|l| format!("{l}\n")).collect::<String>();
    let mut host = FakeHost {
        texts: HashMap::from([
            ("http://h/s/train.jsonl".to_string(), take(&train, 200)),
            ("http://h/s/test.jsonl".to_string(), take(&test, 40)),
        ]),
        ..Default::default()
    };
    let data = TuneData::Urls { train: "http://h/s/train.jsonl".into(), test: "http://h/s/test.jsonl".into() };
    let setup = TuneSetup {
        start: TuneStart::Tiny,
        tiny_base: "http://h/models/bert-tiny/".into(),
        steps: 6,
        batch: 8,
        seq: 32,
        eval_every: 3,
        ..TuneSetup::defaults(TaskKind::SequenceClassification, data)
    };
    let (mut run, ready, _) = block_on(TuneSession::prepare(&setup, &mut host)).unwrap();
    assert_eq!(host.fetched, ["http://h/s/train.jsonl", "http://h/s/test.jsonl", "http://h/models/bert-tiny/"]);
    assert_eq!((ready.train, ready.held_out, ready.scores.step), (200, 40, 0));
    let e = block_on(TuneSession::ask(None, ProbeAsk { text: "great".into(), pair: None }, &|| 0.0)).err().unwrap();
    assert!(e.to_string().contains("Start a run first"));
    let (points, shown) = run_out(&mut run);
    assert_eq!(points, 6);
    let evals: Vec<usize> = shown.iter().map(|s| if let TuneShow::Scores(s) = s { s.step } else { 0 }).collect();
    assert_eq!(evals, [3, 6], "held-out scores every 3 steps");
    assert!(matches!(block_on(run.shown(false)).unwrap(), Some(TuneShow::Batch(b)) if !b.examples.is_empty()));
    let p = block_on(TuneSession::ask(Some(&mut run), ProbeAsk { text: "a wonderful film".into(), pair: None }, &|| 0.0)).unwrap();
    assert!(matches!(p, Some(TuneShow::Probe(p)) if p.before.is_some() && p.after.is_some() && p.step == 6));
    let back = Bert::from_files(&block_on(run.files()).unwrap()).unwrap();
    assert!(back.params.task.is_some(), "the saved model has its classifier");
    let own = TuneSetup { start: TuneStart::Loaded, data: TuneData::Text { train: take(&train, 50), test: None }, ..setup };
    let e = block_on(TuneSession::prepare(&own, &mut FakeHost::default())).err().unwrap();
    assert_eq!(e, "The model is not loaded yet.", "no model: a message, no run");
}

#[test]
fn translation_decodes_to_the_end_a_slice_at_a_time() {
    let pairs: String = read("www/datasets/numbers/train.jsonl").lines().take(300).map(|l| format!("{l}\n")).collect();
    let setup = TranslateSetup { steps: 40, eval_every: 20, ..TranslateSetup::defaults("numbers", TranslateData::Text(pairs)) };
    let mut host = FakeHost::default();
    let (mut run, ready, device) = block_on(TranslateSession::prepare(&setup, &mut host)).unwrap();
    assert!(host.fetched.is_empty(), "pasted pairs fetch nothing");
    assert_eq!((ready.train, ready.held_out, device.as_str()), (270, 30, "CPU (wasm)"));
    let ask = |action| DecodeAsk { req: DecodeRequest { source: "4 5 7".into(), method: Method::Greedy }, action };
    let none = block_on(TranslateSession::ask(None, ask(DecodeAction::Step), &|| 0.0)).unwrap();
    assert!(matches!(none, Some(TranslateShow::DecodeFailed(m)) if m.contains("Train a model first")));
    let (points, _) = run_out(&mut run);
    assert_eq!(points, 40);
    // to the end: the first step now, the rest by `more`, here one step a slice (a clock that
    // moves 1 ms a call against a budget of 0 ms)
    let first = block_on(TranslateSession::ask(Some(&mut run), ask(DecodeAction::RunToEnd), &|| 0.0)).unwrap();
    assert!(matches!(first, Some(TranslateShow::Decoded { ref view, .. }) if view.step == 1));
    let clock = std::cell::Cell::new(0.0);
    let now = || {
        clock.set(clock.get() + 1.0);
        clock.get()
    };
    let mut steps = vec![];
    while run.pending() {
        match run.more(0.0, &now) {
            Some(TranslateShow::Decoded { view, ms }) => {
                assert!(ms >= 1.0, "each slice's step is timed by the clock given");
                steps.push(view.step);
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(!steps.is_empty() && steps.windows(2).all(|w| w[1] == w[0] + 1), "one step a slice: {steps:?}");
    assert!(run.more(10.0, &now).is_none(), "nothing left to do");
    assert!(run.bert().is_none(), "an encoder-decoder is not the explainer's model");
}
