//! Pre-training in the page, a long job: the trainer, its settings, and what the train tab asks of
//! it (one point per step for the charts, the filmstrip's probe frames, the masking view of the
//! current batch, re-rolled on request). No browser code here: tested natively.

use crate::app::jobs::{Host, Job, JobKind, StartModel};
use crate::bundle::{Bert, ModelFiles};
use crate::config::{BertConfig, Heads};
use crate::cpu::softmax::softmax_row;
use crate::error::{BertError, Result};
use crate::explain::snapshot::{build, ModelInfo, Prediction, Request};
use crate::explain::training::CorpusSource;
use crate::explain::training::{Frame, LogPoint, MaskCell, MaskCounts, MaskRow, MaskingView, TrainMode, TrainSetup, SCRATCH_PRESET};
use crate::infer::top_k;
use crate::model::forward::{forward, ForwardOptions, MlmRows};
use crate::rng::Rng;
use crate::tokenize::BertTokenizer;
use crate::train::masking::{mask_sequence, MaskAction};
use crate::train::options::RunOptions;
use crate::train::trainer::{collate, MaskedExample, TrainOptions, Trainer};
use bertscope_view::protocol::{FromEngine, Reroll, TrainEvent, TrainReady, TrainShow};

/// A run: the trainer, its settings, and what the page asks of it.
pub struct TrainSession {
    pub trainer: Trainer,
    pub setup: TrainSetup,
    probe: Request,
}

impl TrainSession {
    /// Prepares a run on `corpus` (documents separated by blank lines). From scratch, a WordPiece
    /// vocabulary is trained on the corpus and a `scratch-tiny` BERT with MLM + NSP heads is
    /// initialised from the seed; to continue, `base` is copied (it stays as it was).
    pub fn new(base: Option<&Bert>, corpus: &str, setup: &TrainSetup) -> Result<Self> {
        setup.check().map_err(BertError::Input)?;
        let bert = match setup.mode {
            TrainMode::Scratch => {
                let cfg = BertConfig::preset(SCRATCH_PRESET)?;
                let tok = BertTokenizer::train_wordpiece(corpus, setup.vocab_size, cfg.max_position_embeddings)?;
                Bert::from_scratch(cfg, tok, Heads::PRETRAINING, setup.seed)?
            }
            TrainMode::Continue => base.ok_or_else(|| BertError::Input("no model is loaded to continue".into()))?.clone(),
        };
        let run =
            RunOptions { steps: setup.steps, batch: setup.batch, seq: setup.seq, lr: setup.lr, seed: setup.seed, ..Default::default() };
        let opts = TrainOptions { run, eval_sequences: 64, ..Default::default() };
        let trainer = Trainer::new(bert, corpus, opts)?;
        let probe = Request { seq: 0, text: setup.probe.clone(), top_k: 5, ..Default::default() };
        Ok(TrainSession { trainer, setup: setup.clone(), probe })
    }

    pub fn info(&self) -> ModelInfo {
        crate::explain::snapshot::model_info(&self.trainer.bert)
    }

    /// The held-out loss and accuracy now (before any training: the first point of that curve).
    pub async fn evaluate_now(&self) -> Result<(f32, f32)> {
        let e = self.trainer.evaluate().await?;
        Ok((e.loss, e.mlm_acc))
    }

    /// A filmstrip frame is due after the current step.
    pub fn frame_due(&self) -> bool {
        let s = self.trainer.step;
        s.is_multiple_of(self.setup.snap_every) || self.finished()
    }

    /// The probe sentence through the model now.
    pub fn frame(&self) -> Result<Frame> {
        let s = build(&self.trainer.bert, &self.probe)?;
        let first = s.predictions.first();
        Ok(Frame {
            step: self.trainer.step,
            tokens: s.tokens.iter().map(|t| t.text.clone()).collect(),
            layers: s.layers,
            heads: s.heads,
            attention: s.attention,
            mask_position: first.map(|m| m.position),
            predictions: first.map(|m| m.top.clone()).unwrap_or_default(),
        })
    }

    /// The last batch's masking with the model's current guesses (the first `rows` sequences
    /// shown, counts over all); with `reroll`, the same sequences masked again from that seed.
    pub fn masking_view(&self, rows: usize, reroll: Option<u64>, k: usize) -> Result<MaskingView> {
        let batch: Vec<MaskedExample> = match reroll {
            None => self.trainer.last_batch.clone(),
            Some(seed) => {
                let mut rng = Rng::new(seed);
                self.trainer
                    .last_batch
                    .iter()
                    .map(|m| MaskedExample {
                        masked: mask_sequence(&m.example.ids, self.trainer.mask_config(), &mut rng),
                        example: m.example.clone(),
                    })
                    .collect()
            }
        };
        masking_view(&self.trainer.bert, &batch, rows, k, self.trainer.step, reroll)
    }
}

