//! What the page shows for one input: a plain, serialisable snapshot of one forward pass (tokens,
//! attention of every head, hidden-state summaries, top-k at each [MASK], NSP), built by the engine
//! (`bertscope::explain::snapshot`). The UI renders snapshots and never touches the engine.
//! Follows HF `BertForPreTraining` outputs (`attentions`, `hidden_states`, `prediction_logits`).

use super::embeddings::EmbeddingView;
use super::ffn_detail::FfnDetail;
use super::head_detail::HeadDetail;
pub use super::layer_summary::{summarise_hidden, LayerSummary};
use serde::{Deserialize, Serialize};

/// The most predictions kept at one [MASK].
pub const MAX_TOP_K: usize = 20;

/// One question to the engine: the text (and optional pair), which heads are switched off, which
/// token positions to replace with [MASK], and how many predictions to keep.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Increases with every request; the reply carries it, so the page can drop stale replies.
    pub seq: u64,
    pub text: String,
    /// The second sentence; None or empty = a single sentence.
    pub pair: Option<String>,
    /// (layer, head) pairs to switch off (head mask 0).
    pub heads_off: Vec<(usize, usize)>,
    /// Positions (in the tokenised sequence, [CLS] = 0) to replace by [MASK]; special tokens and
    /// positions past the end are ignored.
    pub masked: Vec<usize>,
    pub top_k: usize,
    /// The (layer, head) whose steps the page shows ("one head, step by step"); only it is sent.
    pub head_focus: (usize, usize),
    /// The (layer, token) whose FFN half the page shows.
    pub ffn_focus: (usize, usize),
    /// Whether those two views are open: closed, their details are neither computed nor sent.
    pub head_steps: bool,
    pub ffn_steps: bool,
    /// "Why this prediction": attribute an output after the snapshot (sent apart, `FromEngine::Why`).
    pub why: Option<WhyRequest>,
    /// The logit lens is open: each mask's guesses after every layer (`Snapshot::lens`).
    #[serde(default)]
    pub lens: bool,
}

/// What the page asks to explain.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WhyRequest {
    /// A target spec (`infer::attribute::Target`); None or one the input no longer has: the first
    /// output listed.
    pub target: Option<String>,
    pub method: Option<crate::explain::attribution::Method>,
    /// Integrated-gradient steps.
    pub steps: usize,
}

/// A loaded model, as the page describes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub layers: usize,
    pub heads: usize,
    pub hidden: usize,
    pub intermediate: usize,
    pub vocab: usize,
    pub max_len: usize,
    pub params: usize,
    pub has_mlm: bool,
    pub has_nsp: bool,
    /// "BERT", "DistilBERT", "RoBERTa".
    pub family: String,
    /// How the tokenizer splits words: "WordPiece", "byte-level BPE".
    pub scheme: String,
    /// The mask token as the tokenizer writes it (`[MASK]`, `<mask>`).
    pub mask_token: String,
    /// The model adds segment embeddings (DistilBERT does not).
    pub has_segments: bool,
    /// The first position id (RoBERTa: pad_token_id + 1; else 0).
    pub first_position: usize,
}

/// One token of the encoded input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Token {
    /// The WordPiece piece as the model sees it ([MASK] when masked by the request).
    pub text: String,
    pub id: u32,
    /// Segment (token type) id: 0 for the first sentence, 1 for the pair.
    pub segment: u32,
    /// Attention mask: 1 = attended (always 1 for one unpadded sequence).
    pub attention: u32,
    /// [CLS], [SEP] and other special tokens.
    pub special: bool,
    /// A `##` continuation of the previous piece.
    pub continuation: bool,
    /// The piece before the request replaced it by [MASK]; None when not masked by the request.
    pub masked_from: Option<String>,
}

/// Top-k predictions at one [MASK] (typed or masked by the request).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaskPredictions {
    pub position: usize,
    /// (token, id, probability), most probable first.
    pub top: Vec<Prediction>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub token: String,
    pub id: u32,
    pub prob: f32,
}

