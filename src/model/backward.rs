//! The backward pass: MLM cross-entropy (mean over labelled rows, label -100 ignored) plus the NSP
//! cross-entropy when labels are given, as HF `BertForPreTraining` / `BertForMaskedLM`. Each block
//! restates the forward line it inverts.

use super::task::{task_backward, task_loss as task_loss_of, TaskLabels};
use crate::config::{BertConfig, Family, PositionEncoding};
use crate::cpu::activation::{activation_backward, pooler_act_backward};
use crate::cpu::attention::{attention_backward, AttnShape};
use crate::cpu::cross_entropy::{cross_entropy_forward_backward, cross_entropy_inplace, IGNORE};
use crate::cpu::embedding::embedding_backward;
use crate::cpu::layernorm::layernorm_backward;
use crate::cpu::linear::linear_backward;
use crate::cpu::real::Real;
use crate::cpu::vocab_loss::vocab_cross_entropy;
use crate::error::{BertError, Result};
use crate::model::cross::cross_backward;
use crate::model::forward::{forward, Batch, ForwardOptions, ForwardTrace, MlmRows};
use crate::model::params::BertParams;
use ndarray::{Array2, ArrayView2};

/// Gradients have the parameters' structure and names.
pub type Grads<T> = BertParams<T>;

#[derive(Clone, Debug, Default)]
pub struct Targets {
    /// (B*T) token to predict at each row, -100 = no loss.
    pub mlm_labels: Option<Vec<i64>>,
    /// (B) 0 = IsNext, 1 = NotNext.
    pub nsp_labels: Option<Vec<i64>>,
    /// The fine-tuning head's labels.
    pub task: Option<TaskLabels>,
}

impl Targets {
    /// The forward a loss of these targets needs: MLM logits at the labelled rows, no head mask,
    /// dropout from `dropout_seed` (None: off).
    pub fn forward_options<T: Real>(&self, dropout_seed: Option<u64>) -> ForwardOptions<T> {
        ForwardOptions { mlm_rows: MlmRows::Rows(self.labelled_rows()), dropout_seed, ..Default::default() }
    }

    /// The [CLS] rows, when the loss reads nothing else of the last hidden state (a sequence
    /// classifier's or regression head's labels, NSP, no MLM): what `ForwardOptions::last_layer_rows`
    /// can take in training.
    pub fn pooled_rows(&self, b: usize, t: usize) -> Option<Vec<usize>> {
        let pooled = matches!(self.task, Some(TaskLabels::Classes(_) | TaskLabels::Scores(_)));
        (pooled && self.mlm_labels.is_none()).then(|| (0..b).map(|i| i * t).collect())
    }

    /// The rows that carry MLM loss (the only rows whose logits training computes).
    pub fn labelled_rows(&self) -> Vec<usize> {
        self.mlm_labels.as_ref().map(|l| l.iter().enumerate().filter(|(_, &v)| v != IGNORE).map(|(i, _)| i).collect()).unwrap_or_default()
    }

