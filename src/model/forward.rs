//! The forward pass of HF `BertForPreTraining` (`modeling_bert.py`), keeping every intermediate the
//! explainer shows and the backward needs. N = B*T rows; M = rows that get MLM logits.

use super::task::{task_forward, TaskTrace};
use crate::config::{BertConfig, PoolerActivation, PositionEncoding};
use crate::cpu::activation::{activation_forward, pooler_act_forward};
use crate::cpu::attention::{attention_forward, AttentionCache, AttnShape};
use crate::cpu::dropout::dropout_mask;
use crate::cpu::embedding::embedding_forward;
use crate::cpu::layernorm::layernorm_forward;
use crate::cpu::linear::linear_forward;
use crate::cpu::position::sinusoidal_table;
use crate::cpu::real::Real;
use crate::error::{BertError, Result};
use crate::model::cross::cross_forward;
use crate::model::params::BertParams;
use crate::rng::Rng;
use ndarray::{Array1, Array2, ArrayView2};

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

/// Runs the model on `batch`. Errors only on invalid input (ids, lengths, head mask shape).
pub fn forward<T: Real>(p: &BertParams<T>, cfg: &BertConfig, batch: &Batch, opts: &ForwardOptions<T>) -> Result<ForwardTrace<T>> {
    batch.validate(cfg)?;
    let (b, t) = (batch.b, batch.t);
    let (h, nh, eps) = (cfg.hidden_size, cfg.num_attention_heads, cfg.layer_norm_eps);
    if let Some(hm) = &opts.head_mask {
        if hm.dim() != (cfg.num_hidden_layers, nh) {
            return Err(BertError::Input(format!(
                "head mask must be (layers, heads) = ({}, {nh}), got {:?}",
                cfg.num_hidden_layers,
                hm.dim()
            )));
        }
    }
    let mut rng = opts.dropout_seed.map(Rng::new);
    let mask = Array2::from_shape_fn((b, t), |(i, j)| T::c(batch.attention_mask[i * t + j] as f64));

    // Embeddings: word + position + token type, LayerNorm, dropout.
    let word = match &opts.word_rows {
        Some(w) if w.dim() == (b * t, h) => w.clone(),
        Some(w) => return Err(BertError::Input(format!("word rows must be (B*T, H) = ({}, {h}), got {:?}", b * t, w.dim()))),
        None => embedding_forward(p.emb.word.view(), &batch.input_ids), // (N, H)
    };
    let pos_ids = batch.position_ids(cfg);
    let position = match (&p.emb.position, cfg.position_encoding) {
        (Some(table), PositionEncoding::Learned) => embedding_forward(table.view(), &pos_ids),
        _ => embedding_forward(sinusoidal_table::<T>(pos_ids.iter().max().map_or(0, |m| m + 1), h).view(), &pos_ids),
    }; // (N, H)
    let token_type = match &p.emb.token_type {
        Some(table) => embedding_forward(table.view(), &batch.token_type_ids),
        None => Array2::zeros((b * t, h)),
    };
    let sum = &word + &position + &token_type;
    let (mut x, ln_mean, ln_rstd) = layernorm_forward(sum.view(), p.emb.ln.gamma.view(), p.emb.ln.beta.view(), eps);
    let drop = apply_dropout(&mut x, cfg.hidden_dropout_prob, &mut rng);
    let emb = EmbeddingTrace { word, position, token_type, sum, ln_mean, ln_rstd, drop };

    let mut hidden = vec![x];
    let mut layers = Vec::with_capacity(p.layers.len());
    let sh = AttnShape { causal: cfg.is_decoder, ..AttnShape::selfish(b, t, nh) };
    for (li, lp) in p.layers.iter().enumerate() {
        let input = hidden.last().expect("input").view();
        let rows = opts.last_layer_rows.as_ref().filter(|_| li + 1 == p.layers.len());
        if let Some(&r) = rows.and_then(|rs| rs.iter().find(|&&r| r >= b * t)) {
            return Err(BertError::Input(format!("last-layer row {r} is outside the batch ({} rows)", b * t)));
        }
        let attn_mask = match rng.as_mut() {
            Some(r) if cfg.attention_probs_dropout_prob > 0.0 => Some(dropout_mask((b, nh, t, t), cfg.attention_probs_dropout_prob, r)),
            _ => None,
        };
        // One row per sequence, in order (a [MASK], a tag, [CLS]), no attention dropout, not
        // causal: the attention itself runs for those queries only, (B, NH, 1, T) instead of
        // (B, NH, T, T), and Q for those rows (keys and values stay at every row).
        let query_rows =
            rows.filter(|rs| attn_mask.is_none() && !sh.causal && rs.len() == b && rs.iter().enumerate().all(|(i, &r)| r / t == i));
        let q = match query_rows {
            Some(rs) => linear_forward(embedding_forward(input, rs).view(), lp.query.weight.view(), Some(lp.query.bias.view())),
            None => linear_forward(input, lp.query.weight.view(), Some(lp.query.bias.view())),
        };
        let k = linear_forward(input, lp.key.weight.view(), Some(lp.key.bias.view()));
        let v = linear_forward(input, lp.value.weight.view(), Some(lp.value.bias.view()));
        let hm = opts.head_mask.as_ref().map(|m| m.row(li));
        let ash = if query_rows.is_some() { AttnShape { t: 1, ..sh } } else { sh };
        let (context, attn) = attention_forward(q.view(), k.view(), v.view(), &ash, mask.view(), hm, attn_mask);
        // the rows the rest of the layer runs for: all, or the gathered few (R, H)
        let (ctx_rows, input_rows) = match (rows, query_rows) {
            (Some(rs), Some(_)) => (context.clone(), embedding_forward(input, rs)),
            (Some(rs), None) => (embedding_forward(context.view(), rs), embedding_forward(input, rs)),
            (None, _) => (context.clone(), input.to_owned()),
        };
        let mut attn_dense = linear_forward(ctx_rows.view(), lp.attn_out.weight.view(), Some(lp.attn_out.bias.view()));
        let attn_drop = apply_dropout(&mut attn_dense, cfg.hidden_dropout_prob, &mut rng);
        let attn_res = &attn_dense + &input_rows;
        let (attn_ln_out, attn_ln_mean, attn_ln_rstd) =
            layernorm_forward(attn_res.view(), lp.attn_ln.gamma.view(), lp.attn_ln.beta.view(), eps);
        // a decoder layer: attention on the encoder, between the self-attention and the FFN
        let cross = match (&lp.cross, &opts.encoder) {
            (Some(c), Some(enc)) => {
                if rows.is_some() {
                    return Err(BertError::Input("last_layer_rows is not for a decoder".into()));
                }
                Some(cross_forward(c, cfg, enc, attn_ln_out.view(), b, t, &mut rng)?)
            }
            (Some(_), None) => return Err(BertError::Input("a decoder needs the encoder's output (ForwardOptions::encoder)".into())),
            (None, _) => None,
        };
        let ffn_in = cross.as_ref().map_or(attn_ln_out.view(), |c| c.ln_out.view());
        let ffn_pre = linear_forward(ffn_in, lp.intermediate.weight.view(), Some(lp.intermediate.bias.view()));
        let ffn_act = activation_forward(cfg.activation(), ffn_pre.view());
        let mut ffn_out = linear_forward(ffn_act.view(), lp.output.weight.view(), Some(lp.output.bias.view()));
        let ffn_drop = apply_dropout(&mut ffn_out, cfg.hidden_dropout_prob, &mut rng);
        let out_res = &ffn_out + &ffn_in;
        let (mut out, out_ln_mean, out_ln_rstd) = layernorm_forward(out_res.view(), lp.out_ln.gamma.view(), lp.out_ln.beta.view(), eps);
        if let Some(rs) = rows {
            let mut full = Array2::zeros((b * t, h)); // the other rows are 0: nothing reads them
            crate::cpu::embedding::embedding_backward(out.view(), rs, full.view_mut()); // scatter
            out = full;
        }
        // attn_dense/ffn_out are kept after dropout: they are what the residual adds.
        layers.push(LayerTrace {
            rows: rows.cloned(),
            q,
            k,
            v,
            attn,
            context,
            attn_dense,
            attn_drop,
            attn_res,
            attn_ln_mean,
            attn_ln_rstd,
            attn_ln_out,
            ffn_pre,
            ffn_act,
            ffn_out,
            ffn_drop,
            out_res,
            out_ln_mean,
            out_ln_rstd,
            cross,
        });
        hidden.push(out);
    }

    let last = hidden.last().expect("hidden").view();
    let mlm = match (&p.mlm, &opts.mlm_rows) {
        (None, _) | (_, MlmRows::None) => None,
        (Some(head), rows) => {
            let rows: Vec<usize> = match rows {
                MlmRows::Rows(r) => r.clone(),
                _ => (0..b * t).collect(),
            };
            if let Some(&r) = rows.iter().find(|&&r| r >= b * t) {
                return Err(BertError::Input(format!("MLM row {r} is outside the batch ({} rows)", b * t)));
            }
            let x = embedding_forward(last, &rows); // (M, H) gather
            Some(mlm_forward(p, cfg, head, x.view(), rows, !opts.logits_in_loss))
        }
    };

    let pool = p.pooler.as_ref().map(|pl| {
        let cls = Array2::from_shape_fn((b, h), |(bi, j)| last[[bi * t, j]]); // (B, H)
        let act = cfg.pooler_activation();
        let pooled = pooler_act_forward(act, linear_forward(cls.view(), pl.weight.view(), Some(pl.bias.view())).view());
        let nsp_logits = p.nsp.as_ref().map(|n| linear_forward(pooled.view(), n.weight.view(), Some(n.bias.view())));
        PoolTrace { pooled, nsp_logits, act }
    });

    let task = match &p.task {
        Some(head) => Some(task_forward(head, cfg, last, pool.as_ref(), &mut rng)?),
        None => None,
    };

    let encoder = opts.encoder.clone().filter(|_| p.layers.iter().any(|l| l.cross.is_some()));
    Ok(ForwardTrace { b, t, mask, emb, hidden, layers, mlm, pool, task, head_mask: opts.head_mask.clone(), encoder })
}

