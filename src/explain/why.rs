//! "Why this prediction": the outputs the page shows that can be explained (each [MASK]'s guesses,
//! the classes, each token's tag, the answer's start and end), and for the one picked, the
//! attribution of each token (`infer::attribute`) beside attention rollout and each layer's head
//! average at the same position, with the rank agreement of attribution and rollout (Spearman).

use super::attention_views::{layer_mean, residual_mix, rollout};
use super::snapshot::{Snapshot, TaskOutput};
use crate::backend::{Backend, WeightsKey};
use crate::bundle::Bert;
use crate::error::Result;
use crate::infer::attribute::{attribute_input, Input, Method, Target};
pub use bertscope_view::explain::why::*;
use ndarray::Array2;

/// Every output of `s` that can be explained, most useful first.
pub fn options(bert: &Bert, s: &Snapshot) -> Vec<WhyOption> {
    let mut out = Vec::new();
    for m in &s.predictions {
        for p in &m.top {
            out.push(WhyOption {
                spec: format!("mask:{}:{}", m.position, p.token),
                label: format!("\"{}\" at [MASK] {}", p.token, m.position),
            });
        }
    }
    match &s.task {
        Some(TaskOutput::Classes(labels)) => {
            out.extend(labels.iter().map(|l| WhyOption { spec: format!("class:{}", l.label), label: format!("class \"{}\"", l.label) }))
        }
        Some(TaskOutput::Tags(tags)) => {
            out.extend(tags.iter().zip(&s.tokens).enumerate().filter(|(_, (_, t))| !t.special).map(|(i, (tag, t))| WhyOption {
                spec: format!("tag:{i}:{}", tag.label),
                label: format!("tag {} of \"{}\"", tag.label, t.text),
            }))
        }
        Some(TaskOutput::Answer { spans, .. }) => {
            if let Some(b) = spans.first() {
                out.push(WhyOption {
                    spec: format!("start:{}", b.start),
                    label: format!("the answer's start (\"{}\")", s.tokens[b.start].text),
                });
                out.push(WhyOption { spec: format!("end:{}", b.end), label: format!("the answer's end (\"{}\")", s.tokens[b.end].text) });
            }
        }
        _ => {}
    }
    let _ = bert;
    out
}

/// Everything but the attribution: the options, the target picked, the rollout and layer-mean
/// rows at its position (cheap, from the snapshot's attention). None when nothing can be explained.
#[derive(Clone)]
pub struct WhyPrep {
    seq: u64,
    options: Vec<WhyOption>,
    target: Target,
    spec: String,
    method: Method,
    steps: usize,
    input: Input,
    rollout: Vec<f32>,
    layer_means: Vec<Vec<f32>>,
}

pub fn prepare(bert: &Bert, s: &Snapshot, req: &WhyRequest) -> Option<WhyPrep> {
    let options = options(bert, s);
    let t = s.tokens.len();
    let picked = req.target.as_deref().filter(|spec| options.iter().any(|o| o.spec == *spec));
    let spec = picked.map(str::to_string).or_else(|| options.first().map(|o| o.spec.clone()))?;
    let target = Target::parse(&spec, bert, t).ok()?;
    let pos = target.position();
    let means: Vec<Vec<f32>> = (0..s.layers).map(|l| layer_mean(s, l)).collect();
    let mixed_rollout = rollout(&means, t).last().map(|r| r.rollout[pos * t..(pos + 1) * t].to_vec()).unwrap_or_default();
    let layer_means = means.iter().map(|m| m[pos * t..(pos + 1) * t].to_vec()).collect();
    let _ = residual_mix;
    let head_mask = (!s.heads_off.is_empty()).then(|| {
        let mut m = Array2::<f32>::ones((s.layers, s.heads));
        for &(l, h) in &s.heads_off {
            m[[l, h]] = 0.0;
        }
        m
    });
    let input = Input {
        ids: s.tokens.iter().map(|t| t.id).collect(),
        segments: s.tokens.iter().map(|t| t.segment).collect(),
        tokens: s.tokens.iter().map(|t| t.text.clone()).collect(),
        head_mask,
    };
    Some(WhyPrep {
        seq: s.seq,
        options,
        target,
        spec,
        method: req.method.unwrap_or(Method::Grad),
        steps: req.steps.clamp(1, 256),
        input,
        rollout: mixed_rollout,
        layer_means,
    })
}

/// The attribution itself (one forward + backward; N + 1 for integrated gradients), on `backend`
/// (whose GPU knows `bert`'s weights as `key`).
pub async fn finish(backend: &mut Backend, bert: &Bert, key: WeightsKey, p: WhyPrep) -> Result<WhyView> {
    let a = attribute_input(backend, bert, key, &p.input, &p.target, p.method, p.steps).await?;
    let magnitude: Vec<f32> = a.scores.iter().map(|v| v.abs()).collect();
    Ok(WhyView {
        seq: p.seq,
        options: p.options,
        target: p.spec,
        method: p.method,
        position: p.target.position(),
        tokens: a.tokens,
        spearman: spearman(&magnitude, &p.rollout),
        scores: a.scores,
        value: a.value,
        gap: a.completeness_gap,
        rollout: p.rollout,
        layer_means: p.layer_means,
        ms: 0.0,
    })
}

/// `finish` on the `preferred` backend (WebGPU when chosen), and on the CPU path when that fails
/// on the device (e.g. with heads switched off).
pub async fn finish_or_cpu(preferred: Option<&mut Backend>, bert: &Bert, key: WeightsKey, p: WhyPrep) -> Result<WhyView> {
    if let Some(b) = preferred {
        match finish(b, bert, key, p.clone()).await {
            Err(crate::error::BertError::Gpu(_)) => {} // the CPU path below
            r => return r,
        }
    }
    finish(&mut Backend::cpu(), bert, key, p).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_ranks_with_ties() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None, "a constant has no ranks to compare");
        // ties share their average rank: ranks (1.5, 1.5, 3) against (1, 2, 3)
        let r = spearman(&[5.0, 5.0, 9.0], &[1.0, 2.0, 3.0]).unwrap();
        assert!((r - 0.8660254).abs() < 1e-6, "{r}");
    }
}