    pub fn validate(&self, cfg: &BertConfig, batch: &Batch) -> Result<()> {
        if let Some(l) = &self.mlm_labels {
            if l.len() != batch.b * batch.t {
                return Err(BertError::Input(format!("labels must have B*T = {} entries, got {}", batch.b * batch.t, l.len())));
            }
            if let Some(v) = l.iter().find(|&&v| v != IGNORE && (v < 0 || v as usize >= cfg.vocab_size)) {
                return Err(BertError::Input(format!("label {v} is neither -100 nor a vocabulary id")));
            }
        }
        if let Some(l) = &self.nsp_labels {
            if l.len() != batch.b {
                return Err(BertError::Input(format!("next_sentence_label must have B = {} entries", batch.b)));
            }
            if let Some(v) = l.iter().find(|&&v| v != 0 && v != 1 && v != IGNORE) {
                return Err(BertError::Input(format!("next_sentence_label {v} must be 0 or 1")));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug)]
pub struct LossOutput<T> {
    pub loss: T,
    pub mlm_loss: Option<T>,
    pub nsp_loss: Option<T>,
    pub task_loss: Option<T>,
}

/// Forward with MLM logits only at labelled rows, then backward. Dropout when `dropout_seed` is set.
pub fn loss_and_grads<T: Real>(
    p: &BertParams<T>,
    cfg: &BertConfig,
    batch: &Batch,
    targets: &Targets,
    dropout_seed: Option<u64>,
) -> Result<(LossOutput<T>, Grads<T>, ForwardTrace<T>)> {
    targets.validate(cfg, batch)?;
    let mut trace = forward(p, cfg, batch, &targets.forward_options(dropout_seed))?;
    let mut grads = p.zeros_like();
    let loss = backward(p, cfg, batch, &mut trace, targets, &mut grads)?;
    Ok((loss, grads, trace))
}

/// Adds the gradients of the loss to `g` (parameter gradients accumulate, so zero `g` first for
/// a fresh step). Consumes the MLM logits of the trace: they become dlogits in place.
pub fn backward<T: Real>(
    p: &BertParams<T>,
    cfg: &BertConfig,
    batch: &Batch,
    tr: &mut ForwardTrace<T>,
    targets: &Targets,
    g: &mut Grads<T>,
) -> Result<LossOutput<T>> {
    backward_with_inputs(p, cfg, batch, tr, targets, g).map(|(l, _)| l)
}

/// `backward`, also returning the loss's gradient with respect to the embeddings' sum (N, H):
/// the word-embedding rows' gradient (word + position + segment are added), for attributions.
pub fn backward_with_inputs<T: Real>(
    p: &BertParams<T>,
    cfg: &BertConfig,
    batch: &Batch,
    tr: &mut ForwardTrace<T>,
    targets: &Targets,
    g: &mut Grads<T>,
) -> Result<(LossOutput<T>, Array2<T>)> {
    backward_full(p, cfg, batch, tr, targets, None, g).map(|o| (o.loss, o.d_sum))
}

/// What `backward_full` returns besides the parameter gradients.
pub struct BackwardOut<T> {
    pub loss: LossOutput<T>,
    /// d loss / d the embeddings' sum (N, H).
    pub d_sum: Array2<T>,
    /// A decoder's: d loss / d the encoder states its cross-attention read (B*S, H).
    pub d_encoder: Option<Array2<T>>,
}

/// The backward of the targets' losses plus `d_last` (N, H), a gradient arriving at the last
/// hidden state from outside (an encoder's, from its decoder's cross-attention).
pub fn backward_full<T: Real>(
    p: &BertParams<T>,
    cfg: &BertConfig,
    batch: &Batch,
    tr: &mut ForwardTrace<T>,
    targets: &Targets,
    d_last: Option<ArrayView2<T>>,
    g: &mut Grads<T>,
) -> Result<BackwardOut<T>> {
    targets.validate(cfg, batch)?;
    let (b, t, h) = (tr.b, tr.t, cfg.hidden_size);
    let n = b * t;
    let mut dx = match d_last {
        Some(d) if d.dim() == (n, h) => d.to_owned(),
        Some(d) => return Err(BertError::Input(format!("the last hidden state's gradient must be ({n}, {h}), got {:?}", d.dim()))),
        None => Array2::<T>::zeros((n, h)), // d last hidden
    };
    let mut d_encoder = tr.encoder.as_ref().map(|e| Array2::<T>::zeros(e.hidden.dim()));
    let mut mlm_loss = None;
    let mut nsp_loss = None;
    let mut task_loss = None;

    // The fine-tuning head (model::task).
    if let Some(labels) = &targets.task {
        let head = p.task.as_ref().ok_or_else(|| BertError::Input("task labels given, but the model has no task head".into()))?;
        labels.validate(head.kind, head.linear.bias.len(), b, t)?;
        let tt = tr.task.as_ref().ok_or_else(|| BertError::Input("task labels given but the forward ran no task head".into()))?;
        let (loss, dlogits) = task_loss_of(tt, labels, b, t);
        task_loss = Some(loss);
        let last = tr.hidden[tr.layers.len()].view();
        let pooler = match (&p.pooler, g.pooler.as_mut(), tr.pool.as_ref()) {
            (Some(pl), Some(gp), Some(pt)) => Some((pl, gp, pt)),
            _ => None,
        };
        let gt = g.task.as_mut().expect("grads mirror params");
        task_backward(head, gt, tt, dlogits.view(), pooler, last, t, dx.view_mut())?;
    }

    // MLM: logits = LN(act(x W_t^T + b_t)) E^T + bias at the rows in the trace.
    if let (Some(labels), Some(head)) = (&targets.mlm_labels, &p.mlm) {
        let mt = tr.mlm.as_mut().ok_or_else(|| BertError::Input("MLM labels given but the forward computed no MLM logits".into()))?;
        let covered: std::collections::HashSet<usize> = mt.rows.iter().copied().collect();
        if let Some(r) = targets.labelled_rows().into_iter().find(|r| !covered.contains(r)) {
            return Err(BertError::Input(format!("row {r} is labelled but has no MLM logits in the trace")));
        }
        let tgt: Vec<i64> = mt.rows.iter().map(|&r| labels[r]).collect();
        let gm = g.mlm.as_mut().expect("grads mirror params");
        let dec = p.decoder().expect("decoder");
        let ddec = match gm.decoder.as_mut() {
            Some(d) => d.view_mut(),
            None => g.emb.word.view_mut(),
        };
        let dln = if mt.logits.nrows() == 0 && !mt.rows.is_empty() {
            // ForwardOptions::logits_in_loss: the decoder inside the loss, input gradients only
            if !ddec.is_empty() || !gm.bias.is_empty() {
                return Err(BertError::Input("logits_in_loss gives input gradients only (BertParams::input_grads_only)".into()));
            }
            let (loss, logp, dln) = vocab_cross_entropy(mt.ln_out.view(), dec.view(), head.bias.view(), &tgt);
            mlm_loss = Some(loss);
            mt.label_logp = logp;
            dln
        } else {
            let mut dlogits = std::mem::take(&mut mt.logits); // (M, V), logits -> dlogits in place
            let (loss, logp) = cross_entropy_inplace(&mut dlogits, &tgt);
            mlm_loss = Some(loss);
            mt.label_logp = logp;
            linear_backward(dlogits.view(), mt.ln_out.view(), dec.view(), ddec, Some(gm.bias.view_mut()))
        };
        let dact = layernorm_backward(
            dln.view(),
            mt.act.view(),
            mt.ln_mean.view(),
            mt.ln_rstd.view(),
            head.ln.gamma.view(),
            gm.ln.gamma.view_mut(),
            gm.ln.beta.view_mut(),
        );
        let dpre = activation_backward(cfg.mlm_activation(), dact.view(), mt.pre.view());
        let x = crate::cpu::embedding::embedding_forward(tr.hidden[tr.layers.len()].view(), &mt.rows);
        let dxm = linear_backward(
            dpre.view(),
            x.view(),
            head.transform.weight.view(),
            gm.transform.weight.view_mut(),
            Some(gm.transform.bias.view_mut()),
        );
        embedding_backward(dxm.view(), &mt.rows, dx.view_mut()); // scatter rows back
    }

    // NSP: logits = tanh(h_cls W_p^T + b_p) W_n^T + b_n.
    if let (Some(labels), Some(nsp), Some(pooler)) = (&targets.nsp_labels, &p.nsp, &p.pooler) {
        let pt = tr.pool.as_ref().expect("pooler ran");
        let logits = pt.nsp_logits.as_ref().expect("nsp ran");
        let (loss, dlogits) = cross_entropy_forward_backward(logits.view(), labels); // (B, 2)
        nsp_loss = Some(loss);
        let gn = g.nsp.as_mut().expect("grads mirror params");
        let dpooled = linear_backward(dlogits.view(), pt.pooled.view(), nsp.weight.view(), gn.weight.view_mut(), Some(gn.bias.view_mut()));
        let dpre = pooler_act_backward(pt.act, dpooled.view(), pt.pooled.view());
        let cls = Array2::from_shape_fn((b, h), |(bi, j)| tr.last_hidden()[[bi * t, j]]);
        let gp = g.pooler.as_mut().expect("grads mirror params");
        let dcls = linear_backward(dpre.view(), cls.view(), pooler.weight.view(), gp.weight.view_mut(), Some(gp.bias.view_mut()));
        for bi in 0..b {
            let mut row = dx.row_mut(bi * t);
            row += &dcls.row(bi);
        }
    }

    // Encoder layers, last to first. dx is d(output of layer l).
    let sh = AttnShape { causal: cfg.is_decoder, ..AttnShape::selfish(b, t, cfg.num_attention_heads) };
    for (li, (lp, lt)) in p.layers.iter().zip(&tr.layers).enumerate().rev() {
        let gl = &mut g.layers[li];
        let input = tr.hidden[li].view();
        // A layer that ran after its attention only at some rows (`ForwardOptions::last_layer_rows`):
        // its output's gradient is gathered to those rows, and scattered back before the attention.
        let rows = lt.rows.as_deref();
        let scatter = |d: Array2<T>| match rows {
            Some(rs) => {
                let mut full = Array2::zeros((n, h));
                embedding_backward(d.view(), rs, full.view_mut());
                full
            }
            None => d,
        };
        let d_out = match rows {
            Some(rs) => crate::cpu::embedding::embedding_forward(dx.view(), rs),
            None => dx,
        };
        // the attention ran for one query per sequence (q and context (B, H)): see LayerTrace::rows
        let query_rows = rows.filter(|_| lt.q.nrows() != n);
        let context_rows;
        let context = match (rows, query_rows) {
            (Some(rs), None) => {
                context_rows = crate::cpu::embedding::embedding_forward(lt.context.view(), rs);
                context_rows.view()
            }
            _ => lt.context.view(),
        };
        // out = LN(out_res), out_res = ffn_out + attn_ln_out
        let d_out_res = layernorm_backward(
            d_out.view(),
            lt.out_res.view(),
            lt.out_ln_mean.view(),
            lt.out_ln_rstd.view(),
            lp.out_ln.gamma.view(),
            gl.out_ln.gamma.view_mut(),
            gl.out_ln.beta.view_mut(),
        );
        // the FFN's input: the self-attention block's output, or a decoder's cross-attention block's
        let ffn_in = lt.cross.as_ref().map_or(lt.attn_ln_out.view(), |c| c.ln_out.view());
        let mut d_ffn_in = d_out_res.clone();
        // ffn_out = dropout(ffn_act W_o^T + b_o)
        let mut d_ffn_out = d_out_res;
        if let Some(m) = &lt.ffn_drop {
            d_ffn_out *= m;
        }
        let d_ffn_act = linear_backward(
            d_ffn_out.view(),
            lt.ffn_act.view(),
            lp.output.weight.view(),
            gl.output.weight.view_mut(),
            Some(gl.output.bias.view_mut()),
        );
        // ffn_act = act(ffn_pre), ffn_pre = attn_ln_out W_i^T + b_i
        let d_ffn_pre = activation_backward(cfg.activation(), d_ffn_act.view(), lt.ffn_pre.view());
        d_ffn_in += &linear_backward(
            d_ffn_pre.view(),
            ffn_in,
            lp.intermediate.weight.view(),
            gl.intermediate.weight.view_mut(),
            Some(gl.intermediate.bias.view_mut()),
        );
        let d_attn_ln_out = match (&lp.cross, &lt.cross, gl.cross.as_mut(), tr.encoder.as_ref(), d_encoder.as_mut()) {
            (Some(c), Some(ct), Some(gc), Some(enc), Some(de)) => {
                cross_backward(c, ct, gc, cfg, enc, lt.attn_ln_out.view(), d_ffn_in, b, t, de.view_mut())
            }
            _ => d_ffn_in,
        };
        // attn_ln_out = LN(attn_res), attn_res = attn_dense + input
        let d_attn_res = layernorm_backward(
            d_attn_ln_out.view(),
            lt.attn_res.view(),
            lt.attn_ln_mean.view(),
            lt.attn_ln_rstd.view(),
            lp.attn_ln.gamma.view(),
            gl.attn_ln.gamma.view_mut(),
            gl.attn_ln.beta.view_mut(),
        );
        let d_input = d_attn_res.clone();
        // attn_dense = dropout(context W_O^T + b_O)
        let mut d_attn_dense = d_attn_res;
        if let Some(m) = &lt.attn_drop {
            d_attn_dense *= m;
        }
        let d_context = linear_backward(
            d_attn_dense.view(),
            context,
            lp.attn_out.weight.view(),
            gl.attn_out.weight.view_mut(),
            Some(gl.attn_out.bias.view_mut()),
        );
        let d_context = if query_rows.is_some() { d_context } else { scatter(d_context) };
        let mut d_input = scatter(d_input);
        let hm = tr.head_mask.as_ref().map(|m| m.row(li));
        let ash = if query_rows.is_some() { AttnShape { t: 1, ..sh } } else { sh };
        let (dq, dk, dv) = attention_backward(d_context.view(), lt.q.view(), lt.k.view(), lt.v.view(), &ash, hm, &lt.attn);
        for (d, lin, glin) in [(&dk, &lp.key, &mut gl.key), (&dv, &lp.value, &mut gl.value)] {
            d_input += &linear_backward(d.view(), input, lin.weight.view(), glin.weight.view_mut(), Some(glin.bias.view_mut()));
        }
        // Q: at every row, or at the query rows only (its input gathered, its gradient scattered)
        let q_input_rows;
        let q_input = match query_rows {
            Some(rs) => {
                q_input_rows = crate::cpu::embedding::embedding_forward(input, rs);
                q_input_rows.view()
            }
            None => input,
        };
        let dxq = linear_backward(dq.view(), q_input, lp.query.weight.view(), gl.query.weight.view_mut(), Some(gl.query.bias.view_mut()));
        match query_rows {
            Some(rs) => embedding_backward(dxq.view(), rs, d_input.view_mut()), // scatter-add
            None => d_input += &dxq,
        }
        dx = d_input;
    }

    // Embeddings: out = dropout(LN(word + position + token_type)).
    if let Some(m) = &tr.emb.drop {
        dx *= m;
    }
    let d_sum = layernorm_backward(
        dx.view(),
        tr.emb.sum.view(),
        tr.emb.ln_mean.view(),
        tr.emb.ln_rstd.view(),
        p.emb.ln.gamma.view(),
        g.emb.ln.gamma.view_mut(),
        g.emb.ln.beta.view_mut(),
    );
    // HF's word embedding is nn.Embedding(padding_idx = pad_token_id): the lookup sends no gradient
    // to the pad row (it matters where padded positions carry loss, as in a span head's softmax over
    // T; a tied decoder's gradient to that row stays).
    // An empty table gradient is one not wanted: input gradients only
    // (`BertParams::input_grads_only`), or frozen word embeddings (`BertParams::freeze_word_grads`).
    match cfg.pad_token_id().filter(|pad| batch.input_ids.contains(pad)) {
        _ if g.emb.word.is_empty() => {}
        Some(pad) => {
            let mut d_word = d_sum.clone();
            for (r, _) in batch.input_ids.iter().enumerate().filter(|(_, &id)| id == pad) {
                d_word.row_mut(r).fill(T::zero());
            }
            embedding_backward(d_word.view(), &batch.input_ids, g.emb.word.view_mut());
        }
        None => embedding_backward(d_sum.view(), &batch.input_ids, g.emb.word.view_mut()),
    }
    if let Some(gtt) = g.emb.token_type.as_mut().filter(|g| !g.is_empty()) {
        embedding_backward(d_sum.view(), &batch.token_type_ids, gtt.view_mut());
    }
    if let (Some(gpos), PositionEncoding::Learned) = (g.emb.position.as_mut().filter(|g| !g.is_empty()), cfg.position_encoding) {
        // RoBERTa's position table is nn.Embedding(padding_idx = pad): pads' row gets no gradient
        let pos = batch.position_ids(cfg);
        match cfg.pad_token_id().filter(|_| cfg.family == Family::Roberta) {
            Some(pad) => {
                let mut d = d_sum.clone();
                for (r, _) in pos.iter().enumerate().filter(|(_, &p)| p == pad) {
                    d.row_mut(r).fill(T::zero());
                }
                embedding_backward(d.view(), &pos, gpos.view_mut());
            }
            None => embedding_backward(d_sum.view(), &pos, gpos.view_mut()),
        }
    }

    let loss = mlm_loss.unwrap_or(T::zero()) + nsp_loss.unwrap_or(T::zero()) + task_loss.unwrap_or(T::zero());
    Ok(BackwardOut { loss: LossOutput { loss, mlm_loss, nsp_loss, task_loss }, d_sum, d_encoder })
}
