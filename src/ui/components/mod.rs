//! The page's views: small components that take props (a snapshot, callbacks) and render them.

mod ablation;
mod anatomy;
mod attention_grid;
mod attention_lines;
mod attention_panel;
mod attention_rollout;
mod badge;
mod beam_tree;
mod clock;
mod compare;
mod cosine_attention;
mod decode_controls;
mod decode_view;
mod derived;
mod embed_section;
mod embeddings;
mod error_box;
mod export;
mod mat;
pub(crate) use export::download_text;
mod bench_table;
mod ffn_panel;
mod fold;
mod grid_events;
mod head_average;
mod head_map;
mod head_steps;
mod heatmap;
mod heatmap_detail;
mod layer_trajectory;
mod layers;
mod legend;
mod logit_lens;
mod matrix_canvas;
mod matrix_view;
mod model_choice;
mod model_picker;
mod panel_parts;
mod position_similarity;
mod predictions;
mod progress;
mod shapes;
mod sinusoid;
mod task_output;
mod text_input;
mod tokens;
mod tour;
mod train_charts;
mod train_filmstrip;
mod train_masking;
mod train_panel;
mod translate_panel;
mod translate_results;
mod tune_panel;
mod tune_probe;
mod tune_results;
mod value_legend;
mod why;

pub use ablation::Ablation;
pub use anatomy::AnatomyPanel;
pub use attention_grid::AttentionGrid;
pub use attention_panel::AttentionPanel;
pub use badge::Badge;
pub use beam_tree::BeamTreeView;
pub use bench_table::BenchTable;
pub use clock::Clock;
pub use compare::BeforePredictions;
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
pub use shapes::Shapes;
pub use sinusoid::Sinusoid;
pub use task_output::TaskPanel;
pub use text_input::TextInput;
pub use tokens::Tokens;
pub use tour::TourPanel;
pub use train_charts::TrainCharts;
pub use train_filmstrip::Filmstrip;
pub use train_masking::MaskingPanel;
pub use train_panel::{Control, TrainPanel};
pub use translate_panel::{TranslateControl, TranslatePanel};
pub use translate_results::{TranslateCharts, TranslateScoresView};
pub use tune_panel::{TuneControl, TunePanel};
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
