//! Fine-tuning in the page, a long job: the fine-tuner of the chosen start (and, to compare, the same
//! architecture from random weights, step for step), the held-out set, the model as it was before,
//! and what the fine-tune tab asks of them (curve points, scores, the batch with answers, a
//! sentence before and after). No browser code here: tested natively.

use crate::app::jobs::{message, Host, Job, JobKind, StartModel};
use crate::backend::Backend;
use crate::bundle::{Bert, ModelFiles};
use crate::config::TaskKind;
use crate::error::{BertError, Result};
use crate::explain::finetune::TuneData;
use crate::explain::finetune::{TuneBatch, TuneExample, TuneProbe, TuneScores, TuneSetup, TuneStart, TuneStep};
use crate::explain::snapshot::{build, ModelInfo, Request};
use crate::train::finetune::{features, head_for, Feature, FeatureLabel, FineTuneOptions, FineTuner};
use crate::train::task_metrics::Answer;
use bertscope_view::protocol::{FromEngine, ProbeAsk, TuneEvent, TuneReady, TuneShow};

/// The data set's name in messages.
const TRAIN: &str = "the training data";
const TEST: &str = "the held-out data";

pub struct TuneSession {
    pub setup: TuneSetup,
    pub main: FineTuner,
    /// The random-weights run beside it (`setup.compare`).
    pub random: Option<FineTuner>,
    eval: Vec<Feature>,
    /// The model with its head as fine-tuning found it (the "before" of the probe).
    before: Bert,
}

/// `b`'s shape, vocabulary and heads with BERT's random initialisation.
fn random_like(b: &Bert, seed: u64) -> Result<Bert> {
    Bert::from_scratch(b.cfg.clone(), b.tokenizer.clone(), b.params.heads(), seed)
}

/// Every tenth non-blank line held out (when no test text was given): (train, test).
fn hold_out(text: &str) -> (String, String) {
    let (mut train, mut test) = (String::new(), String::new());
    for (i, l) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let to = if i % 10 == 9 { &mut test } else { &mut train };
        to.push_str(l);
        to.push('\n');
    }
    (train, test)
}

impl TuneSession {
    /// Prepares a run from `start` (the model the setup's start names; for `Random`, the model whose
    /// shape and vocabulary to take). A head for the task is added unless `start` has one.
    pub fn new(start: &Bert, train_text: &str, test_text: Option<&str>, setup: &TuneSetup, backend: &Backend) -> Result<Self> {
        setup.check().map_err(BertError::Input)?;
        let kind = setup.task;
        let (train_text, test_text) = match test_text {
            Some(t) => (train_text.to_string(), t.to_string()),
            None => hold_out(train_text),
        };
        // a head of this kind that knows every label of the data is fine-tuned further; otherwise
        // a new head for the data's labels (a classifier of other classes starts its head afresh)
        let (with_head, _) = head_for(start, kind, TRAIN, &train_text, setup.seed)?;
        if kind == TaskKind::SequenceClassification && with_head.cfg.is_regression() {
            return Err(BertError::Input("the page fine-tunes classifiers with labels, not a regression head".into()));
        }
        let bert = match setup.start {
            TuneStart::Random => random_like(&with_head, setup.seed)?,
            _ => with_head,
        };
        let seq = setup.seq.min(bert.cfg.max_position_embeddings);
        let train = features(&bert, kind, TRAIN, &train_text, seq)?;
        let mut eval = features(&bert, kind, TEST, &test_text, seq)?;
        eval.truncate(setup.eval_max);
        let opts = FineTuneOptions { steps: setup.steps, batch: setup.batch, seq, lr: setup.lr, seed: setup.seed, ..Default::default() };
        let random = match (setup.compare, setup.start) {
            (true, TuneStart::Loaded | TuneStart::Trained | TuneStart::Tiny) => {
                Some(FineTuner::new(random_like(&bert, setup.seed)?, train.clone(), opts.clone(), backend)?)
            }
            _ => None,
        };
        let before = bert.clone();
        let main = FineTuner::new(bert, train, opts, backend)?;
        Ok(TuneSession { setup: setup.clone(), main, random, eval, before })
    }

    pub fn info(&self) -> ModelInfo {
        crate::explain::snapshot::model_info(&self.main.bert)
    }

    pub fn train_examples(&self) -> usize {
        self.main.train_set().len()
    }

    pub fn eval_examples(&self) -> usize {
        self.eval.len()
    }

    /// The held-out scores are due after the current step.
    pub fn eval_due(&self) -> bool {
        self.main.step.is_multiple_of(self.setup.eval_every) || self.finished()
    }

