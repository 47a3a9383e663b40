//! What the faces (CLI, page, tests) ask of a loaded model: fill-mask, the full set of
//! intermediates as named tensors (`inspect`), and loss + gradients of a labelled batch (`grad`);
//! the task heads' answers (classify, tag, answer) are in `task.rs`.

pub mod attribute;
pub mod lens;
pub mod seq2seq;
pub mod task;

pub use crate::model::top_k::top_k;

use crate::backend::{Backend, WeightsKey};
use crate::bundle::Bert;
use crate::config::{TaskHead, TaskKind};
use crate::cpu::softmax::softmax_row;
use crate::error::{BertError, Result};
use crate::model::backward::Targets;
use crate::model::forward::{Batch, ForwardOptions, ForwardTrace, MlmRows};
use crate::model::task::TaskLabels;
use crate::tensorfile::Tensor;
use crate::tokenize::Encoded;
use ndarray::{Array2, ArrayD, IxDyn};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize)]
pub struct Prediction {
    pub token: String,
    pub id: u32,
    pub prob: f32,
}

#[derive(Clone, Debug, Serialize)]
pub struct MaskPredictions {
    pub position: usize,
    pub predictions: Vec<Prediction>,
    /// The guesses after each layer (`lens`), when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layers: Option<Vec<lens::LayerGuess>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FillResult {
    pub tokens: Vec<String>,
    pub masks: Vec<MaskPredictions>,
    /// P(IsNext) when a pair was given and the model has an NSP head.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_next_prob: Option<f32>,
}

pub fn batch_of(enc: &Encoded) -> Batch {
    Batch::single(enc.input_ids.iter().map(|&i| i as usize).collect(), enc.token_type_ids.iter().map(|&i| i as usize).collect())
}

/// Encodes several inputs and pads them into one batch (padding id, attention mask 0).
pub fn encode_batch(tok: &crate::tokenize::BertTokenizer, inputs: &[(&str, Option<&str>)]) -> Result<(Vec<Encoded>, Batch)> {
    let encs: Vec<Encoded> = inputs.iter().map(|(a, b)| tok.encode(a, *b)).collect::<Result<_>>()?;
    let b = encs.len();
    let t = encs.iter().map(|e| e.input_ids.len()).max().unwrap_or(0);
    let mut batch =
        Batch { b, t, input_ids: vec![tok.pad_id as usize; b * t], token_type_ids: vec![0; b * t], attention_mask: vec![0; b * t] };
    for (i, e) in encs.iter().enumerate() {
        for j in 0..e.input_ids.len() {
            batch.input_ids[i * t + j] = e.input_ids[j] as usize;
            batch.token_type_ids[i * t + j] = e.token_type_ids[j] as usize;
            batch.attention_mask[i * t + j] = 1;
        }
    }
    Ok((encs, batch))
}

pub fn is_next_prob(trace: &ForwardTrace<f32>) -> Option<f32> {
    let l = trace.pool.as_ref()?.nsp_logits.as_ref()?;
    let mut p = [l[[0, 0]], l[[0, 1]]];
    softmax_row(&mut p);
    Some(p[0])
}

/// The key under which the faces' one model goes to the device.
pub const KEY: WeightsKey = (0, 0);

/// Predictions at every [MASK] of `text` (and `pair`).
pub async fn fill(
    backend: &mut Backend,
    bert: &Bert,
    text: &str,
    pair: Option<&str>,
    k: usize,
    head_mask: Option<Array2<f32>>,
) -> Result<FillResult> {
    let enc = bert.tokenizer.encode(text, pair)?;
    fill_encoded(backend, bert, enc, pair.is_some(), k, head_mask).await.map(|(r, _)| r)
}

