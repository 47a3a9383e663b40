//! The training loop: batches of masked sequences, forward, backward, gradient clipping, AdamW
//! under a warmup + decay schedule, a guard that stops on a non-finite loss or gradient (the
//! weights stay the last good ones), and evaluation on held-out text.

use crate::bundle::Bert;
use crate::cpu::cross_entropy::{cross_entropy_forward_backward, IGNORE};
use crate::error::{BertError, Result};
use crate::model::backward::{backward, Grads, Targets};
use crate::model::forward::{forward, Batch, ForwardOptions, ForwardTrace, MlmRows};
use crate::rng::Rng;
use crate::train::adamw::{AdamW, AdamWConfig};
use crate::train::corpus::Corpus;
use crate::train::examples::{make_examples, Example, ExampleConfig, TokenizedCorpus};
use crate::train::masking::{mask_sequence, MaskedSeq, MaskingConfig};
use crate::train::schedule::LinearSchedule;
use serde::Serialize;

#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub steps: usize,
    pub batch: usize,
    pub seq: usize,
    pub lr: f64,
    /// Warmup steps (None: 10% of `steps`).
    pub warmup: Option<usize>,
    pub seed: u64,
    pub weight_decay: f64,
    pub max_grad_norm: f64,
    pub mask_prob: f64,
    /// Dropout with the config's rates while training.
    pub dropout: bool,
    /// Held-out sequences for evaluation (at most).
    pub eval_sequences: usize,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            steps: 1000,
            batch: 32,
            seq: 64,
            lr: 1e-4,
            warmup: None,
            seed: 0,
            weight_decay: 0.01,
            max_grad_norm: 1.0,
            mask_prob: 0.15,
            dropout: true,
            eval_sequences: 128,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct StepLog {
    pub step: usize,
    pub loss: f32,
    pub mlm_loss: Option<f32>,
    pub nsp_loss: Option<f32>,
    pub mlm_acc: f32,
    pub lr: f64,
    pub grad_norm: f32,
    /// Non-padding tokens in the batch.
    pub tokens: usize,
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
    (batch, Targets { mlm_labels: Some(labels), nsp_labels })
}

/// Fraction of labelled rows whose arg-max logit is the label.
pub fn mlm_accuracy(trace: &ForwardTrace<f32>, labels: &[i64]) -> (usize, usize) {
    let Some(m) = &trace.mlm else { return (0, 0) };
    let mut hit = 0;
    let mut n = 0;
    for (k, &r) in m.rows.iter().enumerate() {
        if labels[r] == IGNORE {
            continue;
        }
        let row = m.logits.row(k);
        let best = row.iter().enumerate().fold((0, f32::NEG_INFINITY), |b, (i, &v)| if v > b.1 { (i, v) } else { b }).0;
        hit += (best as i64 == labels[r]) as usize;
        n += 1;
    }
    (hit, n)
}

pub struct Trainer {
    pub bert: Bert,
    pub opts: TrainOptions,
    pub step: usize,
    pub schedule: LinearSchedule,
    opt: AdamW<f32>,
    grads: Grads<f32>,
    data: TokenizedCorpus,
    held_out: Vec<MaskedExample>,
    queue: Vec<Example>,
    ex_cfg: ExampleConfig,
    mask_cfg: MaskingConfig,
    rng: Rng,
    /// The batch of the last step, masked (for the page).
    pub last_batch: Vec<MaskedExample>,
    /// When set, steps and evaluation run on the GPU; `bert.params` is then stale until
    /// `sync_from_gpu`.
    #[cfg(feature = "gpu")]
    gpu: Option<(std::rc::Rc<crate::gpu::GpuContext>, crate::gpu::train::GpuOptimizer)>,
    /// The step at which `bert.params` last received the GPU's weights.
    #[cfg(feature = "gpu")]
    synced_step: Option<usize>,
}

