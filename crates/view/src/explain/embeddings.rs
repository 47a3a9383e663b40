//! The embeddings views as the page shows them (`bertscope::explain::embeddings` builds them): what
//! layer 0 reads for each token, the sinusoidal position encoding with its clock hands,
//! position-to-position similarity, and "attention without training".

use serde::{Deserialize, Serialize};

/// The hidden dimensions shown as columns (the first ones): keeps each keystroke's reply small.
pub const MAX_DIMS: usize = 128;
/// Positions of the static position views (PE matrix, similarity matrices).
pub const MAX_POSITIONS: usize = 64;
/// Positions the clock can be moved through.
pub const MAX_CLOCK_POSITIONS: usize = 512;
/// One input's embeddings, the first `dims` columns of each (T, H) matrix; sent with every snapshot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingView {
    /// Tokens (rows).
    pub t: usize,
    /// The model's hidden size H.
    pub hidden: usize,
    /// Columns shown: min(H, MAX_DIMS), the first dims.
    pub dims: usize,
    /// The model adds the fixed sinusoidal encoding (true) or a learned table (false).
    pub sinusoidal: bool,
    /// The model has segment embeddings (DistilBERT has none: `segment` is then zeros).
    pub has_segments: bool,
    /// The position id of the first token (RoBERTa's start at pad_token_id + 1; else 0).
    pub first_position: usize,
    /// (T*D) row-major: E_tok[id_t], E_seg[s_t], E_pos[t] (from the model's tables).
    pub word: Vec<f32>,
    pub segment: Vec<f32>,
    pub position: Vec<f32>,
    /// (T*D) the sum as the forward computed it (LayerNorm's input).
    pub sum: Vec<f32>,
    /// (T*D) the LayerNorm output: what layer 0 reads (hidden state 0).
    pub ln_out: Vec<f32>,
    /// (T) LayerNorm statistics over all H dims of each token's sum.
    pub ln_mean: Vec<f32>,
    pub ln_rstd: Vec<f32>,
    /// (D) LayerNorm scale and shift.
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
    /// (T*T) cos(E_tok[id_i], E_tok[id_j]) over all H dims, and its row softmax: "attention
    /// without training".
    pub cosine: Vec<f32>,
    pub cos_attention: Vec<f32>,
}

/// The position views of a model (they do not depend on the text): sent once per model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PositionView {
    pub hidden: usize,
    /// The model's maximum length (position table rows).
    pub max_len: usize,
    /// Rows of the PE matrix and of the similarity matrices: min(max_len, MAX_POSITIONS).
    pub positions: usize,
    /// Columns of the PE matrix shown: min(H, MAX_DIMS).
    pub dims: usize,
    /// The model uses the sinusoidal encoding itself (else it has a learned table).
    pub sinusoidal: bool,
    /// (P*D) PE[pos, j] from the engine's sinusoidal function.
    pub pe: Vec<f32>,
    /// (ceil(D/2)) w_i = 1 / 10000^(2i / H) of each sin/cos pair shown: PE[pos, 2i] = sin(pos w_i).
    pub pair_freq: Vec<f64>,
    /// (P*P) cosine of PE rows (all H dims).
    pub pe_similarity: Vec<f32>,
    /// (P*P) cosine of the learned position embeddings' rows; None for a sinusoidal model.
    pub learned_similarity: Option<Vec<f32>>,
    /// Positions the clock moves through: min(max_len, MAX_CLOCK_POSITIONS).
    pub clock_positions: usize,
    pub hands: Vec<ClockHand>,
}

/// One sin/cos pair of the sinusoidal encoding as a clock hand turning by `freq` radians a position.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClockHand {
    /// The pair i: dims 2i (sin) and 2i+1 (cos).
    pub pair: usize,
    /// w_i = 1 / 10000^(2i / H).
    pub freq: f64,
    /// Positions per full turn: 2 pi / w_i.
    pub period: f64,
    /// (clock_positions) the angle pos * w_i in radians, and PE[pos, 2i] = sin, PE[pos, 2i+1] = cos.
    pub angle: Vec<f32>,
    pub sin: Vec<f32>,
    pub cos: Vec<f32>,
}
