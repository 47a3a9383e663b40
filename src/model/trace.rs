//! What the forward pass keeps (every intermediate the explainer shows and the backward needs) and
//! what it is given: the batch, the options, the traces of each part. The forward itself is
//! `forward.rs`; the task heads' and the cross-attention's steps are `task.rs` and `cross.rs`.

use crate::config::{BertConfig, PoolerActivation, TaskKind};
use crate::cpu::attention::AttentionCache;
use crate::cpu::dropout::dropout_mask;
use crate::cpu::real::Real;
use crate::error::{BertError, Result};
use crate::rng::Rng;
use ndarray::{Array1, Array2};

/// A padded batch of token sequences, flattened row-major: index = b * T + t.
#[derive(Clone, Debug)]
pub struct Batch {
    pub b: usize,
    pub t: usize,
    pub input_ids: Vec<usize>,      // (B*T)
    pub token_type_ids: Vec<usize>, // (B*T)
    pub attention_mask: Vec<u8>,    // (B*T) 1 = token, 0 = padding
}

impl Batch {
    pub fn single(input_ids: Vec<usize>, token_type_ids: Vec<usize>) -> Self {
        let t = input_ids.len();
        Batch { b: 1, t, input_ids, token_type_ids, attention_mask: vec![1; t] }
    }

    /// Tokens that are not padding.
    pub fn tokens(&self) -> usize {
        self.attention_mask.iter().filter(|&&m| m == 1).count()
    }

    /// Every id in range for `cfg`, every length consistent, T within the position table.
    pub fn validate(&self, cfg: &BertConfig) -> Result<()> {
        let n = self.b * self.t;
        if self.b == 0 || self.t == 0 {
            return Err(BertError::Input("empty batch (no tokens)".into()));
        }
        if self.input_ids.len() != n || self.token_type_ids.len() != n || self.attention_mask.len() != n {
            return Err(BertError::Input(format!(
                "batch arrays must all have B*T = {}x{} entries (input_ids {}, token_type_ids {}, attention_mask {})",
                self.b,
                self.t,
                self.input_ids.len(),
                self.token_type_ids.len(),
                self.attention_mask.len()
            )));
        }
        if self.t > cfg.max_tokens() {
            return Err(BertError::Input(format!(
                "sequence length {} exceeds the {} positions of max_position_embeddings {}",
                self.t,
                cfg.max_tokens(),
                cfg.max_position_embeddings
            )));
        }
        if let Some(&id) = self.input_ids.iter().find(|&&i| i >= cfg.vocab_size) {
            return Err(BertError::Input(format!("token id {id} is outside the vocabulary ({})", cfg.vocab_size)));
        }
        // a model without segment embeddings (DistilBERT) ignores the segment ids
        if let Some(&id) = self.token_type_ids.iter().find(|&&i| cfg.family.has_segments() && i >= cfg.type_vocab_size) {
            return Err(BertError::Input(format!("token type id {id} is outside type_vocab_size {}", cfg.type_vocab_size)));
        }
        Ok(())
    }

    /// The position id of every token (B*T), as HF computes them for `cfg`'s family.
    pub fn position_ids(&self, cfg: &BertConfig) -> Vec<usize> {
        self.input_ids.chunks(self.t.max(1)).flat_map(|row| cfg.position_ids(row)).collect()
    }
}

/// Which rows get MLM logits: none, all (the explainer), or the labelled ones (training).
#[derive(Clone, Debug, Default)]
pub enum MlmRows {
    None,
    #[default]
    All,
    Rows(Vec<usize>),
}

