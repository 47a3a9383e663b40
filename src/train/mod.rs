//! Training, kept apart from the model: corpus -> sentence pairs -> masking -> batches, the
//! optimiser and its schedule, and the loop.

pub mod adamw;
pub mod corpus;
pub mod examples;
pub mod masking;
pub mod schedule;
pub mod trainer;
