//! bertscope's shared language, with no model code: what a model is (`config`), what can go wrong
//! (`error`), what the page shows (`explain`'s view-models) and what the page and its engine say to
//! each other (`protocol`). The engine (the root crate) builds these; the page's UI crate only
//! reads them, so the compiler keeps the UI away from the model, the backend and the GPU.

pub mod config;
pub mod error;
pub mod explain;
pub mod job;
pub mod model_files;
pub mod protocol;

pub use config::BertConfig;
pub use error::{BertError, Result};
