//! The translate tab: the encoder-decoder's controls, scores, decoding step by step and the beam tree.

pub(crate) mod beam_tree;
pub(crate) mod decode_controls;
pub(crate) mod decode_view;
pub(crate) mod translate_panel;
pub(crate) mod translate_results;