#[derive(Clone, Debug, Default)]
pub struct ForwardOptions<T> {
    /// (L, NH) multiplies each head's attention probabilities (0 switches a head off).
    pub head_mask: Option<Array2<T>>,
    pub mlm_rows: MlmRows,
    /// Dropout with the config's probabilities, seeded; None = off (evaluation).
    pub dropout_seed: Option<u64>,
    /// Training a head that reads only these rows of the last hidden state (the pooled [CLS] of a
    /// sequence classifier): the last layer's attention runs for every row (its keys and values),
    /// the rest of that layer only for these rows, and the other rows of the last hidden state are
    /// 0. The same loss and gradients as the whole layer (tested) for about a third less work.
    pub last_layer_rows: Option<Vec<usize>>,
    /// (N, H) rows used instead of the word-embedding lookup (positions and segments as usual):
    /// attributions move them (integrated gradients' path from a baseline).
    pub word_rows: Option<Array2<T>>,
    /// A decoder's encoder: what its cross-attention reads.
    pub encoder: Option<EncoderStates<T>>,
    /// The masked-LM head stops at its LayerNorm; the backward computes the decoder's logits
    /// inside the loss, chunk by chunk (`cpu::vocab_loss`: W read once, no (M, V) array), and leaves
    /// each labelled row's log-probability in `MlmTrace::label_logp`. Input gradients only
    /// (`BertParams::input_grads_only`): what attributions need.
    pub logits_in_loss: bool,
}

/// The encoder's output as a decoder's cross-attention reads it.
#[derive(Clone, Debug)]
pub struct EncoderStates<T> {
    /// (B*S, H) the encoder's last hidden state (projected to the decoder's width when they differ).
    pub hidden: Array2<T>,
    /// (B, S) 1 = a source token, 0 = padding.
    pub mask: Array2<T>,
}

impl<T> EncoderStates<T> {
    /// S, the source length, after checking the states fit `b` sequences of an `h`-wide decoder.
    pub fn source_len(&self, b: usize, h: usize) -> Result<usize> {
        let s = self.mask.ncols();
        if self.mask.nrows() != b || self.hidden.dim() != (b * s, h) {
            return Err(BertError::Input(format!(
                "the encoder's states must be (B*S, H) = ({}, {h}) with a (B, S) mask, got {:?} and {:?}",
                b * s,
                self.hidden.dim(),
                self.mask.dim()
            )));
        }
        Ok(s)
    }
}

/// A decoder layer's cross-attention, on the self-attention block's output.
#[derive(Clone, Debug)]
pub struct CrossTrace<T> {
    pub q: Array2<T>, // (N, H) from the decoder
    pub k: Array2<T>, // (B*S, H) from the encoder
    pub v: Array2<T>, // (B*S, H)
    /// probs (B, NH, T, S)
    pub attn: AttentionCache<T>,
    pub context: Array2<T>, // (N, H)
    pub dense: Array2<T>,   // (N, H) context W_O^T + b_O, after dropout
    pub drop: Option<Array2<T>>,
    pub res: Array2<T>, // (N, H) dense + the self-attention block's output
    pub ln_mean: Array1<T>,
    pub ln_rstd: Array1<T>,
    pub ln_out: Array2<T>, // (N, H): what the FFN reads
}

#[derive(Clone, Debug)]
pub struct EmbeddingTrace<T> {
    pub word: Array2<T>,         // (N, H)
    pub position: Array2<T>,     // (N, H) learned rows or the sinusoidal encoding
    pub token_type: Array2<T>,   // (N, H)
    pub sum: Array2<T>,          // (N, H) word + position + token_type
    pub ln_mean: Array1<T>,      // (N)
    pub ln_rstd: Array1<T>,      // (N)
    pub drop: Option<Array2<T>>, // (N, H)
}

