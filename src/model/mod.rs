//! The BERT model: parameters, the forward pass with every intermediate kept, the backward pass.

pub mod backward;
pub mod forward;
pub mod params;

pub use backward::{backward, Grads, LossOutput, Targets};
pub use forward::{forward, Batch, ForwardOptions, ForwardTrace, MlmRows};
pub use params::BertParams;
