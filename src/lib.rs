//! bertscope: a BERT whose every intermediate number is visible, computed on the CPU (ndarray, the
//! reference) or on WebGPU, matching Hugging Face transformers.

pub mod app;
pub mod backend;
pub mod bundle;
pub mod checkpoint;
pub use bertscope_view::{config, error};
pub mod cpu;
pub mod explain;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod infer;
pub mod model;
pub mod rng;
pub mod seq2seq;
pub mod tensorfile;
pub mod tokenize;
pub mod train;
pub mod worker;

pub use config::BertConfig;
pub use error::{BertError, Result};