#[derive(Clone, Debug)]
pub struct LayerTrace<T> {
    /// Some: the layer after its attention ran only at these rows (`ForwardOptions::last_layer_rows`):
    /// attn_dense .. out_ln_rstd hold R rows instead of N. With one row per sequence (and no
    /// attention dropout, not causal) the attention ran for those queries only: q and context hold
    /// the B rows, the attention cache is (B, NH, 1, T).
    pub rows: Option<Vec<usize>>,
    pub q: Array2<T>, // (N, H); head h is columns h*HD..(h+1)*HD
    pub k: Array2<T>, // (N, H)
    pub v: Array2<T>, // (N, H)
    pub attn: AttentionCache<T>,
    pub context: Array2<T>,    // (N, H) heads concatenated
    pub attn_dense: Array2<T>, // (N, H) context W_O^T + b_O
    pub attn_drop: Option<Array2<T>>,
    pub attn_res: Array2<T>, // (N, H) input + attn_dense
    pub attn_ln_mean: Array1<T>,
    pub attn_ln_rstd: Array1<T>,
    pub attn_ln_out: Array2<T>, // (N, H)
    pub ffn_pre: Array2<T>,     // (N, I) before the activation
    pub ffn_act: Array2<T>,     // (N, I)
    pub ffn_out: Array2<T>,     // (N, H)
    pub ffn_drop: Option<Array2<T>>,
    pub out_res: Array2<T>, // (N, H) attn_ln_out (or cross.ln_out) + ffn_out
    pub out_ln_mean: Array1<T>,
    pub out_ln_rstd: Array1<T>,
    /// A decoder layer's cross-attention.
    pub cross: Option<CrossTrace<T>>,
}

#[derive(Clone, Debug)]
pub struct MlmTrace<T> {
    pub rows: Vec<usize>,   // (M) flattened row of each logit row
    pub pre: Array2<T>,     // (M, H) transform dense output
    pub act: Array2<T>,     // (M, H)
    pub ln_mean: Array1<T>, // (M)
    pub ln_rstd: Array1<T>, // (M)
    pub ln_out: Array2<T>,  // (M, H)
    /// (M, V); (0, V) with `ForwardOptions::logits_in_loss` (the backward computes them).
    pub logits: Array2<T>,
    /// After the backward: each row's log-probability of its label (the logits are then dlogits,
    /// or were never made with `logits_in_loss`).
    pub label_logp: Vec<T>,
}

#[derive(Clone, Debug)]
pub struct PoolTrace<T> {
    pub pooled: Array2<T>,             // (B, H) act(W h_cls + b)
    pub nsp_logits: Option<Array2<T>>, // (B, 2)
    /// tanh, or ReLU for DistilBERT's pre_classifier
    pub act: PoolerActivation,
}

#[derive(Clone, Debug)]
pub struct ForwardTrace<T> {
    pub b: usize,
    pub t: usize,
    pub mask: Array2<T>, // (B, T)
    pub emb: EmbeddingTrace<T>,
    /// L+1 entries of (N, H): 0 is the embeddings output, l+1 the output of layer l (HF `hidden_states`).
    pub hidden: Vec<Array2<T>>,
    pub layers: Vec<LayerTrace<T>>,
    pub mlm: Option<MlmTrace<T>>,
    pub pool: Option<PoolTrace<T>>,
    /// The fine-tuning head's logits (`model::task`).
    pub task: Option<TaskTrace<T>>,
    pub head_mask: Option<Array2<T>>,
    /// A decoder's encoder states (its cross-attention's keys and values came from them).
    pub encoder: Option<EncoderStates<T>>,
}

impl<T: Real> ForwardTrace<T> {
    /// The last hidden state (N, H).
    pub fn last_hidden(&self) -> &Array2<T> {
        self.hidden.last().expect("at least the embeddings")
    }
}

pub(crate) fn apply_dropout<T: Real>(x: &mut Array2<T>, p: f64, rng: &mut Option<Rng>) -> Option<Array2<T>> {
    let rng = rng.as_mut()?;
    if p == 0.0 {
        return None;
    }
    let m: Array2<T> = dropout_mask(x.raw_dim(), p, rng);
    *x *= &m;
    Some(m)
}

/// What a task head computed, and what its backward needs.
#[derive(Clone, Debug)]
pub struct TaskTrace<T> {
    pub kind: TaskKind,
    /// The head's input after dropout: (B, H) pooled [CLS] or (N, H) tokens.
    pub input: Array2<T>,
    pub drop: Option<Array2<T>>,
    /// (B, L) sequence classes; (N, L) token tags; (N, 2) start and end logits.
    pub logits: Array2<T>,
}