/// `fill` of an encoded input (`pair`: it holds a second sentence), and the forward's trace.
pub(crate) async fn fill_encoded(
    backend: &mut Backend,
    bert: &Bert,
    enc: Encoded,
    pair: bool,
    k: usize,
    head_mask: Option<Array2<f32>>,
) -> Result<(FillResult, ForwardTrace<f32>)> {
    if bert.params.mlm.is_none() {
        return Err(BertError::Input("this model has no MLM head (it is a BertModel), so it cannot fill masks".into()));
    }
    let positions: Vec<usize> = enc.input_ids.iter().enumerate().filter(|(_, &id)| id == bert.tokenizer.mask_id).map(|(i, _)| i).collect();
    let opts = ForwardOptions { head_mask, mlm_rows: MlmRows::Rows(positions.clone()), ..Default::default() };
    let trace = backend.forward(bert, KEY, &batch_of(&enc), &opts).await?;
    let logits = &trace.mlm.as_ref().expect("mlm ran").logits;
    let masks = positions
        .iter()
        .enumerate()
        .map(|(m, &position)| MaskPredictions {
            position,
            predictions: top_k(logits.row(m).as_slice().expect("contiguous"), k)
                .into_iter()
                .map(|(id, prob)| Prediction { token: bert.tokenizer.id_to_token(id), id, prob })
                .collect(),
            layers: None,
        })
        .collect();
    let is_next_prob = if pair { is_next_prob(&trace) } else { None };
    Ok((FillResult { tokens: enc.tokens, masks, is_next_prob }, trace))
}

fn f32_tensor(a: ndarray::ArrayViewD<'_, f32>) -> Tensor {
    Tensor::F32(a.to_owned())
}

/// The tensors of `bertscope inspect`, HF names and shapes (batch of one, batch axis dropped).
pub async fn inspect(backend: &mut Backend, bert: &Bert, text: &str, pair: Option<&str>) -> Result<(Encoded, Vec<(String, Tensor)>)> {
    let enc = bert.tokenizer.encode(text, pair)?;
    let trace = backend.forward(bert, KEY, &batch_of(&enc), &ForwardOptions::default()).await?;
    let t = enc.input_ids.len();
    let ids = |v: &[u32]| Tensor::I64(ArrayD::from_shape_vec(IxDyn(&[t]), v.iter().map(|&x| x as i64).collect()).expect("len"));
    let mut out = vec![("input_ids".to_string(), ids(&enc.input_ids)), ("token_type_ids".to_string(), ids(&enc.token_type_ids))];
    for (i, h) in trace.hidden.iter().enumerate() {
        out.push((format!("hidden_states.{i}"), f32_tensor(h.view().into_dyn())));
        // (T, H)
    }
    for (i, l) in trace.layers.iter().enumerate() {
        let p = l.attn.probs.index_axis(ndarray::Axis(0), 0); // (NH, T, T)
        out.push((format!("attentions.{i}"), f32_tensor(p.into_dyn())));
    }
    if let Some(m) = &trace.mlm {
        out.push(("logits".into(), f32_tensor(m.logits.view().into_dyn()))); // (T, V)
    }
    if let Some(pool) = &trace.pool {
        if let Some(n) = &pool.nsp_logits {
            out.push(("nsp_logits".into(), f32_tensor(n.row(0).into_dyn()))); // (2)
        }
    }
    if let Some(task) = &trace.task {
        match task.kind {
            TaskKind::SequenceClassification => out.push(("task_logits".into(), f32_tensor(task.logits.row(0).into_dyn()))), // (L)
            TaskKind::TokenClassification => out.push(("task_logits".into(), f32_tensor(task.logits.view().into_dyn()))),    // (T, L)
            TaskKind::QuestionAnswering => {
                out.push(("start_logits".into(), f32_tensor(task.logits.column(0).into_dyn()))); // (T)
                out.push(("end_logits".into(), f32_tensor(task.logits.column(1).into_dyn())));
                // (T)
            }
        }
    }
    Ok((enc, out))
}

/// The batch file of `bertscope grad`: all (B, T) except `next_sentence_label` (B). `labels` is what
/// the model's head takes, as HF: (B, T) token ids for masked LM, (B, T) tags for a token classifier,
/// (B) class ids (or floats, for a one-output regression head) for a sequence classifier; a
/// question-answering head takes `start_positions` and `end_positions` (B) instead.
#[derive(Clone, Debug, Deserialize)]
pub struct BatchJson {
    pub input_ids: Vec<Vec<i64>>,
    pub token_type_ids: Option<Vec<Vec<i64>>>,
    pub attention_mask: Option<Vec<Vec<i64>>>,
    pub labels: Option<serde_json::Value>,
    pub next_sentence_label: Option<Vec<i64>>,
    pub start_positions: Option<Vec<i64>>,
    pub end_positions: Option<Vec<i64>>,
    /// An encoder-decoder's: the decoder's inputs (B x T) and their mask; `labels` is then B x T.
    pub decoder_input_ids: Option<Vec<Vec<i64>>>,
    pub decoder_attention_mask: Option<Vec<Vec<i64>>>,
}

