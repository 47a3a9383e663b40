//! The backend choice with its fallback: a forward on the preferred backend (a GPU, when one is
//! chosen), and on the CPU reference when there is none or it fails. The caller learns why it fell
//! back (to say so, and to stop choosing that GPU); the answer is the same within tolerance.

use super::{Backend, WeightsKey};
use crate::bundle::Bert;
use crate::error::{BertError, Result};
use crate::model::forward::{Batch, ForwardOptions, ForwardTrace};

/// Where a forward ran, and the preferred backend's error when it fell back to the CPU.
pub enum Ran {
    Preferred,
    Cpu { failed: Option<BertError> },
}

/// `forward` on `preferred`, or on the CPU reference when `preferred` is None or fails (whatever the
/// error: the CPU path is the spec, and says so itself when the input is at fault).
pub async fn forward_or_cpu(
    preferred: Option<&mut Backend>,
    bert: &Bert,
    key: WeightsKey,
    batch: &Batch,
    opts: &ForwardOptions<f32>,
) -> Result<(ForwardTrace<f32>, Ran)> {
    let failed = match preferred {
        Some(b) => match b.forward(bert, key, batch, opts).await {
            Ok(t) => return Ok((t, Ran::Preferred)),
            Err(e) => Some(e),
        },
        None => None,
    };
    let trace = Backend::cpu().forward(bert, key, batch, opts).await?;
    Ok((trace, Ran::Cpu { failed }))
}
