//! One way to run the model: a `Backend` is the CPU reference (`model::forward` / `backward`) or a
//! GPU device (`gpu::`) with the model's weights uploaded to it. The CLI, the trainer and the page's
//! worker all run the model through it, so a new op or head is one CPU function, one WGSL kernel
//! with its launcher, and one line here.
//!
//! Async at the core: the GPU path awaits its readbacks (a browser cannot block); on the CPU path the
//! futures complete at once. Native callers block at their edge with `block_on`.

mod fallback;
mod optimizer;
mod seq2seq;

pub use fallback::{forward_or_cpu, Ran};
pub use optimizer::{task_eval, EvalStats, Optimizer, StepStats};

use crate::bundle::Bert;
use crate::error::{BertError, Result};
#[cfg(feature = "gpu")]
use crate::gpu::{model::GpuModel, GpuContext};
use crate::model::backward::{loss_and_grads, Grads, LossOutput, Targets};
use crate::model::forward::{forward, Batch, ForwardOptions, ForwardTrace};
use ndarray::Array2;
#[cfg(feature = "gpu")]
use std::rc::Rc;

/// Which weights are on the device: the caller's name for a model and its training step. The GPU
/// side uploads a model's weights once and again only when the key changes.
pub type WeightsKey = (u64, usize);

/// The CPU reference, or a GPU device with the last weights it ran.
#[derive(Default)]
pub struct Backend {
    #[cfg(feature = "gpu")]
    gpu: Option<GpuSide>,
}

#[cfg(feature = "gpu")]
struct GpuSide {
    ctx: Rc<GpuContext>,
    weights: Option<(WeightsKey, GpuModel)>,
    /// An encoder-decoder's two halves (`seq2seq.rs`).
    seq2seq: Option<(WeightsKey, GpuModel, GpuModel)>,
}

#[cfg(feature = "gpu")]
impl GpuSide {
    /// The device and the weights of `bert` on it, uploaded when `key` is not the last one's.
    fn with_weights(&mut self, key: WeightsKey, bert: &Bert) -> Result<(&GpuContext, &GpuModel)> {
        if self.weights.as_ref().map(|(k, _)| *k) != Some(key) {
            self.weights = None; // free the old weights before the new ones go up
            self.weights = Some((key, GpuModel::upload(&self.ctx, &bert.cfg, &bert.params)?));
        }
        Ok((&self.ctx, &self.weights.as_ref().expect("uploaded above").1))
    }
}

/// Runs a future to completion on this thread (natively: the CLI, tests and benches).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

impl Backend {
    /// The CPU reference path.
    pub fn cpu() -> Self {
        Backend::default()
    }

    /// A GPU backend on an open device.
    #[cfg(feature = "gpu")]
    pub fn gpu(ctx: Rc<GpuContext>) -> Self {
        Backend { gpu: Some(GpuSide { ctx, weights: None, seq2seq: None }) }
    }

    /// Opens the default adapter's device (an error says why there is none).
    #[cfg(feature = "gpu")]
    pub async fn open_gpu() -> Result<Self> {
        Ok(Self::gpu(Rc::new(GpuContext::new().await?)))
    }

    pub fn is_gpu(&self) -> bool {
        #[cfg(feature = "gpu")]
        return self.gpu.is_some();
        #[cfg(not(feature = "gpu"))]
        false
    }

    /// The device, on the GPU path.
    #[cfg(feature = "gpu")]
    pub fn context(&self) -> Option<&Rc<GpuContext>> {
        self.gpu.as_ref().map(|g| &g.ctx)
    }

    /// Errors when the device was lost (always Ok on the CPU path).
    pub fn check_alive(&self) -> Result<()> {
        #[cfg(feature = "gpu")]
        if let Some(g) = &self.gpu {
            return g.ctx.check_alive();
        }
        Ok(())
    }

    /// Frees the weights on the device (a new model was loaded).
    pub fn forget_weights(&mut self) {
        #[cfg(feature = "gpu")]
        if let Some(g) = &mut self.gpu {
            g.weights = None;
            g.seq2seq = None;
        }
    }

    /// The forward pass with every intermediate (the same trace on both paths, within tolerance).
    pub async fn forward(&mut self, bert: &Bert, key: WeightsKey, batch: &Batch, opts: &ForwardOptions<f32>) -> Result<ForwardTrace<f32>> {
        #[cfg(feature = "gpu")]
        if let Some(g) = &mut self.gpu {
            let (ctx, m) = g.with_weights(key, bert)?;
            return crate::gpu::trace_read::forward(ctx, m, batch, opts).await;
        }
        let _ = key;
        forward(&bert.params, &bert.cfg, batch, opts)
    }

