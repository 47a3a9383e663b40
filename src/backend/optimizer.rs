//! The training side of a backend: the weights being trained and AdamW's moments, where the backend
//! runs them. On the CPU path the weights are the caller's `BertParams` (forward, backward, clip,
//! AdamW from `model::`); on the GPU they live on the device (`gpu::train::GpuOptimizer`: one submit a
//! step) and the caller's copy is stale until `sync`.

use super::Backend;
use crate::config::BertConfig;
use crate::cpu::cross_entropy::{cross_entropy_forward_backward, IGNORE};
use crate::error::{BertError, Result};
#[cfg(feature = "gpu")]
use crate::gpu::{train::GpuOptimizer, GpuContext};
use crate::model::adamw::{clip_grad_norm, AdamW, AdamWConfig, StepOpts};
use crate::model::backward::{backward, Grads, LossOutput, Targets};
use crate::model::forward::{forward, Batch, ForwardOptions, ForwardTrace, MlmRows};
use crate::model::task::{task_accuracy, task_loss, TaskLabels};
use crate::model::BertParams;
use crate::tensorfile::{parse, read_f32_into, write_tensors, Tensor};
#[cfg(feature = "gpu")]
use std::rc::Rc;

/// What one optimiser step measured.
#[derive(Clone, Debug)]
pub struct StepStats {
    pub loss: LossOutput<f32>,
    /// What the step trains, right by arg-max, of `labelled`: masked tokens (MLM), or the task
    /// head's classes, tags or spans.
    pub hits: usize,
    pub labelled: usize,
    /// The global gradient norm before clipping.
    pub grad_norm: f64,
}

impl StepStats {
    /// `hits` of `labelled` (0 when nothing was labelled).
    pub fn accuracy(&self) -> f32 {
        if self.labelled > 0 {
            self.hits as f32 / self.labelled as f32
        } else {
            0.0
        }
    }
}

/// The loss of a held-out batch (MLM, or the task head's) as a sum over its labelled items, so
/// batches add up; `hits` of `labelled` right by arg-max.
#[derive(Clone, Debug, Default)]
pub struct EvalStats {
    pub loss_sum: f64,
    pub hits: usize,
    pub labelled: usize,
}

pub struct Optimizer {
    adam: AdamWConfig,
    state: State,
}

enum State {
    Cpu {
        opt: AdamW<f32>,
        grads: Grads<f32>,
    },
    #[cfg(feature = "gpu")]
    Gpu {
        ctx: Rc<GpuContext>,
        opt: GpuOptimizer,
        /// The caller's `BertParams` hold the device's current weights.
        synced: bool,
    },
}

impl Backend {
    /// An optimiser for `params` on this backend (AdamW's moments start at zero).
    pub fn optimizer(&self, params: &BertParams<f32>, cfg: &BertConfig, adam: AdamWConfig) -> Result<Optimizer> {
        #[cfg(feature = "gpu")]
        if let Some(g) = &self.gpu {
            if adam.freeze_word_embeddings {
                return Err(BertError::Input("frozen word embeddings train on the CPU path (--device cpu)".into()));
            }
            let opt = GpuOptimizer::new(&g.ctx, cfg, params)?;
            return Ok(Optimizer { adam, state: State::Gpu { ctx: g.ctx.clone(), opt, synced: true } });
        }
        let _ = cfg;
        let state = if adam.freeze_word_embeddings {
            State::Cpu { opt: AdamW::frozen_words(params, adam.clone()), grads: params.zeros_like().freeze_word_grads() }
        } else {
            State::Cpu { opt: AdamW::new(params, adam.clone()), grads: params.zeros_like() }
        };
        Ok(Optimizer { state, adam })
    }
}

/// Labelled rows whose arg-max logit is the label, and how many rows are labelled.
pub fn mlm_accuracy(trace: &ForwardTrace<f32>, labels: &[i64]) -> (usize, usize) {
    let Some(m) = &trace.mlm else { return (0, 0) };
    let (mut hit, mut n) = (0, 0);
    for (k, &r) in m.rows.iter().enumerate() {
        if labels[r] == IGNORE {
            continue;
        }
        let best = m.logits.row(k).iter().enumerate().fold((0, f32::NEG_INFINITY), |b, (i, &v)| if v > b.1 { (i, v) } else { b }).0;
        hit += (best as i64 == labels[r]) as usize;
        n += 1;
    }
    (hit, n)
}

