//! What the page shows for one input: a plain, serialisable snapshot of one forward pass (tokens,
//! attention of every head, hidden-state summaries, top-k at each [MASK], NSP), built from a loaded
//! model on the CPU path. The UI renders snapshots and never touches the engine.
//! Follows HF `BertForPreTraining` outputs (`attentions`, `hidden_states`, `prediction_logits`).

use super::ffn_detail::{ffn_detail, FfnDetail};
use super::head_detail::{head_detail, HeadDetail};
pub use super::layer_summary::{summarise_hidden, LayerSummary};
use crate::bundle::Bert;
use crate::config::count_params;
use crate::config::TaskKind;
use crate::cpu::softmax::softmax_row;
use crate::error::{BertError, Result};
use crate::explain::embeddings::{embedding_view, EmbeddingView};
use crate::infer::task::{best_per_row, best_spans, ranked, LabelProb, Span};
use crate::infer::{batch_of, top_k};
use crate::model::forward::{forward, Batch, ForwardOptions, ForwardTrace, MlmRows};
use crate::tokenize::{Encoded, Scheme};
use ndarray::{Array2, Axis};
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
    pub method: Option<crate::infer::attribute::Method>,
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

impl ModelInfo {
    pub fn of(bert: &Bert) -> Self {
        let cfg = &bert.cfg;
        ModelInfo {
            layers: cfg.num_hidden_layers,
            heads: cfg.num_attention_heads,
            hidden: cfg.hidden_size,
            intermediate: cfg.intermediate_size,
            vocab: cfg.vocab_size,
            max_len: bert.tokenizer.max_len,
            params: count_params(cfg, bert.params.heads()).total,
            has_mlm: bert.params.mlm.is_some(),
            has_nsp: bert.params.nsp.is_some(),
            family: cfg.family.display().into(),
            scheme: bert.tokenizer.scheme.display().into(),
            mask_token: bert.tokenizer.mask_token.clone(),
            has_segments: bert.params.emb.token_type.is_some(),
            first_position: cfg.family.positions_start(cfg.pad_token_id()),
        }
    }
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

/// Runs the model on `req` (CPU path) and keeps what the page shows.
pub fn build(bert: &Bert, req: &Request) -> Result<Snapshot> {
    build_with_trace(bert, req).map(|(s, _)| s)
}

/// `build`, also returning the forward's trace (for tests that check the views against it).
pub fn build_with_trace(bert: &Bert, req: &Request) -> Result<(Snapshot, ForwardTrace<f32>)> {
    let prep = prepare(bert, req)?;
    let trace = forward(&bert.params, &bert.cfg, &prep.batch, &prep.opts)?;
    Ok((finish(bert, req, prep, &trace), trace))
}

/// A request made ready for a forward pass: the batch and options to run (on either backend), and
/// what `finish` needs to turn the trace into a snapshot.
#[derive(Clone)]
pub struct Prepared {
    pub batch: Batch,
    pub opts: ForwardOptions<f32>,
    enc: Encoded,
    masked_from: Vec<Option<String>>,
    heads_off: Vec<(usize, usize)>,
    mask_positions: Vec<usize>,
    pair: bool,
}

/// Tokenises `req`, puts [MASK] where asked and builds the head mask: everything before the forward.
pub fn prepare(bert: &Bert, req: &Request) -> Result<Prepared> {
    if req.text.trim().is_empty() {
        return Err(BertError::Input(EMPTY_TEXT.into()));
    }
    let pair = req.pair.as_deref().filter(|p| !p.trim().is_empty());
    let mut enc = bert.tokenizer.encode(&req.text, pair)?;
    let t = enc.input_ids.len();
    if enc.special.iter().all(|&s| s == 1) {
        return Err(BertError::Input(NO_TOKENS.into()));
    }
    let (l, nh) = (bert.cfg.num_hidden_layers, bert.cfg.num_attention_heads);

    // Replace the requested positions by [MASK] (ids only: the pieces around them stay as they are).
    let mask_id = bert.tokenizer.mask_id;
    let mut masked_from = vec![None; t];
    for &p in &req.masked {
        if p < t && enc.special[p] == 0 && enc.input_ids[p] != mask_id {
            masked_from[p] = Some(std::mem::replace(&mut enc.tokens[p], bert.tokenizer.mask_token.clone()));
            enc.input_ids[p] = mask_id;
        }
    }

    let mut heads_off: Vec<(usize, usize)> = req.heads_off.iter().copied().filter(|&(li, h)| li < l && h < nh).collect();
    heads_off.sort_unstable();
    heads_off.dedup();
    let head_mask = (!heads_off.is_empty()).then(|| {
        let mut m = Array2::<f32>::ones((l, nh)); // (L, NH)
        for &(li, h) in &heads_off {
            m[[li, h]] = 0.0;
        }
        m
    });

    let mask_positions: Vec<usize> = (0..t).filter(|&i| enc.input_ids[i] == mask_id).collect();
    let mlm_rows =
        if bert.params.mlm.is_some() && !mask_positions.is_empty() { MlmRows::Rows(mask_positions.clone()) } else { MlmRows::None };
    let opts = ForwardOptions { head_mask, mlm_rows, ..Default::default() };
    Ok(Prepared { batch: batch_of(&enc), opts, enc, masked_from, heads_off, mask_positions, pair: pair.is_some() })
}

/// The snapshot of a prepared request from its forward trace (from either backend).
pub fn finish(bert: &Bert, req: &Request, prep: Prepared, trace: &ForwardTrace<f32>) -> Snapshot {
    let Prepared { enc, mut masked_from, heads_off, mask_positions, pair, .. } = prep;
    let t = enc.input_ids.len();
    let (l, nh) = (bert.cfg.num_hidden_layers, bert.cfg.num_attention_heads);
    let tok = &bert.tokenizer;
    let bpe = tok.scheme == Scheme::ByteLevelBpe;
    let specials = tok.special_ids();
    let special = |i: usize| enc.special[i] == 1 || specials.contains(&enc.input_ids[i]);
    let tokens = (0..t)
        .map(|i| Token {
            text: tok.readable(&enc.tokens[i]),
            id: enc.input_ids[i],
            segment: enc.token_type_ids[i],
            attention: enc.attention_mask[i],
            special: enc.special[i] == 1,
            // WordPiece marks a continuation with ##; byte-level BPE marks a word's start with Ġ
            continuation: match bpe {
                true => i > 0 && !special(i) && !special(i - 1) && !enc.tokens[i].starts_with('\u{120}'),
                false => enc.tokens[i].starts_with("##"),
            },
            masked_from: masked_from[i].take().map(|p| tok.readable(&p)),
        })
        .collect();

    let mut attention = Vec::with_capacity(l * nh);
    for layer in &trace.layers {
        let probs = layer.attn.probs.index_axis(Axis(0), 0); // (NH, T, T)
        for h in 0..nh {
            attention.push(probs.index_axis(Axis(0), h).iter().copied().collect::<Vec<f32>>());
            // (T*T)
        }
    }

    let task = trace.task.as_ref().map(|tt| match tt.kind {
        TaskKind::SequenceClassification if bert.cfg.is_regression() => TaskOutput::Score(tt.logits[[0, 0]]),
        TaskKind::SequenceClassification => TaskOutput::Classes(ranked(bert, tt.logits.row(0).as_slice().expect("contiguous"))),
        TaskKind::TokenClassification => TaskOutput::Tags(best_per_row(bert, &tt.logits)),
        TaskKind::QuestionAnswering => TaskOutput::Answer {
            spans: match &req.pair {
                Some(context) if pair => best_spans(&enc, context, &tt.logits, 3),
                _ => vec![],
            },
            start_logits: tt.logits.column(0).to_vec(),
            end_logits: tt.logits.column(1).to_vec(),
        },
    });
    let hidden = summarise_hidden(&trace.hidden);
    let embeddings = embedding_view(bert, &enc.input_ids, &enc.token_type_ids, trace);

    let k = req.top_k.clamp(1, MAX_TOP_K);
    let predictions = match &trace.mlm {
        Some(m) => mask_positions
            .iter()
            .enumerate()
            .map(|(row, &position)| MaskPredictions {
                position,
                top: top_k(m.logits.row(row).as_slice().expect("contiguous logits"), k)
                    .into_iter()
                    .map(|(id, prob)| Prediction { token: tok.readable(&tok.id_to_token(id)), id, prob })
                    .collect(),
            })
            .collect(),
        None => vec![],
    };

    let is_next = pair.then_some(()).and_then(|()| {
        let logits = trace.pool.as_ref()?.nsp_logits.as_ref()?; // (1, 2)
        let mut p = [logits[[0, 0]], logits[[0, 1]]];
        softmax_row(&mut p);
        Some(p[0])
    });

    Snapshot {
        seq: req.seq,
        tokens,
        scheme: tok.scheme.display().into(),
        family: bert.cfg.family.display().into(),
        mask_token: tok.mask_token.clone(),
        layers: l,
        heads: nh,
        attention,
        hidden,
        predictions,
        is_next,
        heads_off,
        truncated: enc.truncated,
        forward_ms: 0.0,
        device: String::new(),
        head_detail: req.head_steps.then(|| head_detail(bert, trace, req.head_focus.0, req.head_focus.1)),
        ffn_detail: req.ffn_steps.then(|| ffn_detail(bert, trace, req.ffn_focus.0, req.ffn_focus.1)),
        embeddings,
        task,
        anatomy: Some(Box::new(crate::explain::anatomy_view::anatomy_view(bert, t))),
        lens: if req.lens { lens(bert, trace, &mask_positions) } else { vec![] },
    }
}

/// The logit lens at each mask position (none without an MLM head).
fn lens(bert: &Bert, trace: &ForwardTrace<f32>, positions: &[usize]) -> Vec<MaskLens> {
    let tok = &bert.tokenizer;
    positions
        .iter()
        .filter_map(|&position| {
            let layers = crate::infer::lens::lens_at(bert, trace, position, LENS_TOP_K).ok()?;
            let layers = layers
                .into_iter()
                .map(|g| LensRow {
                    layer: g.layer,
                    top: g.predictions.into_iter().map(|p| Prediction { token: tok.readable(&p.token), id: p.id, prob: p.prob }).collect(),
                    answer_prob: g.answer_prob,
                })
                .collect();
            Some(MaskLens { position, layers })
        })
        .collect()
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod tests;