    /// The loss of a labelled batch and every parameter's gradient (dropout off).
    pub async fn loss_and_grads(
        &mut self,
        bert: &Bert,
        key: WeightsKey,
        batch: &Batch,
        targets: &Targets,
    ) -> Result<(LossOutput<f32>, Grads<f32>)> {
        if targets.task.is_none() && bert.params.mlm.is_none() {
            return Err(BertError::Input("this model has no MLM head, so it has no MLM loss".into()));
        }
        #[cfg(feature = "gpu")]
        if let Some(g) = &mut self.gpu {
            use crate::gpu::{backward::record_backward, forward::record_forward, View};
            targets.validate(&bert.cfg, batch)?;
            let (ctx, m) = g.with_weights(key, bert)?;
            let grads = ctx.buffer("grads", m.layout.total)?;
            let mut rec = ctx.recorder();
            let opts = targets.forward_options(None);
            let tr = record_forward(&mut rec, m, batch, &opts, false)?;
            let reads = record_backward(&mut rec, m, &grads, batch, &tr, targets, None)?;
            let h = rec.read(View::whole(&grads));
            let rb = rec.finish().await?;
            let mut out = bert.params.zeros_like();
            m.layout.unflatten(rb.get(h), &mut out);
            let l = reads.loss(&rb);
            return Ok((LossOutput { loss: l.loss, mlm_loss: l.mlm_loss, nsp_loss: l.nsp_loss, task_loss: l.task_loss }, out));
        }
        let _ = key;
        let (loss, grads, _) = loss_and_grads(&bert.params, &bert.cfg, batch, targets, None)?;
        Ok((loss, grads))
    }

    /// The loss of a labelled batch run with `opts` (moved word rows, the rows the loss reads;
    /// dropout off) and its gradient with respect to the embeddings' sum (N, H): what attributions
    /// need. The CPU path also returns the trace (the masked-LM head's `label_logp`; its logits are
    /// then dlogits); the parameters' gradients are not kept. The GPU backward has no head mask: a request with one is an error (`BertError::Gpu`).
    pub async fn input_grads(
        &mut self,
        bert: &Bert,
        key: WeightsKey,
        batch: &Batch,
        targets: &Targets,
        opts: &ForwardOptions<f32>,
    ) -> Result<(Array2<f32>, Option<ForwardTrace<f32>>)> {
        #[cfg(feature = "gpu")]
        if let Some(g) = &mut self.gpu {
            use crate::gpu::{backward::record_backward, forward::record_forward, View};
            if opts.head_mask.is_some() {
                return Err(BertError::Gpu("the GPU backward has no head mask: switched-off heads are explained on the CPU path".into()));
            }
            targets.validate(&bert.cfg, batch)?;
            let (ctx, m) = g.with_weights(key, bert)?;
            let grads = ctx.buffer("grads", m.layout.total)?;
            let mut rec = ctx.recorder();
            let opts = ForwardOptions { dropout_seed: None, ..opts.clone() };
            let tr = record_forward(&mut rec, m, batch, &opts, false)?;
            let reads = record_backward(&mut rec, m, &grads, batch, &tr, targets, None)?;
            let d = reads.d_sum.as_ref().expect("the backward reaches the embeddings");
            let hd = rec.read(View::whole(d));
            let rb = rec.finish().await?;
            let d_sum = Array2::from_shape_vec((batch.b * batch.t, bert.cfg.hidden_size), rb.get(hd).to_vec())
                .map_err(|e| BertError::Gpu(format!("d_sum readback: {e}")))?;
            return Ok((d_sum, None));
        }
        let _ = key;
        let opts = ForwardOptions { dropout_seed: None, ..opts.clone() };
        let mut tr = forward(&bert.params, &bert.cfg, batch, &opts)?;
        let mut g = bert.params.input_grads_only();
        // the masked-LM logits become dlogits; `MlmTrace::label_logp` keeps what f needs
        let (_, d_sum) = crate::model::backward::backward_with_inputs(&bert.params, &bert.cfg, batch, &mut tr, targets, &mut g)?;
        Ok((d_sum, Some(tr)))
    }
}