pub(crate) fn flatten(name: &str, rows: &[Vec<i64>], b: usize, t: usize) -> Result<Vec<i64>> {
    if rows.len() != b || rows.iter().any(|r| r.len() != t) {
        return Err(BertError::Input(format!("{name} must be {b} rows of {t}, like input_ids")));
    }
    Ok(rows.concat())
}

pub(crate) fn to_ids(name: &str, v: Vec<i64>) -> Result<Vec<usize>> {
    v.into_iter().map(|x| usize::try_from(x).map_err(|_| BertError::Input(format!("{name} holds a negative value {x}")))).collect()
}

impl BatchJson {
    pub fn parse(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| BertError::Input(format!("batch JSON: {e}")))
    }

    /// The batch and the targets of a model with `task` as its head (None: masked LM).
    pub fn to_batch(&self, task: Option<TaskHead>) -> Result<(Batch, Targets)> {
        let b = self.input_ids.len();
        let t = self.input_ids.first().map(Vec::len).unwrap_or(0);
        let input_ids = to_ids("input_ids", flatten("input_ids", &self.input_ids, b, t)?)?;
        let token_type_ids = match &self.token_type_ids {
            Some(r) => to_ids("token_type_ids", flatten("token_type_ids", r, b, t)?)?,
            None => vec![0; b * t],
        };
        let attention_mask = match &self.attention_mask {
            Some(r) => flatten("attention_mask", r, b, t)?.into_iter().map(|v| (v != 0) as u8).collect(),
            None => vec![1; b * t],
        };
        let batch = Batch { b, t, input_ids, token_type_ids, attention_mask };
        let labels = |what: &str| -> Result<&serde_json::Value> {
            self.labels.as_ref().ok_or_else(|| BertError::Input(format!("the batch has no `labels` ({what})")))
        };
        let parse = |what: &str, shape: &str| -> Result<Vec<Vec<i64>>> {
            serde_json::from_value(labels(shape)?.clone()).map_err(|e| BertError::Input(format!("labels must be {what}: {e}")))
        };
        let parse_b = |what: &str| -> Result<Vec<i64>> {
            serde_json::from_value(labels(what)?.clone()).map_err(|e| BertError::Input(format!("labels must be {what}: {e}")))
        };
        let (mlm, task) = match task {
            None => (Some(flatten("labels", &parse("B rows of T token ids (-100: no loss)", "B x T")?, b, t)?), None),
            Some(TaskHead { kind: TaskKind::TokenClassification, .. }) => {
                (None, Some(TaskLabels::Tags(flatten("labels", &parse("B rows of T tag ids (-100: no loss)", "B x T")?, b, t)?)))
            }
            Some(TaskHead { kind: TaskKind::SequenceClassification, outputs: 1 }) => {
                let v: Vec<f64> = serde_json::from_value(labels("B floats")?.clone())
                    .map_err(|e| BertError::Input(format!("labels must be B floats (a regression head): {e}")))?;
                (None, Some(TaskLabels::Scores(v)))
            }
            Some(TaskHead { kind: TaskKind::SequenceClassification, .. }) => (None, Some(TaskLabels::Classes(parse_b("B class ids")?))),
            Some(TaskHead { kind: TaskKind::QuestionAnswering, .. }) => {
                let need = |v: &Option<Vec<i64>>, name: &str| {
                    v.clone().ok_or_else(|| BertError::Input(format!("a question-answering batch needs `{name}` (B)")))
                };
                let (start, end) = (need(&self.start_positions, "start_positions")?, need(&self.end_positions, "end_positions")?);
                (None, Some(TaskLabels::Spans { start, end }))
            }
        };
        Ok((batch, Targets { mlm_labels: mlm, nsp_labels: self.next_sentence_label.clone(), task }))
    }
}

