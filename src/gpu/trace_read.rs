//! A GPU forward's intermediates read back as the CPU path's `ForwardTrace`: `request` asks the
//! recorder for every buffer of a `GpuTrace`, `assemble` shapes the readback into the CPU structs.

use super::block_reads::BlockReads;
use super::context::GpuContext;
use super::forward::record_forward;
use super::model::GpuModel;
use super::recorder::{ReadHandle, Readback, Recorder, View};
use super::trace::GpuTrace;
use crate::config::BertConfig;
use crate::error::Result;
use crate::model::forward::{Batch, EmbeddingTrace, ForwardOptions, ForwardTrace, LayerTrace, MlmTrace, PoolTrace};
use crate::model::task::TaskTrace;
use ndarray::{Array1, Array2};

/// Where each intermediate of a `GpuTrace` will be in the readback, field by field (the request and
/// the assembly name the same fields, so they cannot fall out of step).
pub struct TraceReads {
    word: Option<ReadHandle>,
    token_type: Option<ReadHandle>,
    position: ReadHandle,
    sum: ReadHandle,
    ln_mean: ReadHandle,
    ln_rstd: ReadHandle,
    hidden: Vec<ReadHandle>,
    layers: Vec<LayerReads>,
    mlm: Option<MlmReads>,
    pool: Option<PoolReads>,
    /// A task head's (input, logits).
    task: Option<(ReadHandle, ReadHandle)>,
}

struct LayerReads {
    /// The self-attention block, through its LayerNorm.
    attn: BlockReads,
    ffn_pre: ReadHandle,
    ffn_act: ReadHandle,
    ffn_out: ReadHandle,
    out_res: ReadHandle,
    out_ln_mean: ReadHandle,
    out_ln_rstd: ReadHandle,
    cross: Option<BlockReads>,
}

struct MlmReads {
    pre: ReadHandle,
    act: ReadHandle,
    ln_mean: ReadHandle,
    ln_rstd: ReadHandle,
    ln_out: ReadHandle,
    logits: ReadHandle,
}

struct PoolReads {
    pooled: ReadHandle,
    nsp_logits: Option<ReadHandle>,
}

impl GpuTrace {
    /// Asks `rec` for every intermediate of this trace.
    pub fn request(&self, rec: &Recorder<'_>) -> TraceReads {
        let r = |b: &wgpu::Buffer| rec.read(View::whole(b));
        TraceReads {
            word: self.word.as_ref().map(r),
            token_type: self.token_type.as_ref().map(r),
            position: r(&self.position),
            sum: r(&self.sum),
            ln_mean: r(&self.ln_mean),
            ln_rstd: r(&self.ln_rstd),
            hidden: self.hidden.iter().map(r).collect(),
            layers: self
                .layers
                .iter()
                .map(|l| LayerReads {
                    attn: BlockReads::request(
                        rec,
                        [
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
                        ],
                    ),
                    ffn_pre: r(&l.ffn_pre),
                    ffn_act: r(&l.ffn_act),
                    ffn_out: r(&l.ffn_out),
                    out_res: r(&l.out_res),
                    out_ln_mean: r(&l.out_ln_mean),
                    out_ln_rstd: r(&l.out_ln_rstd),
                    cross: l.cross.as_ref().map(|c| c.request(rec)),
                })
                .collect(),
            mlm: self.mlm.as_ref().map(|m| MlmReads {
                pre: r(&m.pre),
                act: r(&m.act),
                ln_mean: r(&m.ln_mean),
                ln_rstd: r(&m.ln_rstd),
                ln_out: r(&m.ln_out),
                logits: r(&m.logits),
            }),
            pool: self.pool.as_ref().map(|p| PoolReads { pooled: r(&p.pooled), nsp_logits: p.nsp_logits.as_ref().map(r) }),
            task: self.task.as_ref().map(|t| (r(&t.input), r(&t.logits))),
        }
    }
}

