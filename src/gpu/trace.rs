//! What a GPU forward keeps: a buffer for every intermediate the backward reads and
//! `trace_read` brings back (the GPU twin of `crate::model::forward`'s trace structs).

use super::kernels::elementwise::Act;
use super::recorder::Recorder;
use crate::config::TaskKind;
use crate::error::Result;
use crate::model::trace::EncoderStates;
use ndarray::Array2;

pub struct GpuLayerTrace {
    pub q: wgpu::Buffer,      // (N, H)
    pub k: wgpu::Buffer,      // (N, H)
    pub v: wgpu::Buffer,      // (N, H)
    pub scores: wgpu::Buffer, // (B, NH, T, T) scaled, before the mask
    pub probs: wgpu::Buffer,  // (B, NH, T, T)
    pub pw: wgpu::Buffer,     // (B, NH, T, T) P * head mask * dropout (when weighted)
    pub weighted: bool,
    pub head: wgpu::Buffer,       // (NH) head-mask factors
    pub context: wgpu::Buffer,    // (N, H)
    pub attn_dense: wgpu::Buffer, // (N, H) after dropout
    pub attn_res: wgpu::Buffer,   // (N, H)
    pub attn_ln_mean: wgpu::Buffer,
    pub attn_ln_rstd: wgpu::Buffer,
    pub attn_ln_out: wgpu::Buffer, // (N, H)
    pub ffn_pre: wgpu::Buffer,     // (N, I)
    pub ffn_act: wgpu::Buffer,     // (N, I)
    pub ffn_out: wgpu::Buffer,     // (N, H) after dropout
    pub out_res: wgpu::Buffer,     // (N, H)
    pub out_ln_mean: wgpu::Buffer,
    pub out_ln_rstd: wgpu::Buffer,
    /// A decoder layer's cross-attention block.
    pub cross: Option<GpuCrossTrace>,
}

pub struct GpuMlmTrace {
    pub rows: Vec<usize>,
    pub x: wgpu::Buffer,   // (M, H) gathered last hidden rows
    pub pre: wgpu::Buffer, // (M, H)
    pub act: wgpu::Buffer, // (M, H)
    pub ln_mean: wgpu::Buffer,
    pub ln_rstd: wgpu::Buffer,
    pub ln_out: wgpu::Buffer, // (M, H)
    pub logits: wgpu::Buffer, // (M, V)
}

pub struct GpuPoolTrace {
    pub cls: wgpu::Buffer,                // (B, H)
    pub pooled: wgpu::Buffer,             // (B, H)
    pub nsp_logits: Option<wgpu::Buffer>, // (B, 2)
    /// The activation after the dense layer (`BertConfig::pooler_activation`).
    pub act: Act,
}

/// A fine-tuning head's input (after dropout) and logits: (B, L) / (N, L) / (N, 2).
pub struct GpuTaskTrace {
    pub kind: TaskKind,
    pub rows: usize,
    pub input: wgpu::Buffer,
    pub logits: wgpu::Buffer,
}

pub struct GpuTrace {
    pub b: usize,
    pub t: usize,
    pub mask: wgpu::Buffer,         // (B, T)
    pub word: Option<wgpu::Buffer>, // (N, H) separate parts, only when asked for
    pub position: wgpu::Buffer,     // (T, H) the position rows used
    pub token_type: Option<wgpu::Buffer>,
    pub sum: wgpu::Buffer, // (N, H)
    pub ln_mean: wgpu::Buffer,
    pub ln_rstd: wgpu::Buffer,
    /// L+1 hidden states (N, H), as HF `hidden_states`.
    pub hidden: Vec<wgpu::Buffer>,
    pub layers: Vec<GpuLayerTrace>,
    pub mlm: Option<GpuMlmTrace>,
    pub pool: Option<GpuPoolTrace>,
    pub task: Option<GpuTaskTrace>,
    pub head_mask: Option<Array2<f32>>,
    /// Dropout seeds per site when dropout is on (the backward regenerates the masks).
    pub dropout_seed: Option<u32>,
    /// A decoder's encoder states (its cross-attention's keys and values came from them).
    pub encoder: Option<GpuEncoder>,
}

/// The encoder's output as the decoder's cross-attention reads it, on the device.
pub struct GpuEncoder {
    /// (B*S, H) the encoder's last hidden state (projected to the decoder's width).
    pub hidden: wgpu::Buffer,
    /// (B, S) 1 = a source token, 0 = padding.
    pub mask: wgpu::Buffer,
    /// Source length S.
    pub s: usize,
    /// The same states on the CPU (a read-back trace carries them, as the CPU's does).
    pub states: EncoderStates<f32>,
}

impl GpuEncoder {
    /// Uploads `enc` for a batch of `b` sequences of a `h`-wide decoder.
    pub fn upload(rec: &Recorder<'_>, enc: &EncoderStates<f32>, b: usize, h: usize) -> Result<Self> {
        let s = enc.source_len(b, h)?;
        let ctx = rec.ctx();
        let flat = |a: &Array2<f32>| a.as_standard_layout().iter().copied().collect::<Vec<f32>>();
        Ok(GpuEncoder {
            hidden: ctx.upload("encoder_hidden", &flat(&enc.hidden))?,
            mask: ctx.upload("encoder_mask", &flat(&enc.mask))?,
            s,
            states: enc.clone(),
        })
    }
}

/// What a cross block's forward keeps (the GPU twin of `CrossTrace`).
pub struct GpuCrossTrace {
    pub q: wgpu::Buffer,      // (N, H) from the decoder
    pub k: wgpu::Buffer,      // (B*S, H) from the encoder
    pub v: wgpu::Buffer,      // (B*S, H)
    pub scores: wgpu::Buffer, // (B, NH, T, S) scaled, before the mask
    pub probs: wgpu::Buffer,  // (B, NH, T, S)
    pub pw: wgpu::Buffer,     // (B, NH, T, S) P * dropout (when weighted)
    pub weighted: bool,
    pub head: wgpu::Buffer,    // (NH) ones: no head mask on cross-attention
    pub context: wgpu::Buffer, // (N, H)
    pub dense: wgpu::Buffer,   // (N, H) after dropout
    pub res: wgpu::Buffer,     // (N, H) dense + x
    pub ln_mean: wgpu::Buffer,
    pub ln_rstd: wgpu::Buffer,
    pub ln_out: wgpu::Buffer, // (N, H): what the FFN reads
}
