//! The BERT model on the CPU reference path: parameters, the forward pass with every intermediate
//! kept, the backward pass, and AdamW (the optimiser the GPU's adamw kernel reproduces).

pub mod adamw;
pub mod backward;
pub mod cross;
pub mod forward;
pub mod params;
pub mod task;
pub mod top_k;
pub mod trace;

pub use backward::{backward, Grads, LossOutput, Targets};
pub use forward::{forward, Batch, ForwardOptions, ForwardTrace, MlmRows};
pub use params::BertParams;
