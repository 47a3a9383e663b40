//! The train tab: the run controls, charts, masking view and filmstrip.

pub(crate) mod train_charts;
pub(crate) mod train_filmstrip;
pub(crate) mod train_masking;
pub(crate) mod train_panel;
