//! What the explainer shows, as pure functions of a loaded model and an input: the snapshot of one
//! forward pass, and the colour scale its heatmaps use; training, fine-tuning and translation runs as
//! plain data. No browser code here (tested natively).

pub mod anatomy;
pub mod anatomy_tables;
pub mod anatomy_view;
pub mod attention_views;
pub mod attribute_bench;
pub mod chart;
pub mod colormap;
pub mod coref;
pub mod corpus_search;
pub mod decode;
pub mod diverging;
pub mod embeddings;
pub mod ffn_detail;
pub mod filmstrip;
pub mod finetune;
pub mod head_detail;
pub mod head_stats;
pub mod heatmap_svg;
pub mod layer_summary;
pub mod models;
pub mod qk_scatter;
pub mod snapshot;
pub mod training;
pub mod translate;
pub mod why;

pub use snapshot::{build, ModelInfo, Request, Snapshot};
