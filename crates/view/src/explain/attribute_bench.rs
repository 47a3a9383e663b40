//! The attribution methods' timings as the page's bench table shows them
//! (`bertscope::explain::attribute_bench` measures them).

use serde::{Deserialize, Serialize};

/// The medians, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AttributionTimings {
    pub tokens: usize,
    pub rounds: usize,
    /// The explainer's snapshot (a keystroke's forward).
    pub snapshot: f64,
    /// One forward + backward of the target's loss, every parameter's gradient included.
    pub forward_backward: f64,
    pub grad: f64,
    pub grad_x_input: f64,
    /// Integrated gradients, N = 32.
    pub ig: f64,
}

impl AttributionTimings {
    /// Integrated gradients against one forward + backward (the target: at most 4).
    pub fn ig_ratio(&self) -> f64 {
        self.ig / self.forward_backward
    }
}