/// The masked-LM head's logits (M, V) for rows `x` (M, H) of any hidden state (the logit lens);
/// None without an MLM head.
pub fn mlm_logits<T: Real>(p: &BertParams<T>, cfg: &BertConfig, x: ArrayView2<T>) -> Option<Array2<T>> {
    let head = p.mlm.as_ref()?;
    Some(mlm_forward(p, cfg, head, x, vec![], true).logits)
}

fn mlm_forward<T: Real>(
    p: &BertParams<T>,
    cfg: &BertConfig,
    head: &crate::model::params::MlmHead<T>,
    x: ArrayView2<T>,
    rows: Vec<usize>,
    with_logits: bool,
) -> MlmTrace<T> {
    let pre = linear_forward(x, head.transform.weight.view(), Some(head.transform.bias.view())); // (M, H)
    let act = activation_forward(cfg.mlm_activation(), pre.view());
    let (ln_out, ln_mean, ln_rstd) = layernorm_forward(act.view(), head.ln.gamma.view(), head.ln.beta.view(), cfg.layer_norm_eps);
    let dec = p.decoder().expect("mlm head has a decoder");
    let logits = match with_logits {
        true => linear_forward(ln_out.view(), dec.view(), Some(head.bias.view())), // (M, V)
        false => Array2::zeros((0, dec.nrows())),
    };
    MlmTrace { rows, pre, act, ln_mean, ln_rstd, ln_out, logits, label_logp: Vec::new() }
}