/// Sequences of the batch shown in the masking view, and guesses at each chosen position.
const BATCH_ROWS: usize = 4;
const BATCH_TOP_K: usize = 3;

impl Job for TrainSession {
    const KIND: JobKind = JobKind::Pretrain;
    type Setup = TrainSetup;
    type Ask = Reroll;
    type Ready = TrainReady;
    type Point = LogPoint;
    type Show = TrainShow;

    async fn prepare(setup: &TrainSetup, host: &mut impl Host) -> std::result::Result<(Self, TrainReady, String), String> {
        setup.check()?;
        let text = match &setup.corpus {
            CorpusSource::Text(t) => t.clone(),
            CorpusSource::Url(u) => {
                host.preparing("fetching the corpus…").await;
                host.fetch_text(u, "the corpus").await?
            }
        };
        host.preparing(&match setup.mode {
            TrainMode::Scratch => {
                format!("training a {}-piece WordPiece vocabulary on the corpus, initialising a tiny BERT…", setup.vocab_size)
            }
            TrainMode::Continue => "copying the loaded model, tokenising the corpus…".into(),
        })
        .await;
        if setup.mode == TrainMode::Continue {
            host.ready_model(&StartModel::Loaded).await?;
        }
        let mut run = TrainSession::new(host.model(&StartModel::Loaded), &text, setup).map_err(|e| e.to_string())?;
        // the run trains where the explainer runs its forward (the badge's choice)
        let mut device = "CPU (wasm)".to_string();
        if let Some((backend, label)) = host.backend() {
            match run.trainer.use_backend(backend).await {
                Ok(()) => device = label,
                Err(e) => host.backend_failed(e.to_string()).await,
            }
        }
        let (eval_loss, eval_acc) = run.evaluate_now().await.unwrap_or((f32::NAN, f32::NAN));
        let ready = TrainReady { info: run.info(), train_tokens: run.trainer.train_tokens(), eval_loss, eval_acc };
        Ok((run, ready, device))
    }

    fn steps(&self) -> (usize, usize) {
        (self.trainer.step, self.setup.steps)
    }

    /// One optimiser step, evaluated on held-out text every `eval_every` steps and at the end; a
    /// filmstrip frame every `snap_every`.
    async fn step(&mut self) -> Result<(LogPoint, usize, Option<TrainShow>)> {
        if self.finished() {
            return Err(BertError::Input(format!("the run is complete ({} steps): reset to train again", self.setup.steps)));
        }
        let mut p = self.trainer.step().await?.point;
        if p.step.is_multiple_of(self.setup.eval_every) || self.finished() {
            let e = self.trainer.evaluate().await?;
            (p.eval_loss, p.eval_acc) = (Some(e.loss), Some(e.mlm_acc));
        }
        let mut frame = None;
        if self.frame_due() {
            self.sync().await;
            frame = self.frame().ok().map(|f| TrainShow::Frame(Box::new(f)));
        }
        let tokens = p.tokens;
        Ok((p, tokens, frame))
    }

    /// At step 0 the probe's frame; then the masking view of the last batch.
    async fn shown(&mut self, first: bool) -> Result<Option<TrainShow>> {
        if first {
            return Ok(Some(TrainShow::Frame(Box::new(self.frame()?))));
        }
        Self::ask(Some(self), Reroll { seed: None }, &|| 0.0).await
    }

    async fn ask(run: Option<&mut Self>, Reroll { seed }: Reroll, _now: &dyn Fn() -> f64) -> Result<Option<TrainShow>> {
        let Some(run) = run.filter(|r| !r.trainer.last_batch.is_empty()) else { return Ok(None) };
        run.sync().await;
        Ok(Some(TrainShow::Batch(Box::new(run.masking_view(BATCH_ROWS, seed, BATCH_TOP_K)?))))
    }

    async fn files(&mut self) -> Result<ModelFiles> {
        self.sync().await;
        self.trainer.bert.to_files()
    }

    fn bert(&self) -> Option<&Bert> {
        Some(&self.trainer.bert)
    }

    /// The weights back from the GPU (when the run trains there), for what runs the model on the
    /// CPU path (frames, the masking view, saving).
    async fn sync(&mut self) {
        let _ = self.trainer.sync().await;
    }

    fn wrap(ev: TrainEvent) -> FromEngine {
        FromEngine::Train(ev)
    }
}