/// `loss` and one gradient per parameter, under the names of the loaded file.
pub async fn grad(backend: &mut Backend, bert: &Bert, batch: &BatchJson) -> Result<Vec<(String, Tensor)>> {
    let (batch, mut targets) = batch.to_batch(bert.params.heads().task)?;
    if bert.params.nsp.is_none() {
        targets.nsp_labels = None;
    }
    let (loss, grads) = backend.loss_and_grads(bert, KEY, &batch, &targets).await?;
    let mut out = vec![("loss".to_string(), Tensor::F32(ArrayD::from_elem(IxDyn(&[1]), loss.loss)))];
    for (name, g) in grads.tensors() {
        out.push((bert.names.file_name(&name).to_string(), f32_tensor(g)));
    }
    Ok(out)
}

/// One cloze item: a text with one [MASK] and its acceptable answers.
#[derive(Clone, Debug, Deserialize)]
pub struct ClozeItem {
    pub text: String,
    pub answers: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClozeScore {
    pub n: usize,
    pub top1: f64,
    pub top5: f64,
}

/// Parses JSON lines of `{"text": .., "answers": [..]}`; each text must hold exactly one [MASK].
pub fn parse_cloze(text: &str) -> Result<Vec<ClozeItem>> {
    let mut items = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let item: ClozeItem = serde_json::from_str(line).map_err(|e| BertError::Input(format!("cloze line {}: {e}", i + 1)))?;
        if item.text.matches("[MASK]").count() != 1 || item.answers.is_empty() {
            return Err(BertError::Input(format!("cloze line {}: needs exactly one [MASK] and at least one answer", i + 1)));
        }
        items.push(item);
    }
    Ok(items)
}

/// Top-1 and top-5 accuracy: the best (or any of the five best) prediction is an answer.
pub async fn cloze(backend: &mut Backend, bert: &Bert, items: &[ClozeItem]) -> Result<ClozeScore> {
    let (mut h1, mut h5) = (0usize, 0usize);
    for it in items {
        let r = fill(backend, bert, &it.text, None, 5, None).await?;
        let preds = &r.masks.first().ok_or_else(|| BertError::Input(format!("no [MASK] after tokenising {:?}", it.text)))?.predictions;
        let ok = |p: &Prediction| it.answers.iter().any(|a| a.eq_ignore_ascii_case(&p.token));
        h1 += preds.first().is_some_and(ok) as usize;
        h5 += preds.iter().any(ok) as usize;
    }
    let n = items.len().max(1) as f64;
    Ok(ClozeScore { n: items.len(), top1: h1 as f64 / n, top5: h5 as f64 / n })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::forward::forward;

    #[test]
    fn padded_batches_give_the_same_numbers_as_single_inputs() {
        use crate::config::{BertConfig, Heads};
        use crate::model::BertParams;
        let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n";
        let tok = crate::tokenize::BertTokenizer::from_vocab_txt(vocab, true, 32).unwrap();
        let cfg = BertConfig::new(10, 8, 2, 2, 12, 32);
        let p = BertParams::<f32>::init(&cfg, Heads::MASKED_LM, 1).map(|v| v * 20.0);
        let (encs, batch) = encode_batch(&tok, &[("the cat", None), ("the cat sat on the mat", Some("the mat"))]).unwrap();
        assert_eq!((batch.b, batch.t), (2, encs[1].input_ids.len()));
        assert_eq!(&batch.attention_mask[..batch.t], &[1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0][..batch.t]);
        let tb = forward(&p, &cfg, &batch, &ForwardOptions::default()).unwrap();
        let ts = forward(&p, &cfg, &batch_of(&encs[0]), &ForwardOptions::default()).unwrap();
        let n = encs[0].input_ids.len();
        let d = (&tb.last_hidden().slice(ndarray::s![..n, ..]) - ts.last_hidden()).mapv(f32::abs).fold(0f32, |m, &v| m.max(v));
        assert!(d < 1e-5, "padding changed the real tokens by {d}");
    }

    #[test]
    fn top_k_is_sorted_and_normalised() {
        let r = top_k(&[0.0, 3.0, 1.0, 2.0, -1.0], 3);
        assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), [1, 3, 2]);
        let total: f32 = top_k(&[0.0, 3.0, 1.0, 2.0, -1.0], 10).iter().map(|x| x.1).sum();
        assert!((total - 1.0).abs() < 1e-6);
    }
}
