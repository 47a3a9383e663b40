//! The training loop: batches of masked sequences, forward, backward, gradient clipping, AdamW
//! under a warmup + decay schedule, a guard that stops on a non-finite loss or gradient (the
//! weights stay the last good ones), and evaluation on held-out text.

use crate::backend::{Backend, EvalStats, Optimizer};
use crate::bundle::Bert;
use crate::cpu::cross_entropy::IGNORE;
use crate::error::{BertError, Result};
use crate::model::backward::Targets;
use crate::model::forward::Batch;
use crate::rng::Rng;
use crate::train::corpus::Corpus;
use crate::train::examples::{make_examples, Example, ExampleConfig, TokenizedCorpus};
use crate::train::masking::{mask_sequence, MaskedSeq, MaskingConfig};
use crate::train::options::RunOptions;
use crate::train::schedule::LinearSchedule;
use bertscope_view::explain::training::LogPoint;
use serde::Serialize;

#[cfg(not(target_arch = "wasm32"))]
pub mod resume;

/// Pre-training's settings: a run's (`RunOptions`, flattened in the saved run state) and the
/// masking, the held-out sequences and whether the word embeddings train.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct TrainOptions {
    #[serde(flatten)]
    pub run: RunOptions,
    pub mask_prob: f64,
    /// Held-out sequences for evaluation (at most).
    pub eval_sequences: usize,
    /// Leave the word embeddings (and the decoder tied to them) as they are: the CPU path.
    pub freeze_word_embeddings: bool,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions { run: RunOptions::default(), mask_prob: 0.15, eval_sequences: 128, freeze_word_embeddings: false }
    }
}

#[derive(Clone, Debug)]
pub struct StepLog {
    pub point: LogPoint,
    pub grad_norm: f32,
}

#[derive(Clone, Debug, Serialize)]
pub struct EvalLog {
    pub loss: f32,
    pub mlm_acc: f32,
    pub sequences: usize,
}

/// One masked training sequence (what the page shows of the current batch).
#[derive(Clone, Debug, Serialize)]
pub struct MaskedExample {
    pub example: Example,
    pub masked: MaskedSeq,
}

/// Pads a batch to its longest sequence.
pub fn collate(items: &[MaskedExample], pad_id: u32) -> (Batch, Targets) {
    let b = items.len();
    let t = items.iter().map(|m| m.masked.input_ids.len()).max().unwrap_or(0);
    let mut batch = Batch { b, t, input_ids: vec![pad_id as usize; b * t], token_type_ids: vec![0; b * t], attention_mask: vec![0; b * t] };
    let mut labels = vec![IGNORE; b * t];
    let mut nsp = Vec::with_capacity(b);
    for (i, m) in items.iter().enumerate() {
        for (j, &id) in m.masked.input_ids.iter().enumerate() {
            batch.input_ids[i * t + j] = id as usize;
            batch.token_type_ids[i * t + j] = m.example.type_ids[j] as usize;
            batch.attention_mask[i * t + j] = 1;
            labels[i * t + j] = m.masked.labels[j];
        }
        nsp.push(match m.example.is_next {
            Some(true) => 0,
            Some(false) => 1,
            None => IGNORE,
        });
    }
    let nsp_labels = items.iter().any(|m| m.example.is_next.is_some()).then_some(nsp);
    (batch, Targets { mlm_labels: Some(labels), nsp_labels, task: None })
}

pub struct Trainer {
    pub bert: Bert,
    pub opts: TrainOptions,
    pub step: usize,
    pub schedule: LinearSchedule,
    /// The weights being trained and AdamW's moments, on the CPU or the GPU (`Backend`).
    opt: Optimizer,
    data: TokenizedCorpus,
    held_out: Vec<MaskedExample>,
    queue: Vec<Example>,
    ex_cfg: ExampleConfig,
    mask_cfg: MaskingConfig,
    rng: Rng,
    /// The batch of the last step, masked (for the page).
    pub last_batch: Vec<MaskedExample>,
    /// Seconds spent training, as the caller counts them (kept by a saved run).
    pub seconds: f64,
}

impl Trainer {
    /// A trainer with no corpus: `step_on` trains on batches the caller makes.
    pub fn bare(bert: Bert, opts: TrainOptions) -> Result<Self> {
        opts.run.check(8)?;
        if bert.params.mlm.is_none() {
            return Err(BertError::Input("the model has no MLM head to train".into()));
        }
        if opts.run.seq > bert.cfg.max_tokens() {
            return Err(BertError::Input(format!(
                "seq {} exceeds the model's {} positions (max_position_embeddings)",
                opts.run.seq,
                bert.cfg.max_tokens()
            )));
        }
        let tok = &bert.tokenizer;
        let ex_cfg =
            ExampleConfig { max_len: opts.run.seq, nsp: bert.params.nsp.is_some(), cls: tok.cls_id, sep: tok.sep_id, short_seq_prob: 0.1 };
        let mask_cfg = MaskingConfig {
            prob: opts.mask_prob,
            mask_id: tok.mask_id,
            vocab_size: tok.vocab_size().min(bert.cfg.vocab_size),
            special_ids: tok.special_ids(),
        };
        let schedule = opts.run.schedule();
        let opt = Backend::cpu().optimizer(&bert.params, &bert.cfg, opts.run.adam(opts.freeze_word_embeddings))?;
        let rng = Rng::new(opts.run.seed);
        Ok(Trainer {
            bert,
            step: 0,
            schedule,
            opt,
            data: TokenizedCorpus::default(),
            held_out: Vec::new(),
            queue: Vec::new(),
            ex_cfg,
            mask_cfg,
            rng,
            last_batch: Vec::new(),
            seconds: 0.0,
            opts,
        })
    }