/// The masking view of `batch` (its first `rows` sequences run through `bert`, dropout off).
pub fn masking_view(bert: &Bert, batch: &[MaskedExample], rows: usize, k: usize, step: usize, reroll: Option<u64>) -> Result<MaskingView> {
    let mut counts = MaskCounts::default();
    let specials = bert.tokenizer.special_ids();
    for m in batch {
        for (i, a) in m.masked.actions.iter().enumerate() {
            match a {
                MaskAction::None => {}
                MaskAction::Masked => counts.masked += 1,
                MaskAction::Random => counts.random += 1,
                MaskAction::Unchanged => counts.kept += 1,
            }
            counts.candidates += !specials.contains(&m.example.ids[i]) as usize;
        }
    }
    let shown = &batch[..rows.min(batch.len())];
    let mut out_rows = Vec::with_capacity(shown.len());
    if !shown.is_empty() {
        let (b, targets) = collate(shown, bert.tokenizer.pad_id);
        let labelled = targets.labelled_rows();
        let has_mlm = bert.params.mlm.is_some();
        let opts = ForwardOptions { mlm_rows: if has_mlm { MlmRows::Rows(labelled.clone()) } else { MlmRows::None }, ..Default::default() };
        let trace = forward(&bert.params, &bert.cfg, &b, &opts)?;
        let tok = &bert.tokenizer;
        for (i, m) in shown.iter().enumerate() {
            let cells = (0..m.example.ids.len())
                .map(|j| {
                    let row = i * b.t + j;
                    let guesses = match (&trace.mlm, labelled.iter().position(|&r| r == row)) {
                        (Some(mlm), Some(k_row)) => top_k(mlm.logits.row(k_row).as_slice().expect("contiguous logits"), k)
                            .into_iter()
                            .map(|(id, prob)| Prediction { token: tok.id_to_token(id), id, prob })
                            .collect(),
                        _ => vec![],
                    };
                    MaskCell {
                        original: tok.id_to_token(m.example.ids[j]),
                        input: tok.id_to_token(m.masked.input_ids[j]),
                        action: m.masked.actions[j],
                        special: specials.contains(&m.example.ids[j]),
                        segment: m.example.type_ids[j],
                        guesses,
                    }
                })
                .collect();
            let nsp_prob = m.example.is_next.and(trace.pool.as_ref()).and_then(|p| p.nsp_logits.as_ref()).map(|l| {
                let mut p = [l[[i, 0]], l[[i, 1]]];
                softmax_row(&mut p);
                p[0]
            });
            out_rows.push(MaskRow { cells, is_next: m.example.is_next, nsp_prob });
        }
    }
    Ok(MaskingView { step, reroll_seed: reroll, rows: out_rows, counts, sequences: batch.len() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::block_on;
    use crate::explain::training::CorpusSource;

    const CORPUS: &str = "the cat sat on the mat.\nthe dog sat on the rug.\nthe cat saw the dog.\n\n\
        a bird flew over the river.\nthe river was cold.\nthe bird sang a song.\n\n\
        the man went to the bank.\nhe sat on the bank of the river.\nthe bank was closed.\n\n\
        cats and dogs play in the sun.\nthe sun was warm.\nthe dog ran to the cat.\n";

    fn corpus() -> String {
        // enough documents for a held-out split (every tenth is held out)
        (0..12).map(|_| CORPUS).collect::<Vec<_>>().join("\n")
    }

    fn setup() -> TrainSetup {
        TrainSetup {
            batch: 4,
            seq: 24,
            steps: 30,
            vocab_size: 120,
            snap_every: 5,
            eval_every: 10,
            probe: "the cat sat on the [MASK].".into(),
            ..TrainSetup::defaults(TrainMode::Scratch, CorpusSource::Url("corpora/test.txt".into()))
        }
    }

    #[test]
    fn settings_out_of_range_are_messages() {
        let ok = TrainSetup { corpus: CorpusSource::Url("x".into()), ..setup() };
        assert_eq!(ok.check(), Ok(()));
        assert!(TrainSetup { batch: 0, ..ok.clone() }.check().unwrap_err().contains("batch"));
        assert!(TrainSetup { seq: 129, ..ok.clone() }.check().unwrap_err().contains("sequence"));
        assert_eq!(TrainSetup { seq: 129, mode: TrainMode::Continue, ..ok.clone() }.check(), Ok(()));
        assert!(TrainSetup { lr: f64::NAN, ..ok.clone() }.check().unwrap_err().contains("learning rate"));
        assert!(TrainSetup { lr: 0.0, ..ok.clone() }.check().is_err());
        assert!(TrainSetup { steps: 0, ..ok.clone() }.check().is_err());
        assert!(TrainSetup { corpus: CorpusSource::Text("too short".into()), ..ok.clone() }.check().unwrap_err().contains("short"));
        assert!(TrainSession::new(None, &corpus(), &TrainSetup { mode: TrainMode::Continue, ..ok }).is_err());
    }

    #[test]
    fn a_run_from_scratch_logs_frames_and_evaluates() {
        let s = setup();
        let mut run = TrainSession::new(None, &corpus(), &s).unwrap();
        assert_eq!(run.info().layers, 2);
        assert!(run.info().has_nsp, "from scratch trains MLM + NSP");
        assert!(run.frame_due(), "a frame at step 0");
        let f0 = run.frame().unwrap();
        assert_eq!(f0.step, 0);
        assert_eq!(f0.attention.len(), f0.layers * f0.heads);
        assert_eq!(f0.tokens[f0.mask_position.unwrap()], "[MASK]");
        assert_eq!(f0.predictions.len(), 5);
        let t = f0.tokens.len();
        assert!(f0.head(1, 1).chunks(t).all(|r| (r.iter().sum::<f32>() - 1.0).abs() < 1e-5));
        let mut logs = vec![];
        let mut frames = vec![f0];
        while !run.finished() {
            logs.push(block_on(run.step()).unwrap().0);
            if run.frame_due() {
                frames.push(run.frame().unwrap());
            }
        }
        assert!(block_on(run.step()).is_err(), "no step past the end");
        assert_eq!(logs.len(), 30);
        assert_eq!(logs.iter().map(|l| l.step).collect::<Vec<_>>(), (1..=30).collect::<Vec<_>>());
        let evals: Vec<usize> = logs.iter().filter(|l| l.eval_loss.is_some()).map(|l| l.step).collect();
        assert_eq!(evals, [10, 20, 30]);
        assert_eq!(frames.iter().map(|f| f.step).collect::<Vec<_>>(), [0, 5, 10, 15, 20, 25, 30]);
        assert_ne!(frames[0].attention, frames[6].attention, "training changes the attention");
        let first: f32 = logs[..5].iter().map(|l| l.loss).sum();
        let last: f32 = logs[25..].iter().map(|l| l.loss).sum();
        assert!(last < first, "the loss falls: {first} -> {last}");
        assert!(logs.iter().all(|l| (l.mlm_loss.unwrap() + l.nsp_loss.unwrap() - l.loss).abs() < 1e-4), "MLM + NSP");
        assert!(logs.iter().all(|l| l.tokens > 0 && l.lr >= 0.0 && (0.0..=1.0).contains(&l.mlm_acc)));
    }

    #[test]
    fn the_masking_view_shows_the_batch_and_rerolls() {
        let mut run = TrainSession::new(None, &corpus(), &setup()).unwrap();
        block_on(run.step()).unwrap();
        let v = run.masking_view(2, None, 3).unwrap();
        assert_eq!((v.rows.len(), v.sequences, v.step, v.reroll_seed), (2, 4, 1, None));
        let c = v.counts;
        assert!(c.chosen() > 0 && c.chosen() <= c.candidates);
        assert_eq!(
            c.candidates,
            run.trainer
                .last_batch
                .iter()
                .flat_map(|m| &m.example.ids)
                .filter(|&&id| !run.trainer.bert.tokenizer.special_ids().contains(&id))
                .count()
        );
        for (row, m) in v.rows.iter().zip(&run.trainer.last_batch) {
            assert_eq!(row.cells.len(), m.example.ids.len());
            assert!(row.is_next.is_some() && row.nsp_prob.is_some_and(|p| (0.0..=1.0).contains(&p)));
            for (j, cell) in row.cells.iter().enumerate() {
                assert_eq!(cell.action, m.masked.actions[j]);
                assert_eq!(cell.carries_loss(), m.masked.labels[j] != -100);
                assert_eq!(cell.guesses.len(), if cell.carries_loss() { 3 } else { 0 });
                match cell.action {
                    MaskAction::Masked => assert_eq!(cell.input, "[MASK]"),
                    MaskAction::Unchanged | MaskAction::None => assert_eq!(cell.input, cell.original),
                    MaskAction::Random => {}
                }
                assert!(!(cell.special && cell.carries_loss()), "special tokens are never chosen");
            }
        }
        let a = run.masking_view(4, Some(11), 3).unwrap();
        let b = run.masking_view(4, Some(11), 3).unwrap();
        let c2 = run.masking_view(4, Some(12), 3).unwrap();
        assert_eq!(a, b, "a re-roll is reproducible from its seed");
        let actions = |v: &MaskingView| v.rows.iter().flat_map(|r| r.cells.iter().map(|c| c.action)).collect::<Vec<_>>();
        assert_ne!(actions(&a), actions(&c2), "another seed chooses other positions");
        let originals = |v: &MaskingView| {
            v.rows.iter().take(2).map(|r| r.cells.iter().map(|c| c.original.clone()).collect::<Vec<_>>()).collect::<Vec<_>>()
        };
        assert_eq!(originals(&a), originals(&v), "a re-roll masks the same sequences");
    }
}
