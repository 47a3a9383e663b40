//! What a GPU backward leaves to read: where its losses (per-row values) and its input gradients
//! will be in the readback, and the mean losses and hit counts made of them.

use super::recorder::{ReadHandle, Readback};
use super::task::TaskReads;
use crate::cpu::cross_entropy::IGNORE;

/// Where the losses will be after the recorder finishes.
pub struct LossReads {
    pub(crate) mlm: Option<(ReadHandle, Vec<i64>)>,
    pub(crate) nsp: Option<(ReadHandle, Vec<i64>)>,
    pub(crate) task: Option<TaskReads>,
    /// (N, H) the loss's gradient with respect to the embeddings' sum (= the word rows'), on the
    /// device (attributions read it back).
    pub d_sum: Option<wgpu::Buffer>,
    /// (B*S, H) a decoder's: the loss's gradient with respect to the encoder states its
    /// cross-attention read.
    pub d_encoder: Option<wgpu::Buffer>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuLoss {
    pub loss: f32,
    pub mlm_loss: Option<f32>,
    pub nsp_loss: Option<f32>,
    /// (predicted id, target) at every labelled MLM row: the masked-token accuracy.
    pub mlm_hits: usize,
    pub mlm_labelled: usize,
    pub task_loss: Option<f32>,
    /// A task head's items right by arg-max, of `task_labelled`.
    pub task_hits: usize,
    pub task_labelled: usize,
}

fn mean_loss(stats: &[f32], targets: &[i64]) -> (f32, usize, usize) {
    let mut sum = 0.0f64;
    let (mut n, mut hits) = (0usize, 0usize);
    for (i, &t) in targets.iter().enumerate() {
        if t != IGNORE {
            sum += stats[2 * i] as f64;
            n += 1;
            hits += (stats[2 * i + 1] as i64 == t) as usize;
        }
    }
    (if n == 0 { 0.0 } else { (sum / n as f64) as f32 }, n, hits)
}

impl LossReads {
    pub fn loss(&self, rb: &Readback) -> GpuLoss {
        let mut out = GpuLoss::default();
        if let Some((h, t)) = &self.mlm {
            let (l, n, hits) = mean_loss(rb.get(*h), t);
            out.mlm_loss = Some(l);
            out.mlm_labelled = n;
            out.mlm_hits = hits;
        }
        if let Some((h, t)) = &self.nsp {
            out.nsp_loss = Some(mean_loss(rb.get(*h), t).0);
        }
        if let Some(tr) = &self.task {
            let tl = tr.loss(rb);
            out.task_loss = Some(tl.loss);
            out.task_hits = tl.hits;
            out.task_labelled = tl.labelled;
        }
        out.loss = out.mlm_loss.unwrap_or(0.0) + out.nsp_loss.unwrap_or(0.0) + out.task_loss.unwrap_or(0.0);
        out
    }
}
