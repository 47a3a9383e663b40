//! A GPU forward's intermediates read back as the CPU path's `ForwardTrace`: `request` asks the
//! recorder for every buffer of a `GpuTrace`, `assemble` shapes the readback into the CPU structs.

use super::forward::GpuTrace;
use super::recorder::{ReadHandle, Readback, Recorder, View};
use crate::config::BertConfig;
use crate::cpu::attention::AttentionCache;
use crate::model::forward::{Batch, EmbeddingTrace, ForwardTrace, LayerTrace, MlmTrace, PoolTrace};
use ndarray::{Array1, Array2, Array4};

/// Handles of every tensor of a trace asked for in a recorder; `assemble` builds the CPU trace.
pub struct TraceReads {
    handles: Vec<ReadHandle>,
}

impl GpuTrace {
    /// Asks for every intermediate (the order here is the order `assemble` takes them in).
    pub fn request(&self, rec: &Recorder<'_>) -> TraceReads {
        let mut hs = Vec::new();
        let mut r = |b: &wgpu::Buffer| hs.push(rec.read(View::whole(b)));
        for o in [&self.word, &self.token_type].into_iter().flatten() {
            r(o);
        }
        r(&self.position);
        r(&self.sum);
        r(&self.ln_mean);
        r(&self.ln_rstd);
        for x in &self.hidden {
            r(x);
        }
        for l in &self.layers {
            for x in [
                &l.q,
                &l.k,
                &l.v,
                &l.scores,
                &l.probs,
                &l.context,
                &l.attn_dense,
                &l.attn_res,
                &l.attn_ln_mean,
                &l.attn_ln_rstd,
                &l.attn_ln_out,
                &l.ffn_pre,
                &l.ffn_act,
                &l.ffn_out,
                &l.out_res,
                &l.out_ln_mean,
                &l.out_ln_rstd,
            ] {
                r(x);
            }
        }
        if let Some(mt) = &self.mlm {
            for x in [&mt.pre, &mt.act, &mt.ln_mean, &mt.ln_rstd, &mt.ln_out, &mt.logits] {
                r(x);
            }
        }
        if let Some(p) = &self.pool {
            r(&p.pooled);
            if let Some(nl) = &p.nsp_logits {
                r(nl);
            }
        }
        TraceReads { handles: hs }
    }
}

impl TraceReads {
    /// The CPU `ForwardTrace` (dropout masks are not stored on the GPU: their fields are None).
    pub fn assemble(self, tr: &GpuTrace, cfg: &BertConfig, batch: &Batch, rb: &Readback) -> ForwardTrace<f32> {
        let (b, t) = (tr.b, tr.t);
        let n = b * t;
        let (h, nh, inter, v) = (cfg.hidden_size, cfg.num_attention_heads, cfg.intermediate_size, cfg.vocab_size);
        let mut it = self.handles.into_iter();
        let mut next = || rb.get(it.next().expect("as many handles as requested")).to_vec();
        let a2 = |d: Vec<f32>, r: usize, c: usize| Array2::from_shape_vec((r, c), d).expect("shape");
        let a1 = |d: Vec<f32>| Array1::from_vec(d);
        let a4 = |d: Vec<f32>| Array4::from_shape_vec((b, nh, t, t), d).expect("shape");
        let word = tr.word.as_ref().map(|_| a2(next(), n, h));
        let token_type = tr.token_type.as_ref().map(|_| a2(next(), n, h));
        let pos_rows = a2(next(), t, h);
        let mut position = Array2::zeros((n, h));
        for bi in 0..b {
            position.slice_mut(ndarray::s![bi * t..(bi + 1) * t, ..]).assign(&pos_rows);
        }
        let sum = a2(next(), n, h);
        let ln_mean = a1(next());
        let ln_rstd = a1(next());
        let hidden: Vec<Array2<f32>> = (0..tr.hidden.len()).map(|_| a2(next(), n, h)).collect();
        let zeros = || Array2::zeros((n, h));
        let emb = EmbeddingTrace {
            word: word.unwrap_or_else(zeros),
            position,
            token_type: token_type.unwrap_or_else(zeros),
            sum,
            ln_mean,
            ln_rstd,
            drop: None,
        };
        let layers = tr
            .layers
            .iter()
            .map(|_| {
                let q = a2(next(), n, h);
                let k = a2(next(), n, h);
                let vv = a2(next(), n, h);
                let scores = a4(next());
                let probs = a4(next());
                LayerTrace {
                    q,
                    k,
                    v: vv,
                    attn: AttentionCache { scores, probs, drop: None },
                    context: a2(next(), n, h),
                    attn_dense: a2(next(), n, h),
                    attn_drop: None,
                    attn_res: a2(next(), n, h),
                    attn_ln_mean: a1(next()),
                    attn_ln_rstd: a1(next()),
                    attn_ln_out: a2(next(), n, h),
                    ffn_pre: a2(next(), n, inter),
                    ffn_act: a2(next(), n, inter),
                    ffn_out: a2(next(), n, h),
                    ffn_drop: None,
                    out_res: a2(next(), n, h),
                    out_ln_mean: a1(next()),
                    out_ln_rstd: a1(next()),
                }
            })
            .collect();
        let mlm = tr.mlm.as_ref().map(|mt| {
            let mm = mt.rows.len();
            MlmTrace {
                rows: mt.rows.clone(),
                pre: a2(next(), mm, h),
                act: a2(next(), mm, h),
                ln_mean: a1(next()),
                ln_rstd: a1(next()),
                ln_out: a2(next(), mm, h),
                logits: a2(next(), mm, v),
            }
        });
        let pool =
            tr.pool.as_ref().map(|p| PoolTrace { pooled: a2(next(), b, h), nsp_logits: p.nsp_logits.as_ref().map(|_| a2(next(), b, 2)) });
        let mask = Array2::from_shape_fn((b, t), |(i, j)| batch.attention_mask[i * t + j] as f32);
        ForwardTrace { b, t, mask, emb, hidden, layers, mlm, pool, head_mask: tr.head_mask.clone() }
    }
}
