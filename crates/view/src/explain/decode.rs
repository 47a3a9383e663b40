//! Decoding step by step as the Translate tab shows it (`bertscope::explain::decode` builds it
//! from the stepper): the method, the candidates and their odds, the attention maps, the beam tree.

use serde::{Deserialize, Serialize};

/// How the next token is chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Method {
    /// The most probable token.
    Greedy,
    /// Drawn from softmax(logits / temperature) over the `top_k` most probable (0: all), seeded.
    Sample { temperature: f32, top_k: usize, seed: u64 },
    /// `k` hypotheses kept at each step, as HF's `generate(num_beams=k)`.
    Beam { k: usize, length_penalty: f64 },
}

impl Method {
    /// A message for a setting out of range.
    pub fn check(&self) -> std::result::Result<(), String> {
        match *self {
            Method::Greedy => Ok(()),
            Method::Sample { temperature, .. } if !(temperature > 0.0 && temperature <= 100.0) => {
                Err(format!("temperature must be above 0 (and at most 100); got {temperature}"))
            }
            Method::Sample { .. } => Ok(()),
            Method::Beam { k, length_penalty } if !(1..=8).contains(&k) || !length_penalty.is_finite() => {
                Err(format!("beam search keeps 1 to 8 beams; got {k}"))
            }
            Method::Beam { .. } => Ok(()),
        }
    }
}

/// What the Translate tab asks of the decoder: this source, this way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecodeRequest {
    pub source: String,
    pub method: Method,
}

/// A decoding button.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DecodeAction {
    /// Back to the start: nothing generated, the first step's forward shown.
    Restart,
    /// One token (one step of beam search).
    Step,
    /// Every step until the end token or the length limit.
    RunToEnd,
}

/// Candidates shown for the next token.
pub const TOP: usize = 10;

/// A token and its probability.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub id: u32,
    pub token: String,
    pub prob: f32,
}

/// One head's attention: (rows x cols) row-major. Self-attention: rows and columns the decoder's
/// tokens, `masked` above the diagonal; cross-attention: rows the decoder's tokens, columns the
/// source's, nothing masked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttnMap {
    pub layer: usize,
    pub head: usize,
    pub rows: usize,
    pub cols: usize,
    /// After the softmax (masked cells exactly 0).
    pub probs: Vec<f32>,
    /// Q·K / √d_head before the softmax, with the mask: -inf at masked cells.
    pub scores: Vec<f32>,
    pub masked: Vec<bool>,
}

/// A node of the beam tree as shown: the token, the beam it extends (an index into the previous
/// step's running beams), its log-probability sum, and whether it lies on the output's path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BeamShown {
    pub token: String,
    pub parent: usize,
    pub sum: f64,
    pub finished: bool,
    pub score: Option<f64>,
    pub on_path: bool,
}

/// Beam search as a tree: each step's kept beams (running ones first in rank order, finished ones
/// where they fell), children of the step before's running beams.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BeamTree {
    pub k: usize,
    pub start: String,
    pub steps: Vec<Vec<BeamShown>>,
}

/// One decoding step as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecodeView {
    pub method: Method,
    /// The encoder's tokens, [CLS] .. [SEP] (S).
    pub source: Vec<String>,
    /// What the decoder read at this step, decoder_start first (T).
    pub prefix: Vec<String>,
    /// The output so far (after decoder_start; the end token included once reached) and its text.
    pub generated: Vec<String>,
    pub text: String,
    /// Tokens generated.
    pub step: usize,
    /// The token this step chose (greedy and sampling).
    pub chosen: Option<Candidate>,
    /// The most probable next tokens after `prefix`, in the distribution the method draws from.
    pub next: Vec<Candidate>,
    /// What `next` is.
    pub next_note: String,
    pub done: bool,
    /// Why decoding stopped (once done).
    pub stop: String,
    pub layers: usize,
    pub heads: usize,
    /// Layer-major: layer l head h at l * heads + h.
    pub self_attn: Vec<AttnMap>,
    pub cross_attn: Vec<AttnMap>,
    pub beams: Option<BeamTree>,
}

/// Who sees whom in one shape of the Transformer: a row per token that looks, a column per token
/// it could look at.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeGrid {
    pub name: &'static str,
    pub example: &'static str,
    pub what: &'static str,
    pub rows: Vec<&'static str>,
    pub cols: Vec<&'static str>,
    /// (rows x cols): the row's token sees the column's.
    pub sees: Vec<bool>,
    /// Columns from the source (encoder-decoder), drawn apart.
    pub source_cols: usize,
}

/// The three shapes: encoder-only sees every token, decoder-only the ones before, and an
/// encoder-decoder's decoder the ones before and all of the source.
pub fn shapes() -> [ShapeGrid; 3] {
    let words = vec!["the", "cat", "sat", "down"];
    let all = vec![true; 16];
    let causal: Vec<bool> = (0..16).map(|i| i % 4 <= i / 4).collect();
    let target = vec!["[start]", "four", "hundred", "fifty"];
    let cross: Vec<bool> = (0..4).flat_map(|r| (0..7).map(move |c| c < 3 || c - 3 <= r)).collect();
    [
        ShapeGrid {
            name: "Encoder-only (BERT)",
            example: "BERT, this page's first tabs",
            what: "Every token sees every token, before and after it. Great for understanding a whole sentence (fill a [MASK], classify, tag), but it cannot write new text: nothing in it predicts the next word.",
            rows: words.clone(),
            cols: words.clone(),
            sees: all,
            source_cols: 0,
        },
        ShapeGrid {
            name: "Decoder-only (GPT)",
            example: "GPT, most chat models",
            what: "Each token sees itself and the ones before it, never a later one (the causal mask), so the model can be trained to predict the next token and then generate, one token at a time.",
            rows: words.clone(),
            cols: words,
            sees: causal,
            source_cols: 0,
        },
        ShapeGrid {
            name: "Encoder-decoder (this tab)",
            example: "the original Transformer, T5, BART, translation",
            what: "The encoder reads the whole source (like BERT); the decoder generates the output one token at a time, seeing its own earlier tokens (causal self-attention) and, through cross-attention, all of the source.",
            rows: target.clone(),
            cols: ["4", "5", "0"].into_iter().chain(target).collect(),
            sees: cross,
            source_cols: 3,
        },
    ]
}
