//! An encoder-decoder's forward on a teacher-forced batch (the source through the encoder, the
//! decoder input through the decoder, attending to the encoder), and its loss and gradients: mean
//! cross-entropy over the labelled target positions (-100 ignored), as `EncoderDecoderModel`.

use super::Seq2SeqParams;
use super::{Seq2Seq, Seq2SeqConfig};
use crate::cpu::linear::{linear_backward, linear_forward};
use crate::cpu::real::Real;
use crate::error::{BertError, Result};
use crate::model::backward::{backward_full, Targets};
use crate::model::forward::{forward as bert_forward, Batch, EncoderStates, ForwardOptions, ForwardTrace, MlmRows};
use ndarray::Array2;

/// A source batch (B, S) and the decoder's inputs (B, T): [decoder_start] + the target, padded.
#[derive(Clone, Debug)]
pub struct Seq2SeqBatch {
    pub src: Batch,
    pub tgt: Batch,
}

/// Every intermediate of both halves.
#[derive(Clone, Debug)]
pub struct Seq2SeqTrace<T> {
    pub encoder: ForwardTrace<T>,
    /// What the decoder's cross-attention reads: the encoder's last hidden state, projected to the
    /// decoder's width when they differ.
    pub states: EncoderStates<T>,
    pub decoder: ForwardTrace<T>,
}

/// The forward of `batch`; the decoder's logits at `rows` (MlmRows::All for every position).
pub fn forward<T: Real>(p: &Seq2SeqParams<T>, cfg: &Seq2SeqConfig, batch: &Seq2SeqBatch, rows: MlmRows) -> Result<Seq2SeqTrace<T>> {
    if batch.src.b != batch.tgt.b {
        return Err(BertError::Input(format!("{} sources but {} targets", batch.src.b, batch.tgt.b)));
    }
    let encoder = bert_forward(&p.encoder, &cfg.encoder, &batch.src, &ForwardOptions { mlm_rows: MlmRows::None, ..Default::default() })?;
    let last = encoder.last_hidden();
    let hidden = match &p.proj {
        Some(pr) => linear_forward(last.view(), pr.weight.view(), Some(pr.bias.view())),
        None => last.clone(),
    };
    let states = EncoderStates { hidden, mask: encoder.mask.clone() };
    let opts = ForwardOptions { mlm_rows: rows, encoder: Some(states.clone()), ..Default::default() };
    let decoder = bert_forward(&p.decoder, &cfg.decoder, &batch.tgt, &opts)?;
    Ok(Seq2SeqTrace { encoder, states, decoder })
}

/// What a training step's loss computed.
pub struct Seq2SeqLoss<T> {
    /// Mean cross-entropy over the labelled positions.
    pub loss: T,
    pub grads: Seq2SeqParams<T>,
    /// Labelled positions whose most probable token was the label (teacher-forced).
    pub correct: usize,
    pub labelled: usize,
    pub trace: Seq2SeqTrace<T>,
}

/// Loss (mean cross-entropy over `labels` (B*T) != -100) and the gradient of every parameter.
pub fn loss_and_grads<T: Real>(p: &Seq2SeqParams<T>, cfg: &Seq2SeqConfig, batch: &Seq2SeqBatch, labels: &[i64]) -> Result<Seq2SeqLoss<T>> {
    let targets = Targets { mlm_labels: Some(labels.to_vec()), nsp_labels: None, task: None };
    targets.validate(&cfg.decoder, &batch.tgt)?;
    if targets.labelled_rows().is_empty() {
        return Err(BertError::Input("every label is -100: nothing to learn from".into()));
    }
    let rows = targets.labelled_rows();
    let mut tr = forward(p, cfg, batch, MlmRows::Rows(rows.clone()))?;
    // before the backward turns the logits into their gradient
    let logits = &tr.decoder.mlm.as_ref().expect("the decoder's head ran").logits;
    let correct = logits
        .rows()
        .into_iter()
        .zip(&rows)
        .filter(|(row, &r)| {
            let best = row.iter().enumerate().fold((0, T::neg_infinity()), |b, (i, &v)| if v > b.1 { (i, v) } else { b }).0;
            best as i64 == labels[r]
        })
        .count();
    let mut g = p.zeros_like();
    let dec = backward_full(&p.decoder, &cfg.decoder, &batch.tgt, &mut tr.decoder, &targets, None, &mut g.decoder)?;
    let d_states = dec.d_encoder.expect("a decoder with cross-attention returns the encoder's gradient");
    let d_last: Array2<T> = match (&p.proj, g.proj.as_mut()) {
        (Some(pr), Some(gp)) => {
            let last = tr.encoder.last_hidden().clone();
            linear_backward(d_states.view(), last.view(), pr.weight.view(), gp.weight.view_mut(), Some(gp.bias.view_mut()))
        }
        _ => d_states,
    };
    backward_full(&p.encoder, &cfg.encoder, &batch.src, &mut tr.encoder, &Targets::default(), Some(d_last.view()), &mut g.encoder)?;
    Ok(Seq2SeqLoss { loss: dec.loss.loss, grads: g, correct, labelled: rows.len(), trace: tr })
}

/// The source as the encoder's batch of one.
pub fn source_batch(m: &Seq2Seq, text: &str) -> Result<Batch> {
    let enc = m.tokenizer.encode(text, None)?;
    Ok(Batch::single(enc.input_ids.iter().map(|&i| i as usize).collect(), vec![0; enc.input_ids.len()]))
}
