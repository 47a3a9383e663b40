//! Widgets every tab uses: matrices (canvas, labels, legends), folds, badges, progress, the model picker, the tour.

pub(crate) mod badge;
pub(crate) mod bench_table;
pub(crate) mod error_box;
pub(crate) mod export;
pub(crate) mod fold;
pub(crate) mod grid_events;
pub(crate) mod legend;
pub(crate) mod mat;
pub(crate) mod matrix_canvas;
pub(crate) mod matrix_view;
pub(crate) mod model_choice;
pub(crate) mod model_picker;
pub(crate) mod panel_parts;
pub(crate) mod progress;
pub(crate) mod run_controls;
pub(crate) mod shapes;
pub(crate) mod text_input;
pub(crate) mod tour;
pub(crate) mod value_legend;
