//! Training, kept apart from the model: corpus -> sentence pairs -> masking -> batches, the
//! schedule, and the loop (the optimiser itself is `model::adamw`, run by `backend`).

pub mod corpus;
pub mod examples;
pub mod finetune;
pub mod masking;
pub mod options;
pub mod schedule;
pub mod seq2seq;
pub mod task_data;
pub mod task_metrics;
pub mod trainer;