impl Optimizer {
    pub fn is_gpu(&self) -> bool {
        !matches!(self.state, State::Cpu { .. })
    }

    /// One step with `o`'s learning rate: forward (dropout when its seed is set), backward,
    /// clipping to its `max_norm`, AdamW. On a non-finite loss or gradient nothing is updated.
    pub async fn step(
        &mut self,
        params: &mut BertParams<f32>,
        cfg: &BertConfig,
        batch: &Batch,
        targets: &Targets,
        o: StepOpts,
    ) -> Result<StepStats> {
        let StepOpts { lr, max_norm, dropout_seed } = o;
        match &mut self.state {
            State::Cpu { opt, grads } => {
                // a head that reads only [CLS]: the last layer past its attention runs for those rows only
                let fopts =
                    ForwardOptions { last_layer_rows: targets.pooled_rows(batch.b, batch.t), ..targets.forward_options(dropout_seed) };
                let mut trace = forward(params, cfg, batch, &fopts)?;
                let (hits, labelled) = match &targets.task {
                    Some(l) => trace.task.as_ref().map_or((0, 0), |tt| task_accuracy(tt, l, batch.b, batch.t)),
                    None => mlm_accuracy(&trace, targets.mlm_labels.as_deref().unwrap_or(&[])),
                };
                grads.fill_zero();
                let loss = backward(params, cfg, batch, &mut trace, targets, grads)?;
                let grad_norm = clip_grad_norm(grads, max_norm);
                if !loss.loss.is_finite() || !grad_norm.is_finite() {
                    return Err(not_finite(opt.step, loss.loss, grad_norm));
                }
                opt.update(params, grads, lr);
                Ok(StepStats { loss, hits, labelled, grad_norm })
            }
            #[cfg(feature = "gpu")]
            State::Gpu { ctx, opt, synced } => {
                let st = opt.train_step(ctx, batch, targets, &self.adam, o).await?;
                *synced = false;
                let l = st.loss;
                let loss = LossOutput { loss: l.loss, mlm_loss: l.mlm_loss, nsp_loss: l.nsp_loss, task_loss: l.task_loss };
                let (hits, labelled) = if targets.task.is_some() { (l.task_hits, l.task_labelled) } else { (l.mlm_hits, l.mlm_labelled) };
                Ok(StepStats { loss, hits, labelled, grad_norm: st.grad_norm })
            }
        }
    }

    /// A forward of `batch` with the weights being trained (dropout off, no MLM rows): the task
    /// head's logits for its answers.
    pub async fn predict(&self, params: &BertParams<f32>, cfg: &BertConfig, batch: &Batch) -> Result<ForwardTrace<f32>> {
        let opts = ForwardOptions { mlm_rows: MlmRows::None, ..Default::default() };
        #[cfg(feature = "gpu")]
        if let State::Gpu { ctx, opt, .. } = &self.state {
            return crate::gpu::trace_read::forward(ctx, &opt.model, batch, &opts).await;
        }
        forward(params, cfg, batch, &opts)
    }

    /// The MLM loss and masked-token hits of a held-out batch (dropout off, no gradients), with the
    /// weights being trained (`params` on the CPU path, the device's on the GPU).
    pub async fn evaluate(&self, params: &BertParams<f32>, cfg: &BertConfig, batch: &Batch, targets: &Targets) -> Result<EvalStats> {
        #[cfg(feature = "gpu")]
        if let State::Gpu { ctx, opt, .. } = &self.state {
            if let Some(l) = &targets.task {
                // the head's logits come back with the trace; its loss is the CPU's formula
                return task_eval(&self.predict(params, cfg, batch).await?, l, batch);
            }
            let l = opt.evaluate(ctx, batch, targets).await?;
            return Ok(EvalStats { loss_sum: l.loss as f64 * l.mlm_labelled as f64, hits: l.mlm_hits, labelled: l.mlm_labelled });
        }
        let rows = targets.labelled_rows();
        let opts = ForwardOptions { mlm_rows: MlmRows::Rows(rows), ..Default::default() };
        let trace = forward(params, cfg, batch, &opts)?;
        if let Some(l) = &targets.task {
            return task_eval(&trace, l, batch);
        }
        let labels = targets.mlm_labels.as_deref().unwrap_or(&[]);
        let (hits, labelled) = mlm_accuracy(&trace, labels);
        let mut loss_sum = 0.0;
        if let Some(m) = &trace.mlm {
            let tgt: Vec<i64> = m.rows.iter().map(|&r| labels[r]).collect();
            let (l, _) = cross_entropy_forward_backward(m.logits.view(), &tgt);
            loss_sum = l as f64 * labelled as f64;
        }
        Ok(EvalStats { loss_sum, hits, labelled })
    }

