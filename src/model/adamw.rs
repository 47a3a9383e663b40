//! AdamW as `torch.optim.AdamW` (decoupled weight decay, bias-corrected moments), with weight decay
//! skipped for biases and LayerNorm parameters, as BERT's pre-training recipe does.

use crate::cpu::real::Real;
use crate::model::BertParams;
use ndarray::{ArrayViewD, ArrayViewMutD, Zip};

/// One optimiser step's settings beyond its batch: the learning rate, the gradient-norm clip and
/// dropout's seed (None: dropout off).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepOpts {
    pub lr: f64,
    pub max_norm: f64,
    pub dropout_seed: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct AdamWConfig {
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
    /// Leave the word embeddings (and a decoder tied to them) as they are (the CPU path).
    pub freeze_word_embeddings: bool,
}

impl Default for AdamWConfig {
    fn default() -> Self {
        AdamWConfig { beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0.01, freeze_word_embeddings: false }
    }
}

/// Whether a parameter gets weight decay: not biases, not LayerNorm.
pub fn decays(name: &str) -> bool {
    !(name.ends_with(".bias") || name.contains("LayerNorm"))
}

#[derive(Clone, Debug)]
pub struct AdamW<T> {
    pub cfg: AdamWConfig,
    pub step: u64,
    m: BertParams<T>,
    v: BertParams<T>,
}

impl<T: Real> AdamW<T> {
    pub fn new(params: &BertParams<T>, cfg: AdamWConfig) -> Self {
        AdamW { cfg, step: 0, m: params.zeros_like(), v: params.zeros_like() }
    }

    /// As `new`, with the word embeddings frozen: no moments for them (the gradients given to
    /// `update` must be frozen the same way).
    pub fn frozen_words(params: &BertParams<T>, cfg: AdamWConfig) -> Self {
        AdamW { cfg, step: 0, m: params.zeros_like().freeze_word_grads(), v: params.zeros_like().freeze_word_grads() }
    }

    /// The two moments (to save a run and resume it).
    pub fn moments(&self) -> (&BertParams<T>, &BertParams<T>) {
        (&self.m, &self.v)
    }

    /// The moments, mutable (to restore a saved run); `step` is set apart.
    pub fn moments_mut(&mut self) -> (&mut BertParams<T>, &mut BertParams<T>) {
        (&mut self.m, &mut self.v)
    }

    /// One update with learning rate `lr`.
    pub fn update(&mut self, params: &mut BertParams<T>, grads: &BertParams<T>, lr: f64) {
        self.step += 1;
        adamw_step(&self.cfg, self.step, params.tensors_mut(), grads.tensors(), self.m.tensors_mut(), self.v.tensors_mut(), lr);
    }
}

/// Step number `step` (from 1) of AdamW on parallel lists of (name, tensor): the parameters, their
/// gradients and the two moments, updated in place. `AdamW::update` for any parameter structure
/// (an encoder-decoder's both halves).
pub fn adamw_step<T: Real>(
    c: &AdamWConfig,
    step: u64,
    params: Vec<(String, ArrayViewMutD<'_, T>)>,
    grads: Vec<(String, ArrayViewD<'_, T>)>,
    mut ms: Vec<(String, ArrayViewMutD<'_, T>)>,
    mut vs: Vec<(String, ArrayViewMutD<'_, T>)>,
    lr: f64,
) {
    let bc1 = 1.0 - c.beta1.powi(step as i32);
    let bc2 = 1.0 - c.beta2.powi(step as i32);
    let (b1, b2, eps) = (T::c(c.beta1), T::c(c.beta2), T::c(c.eps));
    let step_size = T::c(lr / bc1);
    let sqrt_bc2 = T::c(bc2.sqrt());
    for (i, (name, mut p)) in params.into_iter().enumerate() {
        if grads[i].1.is_empty() && !p.is_empty() {
            continue; // a frozen tensor (`BertParams::freeze_word_grads`): no gradient, no decay
        }
        let decay = if decays(&name) { T::c(1.0 - lr * c.weight_decay) } else { T::one() };
        Zip::from(&mut p).and(&grads[i].1).and(&mut ms[i].1).and(&mut vs[i].1).for_each(|p, &g, m, v| {
            *p *= decay;
            *m = b1 * *m + (T::one() - b1) * g;
            *v = b2 * *v + (T::one() - b2) * g * g;
            let denom = v.sqrt() / sqrt_bc2 + eps;
            *p -= step_size * *m / denom;
        });
    }
}

/// Scales all gradients so their global L2 norm is at most `max_norm`, as
/// `torch.nn.utils.clip_grad_norm_`; returns the norm before clipping.
pub fn clip_grad_norm(g: &mut BertParams<f32>, max_norm: f64) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BertConfig, Heads};

    #[test]
    fn first_step_moves_each_weight_by_lr_in_the_gradient_sign() {
        let cfg = BertConfig::new(10, 4, 1, 2, 6, 8);
        let mut p = BertParams::<f64>::init(&cfg, Heads::MASKED_LM, 1);
        let before = p.clone();
        let g = p.map(|_| 0.5);
        let mut opt = AdamW::new(&p, AdamWConfig { weight_decay: 0.1, ..Default::default() });
        opt.update(&mut p, &g, 1e-2);
        for ((n, a), (_, b)) in p.tensors().into_iter().zip(before.tensors()) {
            let d = if decays(&n) { 1.0 - 1e-3 } else { 1.0 };
            for (x, y) in a.iter().zip(b.iter()) {
                // m_hat = g, v_hat = g^2 => update = lr * g / (|g| + eps) ~ lr
                let want = y * d - 1e-2 * 0.5 / (0.5 + 1e-8);
                assert!((x - want).abs() < 1e-12, "{n}: {x} vs {want}");
            }
        }
        assert!(!decays("bert.embeddings.LayerNorm.weight") && !decays("cls.predictions.bias"));
        assert!(decays("bert.encoder.layer.0.attention.self.query.weight"));
    }
}
