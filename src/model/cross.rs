//! A decoder layer's cross-attention block (`BertLayer.crossattention` in HF): queries from the
//! decoder's self-attention block, keys and values from the encoder's states, the encoder's padding
//! masked; dense, dropout, residual, LayerNorm. Forward and backward side by side.

use crate::config::BertConfig;
use crate::cpu::attention::{attention_backward, attention_forward, AttnShape};
use crate::cpu::dropout::dropout_mask;
use crate::cpu::layernorm::{layernorm_backward, layernorm_forward};
use crate::cpu::linear::{linear_backward, linear_forward};
use crate::cpu::real::Real;
use crate::error::Result;
use crate::model::params::CrossAttention;
use crate::model::trace::{apply_dropout, CrossTrace, EncoderStates};
use crate::rng::Rng;
use ndarray::{Array2, ArrayView2, ArrayViewMut2};

/// Cross-attention of a decoder layer: Q from `x` (N, H), K and V from the encoder's states,
/// the encoder's padding masked; dense, dropout, residual on `x`, LayerNorm.
pub(crate) fn cross_forward<T: Real>(
    c: &CrossAttention<T>,
    cfg: &BertConfig,
    enc: &EncoderStates<T>,
    x: ArrayView2<T>,
    b: usize,
    t: usize,
    rng: &mut Option<Rng>,
) -> Result<CrossTrace<T>> {
    let s = enc.source_len(b, cfg.hidden_size)?;
    let q = linear_forward(x, c.query.weight.view(), Some(c.query.bias.view()));
    let k = linear_forward(enc.hidden.view(), c.key.weight.view(), Some(c.key.bias.view()));
    let v = linear_forward(enc.hidden.view(), c.value.weight.view(), Some(c.value.bias.view()));
    let nh = cfg.num_attention_heads;
    let attn_drop = match rng.as_mut() {
        Some(r) if cfg.attention_probs_dropout_prob > 0.0 => Some(dropout_mask((b, nh, t, s), cfg.attention_probs_dropout_prob, r)),
        _ => None,
    };
    let sh = AttnShape { b, t, nh, tk: s, causal: false };
    let (context, attn) = attention_forward(q.view(), k.view(), v.view(), &sh, enc.mask.view(), None, attn_drop);
    let mut dense = linear_forward(context.view(), c.out.weight.view(), Some(c.out.bias.view()));
    let drop = apply_dropout(&mut dense, cfg.hidden_dropout_prob, rng);
    let res = &dense + &x;
    let (ln_out, ln_mean, ln_rstd) = layernorm_forward(res.view(), c.ln.gamma.view(), c.ln.beta.view(), cfg.layer_norm_eps);
    Ok(CrossTrace { q, k, v, attn, context, dense, drop, res, ln_mean, ln_rstd, ln_out })
}

/// The backward of a decoder layer's cross-attention block (`forward::cross_forward`): from the
/// gradient of its output (N, H) to the gradient of its input `x` (the self-attention block's
/// output), adding the encoder states' gradient (B*S, H) to `d_enc`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cross_backward<T: Real>(
    c: &CrossAttention<T>,
    ct: &CrossTrace<T>,
    gc: &mut CrossAttention<T>,
    cfg: &BertConfig,
    enc: &EncoderStates<T>,
    x: ArrayView2<T>,
    d_out: Array2<T>,
    b: usize,
    t: usize,
    mut d_enc: ArrayViewMut2<T>,
) -> Array2<T> {
    // ln_out = LN(res), res = dense + x
    let d_res = layernorm_backward(
        d_out.view(),
        ct.res.view(),
        ct.ln_mean.view(),
        ct.ln_rstd.view(),
        c.ln.gamma.view(),
        gc.ln.gamma.view_mut(),
        gc.ln.beta.view_mut(),
    );
    let mut dx = d_res.clone();
    // dense = dropout(context W_O^T + b_O)
    let mut d_dense = d_res;
    if let Some(m) = &ct.drop {
        d_dense *= m;
    }
    let d_context =
        linear_backward(d_dense.view(), ct.context.view(), c.out.weight.view(), gc.out.weight.view_mut(), Some(gc.out.bias.view_mut()));
    let sh = AttnShape { b, t, nh: cfg.num_attention_heads, tk: enc.mask.ncols(), causal: false };
    let (dq, dk, dv) = attention_backward(d_context.view(), ct.q.view(), ct.k.view(), ct.v.view(), &sh, None, &ct.attn);
    dx += &linear_backward(dq.view(), x, c.query.weight.view(), gc.query.weight.view_mut(), Some(gc.query.bias.view_mut()));
    let e = enc.hidden.view();
    d_enc += &linear_backward(dk.view(), e, c.key.weight.view(), gc.key.weight.view_mut(), Some(gc.key.bias.view_mut()));
    d_enc += &linear_backward(dv.view(), e, c.value.weight.view(), gc.value.weight.view_mut(), Some(gc.value.bias.view_mut()));
    dx
}
