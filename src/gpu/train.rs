//! A training step on the GPU: zero gradients, forward, backward, gradient norm, AdamW with
//! clipping, all in one command encoder and one submit; the only readback is the loss, the
//! masked-token hits and the gradient norm (what the user sees). A non-finite norm skips the
//! update inside the kernel, so the weights stay the last good ones.

use super::backward::{record_backward, GpuLoss};
use super::context::GpuContext;
use super::forward::record_forward;
use super::kernels::adamw::{adamw, AdamWStep, Moments};
use super::kernels::cross_entropy::cross_entropy;
use super::kernels::reduce::{sumsq, SUMSQ_SCRATCH};
use super::model::GpuModel;
use super::recorder::View;
use crate::config::BertConfig;
use crate::cpu::cross_entropy::IGNORE;
use crate::error::Result;
use crate::model::adamw::{AdamWConfig, StepOpts};
use crate::model::backward::Targets;
use crate::model::forward::{Batch, ForwardOptions, MlmRows};
use crate::model::BertParams;

pub struct GpuOptimizer {
    pub model: GpuModel,
    grads: wgpu::Buffer,
    m: wgpu::Buffer,
    v: wgpu::Buffer,
    scratch: wgpu::Buffer,
    sq: wgpu::Buffer,
    /// AdamW steps taken.
    pub step: u64,
}

#[derive(Clone, Debug)]
pub struct GpuStep {
    pub loss: GpuLoss,
    pub grad_norm: f64,
}

impl GpuOptimizer {
    pub fn new(ctx: &GpuContext, cfg: &BertConfig, params: &BertParams<f32>) -> Result<Self> {
        let model = GpuModel::upload(ctx, cfg, params)?;
        let n = model.layout.total;
        Ok(GpuOptimizer {
            grads: ctx.buffer("grads", n)?,
            m: ctx.buffer("adam_m", n)?,
            v: ctx.buffer("adam_v", n)?,
            scratch: ctx.buffer("sumsq_scratch", SUMSQ_SCRATCH)?,
            sq: ctx.buffer("grad_sumsq", 1)?,
            model,
            step: 0,
        })
    }

    /// One optimiser step with `o`'s learning rate, clip and dropout seed. Errors (and leaves the
    /// weights as they were) when the loss or gradient norm is not finite.
    pub async fn train_step(
        &mut self,
        ctx: &GpuContext,
        batch: &Batch,
        targets: &Targets,
        adam: &AdamWConfig,
        o: StepOpts,
    ) -> Result<GpuStep> {
        let StepOpts { lr, max_norm, dropout_seed } = o;
        let mut rec = ctx.recorder();
        rec.clear(View::whole(&self.grads));
        let opts = targets.forward_options(dropout_seed);
        let tr = record_forward(&mut rec, &self.model, batch, &opts, false)?;
        let reads = record_backward(&mut rec, &self.model, &self.grads, batch, &tr, targets, None)?;
        sumsq(&mut rec, View::whole(&self.grads), self.model.layout.total, View::whole(&self.scratch), View::whole(&self.sq))?;
        let s = AdamWStep {
            lr,
            weight_decay: adam.weight_decay,
            beta1: adam.beta1,
            beta2: adam.beta2,
            eps: adam.eps,
            step: self.step + 1,
            max_norm,
        };
        let (total, split) = (self.model.layout.total, self.model.layout.decay_end);
        let max_elems = (ctx.limits.max_storage_buffer_binding_size as usize / 4) / ctx.align_elems() * ctx.align_elems();
        for (lo, hi, decay) in [(0, split, true), (split, total, false)] {
            // ranges within the binding-size limit, starting at aligned offsets
            let mut off = lo;
            while off < hi {
                let len = (hi - off).min(max_elems);
                let r = |b| range(b, off, len);
                let x = Moments { params: r(&self.model.params), grads: r(&self.grads), m: r(&self.m), v: r(&self.v) };
                adamw(&mut rec, x, View::whole(&self.sq), decay, &s)?;
                off += len;
            }
        }
        let hsq = rec.read(View::whole(&self.sq));
        let rb = rec.finish().await?;
        let loss = reads.loss(&rb);
        let grad_norm = (rb.get(hsq)[0] as f64).sqrt();
        if !loss.loss.is_finite() || !grad_norm.is_finite() {
            return Err(crate::error::BertError::Training(format!(
                "step {}: the loss ({}) or gradient norm ({grad_norm}) is not finite; training stopped and the weights are those before this step (try a lower learning rate)",
                self.step, loss.loss
            )));
        }
        self.step += 1;
        Ok(GpuStep { loss, grad_norm })
    }

    /// Held-out loss and masked-token hits (no dropout, no gradients).
    pub async fn evaluate(&self, ctx: &GpuContext, batch: &Batch, targets: &Targets) -> Result<GpuLoss> {
        let mut rec = ctx.recorder();
        let rows = targets.labelled_rows();
        let opts = ForwardOptions { mlm_rows: MlmRows::Rows(rows.clone()), ..Default::default() };
        let tr = record_forward(&mut rec, &self.model, batch, &opts, false)?;
        let labels = targets.mlm_labels.as_deref().unwrap_or(&[]);
        let tgt: Vec<i64> = rows.iter().map(|&r| labels.get(r).copied().unwrap_or(IGNORE)).collect();
        let mut out = GpuLoss::default();
        let Some(mt) = &tr.mlm else { return Ok(out) };
        let stats = ctx.buffer("eval_stats", 2 * rows.len())?;
        cross_entropy(&mut rec, View::whole(&mt.logits), &tgt, self.model.cfg.vocab_size, View::whole(&stats))?;
        let h = rec.read(View::whole(&stats));
        let rb = rec.finish().await?;
        let st = rb.get(h);
        let mut sum = 0.0f64;
        for (i, &t) in tgt.iter().enumerate() {
            if t != IGNORE {
                sum += st[2 * i] as f64;
                out.mlm_labelled += 1;
                out.mlm_hits += (st[2 * i + 1] as i64 == t) as usize;
            }
        }
        let l = if out.mlm_labelled == 0 { 0.0 } else { (sum / out.mlm_labelled as f64) as f32 };
        out.mlm_loss = Some(l);
        out.loss = l;
        Ok(out)
    }

    pub async fn params(&self, ctx: &GpuContext) -> Result<BertParams<f32>> {
        self.model.download(ctx).await
    }
}

fn range(buf: &wgpu::Buffer, off: usize, len: usize) -> View<'_> {
    View { buf, off, len }
}
