//! The messages between the page (UI thread) and the engine's Web Worker. Plain serde types: the
//! worker encodes them with bincode, so no `skip_serializing_if` here.

use crate::explain::{ModelInfo, Request, Snapshot};
use serde::{Deserialize, Serialize};

/// Page -> worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToEngine {
    /// Fetch and load the model folder at this absolute URL (ending in `/`).
    Load { base_url: String },
    /// Run one forward and reply with a snapshot (or `Failed`).
    Explain(Request),
}

/// Worker -> page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromEngine {
    /// Bytes of the model files received so far, of `total` (0 while unknown).
    Progress { loaded: u64, total: u64 },
    Loaded { info: ModelInfo, bytes: u64, ms: f64 },
    LoadFailed(String),
    Snapshot(Box<Snapshot>),
    Failed { seq: u64, message: String },
}
