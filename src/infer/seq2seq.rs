//! `bertscope inspect` for an encoder-decoder: the source through the encoder and the target,
//! teacher-forced ([decoder_start] + its tokens without special tokens), through the decoder; and
//! `bertscope grad` of a labelled batch.

use crate::error::{BertError, Result};
use crate::model::forward::{Batch, MlmRows};
use crate::seq2seq::forward::Seq2SeqBatch;
use crate::seq2seq::Seq2Seq;
use crate::tensorfile::Tensor;
use ndarray::Axis;

/// encoder_hidden_states.{0..=L} (S, H), encoder_attentions.{l} (NH, S, S), decoder_attentions.{l}
/// (NH, T, T), cross_attentions.{l} (NH, T, S), logits (T, V), plus input_ids and decoder_input_ids.
/// On `backend`.
pub async fn inspect(backend: &mut crate::backend::Backend, m: &Seq2Seq, source: &str, target: &str) -> Result<Vec<(String, Tensor)>> {
    let enc = m.tokenizer.encode(source, None)?;
    let mut dec = vec![m.cfg.decoder_start as usize];
    dec.extend(m.tokenizer.ids(target)?.into_iter().map(|i| i as usize));
    if dec.len() > m.cfg.decoder.max_tokens() {
        return Err(BertError::Input(format!(
            "the target has {} tokens; the decoder takes {}",
            dec.len() - 1,
            m.cfg.decoder.max_tokens() - 1
        )));
    }
    let src = Batch::single(enc.input_ids.iter().map(|&i| i as usize).collect(), vec![0; enc.input_ids.len()]);
    let t = dec.len();
    let tgt = Batch::single(dec.clone(), vec![0; t]);
    let tr = backend.seq2seq_forward(m, (0, 0), &Seq2SeqBatch { src, tgt }, MlmRows::All).await?;
    let ids = |v: Vec<i64>| Tensor::I64(ndarray::Array1::from(v).into_dyn());
    let mut out = vec![
        ("input_ids".to_string(), ids(enc.input_ids.iter().map(|&i| i as i64).collect())),
        ("decoder_input_ids".to_string(), ids(dec.iter().map(|&i| i as i64).collect())),
    ];
    for (i, h) in tr.encoder.hidden.iter().enumerate() {
        out.push((format!("encoder_hidden_states.{i}"), Tensor::F32(h.clone().into_dyn())));
    }
    let first = |a: &ndarray::Array4<f32>| Tensor::F32(a.index_axis(Axis(0), 0).to_owned().into_dyn());
    for (l, lt) in tr.encoder.layers.iter().enumerate() {
        out.push((format!("encoder_attentions.{l}"), first(&lt.attn.probs)));
    }
    for (l, lt) in tr.decoder.layers.iter().enumerate() {
        out.push((format!("decoder_attentions.{l}"), first(&lt.attn.probs)));
        let cross = lt.cross.as_ref().expect("a decoder layer has cross-attention");
        out.push((format!("cross_attentions.{l}"), first(&cross.attn.probs)));
    }
    out.push(("logits".to_string(), Tensor::F32(tr.decoder.mlm.expect("the decoder's head ran").logits.into_dyn())));
    Ok(out)
}

/// `loss` and every parameter's gradient (under the file's names) for a batch JSON with
/// `input_ids`, `attention_mask`?, `decoder_input_ids`, `decoder_attention_mask`? and `labels`
/// (B x T, -100 ignored), as HF's `EncoderDecoderModel` computes them (dropout off), on `backend`.
pub async fn grad(backend: &mut crate::backend::Backend, m: &Seq2Seq, bj: &crate::infer::BatchJson) -> Result<Vec<(String, Tensor)>> {
    use crate::infer::{flatten, to_ids};
    let batch = |ids: &[Vec<i64>], mask: &Option<Vec<Vec<i64>>>, name: &str| -> Result<Batch> {
        let (b, t) = (ids.len(), ids.first().map_or(0, Vec::len));
        let input_ids = to_ids(name, flatten(name, ids, b, t)?)?;
        let attention_mask = match mask {
            Some(r) => flatten("a mask", r, b, t)?.into_iter().map(|v| (v != 0) as u8).collect(),
            None => vec![1; b * t],
        };
        Ok(Batch { b, t, input_ids, token_type_ids: vec![0; b * t], attention_mask })
    };
    let dec = bj
        .decoder_input_ids
        .as_ref()
        .ok_or_else(|| BertError::Input("an encoder-decoder's batch needs `decoder_input_ids` (B x T)".into()))?;
    let src = batch(&bj.input_ids, &bj.attention_mask, "input_ids")?;
    let tgt = batch(dec, &bj.decoder_attention_mask, "decoder_input_ids")?;
    let rows: Vec<Vec<i64>> =
        serde_json::from_value(bj.labels.clone().ok_or_else(|| BertError::Input("the batch has no `labels` (B x T)".into()))?)
            .map_err(|e| BertError::Input(format!("labels must be B rows of T token ids (-100: no loss): {e}")))?;
    let labels = flatten("labels", &rows, tgt.b, tgt.t)?;
    let (loss, grads) = backend.seq2seq_loss_and_grads(m, (0, 0), &Seq2SeqBatch { src, tgt }, &labels).await?;
    let mut tensors = vec![("loss".to_string(), Tensor::F32(ndarray::arr1(&[loss]).into_dyn()))];
    tensors.extend(grads.tensors().into_iter().map(|(n, t)| (n, Tensor::F32(t.to_owned()))));
    Ok(tensors)
}
