//! What the page shows, as plain data: the snapshot of one forward pass and its detail views, the
//! colour scales and charts, the head survey's and the probes' reports, training, fine-tuning and
//! translation runs. The engine builds these (`bertscope::explain`); nothing here runs a model.

pub mod anatomy;
pub mod anatomy_tables;
pub mod anatomy_view;
pub mod attention_views;
pub mod attribute_bench;
pub mod attribution;
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

pub use snapshot::{ModelInfo, Request, Snapshot};
