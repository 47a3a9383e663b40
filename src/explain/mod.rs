//! What the explainer shows, as pure functions of a loaded model and an input: the snapshot of one
//! forward pass, and the colour scale its heatmaps use. No browser code here (tested natively).

pub mod colormap;
pub mod snapshot;

pub use snapshot::{build, ModelInfo, Request, Snapshot};