/// The result of one request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub seq: u64,
    pub tokens: Vec<Token>,
    /// How the tokenizer split the text ("WordPiece", "byte-level BPE").
    #[serde(default)]
    pub scheme: String,
    /// "BERT", "DistilBERT", "RoBERTa".
    #[serde(default)]
    pub family: String,
    /// The mask token as the tokenizer writes it (`[MASK]`, RoBERTa's `<mask>`).
    #[serde(default)]
    pub mask_token: String,
    pub layers: usize,
    pub heads: usize,
    /// [layer * heads + head] -> (T*T) row-major softmax probabilities, query row, key column
    /// (before the head mask, so a switched-off head still shows what it would attend to).
    pub attention: Vec<Vec<f32>>,
    /// L+1 entries: the embeddings output, then each layer's output.
    pub hidden: Vec<LayerSummary>,
    pub predictions: Vec<MaskPredictions>,
    /// P(IsNext) when a pair was given and the model has an NSP head.
    pub is_next: Option<f32>,
    /// The (layer, head) pairs that were switched off.
    pub heads_off: Vec<(usize, usize)>,
    /// The input was cut to the model's maximum length.
    pub truncated: bool,
    /// Milliseconds the forward took (filled in by the caller that timed it; 0 here).
    pub forward_ms: f64,
    /// What ran the forward, for the badge ("CPU (wasm)", "WebGPU (adapter)"; filled in by the
    /// caller; empty here).
    pub device: String,
    /// The focused head, step by step (`Request::head_focus`).
    pub head_detail: Option<HeadDetail>,
    /// The focused token's FFN half of the focused layer (`Request::ffn_focus`).
    pub ffn_detail: Option<FfnDetail>,
    /// What layer 0 reads: token, segment, position embeddings, their sum, LayerNorm (first dims),
    /// and attention without training (cosine of token embeddings).
    pub embeddings: EmbeddingView,
    /// A fine-tuned model's answer: its classes, its tags, or the answer span.
    pub task: Option<TaskOutput>,
    /// The model's size and one layer's cost for this sentence (None only in hand-made snapshots).
    #[serde(default)]
    pub anatomy: Option<Box<crate::explain::anatomy_view::AnatomyView>>,
    /// The logit lens at each [MASK] (`Request::lens`; a model with an MLM head).
    #[serde(default)]
    pub lens: Vec<MaskLens>,
}

/// What the model would guess at one [MASK] after each layer (`infer::lens`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaskLens {
    pub position: usize,
    /// Layer 0 (the embeddings) to L.
    pub layers: Vec<LensRow>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LensRow {
    pub layer: usize,
    pub top: Vec<Prediction>,
    /// The probability of the final answer (the last layer's first guess) at this layer.
    pub answer_prob: f32,
}

/// Guesses shown per layer in the lens.
pub const LENS_TOP_K: usize = 3;

/// One label and its probability.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LabelProb {
    pub label: String,
    pub id: usize,
    pub prob: f32,
}

/// One answer span: token positions (inclusive) inside the context segment and its text.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Span {
    pub text: String,
    pub start: usize,
    pub end: usize,
    /// start logit + end logit.
    pub score: f32,
}

/// What a task head says about the input (`infer::task`'s formats).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TaskOutput {
    /// Every label, most probable first.
    Classes(Vec<LabelProb>),
    /// A one-output (regression) head's score.
    Score(f32),
    /// The most probable tag of every token.
    Tags(Vec<LabelProb>),
    /// The best spans of the second sentence (the context) for the first (the question), and the
    /// start and end logits of every token. No span without a second sentence.
    Answer { spans: Vec<Span>, start_logits: Vec<f32>, end_logits: Vec<f32> },
}

impl Snapshot {
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The (T*T) attention of one head; panics outside the grid.
    pub fn head(&self, layer: usize, head: usize) -> &[f32] {
        &self.attention[layer * self.heads + head]
    }

    pub fn head_is_off(&self, layer: usize, head: usize) -> bool {
        self.heads_off.contains(&(layer, head))
    }
}

/// Messages a user can act on, worded for the page.
pub const EMPTY_TEXT: &str = "Type a sentence to see it go through BERT (the text box is empty).";
pub const NO_TOKENS: &str =
    "The text has no tokens left after normalisation (control characters and whitespace are dropped): type some words.";