impl TraceReads {
    /// The CPU `ForwardTrace` (dropout masks are not stored on the GPU: their fields are None).
    pub fn assemble(self, tr: &GpuTrace, cfg: &BertConfig, batch: &Batch, rb: &Readback) -> ForwardTrace<f32> {
        let (b, t) = (tr.b, tr.t);
        let n = b * t;
        let (h, nh, inter, v) = (cfg.hidden_size, cfg.num_attention_heads, cfg.intermediate_size, cfg.vocab_size);
        let get = |x: ReadHandle| rb.get(x).to_vec();
        let a2 = |x: ReadHandle, r: usize, c: usize| Array2::from_shape_vec((r, c), get(x)).expect("shape");
        let a1 = |x: ReadHandle| Array1::from_vec(get(x));
        let position = a2(self.position, n, h);
        let zeros = || Array2::zeros((n, h));
        let emb = EmbeddingTrace {
            word: self.word.map(|x| a2(x, n, h)).unwrap_or_else(zeros),
            position,
            token_type: self.token_type.map(|x| a2(x, n, h)).unwrap_or_else(zeros),
            sum: a2(self.sum, n, h),
            ln_mean: a1(self.ln_mean),
            ln_rstd: a1(self.ln_rstd),
            drop: None,
        };
        let hidden = self.hidden.iter().map(|&x| a2(x, n, h)).collect();
        let layers = self
            .layers
            .iter()
            .map(|l| {
                let a = l.attn.assemble(rb, (b, t, t, nh, h));
                LayerTrace {
                    rows: None,
                    q: a.q,
                    k: a.k,
                    v: a.v,
                    attn: a.attn,
                    context: a.context,
                    attn_dense: a.dense,
                    attn_drop: None,
                    attn_res: a.res,
                    attn_ln_mean: a.ln_mean,
                    attn_ln_rstd: a.ln_rstd,
                    attn_ln_out: a.ln_out,
                    ffn_pre: a2(l.ffn_pre, n, inter),
                    ffn_act: a2(l.ffn_act, n, inter),
                    ffn_out: a2(l.ffn_out, n, h),
                    ffn_drop: None,
                    out_res: a2(l.out_res, n, h),
                    out_ln_mean: a1(l.out_ln_mean),
                    out_ln_rstd: a1(l.out_ln_rstd),
                    cross: l.cross.as_ref().zip(tr.encoder.as_ref()).map(|(c, e)| c.assemble(rb, (b, t, e.s, nh, h))),
                }
            })
            .collect();
        let mlm = self.mlm.as_ref().zip(tr.mlm.as_ref()).map(|(m, mt)| {
            let mm = mt.rows.len();
            MlmTrace {
                rows: mt.rows.clone(),
                pre: a2(m.pre, mm, h),
                act: a2(m.act, mm, h),
                ln_mean: a1(m.ln_mean),
                ln_rstd: a1(m.ln_rstd),
                ln_out: a2(m.ln_out, mm, h),
                logits: a2(m.logits, mm, v),
                label_logp: Vec::new(),
            }
        });
        let pool = self.pool.as_ref().map(|p| PoolTrace {
            pooled: a2(p.pooled, b, h),
            nsp_logits: p.nsp_logits.map(|x| a2(x, b, 2)),
            act: cfg.pooler_activation(),
        });
        let mask = Array2::from_shape_fn((b, t), |(i, j)| batch.attention_mask[i * t + j] as f32);
        let task = self.task.zip(tr.task.as_ref()).map(|((input, logits), tt)| TaskTrace {
            kind: tt.kind,
            input: a2(input, tt.rows, h),
            drop: None,
            logits: {
                let v = get(logits);
                let cols = v.len() / tt.rows.max(1);
                Array2::from_shape_vec((tt.rows, cols), v).expect("shape")
            },
        });
        let encoder = tr.encoder.as_ref().map(|e| e.states.clone());
        ForwardTrace { b, t, mask, emb, hidden, layers, mlm, pool, task, head_mask: tr.head_mask.clone(), encoder }
    }
}

/// One forward on the GPU, everything read back: the GPU twin of `crate::model::forward`.
/// One submit, one readback.
pub async fn forward(ctx: &GpuContext, m: &GpuModel, batch: &Batch, opts: &ForwardOptions<f32>) -> Result<ForwardTrace<f32>> {
    let mut rec = ctx.recorder();
    let tr = record_forward(&mut rec, m, batch, opts, true)?;
    let reads = tr.request(&rec);
    let rb = rec.finish().await?;
    Ok(reads.assemble(&tr, &m.cfg, batch, &rb))
}
