//! Where an attention block's intermediates will be in a readback: Q, K, V, scores, probabilities,
//! context, then the dense output, the residual sum and its LayerNorm. Every layer's self-attention
//! block and a decoder layer's cross-attention block read back the same way (`CrossTrace` is the
//! block's shape; a `LayerTrace` takes its first part from it).

use super::recorder::{ReadHandle, Readback, Recorder, View};
use crate::cpu::attention::AttentionCache;
use crate::model::forward::CrossTrace;
use ndarray::{Array1, Array2, Array4};

pub struct BlockReads {
    q: ReadHandle,
    k: ReadHandle,
    v: ReadHandle,
    scores: ReadHandle,
    probs: ReadHandle,
    context: ReadHandle,
    dense: ReadHandle,
    res: ReadHandle,
    ln_mean: ReadHandle,
    ln_rstd: ReadHandle,
    ln_out: ReadHandle,
}

impl BlockReads {
    /// Asks `rec` for the buffers, in the order of the fields.
    pub fn request(rec: &Recorder<'_>, bufs: [&wgpu::Buffer; 11]) -> Self {
        let [q, k, v, scores, probs, context, dense, res, ln_mean, ln_rstd, ln_out] = bufs.map(|b| rec.read(View::whole(b)));
        BlockReads { q, k, v, scores, probs, context, dense, res, ln_mean, ln_rstd, ln_out }
    }

    /// The block as the CPU keeps it, for B sequences of T queries over TK keys (no dropout masks).
    pub fn assemble(&self, rb: &Readback, (b, t, tk, nh, h): (usize, usize, usize, usize, usize)) -> CrossTrace<f32> {
        let a2 = |x: ReadHandle, r: usize| Array2::from_shape_vec((r, h), rb.get(x).to_vec()).expect("shape");
        let a1 = |x: ReadHandle| Array1::from_vec(rb.get(x).to_vec());
        let a4 = |x: ReadHandle| Array4::from_shape_vec((b, nh, t, tk), rb.get(x).to_vec()).expect("shape");
        let (n, nk) = (b * t, b * tk);
        CrossTrace {
            q: a2(self.q, n),
            k: a2(self.k, nk),
            v: a2(self.v, nk),
            attn: AttentionCache { scores: a4(self.scores), probs: a4(self.probs), drop: None },
            context: a2(self.context, n),
            dense: a2(self.dense, n),
            drop: None,
            res: a2(self.res, n),
            ln_mean: a1(self.ln_mean),
            ln_rstd: a1(self.ln_rstd),
            ln_out: a2(self.ln_out, n),
        }
    }
}
