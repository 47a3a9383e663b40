//! Fine-tuning a task head (and the encoder under it) on labelled examples (`task_data`): steps
//! through the backend's optimiser with AdamW, warmup + linear decay and clipping; held-out loss,
//! accuracy and the head's answers (`task_metrics`).

use crate::backend::{Backend, EvalStats, Optimizer};
use crate::bundle::Bert;
use crate::error::{BertError, Result};
use crate::rng::Rng;
use crate::train::options::RunOptions;
use crate::train::schedule::LinearSchedule;
use crate::train::task_metrics::{answers, score, Answer, TaskMetrics};
use bertscope_view::explain::finetune::TunePoint;

pub use super::task_data::{collate, features, labels_in, Feature, FeatureLabel};

/// `start` ready to fine-tune for `kind` on the labelled lines `text` (of `file`): as it is when its
/// head is of that kind and knows every label of the data; otherwise with a new head for the data's
/// labels (sorted), the encoder kept, as HF's `AutoModelFor...from_pretrained` builds it. True when
/// a head was added.
pub fn head_for(start: &Bert, kind: crate::config::TaskKind, file: &str, text: &str, seed: u64) -> Result<(Bert, bool)> {
    use crate::config::TaskKind;
    let mut labels = labels_in(kind, file, text)?;
    labels.sort();
    let known = labels.iter().all(|l| start.cfg.label_id(l).is_some());
    match start.params.heads().task {
        Some(h) if h.kind == kind && (kind == TaskKind::QuestionAnswering || known) => Ok((start.clone(), false)),
        _ => Ok((start.with_task_head(kind, &labels, seed)?, true)),
    }
}

/// Fine-tuning is set by a run's options alone.
pub type FineTuneOptions = RunOptions;

pub struct FineTuner {
    pub bert: Bert,
    pub opts: FineTuneOptions,
    pub step: usize,
    schedule: LinearSchedule,
    opt: Optimizer,
    train: Vec<Feature>,
    order: Vec<usize>,
    cursor: usize,
    rng: Rng,
    /// The examples of the last step's batch (indices into the training set).
    pub last_batch: Vec<usize>,
}

impl FineTuner {
    /// Fine-tunes `bert` (which must have its task head) on `train`.
    pub fn new(bert: Bert, train: Vec<Feature>, opts: FineTuneOptions, backend: &Backend) -> Result<Self> {
        opts.check(4)?;
        if bert.params.task.is_none() {
            return Err(BertError::Input("the model has no task head to fine-tune".into()));
        }
        if train.is_empty() {
            return Err(BertError::Input("no training examples".into()));
        }
        let schedule = opts.schedule();
        let opt = backend.optimizer(&bert.params, &bert.cfg, opts.adam(false))?;
        let rng = Rng::new(opts.seed);
        Ok(FineTuner { bert, step: 0, schedule, opt, order: Vec::new(), cursor: 0, train, rng, opts, last_batch: Vec::new() })
    }

    fn next_batch(&mut self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.opts.batch);
        while out.len() < self.opts.batch.min(self.train.len()) {
            if self.cursor >= self.order.len() {
                self.order = (0..self.train.len()).collect();
                for i in (1..self.order.len()).rev() {
                    let j = self.rng.below(i + 1);
                    self.order.swap(i, j);
                }
                self.cursor = 0;
            }
            out.push(self.order[self.cursor]);
            self.cursor += 1;
        }
        out
    }

    /// One optimiser step on the next shuffled batch: the point the page's charts plot (its
    /// held-out fields left for an evaluation to fill; `acc` 0 for a regression head).
    pub async fn step(&mut self) -> Result<TunePoint> {
        let idx = self.next_batch();
        let items: Vec<&Feature> = idx.iter().map(|&i| &self.train[i]).collect();
        let (batch, targets) = collate(&items, self.bert.tokenizer.pad_id);
        let lr = self.schedule.lr(self.step);
        self.last_batch = idx.clone();
        let o = self.opts.step_opts(self.step, lr);
        let st = self.opt.step(&mut self.bert.params, &self.bert.cfg, &batch, &targets, o).await?;
        self.step += 1;
        Ok(TunePoint {
            step: self.step,
            loss: st.loss.loss,
            acc: st.accuracy(),
            lr,
            tokens: batch.tokens(),
            eval_loss: None,
            eval_acc: None,
        })
    }

    /// The mean loss and the accuracy on `eval` (dropout off).
    pub async fn evaluate(&self, eval: &[Feature]) -> Result<(f32, f32)> {
        let mut total = EvalStats::default();
        for chunk in eval.chunks(self.opts.batch.max(1)) {
            let items: Vec<&Feature> = chunk.iter().collect();
            let (batch, targets) = collate(&items, self.bert.tokenizer.pad_id);
            let e = self.opt.evaluate(&self.bert.params, &self.bert.cfg, &batch, &targets).await?;
            total.loss_sum += e.loss_sum;
            total.hits += e.hits;
            total.labelled += e.labelled;
        }
        let n = total.labelled.max(1) as f64;
        Ok(((total.loss_sum / n) as f32, (total.hits as f64 / n) as f32))
    }

    /// The training examples.
    pub fn train_set(&self) -> &[Feature] {
        &self.train
    }

    /// The head's answers for `items` with the weights being trained (dropout off), and their
    /// held-out loss and hits.
    pub async fn answers(&self, items: &[&Feature]) -> Result<(EvalStats, Vec<Answer>)> {
        let (mut total, mut out) = (EvalStats::default(), Vec::with_capacity(items.len()));
        for chunk in items.chunks(self.opts.batch.max(1)) {
            let (batch, targets) = collate(chunk, self.bert.tokenizer.pad_id);
            let trace = self.opt.predict(&self.bert.params, &self.bert.cfg, &batch).await?;
            let tt = trace.task.as_ref().ok_or_else(|| BertError::Input("the model has no task head".into()))?;
            let l = targets.task.as_ref().ok_or_else(|| BertError::Input("no task labels".into()))?;
            let e = crate::backend::task_eval(&trace, l, &batch)?;
            total.loss_sum += e.loss_sum;
            total.hits += e.hits;
            total.labelled += e.labelled;
            out.extend(answers(tt, chunk, batch.t));
        }
        Ok((total, out))
    }

    /// The held-out scores on `eval`: loss, accuracy, confusion matrix / per-tag accuracy / F1.
    pub async fn score(&self, eval: &[Feature]) -> Result<TaskMetrics> {
        let items: Vec<&Feature> = eval.iter().collect();
        let (e, ans) = self.answers(&items).await?;
        let kind = self.bert.cfg.task().ok_or_else(|| BertError::Input("the model has no task head".into()))?;
        let labels: Vec<String> = (0..self.bert.cfg.num_labels()).map(|i| self.bert.cfg.label_name(i)).collect();
        let labels = if kind == crate::config::TaskKind::QuestionAnswering { vec![] } else { labels };
        let gold: Vec<&FeatureLabel> = eval.iter().map(|f| &f.label).collect();
        Ok(score(kind, &labels, &gold, &ans, (e.loss_sum / e.labelled.max(1) as f64) as f32))
    }

    /// The trained weights into `bert.params` (from the GPU, when training ran there).
    pub async fn sync(&mut self) -> Result<()> {
        self.opt.sync(&mut self.bert.params).await
    }
}
