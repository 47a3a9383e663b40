//! What the explainer shows, as pure functions of a loaded model and an input: the snapshot of one
//! forward pass, and the colour scale its heatmaps use; training, fine-tuning and translation runs as
//! plain data. No browser code here (tested natively).

pub mod anatomy_view;
pub mod attribute_bench;
pub mod decode;
pub mod embeddings;
pub mod ffn_detail;
pub mod head_detail;
pub mod snapshot;
pub mod translate;
pub mod why;

pub use bertscope_view::explain::{
    anatomy, anatomy_tables, attention_views, attribution, chart, colormap, coref, corpus_search, diverging, filmstrip, finetune,
    head_stats, heatmap_svg, layer_summary, models, qk_scatter, training,
};

#[cfg(test)]
mod anatomy_tests;

pub use snapshot::{build, ModelInfo, Request, Snapshot};
