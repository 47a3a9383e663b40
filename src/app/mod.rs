//! The application layer: what the page's worker and the CLI ask of the engine, above `backend`
//! (how a model runs) and `explain` (what the views show). It owns what outlives one request: the
//! last forwards (`explainer`), so a view that looks at another part of the same forward is a query
//! on its trace, not a new forward.

pub mod coref_probe;
pub mod corpus_index;
pub mod corpus_views;
pub mod explainer;
pub mod head_survey;
pub mod jobs;
pub mod qk_projection;

pub use explainer::{Answer, Explainer};
