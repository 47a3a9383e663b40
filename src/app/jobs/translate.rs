//! Translation training in the page, a long job: a new encoder-decoder from scratch on a bundled pair set or pasted
//! JSON lines, the held-out pairs, and what the Translate tab asks of them (curve points, the
//! held-out exact match with a few translations, and decoding a sentence of your own one step at a
//! time; "to the end" a slice of steps at a time, so the page sees each token arrive). No browser
//! code here: tested natively. CPU only.

use crate::app::jobs::{message, Host, Job, JobKind};
use crate::bundle::ModelFiles;
use crate::error::{BertError, Result};
use crate::explain::decode::{DecodeAction, DecodeRequest, DecodeView};
use crate::explain::translate::TranslateData;
use crate::explain::translate::{Seq2SeqInfo, TranslateExample, TranslatePoint, TranslateScores, TranslateSetup};
use crate::seq2seq::generate::greedy;
use crate::seq2seq::stepper::Stepper;
use crate::train::seq2seq::{from_scratch, read_pairs, Pair, Seq2SeqOptions, Seq2SeqTrainer};
use bertscope_view::protocol::{DecodeAsk, FromEngine, TranslateEvent, TranslateReady, TranslateShow};

/// Held-out pairs shown with the model's translation.
const EXAMPLES: usize = 5;

pub struct TranslateSession {
    pub setup: TranslateSetup,
    pub trainer: Seq2SeqTrainer,
    train_pairs: usize,
    /// The held-out pairs scored (at most `setup.eval_max`); the training pairs when none were held out.
    eval: Vec<Pair>,
    held_out: bool,
    decoding: Option<Decoding>,
    /// "Run to the end" in progress: this request, a slice of steps at a time.
    to_end: Option<DecodeRequest>,
}

/// A sentence being decoded: what was asked, where decoding is, the view of its last step.
struct Decoding {
    req: DecodeRequest,
    stepper: Stepper,
    view: DecodeView,
}

/// `text`'s pairs, a bad line named as `what`, line N.
fn pairs(text: &str, what: &str) -> Result<Vec<Pair>> {
    read_pairs(text).map_err(|e| match e {
        BertError::Input(m) => BertError::Input(format!("{what}, {m}")),
        e => e,
    })
}

/// Spaces normalised, for exact match.
fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl TranslateSession {
    /// A new model for the pairs of `train_text` (JSON lines of {"source", "target"}); held out:
    /// `test_text`, or every tenth pair when it is None.
    pub fn new(train_text: &str, test_text: Option<&str>, setup: &TranslateSetup) -> Result<Self> {
        setup.check().map_err(BertError::Input)?;
        let (train, test) = match test_text {
            Some(t) => (pairs(train_text, "the training data")?, pairs(t, "the held-out data")?),
            None => {
                let all = pairs(train_text, "the pasted data")?;
                let (mut train, mut test) = (vec![], vec![]);
                for (i, p) in all.into_iter().enumerate() {
                    if i % 10 == 9 { &mut test } else { &mut train }.push(p);
                }
                (train, test)
            }
        };
        let held_out = !test.is_empty();
        let mut eval = if held_out { test } else { train.clone() };
        eval.truncate(setup.eval_max);
        let s = setup;
        let model = from_scratch(&train, s.hidden, s.layers, s.heads, s.max_len, s.vocab_size, s.seed)?;
        let opts = Seq2SeqOptions { steps: s.steps, batch: s.batch, lr: s.lr, warmup: None, seed: s.seed };
        let trainer = Seq2SeqTrainer::new(model, &train, opts)?;
        Ok(TranslateSession { setup: setup.clone(), trainer, train_pairs: train.len(), eval, held_out, decoding: None, to_end: None })
    }

    pub fn info(&self) -> Seq2SeqInfo {
        crate::explain::translate::seq2seq_info(&self.trainer.model)
    }

    pub fn step_count(&self) -> usize {
        self.trainer.step_count()
    }

    pub fn train_pairs(&self) -> usize {
        self.train_pairs
    }

    pub fn eval_pairs(&self) -> usize {
        self.eval.len()
    }

    /// The held-out exact match is due after the current step.
    pub fn eval_due(&self) -> bool {
        self.step_count().is_multiple_of(self.setup.eval_every) || self.finished()
    }

    /// One training step, with the held-out score when due.
    pub fn step(&mut self) -> Result<(TranslatePoint, Option<TranslateScores>)> {
        if self.finished() {
            return Err(BertError::Input(format!("the run is complete ({} steps): reset to train again", self.setup.steps)));
        }
        let mut point = self.trainer.step()?;
        let scores = if self.eval_due() { Some(self.score()?) } else { None };
        point.exact_match = scores.as_ref().map(|s| s.exact_match);
        Ok((point, scores))
    }

    /// Greedy decoding of every held-out source against its target, now.
    pub fn score(&self) -> Result<TranslateScores> {
        let m = &self.trainer.model;
        let mut hits = 0;
        let mut examples = vec![];
        for (i, p) in self.eval.iter().enumerate() {
            let target = norm(&m.tokenizer.decode(&m.tokenizer.ids(&p.target)?)?);
            let out = greedy(m, &p.source, m.tokenizer.ids(&p.target)?.len() + 2, 1)?;
            let correct = norm(&out.text) == target;
            hits += usize::from(correct);
            if i < EXAMPLES {
                examples.push(TranslateExample { source: p.source.clone(), target: p.target.clone(), output: out.text, correct });
            }
        }
        Ok(TranslateScores {
            step: self.step_count(),
            exact_match: hits as f32 / self.eval.len().max(1) as f32,
            pairs: self.eval.len(),
            held_out: self.held_out,
            examples,
        })
    }

    /// Decoding `req`: back to its start, one step, or every step to the end. A request other than
    /// the one in progress (another source or method) starts again first.
    pub fn decode(&mut self, req: &DecodeRequest, action: DecodeAction) -> Result<DecodeView> {
        let m = &self.trainer.model;
        let fresh = action == DecodeAction::Restart || self.decoding.as_ref().is_none_or(|d| &d.req != req);
        if fresh {
            let stepper = Stepper::new(m, &req.source, req.method.clone(), m.cfg.decoder.max_tokens())?;
            let look = stepper.look(m)?;
            let view = crate::explain::decode::decode_view(m, &stepper, &look);
            self.decoding = Some(Decoding { req: req.clone(), stepper, view });
        }
        let d = self.decoding.as_mut().expect("decoding was set up");
        if action != DecodeAction::Restart {
            loop {
                if let Some(look) = d.stepper.step(m)? {
                    d.view = crate::explain::decode::decode_view(m, &d.stepper, &look);
                } else {
                    // done without a step (out of room): the view says so
                    d.view.done = true;
                    break;
                }
                if action == DecodeAction::Step || d.stepper.done {
                    break;
                }
            }
        }
        Ok(d.view.clone())
    }

    /// The decoding in progress has reached its end (or none is in progress).
    pub fn decode_done(&self) -> bool {
        self.decoding.as_ref().is_none_or(|d| d.stepper.done)
    }
}

