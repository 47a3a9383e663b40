//! Training, kept apart from the model: the optimiser (and, later, data, masking and the loop).

pub mod adamw;
