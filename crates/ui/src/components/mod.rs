//! The page's views: small components that take props (a snapshot, callbacks) and render them, by
//! feature: `explain/`, `train/`, `tune/`, `translate/`, and `shared/` widgets.

mod explain;
mod shared;
mod train;
mod translate;
mod tune;

// every component module by its name, as before the folders
pub(crate) use explain::{
    ablation, anatomy, attention_grid, attention_lines, attention_panel, attention_rollout, clock, compare, corpus_search,
    cosine_attention, derived, embed_section, embeddings, ffn_panel, head_average, head_map, head_steps, heatmap, heatmap_detail,
    layer_trajectory, layers, logit_lens, position_similarity, predictions, qk_scatter, sinusoid, task_output, tokens, why,
};
pub(crate) use shared::{
    badge, bench_table, error_box, export, fold, grid_events, legend, mat, matrix_canvas, matrix_view, model_choice, model_picker,
    panel_parts, progress, run_controls, shapes, text_input, tour, value_legend,
};
pub(crate) use train::{train_charts, train_filmstrip, train_masking, train_panel};
pub(crate) use translate::{beam_tree, decode_controls, decode_view, translate_panel, translate_results};
pub(crate) use tune::{tune_panel, tune_probe, tune_results};

pub(crate) use export::download_text;

pub use ablation::Ablation;
pub use anatomy::AnatomyPanel;
pub use attention_grid::AttentionGrid;
pub use attention_panel::AttentionPanel;
pub use badge::Badge;
pub use beam_tree::BeamTreeView;
pub use bench_table::BenchTable;
pub use clock::Clock;
pub use compare::BeforePredictions;
pub use corpus_search::CorpusSearch;
pub use cosine_attention::CosineAttention;
pub use decode_controls::DecodeControls;
pub use decode_view::{DecoderAttention, NextTokens};
pub use embed_section::EmbedSection;
pub use embeddings::Embeddings;
pub use error_box::ErrorBox;
pub use ffn_panel::FfnPanel;
pub use fold::Fold;
pub use head_map::HeadMap;
pub use head_steps::HeadSteps;
pub use heatmap::Heatmap;
pub use heatmap_detail::HeatmapDetail;
pub use layer_trajectory::LayerTrajectory;
pub use layers::Layers;
pub use legend::Legend;
pub use logit_lens::LogitLens;
pub use model_choice::ModelChoice;
pub use model_picker::ModelPicker;
pub use position_similarity::PositionSimilarity;
pub use predictions::Predictions;
pub use progress::LoadProgress;
pub use qk_scatter::QkScatter;
pub use shapes::Shapes;
pub use sinusoid::Sinusoid;
pub use task_output::TaskPanel;
pub use text_input::TextInput;
pub use tokens::Tokens;
pub use tour::TourPanel;
pub use train_charts::TrainCharts;
pub use train_filmstrip::Filmstrip;
pub use train_masking::MaskingPanel;
pub use train_panel::TrainPanel;
pub use translate_panel::TranslatePanel;
pub use translate_results::{TranslateCharts, TranslateScoresView};
pub use tune_panel::TunePanel;
pub use tune_probe::TuneProbeView;
pub use tune_results::{TuneBatchView, TuneCharts, TuneScores};
pub use why::WhyPanel;

use crate::explain::Snapshot;
use std::rc::Rc;

/// A snapshot shared by the views; two are equal when they are the same snapshot (no deep compare).
#[derive(Clone, Debug)]
pub struct SnapRef(pub Rc<Snapshot>);

impl PartialEq for SnapRef {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for SnapRef {
    type Target = Snapshot;
    fn deref(&self) -> &Snapshot {
        &self.0
    }
}

/// A probability as text with 4 decimals.
pub fn fmt_prob(p: f32) -> String {
    format!("{p:.4}")
}

/// A token for display: visible markers for whitespace-free pieces.
pub fn show_token(t: &str) -> String {
    if t.is_empty() {
        "∅".into()
    } else {
        t.to_string()
    }
}