    /// One step of the run (and of the random-weights run), with the held-out scores when due.
    pub async fn step(&mut self) -> Result<(TuneStep, Option<TuneScores>)> {
        if self.finished() {
            return Err(BertError::Input(format!("the run is complete ({} steps): reset to fine-tune again", self.setup.steps)));
        }
        let mut main = self.main.step().await?;
        let mut random = match self.random.as_mut() {
            Some(r) => Some(r.step().await?),
            None => None,
        };
        let scores = if self.eval_due() { Some(self.score().await?) } else { None };
        if let Some(sc) = &scores {
            (main.eval_loss, main.eval_acc) = (Some(sc.main.loss), Some(sc.main.accuracy));
            if let (Some(p), Some(m)) = (random.as_mut(), &sc.random) {
                (p.eval_loss, p.eval_acc) = (Some(m.loss), Some(m.accuracy));
            }
        }
        Ok((TuneStep { main, random }, scores))
    }

    /// The held-out scores of both runs now (`step` fills in their points' eval fields).
    pub async fn score(&self) -> Result<TuneScores> {
        let main = self.main.score(&self.eval).await?;
        let random = match &self.random {
            Some(r) => Some(r.score(&self.eval).await?),
            None => None,
        };
        Ok(TuneScores { step: self.main.step, main, random })
    }

    /// The first `rows` examples of the last batch with the model's answers now.
    pub async fn batch_view(&self, rows: usize) -> Result<TuneBatch> {
        let train = self.main.train_set();
        let items: Vec<&Feature> = self.main.last_batch.iter().take(rows).map(|&i| &train[i]).collect();
        let (_, answers) = self.main.answers(&items).await?;
        let b = &self.main.bert;
        let tok = &b.tokenizer;
        let piece = |id: u32| tok.id_to_token(id);
        let examples = items
            .iter()
            .zip(answers)
            .map(|(f, a)| {
                let ids = &f.input_ids;
                // the pieces of segment `seg`, specials left out
                let text = |seg: u32| {
                    let ps: Vec<String> = (1..ids.len().saturating_sub(1))
                        .filter(|&j| f.token_type_ids[j] == seg && ids[j] != tok.sep_id)
                        .map(|j| piece(ids[j]))
                        .collect();
                    join_pieces(&ps)
                };
                let span = |s: usize, e: usize| join_pieces(&(s..=e.min(ids.len() - 1)).map(|j| piece(ids[j])).collect::<Vec<_>>());
                match (&f.label, a) {
                    (FeatureLabel::Class(g), Answer::Class(p, prob)) => TuneExample::Class {
                        text: [text(0), text(1)].into_iter().filter(|t| !t.is_empty()).collect::<Vec<_>>().join(" / "),
                        gold: b.cfg.label_name(*g as usize),
                        predicted: b.cfg.label_name(p),
                        prob,
                    },
                    (FeatureLabel::Tags(g), Answer::Tags(p)) => TuneExample::Tags {
                        cells: g
                            .iter()
                            .zip(&p)
                            .enumerate()
                            .filter(|(_, (&g, _))| g >= 0)
                            .map(|(j, (&g, &p))| (piece(ids[j]), b.cfg.label_name(g as usize), b.cfg.label_name(p.max(0) as usize)))
                            .collect(),
                    },
                    (FeatureLabel::Span(s, e), Answer::Span(ps, pe)) => TuneExample::Span {
                        question: text(0),
                        gold: if *s == 0 { "(cut away)".into() } else { span(*s as usize, *e as usize) },
                        predicted: span(ps, pe),
                    },
                    _ => TuneExample::Class { text: String::new(), gold: String::new(), predicted: String::new(), prob: 0.0 },
                }
            })
            .collect();
        Ok(TuneBatch { step: self.main.step, examples })
    }

    /// `text` (and `pair`: the context of a question) through the model before fine-tuning and now
    /// (call `sync` first when training on the GPU).
    pub fn probe(&self, text: &str, pair: Option<&str>) -> Result<TuneProbe> {
        let req = Request { text: text.into(), pair: pair.map(str::to_string), top_k: 1, ..Default::default() };
        let (a, b) = (build(&self.before, &req)?, build(&self.main.bert, &req)?);
        let cls = |s: &crate::explain::Snapshot| -> Vec<f32> {
            let (t, last) = (s.tokens.len(), s.layers.saturating_sub(1));
            let mut row = vec![0.0; t];
            for h in 0..s.heads {
                for (r, v) in row.iter_mut().zip(&s.head(last, h)[..t]) {
                    *r += v / s.heads as f32;
                }
            }
            row
        };
        Ok(TuneProbe {
            step: self.main.step,
            tokens: b.tokens.iter().map(|t| t.text.clone()).collect(),
            cls_before: cls(&a),
            cls_after: cls(&b),
            before: a.task,
            after: b.task,
        })
    }
}