impl Job for TranslateSession {
    const KIND: JobKind = JobKind::Translate;
    type Setup = TranslateSetup;
    type Ask = DecodeAsk;
    type Ready = TranslateReady;
    type Point = TranslatePoint;
    type Show = TranslateShow;

    async fn prepare(setup: &TranslateSetup, host: &mut impl Host) -> std::result::Result<(Self, TranslateReady, String), String> {
        setup.check()?;
        let (train, test) = match &setup.data {
            TranslateData::Text(t) => (t.clone(), None),
            TranslateData::Urls { train, test } => {
                host.preparing("fetching the pairs…").await;
                (host.fetch_text(train, "the training pairs").await?, Some(host.fetch_text(test, "the held-out pairs").await?))
            }
        };
        host.preparing("learning a WordPiece vocabulary from both sides of the pairs, making the model…").await;
        let run = TranslateSession::new(&train, test.as_deref(), setup).map_err(message)?;
        let scores = run.score().map_err(message)?;
        let ready = TranslateReady { info: run.info(), train: run.train_pairs(), held_out: run.eval_pairs(), scores };
        Ok((run, ready, "CPU (wasm)".into()))
    }

    fn steps(&self) -> (usize, usize) {
        (self.step_count(), self.setup.steps)
    }

    async fn step(&mut self) -> Result<(TranslatePoint, usize, Option<TranslateShow>)> {
        let (point, scores) = TranslateSession::step(self)?;
        Ok((point, self.setup.batch, scores.map(|s| TranslateShow::Scores(Box::new(s)))))
    }

    /// Decoding a sentence with the run's model: back to the start, one step, or the first step
    /// of "run to the end" (`more` takes the rest).
    async fn ask(run: Option<&mut Self>, DecodeAsk { req, action }: DecodeAsk, now: &dyn Fn() -> f64) -> Result<Option<TranslateShow>> {
        let Some(run) = run else {
            return Ok(Some(TranslateShow::DecodeFailed(
                "Train a model first: press Start above (the numbers take a few seconds).".into(),
            )));
        };
        run.to_end = None;
        let first = if action == DecodeAction::RunToEnd { DecodeAction::Step } else { action };
        let t0 = now();
        Ok(Some(match run.decode(&req, first) {
            Ok(v) => {
                if action == DecodeAction::RunToEnd && !run.decode_done() {
                    run.to_end = Some(req);
                }
                TranslateShow::Decoded { view: Box::new(v), ms: now() - t0 }
            }
            Err(e) => TranslateShow::DecodeFailed(message(e)),
        }))
    }

    /// "Run to the end": decoding steps for about `budget_ms`, then the view.
    fn more(&mut self, budget_ms: f64, now: &dyn Fn() -> f64) -> Option<TranslateShow> {
        let req = self.to_end.clone()?;
        let t0 = now();
        let shown = loop {
            let s0 = now();
            match self.decode(&req, DecodeAction::Step) {
                Ok(v) if self.decode_done() || now() - t0 >= budget_ms => {
                    break TranslateShow::Decoded { view: Box::new(v), ms: now() - s0 }
                }
                Ok(_) => {}
                Err(e) => break TranslateShow::DecodeFailed(message(e)),
            }
        };
        if self.decode_done() || matches!(shown, TranslateShow::DecodeFailed(_)) {
            self.to_end = None;
        }
        Some(shown)
    }

    fn pending(&self) -> bool {
        self.to_end.is_some()
    }

    async fn files(&mut self) -> Result<ModelFiles> {
        self.trainer.model.to_files()
    }

    fn wrap(ev: TranslateEvent) -> FromEngine {
        FromEngine::Translate(ev)
    }
}