    /// AdamW's step count and moments as safetensors (`m.<name>`, `v.<name>`, the step in the
    /// metadata), so a stopped run resumes where it was. The CPU path only.
    pub fn save_state(&self) -> Result<Vec<u8>> {
        let State::Cpu { opt, .. } = &self.state else {
            return Err(BertError::Input("saving the optimiser's state runs on the CPU path".into()));
        };
        let (m, v) = opt.moments();
        let mut out = Vec::new();
        for (prefix, p) in [("m", m), ("v", v)] {
            for (name, t) in p.tensors().into_iter().filter(|(_, t)| !t.is_empty()) {
                out.push((format!("{prefix}.{name}"), Tensor::F32(t.to_owned())));
            }
        }
        let meta = std::collections::HashMap::from([("step".to_string(), opt.step.to_string())]);
        write_tensors(&out, Some(meta))
    }

    /// Restores what `save_state` wrote; every moment of this optimiser must be in the file with
    /// its shape.
    pub fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        let State::Cpu { opt, .. } = &mut self.state else {
            return Err(BertError::Input("restoring the optimiser's state runs on the CPU path".into()));
        };
        let (_, meta) = safetensors::SafeTensors::read_metadata(bytes)
            .map_err(|e| BertError::Checkpoint(format!("the optimiser state is not a safetensors file: {e}")))?;
        let step = meta.metadata().as_ref().and_then(|m| m.get("step")).and_then(|s| s.parse::<u64>().ok());
        let step = step.ok_or_else(|| BertError::Checkpoint("the optimiser state has no step in its metadata".into()))?;
        let st = parse(bytes)?;
        let (m, v) = opt.moments_mut();
        for (prefix, p) in [("m", m), ("v", v)] {
            for (name, mut t) in p.tensors_mut().into_iter().filter(|(_, t)| !t.is_empty()) {
                let key = format!("{prefix}.{name}");
                let view = st.tensor(&key).map_err(|_| BertError::tensor(&key, "missing from the optimiser state"))?;
                if view.shape() != t.shape() {
                    return Err(BertError::tensor(&key, format!("shape {:?} in the file, {:?} in the model", view.shape(), t.shape())));
                }
                read_f32_into(&key, &view, t.as_slice_mut().expect("parameters are contiguous"))?;
            }
        }
        opt.step = step;
        Ok(())
    }

    /// Copies the device's weights into `params` when they changed since the last copy (a no-op on
    /// the CPU path, where `params` are the weights).
    pub async fn sync(&mut self, params: &mut BertParams<f32>) -> Result<()> {
        #[cfg(feature = "gpu")]
        if let State::Gpu { ctx, opt, synced } = &mut self.state {
            if !*synced {
                *params = opt.params(ctx).await?;
                *synced = true;
            }
        }
        let _ = params;
        Ok(())
    }
}

fn not_finite(step: u64, loss: f32, norm: f64) -> BertError {
    BertError::Training(format!(
        "step {step}: the loss ({loss}) or gradient norm ({norm}) is not finite; training stopped and the weights are those before this step (try a lower learning rate)"
    ))
}

/// A task head's held-out loss, weighted by its labelled items so batches add up, and its hits.
pub fn task_eval(trace: &ForwardTrace<f32>, l: &TaskLabels, batch: &Batch) -> Result<EvalStats> {
    let tt = trace.task.as_ref().ok_or_else(|| BertError::Input("task labels given, but the model has no task head".into()))?;
    l.validate(tt.kind, tt.logits.ncols(), batch.b, batch.t)?;
    let (loss, _) = task_loss(tt, l, batch.b, batch.t);
    let (hits, labelled) = task_accuracy(tt, l, batch.b, batch.t);
    let weight = if labelled > 0 { labelled } else { batch.b };
    Ok(EvalStats { loss_sum: loss as f64 * weight as f64, hits, labelled: weight.max(labelled) })
}