/// Examples of the current batch shown with the model's answers.
const TUNE_ROWS: usize = 6;

impl Job for TuneSession {
    const KIND: JobKind = JobKind::Finetune;
    type Setup = TuneSetup;
    type Ask = ProbeAsk;
    type Ready = TuneReady;
    type Point = TuneStep;
    type Show = TuneShow;

    async fn prepare(setup: &TuneSetup, host: &mut impl Host) -> std::result::Result<(Self, TuneReady, String), String> {
        setup.check()?;
        let (train, test) = match &setup.data {
            TuneData::Text { train, test } => (train.clone(), test.clone()),
            TuneData::Urls { train, test } => {
                host.preparing("fetching the data set…").await;
                (host.fetch_text(train, "the training data").await?, Some(host.fetch_text(test, "the held-out data").await?))
            }
        };
        let which = match setup.start {
            TuneStart::Tiny => {
                host.preparing("fetching the bundled bert-tiny…").await;
                StartModel::Tiny(setup.tiny_base.clone())
            }
            TuneStart::Trained => StartModel::Pretrained,
            _ => StartModel::Loaded,
        };
        host.ready_model(&which).await?;
        host.preparing(match setup.compare {
            true => "adding the task head, encoding the data (two runs: this start and random weights)…",
            false => "adding the task head, encoding the data…",
        })
        .await;
        // the run trains where the explainer runs its forward (the badge's choice); a device
        // failure falls back to the CPU path
        let gone = || "the model to start from is gone".to_string();
        let (cpu, test) = (Backend::cpu(), test.as_deref());
        let start = host.model(&which).ok_or_else(gone)?;
        let (made, device) = match host.backend() {
            Some((b, label)) => (TuneSession::new(start, &train, test, setup, b), label),
            None => (TuneSession::new(start, &train, test, setup, &cpu), "CPU (wasm)".to_string()),
        };
        let (made, device) = match made {
            Err(BertError::Gpu(e)) => {
                host.backend_failed(e).await;
                (TuneSession::new(host.model(&which).ok_or_else(gone)?, &train, test, setup, &cpu), "CPU (wasm)".to_string())
            }
            made => (made, device),
        };
        let run = made.map_err(message)?;
        let scores = run.score().await.map_err(message)?;
        let ready = TuneReady { info: run.info(), train: run.train_examples(), held_out: run.eval_examples(), scores };
        Ok((run, ready, device))
    }

    fn steps(&self) -> (usize, usize) {
        (self.main.step, self.setup.steps)
    }

    async fn step(&mut self) -> Result<(TuneStep, usize, Option<TuneShow>)> {
        let (st, scores) = TuneSession::step(self).await?;
        Ok((st, self.setup.batch, scores.map(|s| TuneShow::Scores(Box::new(s)))))
    }

    /// The current batch with the model's answers.
    async fn shown(&mut self, _first: bool) -> Result<Option<TuneShow>> {
        if self.main.last_batch.is_empty() {
            return Ok(None);
        }
        Ok(Some(TuneShow::Batch(Box::new(self.batch_view(TUNE_ROWS).await?))))
    }

    async fn ask(run: Option<&mut Self>, ProbeAsk { text, pair }: ProbeAsk, _now: &dyn Fn() -> f64) -> Result<Option<TuneShow>> {
        let run =
            run.ok_or_else(|| BertError::Input("Start a run first: the sentence is compared before and after fine-tuning.".into()))?;
        run.sync().await;
        Ok(Some(TuneShow::Probe(Box::new(run.probe(&text, pair.as_deref())?))))
    }

    async fn files(&mut self) -> Result<ModelFiles> {
        self.sync().await;
        self.main.bert.to_files()
    }

    fn bert(&self) -> Option<&Bert> {
        Some(&self.main.bert)
    }

    async fn sync(&mut self) {
        let _ = self.main.sync().await;
    }

    fn wrap(ev: TuneEvent) -> FromEngine {
        FromEngine::Tune(ev)
    }
}

/// WordPiece pieces back into words ("play", "##ing" -> "playing").
pub fn join_pieces(pieces: &[String]) -> String {
    let mut out = String::new();
    for p in pieces {
        match p.strip_prefix("##") {
            Some(rest) => out.push_str(rest),
            None => {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(p);
            }
        }
    }
    out
}