    /// Prepares training `bert` on `corpus_text` (documents separated by blank lines); every
    /// tenth document is held out for evaluation.
    pub fn new(bert: Bert, corpus_text: &str, opts: TrainOptions) -> Result<Self> {
        let mut t = Self::bare(bert, opts)?;
        let corpus = Corpus::parse(corpus_text);
        if corpus.sentences() < 2 {
            return Err(BertError::Input("the corpus needs at least two sentences".into()));
        }
        let (train, held) = corpus.split_held_out(10);
        t.data = TokenizedCorpus::new(&train, &t.bert.tokenizer)?;
        // Held-out sequences are masked once, with their own seed, so evaluations compare.
        let mut hrng = Rng::new(t.opts.run.seed ^ 0xE7A1);
        let held_tc = TokenizedCorpus::new(&held, &t.bert.tokenizer)?;
        t.held_out = make_examples(&held_tc, &t.ex_cfg, &mut hrng)
            .into_iter()
            .take(t.opts.eval_sequences)
            .map(|e| MaskedExample { masked: mask_sequence(&e.ids, &t.mask_cfg, &mut hrng), example: e })
            .collect();
        Ok(t)
    }

    /// How this run masks (the page re-rolls the last batch with it).
    pub fn mask_config(&self) -> &MaskingConfig {
        &self.mask_cfg
    }

    pub fn train_tokens(&self) -> usize {
        self.data.tokens()
    }

    /// The next batch of masked sequences (a new shuffled pass over the corpus when one runs out).
    pub fn next_batch(&mut self) -> Vec<MaskedExample> {
        let mut items = Vec::with_capacity(self.opts.run.batch);
        while items.len() < self.opts.run.batch {
            if self.queue.is_empty() {
                self.queue = make_examples(&self.data, &self.ex_cfg, &mut self.rng);
                // Fisher-Yates, then pop from the back
                for i in (1..self.queue.len()).rev() {
                    let j = self.rng.below(i + 1);
                    self.queue.swap(i, j);
                }
                if self.queue.is_empty() {
                    break;
                }
            }
            let e = self.queue.pop().expect("non-empty");
            let masked = mask_sequence(&e.ids, &self.mask_cfg, &mut self.rng);
            items.push(MaskedExample { example: e, masked });
        }
        items
    }

    /// One optimiser step on the next batch.
    pub async fn step(&mut self) -> Result<StepLog> {
        let (batch, targets) = self.next_collated()?;
        self.step_on(&batch, &targets).await
    }

    fn next_collated(&mut self) -> Result<(Batch, Targets)> {
        let items = self.next_batch();
        if items.is_empty() {
            return Err(BertError::Input("the corpus produced no training sequences".into()));
        }
        let bt = collate(&items, self.bert.tokenizer.pad_id);
        self.last_batch = items;
        Ok(bt)
    }

    /// One optimiser step on a given batch. On a non-finite loss or gradient nothing is updated.
    pub async fn step_on(&mut self, batch: &Batch, targets: &Targets) -> Result<StepLog> {
        let lr = self.schedule.lr(self.step);
        let o = self.opts.run.step_opts(self.step, lr);
        let st = self.opt.step(&mut self.bert.params, &self.bert.cfg, batch, targets, o).await?;
        self.step += 1;
        let point = LogPoint {
            step: self.step,
            loss: st.loss.loss,
            mlm_loss: st.loss.mlm_loss,
            nsp_loss: st.loss.nsp_loss,
            mlm_acc: st.accuracy(),
            lr,
            tokens: batch.tokens(),
            eval_loss: None,
            eval_acc: None,
        };
        Ok(StepLog { point, grad_norm: st.grad_norm as f32 })
    }

    /// Trains on `backend` from now on (from the current weights; AdamW's moments start afresh).
    pub async fn use_backend(&mut self, backend: &Backend) -> Result<()> {
        self.sync().await?;
        self.opt = backend.optimizer(&self.bert.params, &self.bert.cfg, self.opts.run.adam(self.opts.freeze_word_embeddings))?;
        Ok(())
    }

    pub fn on_gpu(&self) -> bool {
        self.opt.is_gpu()
    }

    /// Brings the trained weights into `bert.params` when they live on the GPU (before saving or
    /// inspecting them); a no-op when they are already there.
    pub async fn sync(&mut self) -> Result<()> {
        self.opt.sync(&mut self.bert.params).await
    }

    /// Loss and masked-token accuracy on the held-out sequences (dropout off).
    pub async fn evaluate(&self) -> Result<EvalLog> {
        let mut total = EvalStats::default();
        for chunk in self.held_out.chunks(self.opts.run.batch.max(1)) {
            let (batch, targets) = collate(chunk, self.bert.tokenizer.pad_id);
            let e = self.opt.evaluate(&self.bert.params, &self.bert.cfg, &batch, &targets).await?;
            total.loss_sum += e.loss_sum;
            total.hits += e.hits;
            total.labelled += e.labelled;
        }
        let n = total.labelled.max(1) as f64;
        Ok(EvalLog { loss: (total.loss_sum / n) as f32, mlm_acc: (total.hits as f64 / n) as f32, sequences: self.held_out.len() })
    }
}
