//! The fine-tune tab: the controls, scores and charts, the probe sentence.

pub(crate) mod tune_panel;
pub(crate) mod tune_probe;
pub(crate) mod tune_results;
