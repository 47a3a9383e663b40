//! What every optimiser run is set by (pre-training and fine-tuning alike): its steps and batch of
//! `seq`-token sequences, the learning rate's warmup and linear decay, the seed, AdamW's weight
//! decay, the gradient-norm clip and dropout; and what follows from them for a step.

use crate::error::{BertError, Result};
use crate::model::adamw::{AdamWConfig, StepOpts};
use crate::train::schedule::LinearSchedule;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunOptions {
    pub steps: usize,
    pub batch: usize,
    pub seq: usize,
    /// The peak learning rate (AdamW), after the warmup.
    pub lr: f64,
    /// Warmup steps (None: 10% of `steps`).
    pub warmup: Option<usize>,
    pub seed: u64,
    pub weight_decay: f64,
    pub max_grad_norm: f64,
    /// Dropout with the config's rates while training.
    pub dropout: bool,
}

impl Default for RunOptions {
    /// BERT's recipe scaled to a small model: batch 32 of 64 tokens, lr 1e-4 (the paper's 2e-5 to
    /// 5e-5 fine-tuning rates are for BERT-base), 10% warmup, weight decay 0.01, clip 1.
    fn default() -> Self {
        RunOptions {
            steps: 1000,
            batch: 32,
            seq: 64,
            lr: 1e-4,
            warmup: None,
            seed: 0,
            weight_decay: 0.01,
            max_grad_norm: 1.0,
            dropout: true,
        }
    }
}

impl RunOptions {
    /// Positive steps and batch, at least `min_seq` tokens, a learning rate in (0, 1).
    pub fn check(&self, min_seq: usize) -> Result<()> {
        if self.batch == 0 || self.steps == 0 || self.seq < min_seq {
            return Err(BertError::Input(format!("steps and batch must be positive and seq at least {min_seq}")));
        }
        if !(self.lr.is_finite() && self.lr > 0.0 && self.lr < 1.0) {
            return Err(BertError::Input(format!("learning rate {} must be in (0, 1)", self.lr)));
        }
        Ok(())
    }

    pub fn schedule(&self) -> LinearSchedule {
        LinearSchedule { base_lr: self.lr, warmup: self.warmup.unwrap_or(self.steps / 10), total: self.steps }
    }

    /// AdamW's settings (the word embeddings left as they are with `freeze_word_embeddings`).
    pub fn adam(&self, freeze_word_embeddings: bool) -> AdamWConfig {
        AdamWConfig { weight_decay: self.weight_decay, freeze_word_embeddings, ..Default::default() }
    }

    /// Step `step`'s settings at learning rate `lr`: the clip, and a dropout seed of its own.
    pub fn step_opts(&self, step: usize, lr: f64) -> StepOpts {
        let dropout_seed = self.dropout.then(|| self.seed.wrapping_mul(0x9E37_79B9).wrapping_add(step as u64));
        StepOpts { lr, max_norm: self.max_grad_norm, dropout_seed }
    }
}
