//! Errors of the engine: one enum, every message names the file, tensor or field at fault.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum BertError {
    #[error("config: {0}")]
    Config(String),
    #[error("checkpoint: {0}")]
    Checkpoint(String),
    #[error("checkpoint tensor `{name}`: {msg}")]
    Tensor { name: String, msg: String },
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    #[error("training: {0}")]
    Training(String),
    #[error("gpu: {0}")]
    Gpu(String),
    #[error("input: {0}")]
    Input(String),
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
}

pub type Result<T> = std::result::Result<T, BertError>;

impl BertError {
    pub fn tensor(name: impl Into<String>, msg: impl Into<String>) -> Self {
        BertError::Tensor { name: name.into(), msg: msg.into() }
    }
    pub fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        BertError::Io { path: path.as_ref().display().to_string(), source }
    }
}