impl Trainer {
    /// A trainer with no corpus: `step_on` trains on batches the caller makes.
    pub fn bare(bert: Bert, opts: TrainOptions) -> Result<Self> {
        if opts.batch == 0 || opts.steps == 0 || opts.seq < 8 {
            return Err(BertError::Input("steps and batch must be positive and seq at least 8".into()));
        }
        if !(opts.lr.is_finite() && opts.lr > 0.0 && opts.lr < 1.0) {
            return Err(BertError::Input(format!("learning rate {} must be in (0, 1)", opts.lr)));
        }
        if bert.params.mlm.is_none() {
            return Err(BertError::Input("the model has no MLM head to train".into()));
        }
        if opts.seq > bert.cfg.max_position_embeddings {
            return Err(BertError::Input(format!(
                "seq {} exceeds the model's max_position_embeddings {}",
                opts.seq, bert.cfg.max_position_embeddings
            )));
        }
        let tok = &bert.tokenizer;
        let ex_cfg =
            ExampleConfig { max_len: opts.seq, nsp: bert.params.nsp.is_some(), cls: tok.cls_id, sep: tok.sep_id, short_seq_prob: 0.1 };
        let mask_cfg = MaskingConfig {
            prob: opts.mask_prob,
            mask_id: tok.mask_id,
            vocab_size: tok.vocab_size().min(bert.cfg.vocab_size),
            special_ids: tok.special_ids(),
        };
        let warmup = opts.warmup.unwrap_or(opts.steps / 10);
        let schedule = LinearSchedule { base_lr: opts.lr, warmup, total: opts.steps };
        let opt = AdamW::new(&bert.params, AdamWConfig { weight_decay: opts.weight_decay, ..Default::default() });
        let grads = bert.params.zeros_like();
        let rng = Rng::new(opts.seed);
        Ok(Trainer {
            bert,
            step: 0,
            schedule,
            opt,
            grads,
            data: TokenizedCorpus::default(),
            held_out: Vec::new(),
            queue: Vec::new(),
            ex_cfg,
            mask_cfg,
            rng,
            last_batch: Vec::new(),
            opts,
            #[cfg(feature = "gpu")]
            gpu: None,
            #[cfg(feature = "gpu")]
            synced_step: None,
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
        let mut hrng = Rng::new(t.opts.seed ^ 0xE7A1);
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
        let mut items = Vec::with_capacity(self.opts.batch);
        while items.len() < self.opts.batch {
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
    pub fn step(&mut self) -> Result<StepLog> {
        let (batch, targets) = self.next_collated()?;
        self.step_on(&batch, &targets)
    }

    /// `step`, awaiting the GPU's readback where training runs on the GPU (the page's worker
    /// cannot block; natively `step` blocks on this).
    pub async fn step_async(&mut self) -> Result<StepLog> {
        let (batch, targets) = self.next_collated()?;
        self.step_on_async(&batch, &targets).await
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
    pub fn step_on(&mut self, batch: &Batch, targets: &Targets) -> Result<StepLog> {
        #[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
        if self.gpu.is_some() {
            return pollster::block_on(self.step_on_async(batch, targets));
        }
        crate::rng::ready(self.step_on_async(batch, targets))
    }

    pub async fn step_on_async(&mut self, batch: &Batch, targets: &Targets) -> Result<StepLog> {
        let lr = self.schedule.lr(self.step);
        #[cfg(feature = "gpu")]
        if self.gpu.is_some() {
            return self.step_on_gpu(batch, targets, lr).await;
        }
        let (p, cfg) = (&self.bert.params, &self.bert.cfg);
        let seed = self.opts.dropout.then(|| self.opts.seed.wrapping_mul(0x9E37_79B9).wrapping_add(self.step as u64));
        let opts = ForwardOptions { head_mask: None, mlm_rows: MlmRows::Rows(targets.labelled_rows()), dropout_seed: seed };
        let mut trace = forward(p, cfg, batch, &opts)?;
        let (hit, n) = mlm_accuracy(&trace, targets.mlm_labels.as_deref().unwrap_or(&[]));
        self.grads.fill_zero();
        let loss = backward(p, cfg, batch, &mut trace, targets, &mut self.grads)?;
        let norm = clip_grad_norm(&mut self.grads, self.opts.max_grad_norm);
        if !loss.loss.is_finite() || !norm.is_finite() {
            return Err(BertError::Training(format!(
                "step {}: the loss ({}) or gradient norm ({norm}) is not finite; training stopped and the weights are those before this step (try a lower learning rate)",
                self.step, loss.loss
            )));
        }
        self.opt.update(&mut self.bert.params, &self.grads, lr);
        self.step += 1;
        Ok(StepLog {
            step: self.step,
            loss: loss.loss,
            mlm_loss: loss.mlm_loss,
            nsp_loss: loss.nsp_loss,
            mlm_acc: if n > 0 { hit as f32 / n as f32 } else { 0.0 },
            lr,
            grad_norm: norm as f32,
            tokens: batch.attention_mask.iter().filter(|&&m| m == 1).count(),
        })
    }

    /// Moves training to the GPU (from the current weights; AdamW moments start afresh).
    #[cfg(feature = "gpu")]
    pub fn use_gpu(&mut self, ctx: std::rc::Rc<crate::gpu::GpuContext>) -> Result<()> {
        let opt = crate::gpu::train::GpuOptimizer::new(&ctx, &self.bert.cfg, &self.bert.params)?;
        self.gpu = Some((ctx, opt));
        self.synced_step = Some(self.step);
        Ok(())
    }

    #[cfg(feature = "gpu")]
    pub fn on_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// Copies the GPU's weights into `bert.params` (before saving or inspecting them).
    #[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
    pub fn sync_from_gpu(&mut self) -> Result<()> {
        pollster::block_on(self.sync_from_gpu_async())
    }

    /// `sync_from_gpu` without blocking; a no-op when the weights were already copied at this step.
    #[cfg(feature = "gpu")]
    pub async fn sync_from_gpu_async(&mut self) -> Result<()> {
        if let Some((ctx, opt)) = &self.gpu {
            if self.synced_step != Some(self.step) {
                self.bert.params = opt.params(ctx).await?;
                self.synced_step = Some(self.step);
            }
        }
        Ok(())
    }

    #[cfg(feature = "gpu")]
    async fn step_on_gpu(&mut self, batch: &Batch, targets: &Targets, lr: f64) -> Result<StepLog> {
        let seed = self.opts.dropout.then(|| self.opts.seed.wrapping_mul(0x9E37_79B9).wrapping_add(self.step as u64));
        let adam = AdamWConfig { weight_decay: self.opts.weight_decay, ..Default::default() };
        let (ctx, opt) = self.gpu.as_mut().expect("gpu set");
        let st = opt.train_step(ctx, batch, targets, lr, &adam, self.opts.max_grad_norm, seed).await?;
        self.step += 1;
        let l = &st.loss;
        Ok(StepLog {
            step: self.step,
            loss: l.loss,
            mlm_loss: l.mlm_loss,
            nsp_loss: l.nsp_loss,
            mlm_acc: if l.mlm_labelled > 0 { l.mlm_hits as f32 / l.mlm_labelled as f32 } else { 0.0 },
            lr,
            grad_norm: st.grad_norm as f32,
            tokens: batch.attention_mask.iter().filter(|&&m| m == 1).count(),
        })
    }

    /// Loss and masked-token accuracy on the held-out sequences (dropout off).
    pub fn evaluate(&self) -> Result<EvalLog> {
        #[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
        if self.gpu.is_some() {
            return pollster::block_on(self.evaluate_async());
        }
        crate::rng::ready(self.evaluate_async())
    }

    pub async fn evaluate_async(&self) -> Result<EvalLog> {
        let mut loss_sum = 0.0f64;
        let mut labelled = 0usize;
        let mut hits = 0usize;
        #[cfg(feature = "gpu")]
        if let Some((ctx, opt)) = &self.gpu {
            for chunk in self.held_out.chunks(self.opts.batch.max(1)) {
                let (batch, targets) = collate(chunk, self.bert.tokenizer.pad_id);
                let l = opt.evaluate(ctx, &batch, &targets).await?;
                loss_sum += l.loss as f64 * l.mlm_labelled as f64;
                hits += l.mlm_hits;
                labelled += l.mlm_labelled;
            }
            let n = labelled.max(1) as f64;
            return Ok(EvalLog { loss: (loss_sum / n) as f32, mlm_acc: (hits as f64 / n) as f32, sequences: self.held_out.len() });
        }
        for chunk in self.held_out.chunks(self.opts.batch.max(1)) {
            let (batch, targets) = collate(chunk, self.bert.tokenizer.pad_id);
            let rows = targets.labelled_rows();
            let opts = ForwardOptions { mlm_rows: MlmRows::Rows(rows.clone()), ..Default::default() };
            let trace = forward(&self.bert.params, &self.bert.cfg, &batch, &opts)?;
            let labels = targets.mlm_labels.as_deref().unwrap_or(&[]);
            let (h, n) = mlm_accuracy(&trace, labels);
            if let Some(m) = &trace.mlm {
                let tgt: Vec<i64> = m.rows.iter().map(|&r| labels[r]).collect();
                let (l, _) = cross_entropy_forward_backward(m.logits.view(), &tgt);
                loss_sum += l as f64 * n as f64;
            }
            hits += h;
            labelled += n;
        }
        let n = labelled.max(1) as f64;
        Ok(EvalLog { loss: (loss_sum / n) as f32, mlm_acc: (hits as f64 / n) as f32, sequences: self.held_out.len() })
    }
}

/// Scales all gradients so their global L2 norm is at most `max_norm`, as
/// `torch.nn.utils.clip_grad_norm_`; returns the norm before clipping.
pub fn clip_grad_norm(g: &mut Grads<f32>, max_norm: f64) -> f64 {
    let sq: f64 = g.tensors().iter().map(|(_, t)| t.iter().map(|&v| (v as f64) * (v as f64)).sum::<f64>()).sum();
    let norm = sq.sqrt();
    let coef = (max_norm / (norm + 1e-6)).min(1.0);
    if coef < 1.0 {
        for (_, mut t) in g.tensors_mut() {
            t.mapv_inplace(|v| v * coef as f32);
        }
    }
    norm
}
