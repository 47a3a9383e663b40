//! What a fine-tuned model answers: the classes of a text (or a score, for a regression head), a
//! tag for every token, or the answer span of a question in a context, as the CLI prints them.

use super::{batch_of, KEY};
use crate::backend::Backend;
use crate::bundle::Bert;
use crate::config::{TaskHead, TaskKind};
use crate::cpu::softmax::softmax_row;
use crate::error::{BertError, Result};
use crate::model::forward::{ForwardOptions, ForwardTrace, MlmRows};
use crate::model::task::span_logits;
use crate::tokenize::Encoded;
pub use bertscope_view::explain::snapshot::{LabelProb, Span};
use serde::Serialize;

/// `classify`: every label, most probable first; or the score of a regression head.
#[derive(Clone, Debug, Serialize)]
pub struct Classified {
    pub tokens: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<LabelProb>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// `tag`: the most probable tag of every token, specials included.
#[derive(Clone, Debug, Serialize)]
pub struct Tagged {
    pub tokens: Vec<String>,
    pub tags: Vec<LabelProb>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Answered {
    pub tokens: Vec<String>,
    pub answers: Vec<Span>,
}

/// The longest answer, in tokens, as HF's question-answering pipeline (`max_answer_len`).
pub const MAX_ANSWER_TOKENS: usize = 30;

fn head_of(bert: &Bert, want: TaskKind) -> Result<TaskHead> {
    match bert.params.heads().task {
        Some(h) if h.kind == want => Ok(h),
        Some(h) => {
            let f = bert.cfg.family;
            Err(BertError::Input(format!("this model is a {}, not a {}", f.architecture(h.kind), f.architecture(want))))
        }
        None => Err(BertError::Input(format!(
            "this model has no task head (config.json's architectures should name {} and the weights hold its head)",
            bert.cfg.family.architecture(want)
        ))),
    }
}

async fn run(backend: &mut Backend, bert: &Bert, text: &str, pair: Option<&str>) -> Result<(Encoded, ForwardTrace<f32>)> {
    let enc = bert.tokenizer.encode(text, pair)?;
    let opts = ForwardOptions { mlm_rows: MlmRows::None, ..Default::default() };
    let trace = backend.forward(bert, KEY, &batch_of(&enc), &opts).await?;
    Ok((enc, trace))
}

/// Every label of one logits row with its probability, in id order.
pub fn label_probs(bert: &Bert, logits: &[f32]) -> Vec<LabelProb> {
    let mut p = logits.to_vec();
    softmax_row(&mut p);
    p.iter().enumerate().map(|(id, &prob)| LabelProb { label: bert.cfg.label_name(id), id, prob }).collect()
}

/// Every label, most probable first.
pub fn ranked(bert: &Bert, logits: &[f32]) -> Vec<LabelProb> {
    let mut labels = label_probs(bert, logits);
    labels.sort_by(|a, b| b.prob.total_cmp(&a.prob).then(a.id.cmp(&b.id)));
    labels
}

/// The most probable label of every row of `logits` (T, L).
pub fn best_per_row(bert: &Bert, logits: &ndarray::Array2<f32>) -> Vec<LabelProb> {
    logits.rows().into_iter().map(|row| ranked(bert, row.as_slice().expect("contiguous")).swap_remove(0)).collect()
}

/// The `top_k` best spans inside the context (the pair segment) of `enc`, from the (T, 2) start and
/// end logits of one sequence: `start <= end < start + MAX_ANSWER_TOKENS`, best score first.
pub fn best_spans(enc: &Encoded, context: &str, logits: &ndarray::Array2<f32>, top_k: usize) -> Vec<Span> {
    let t = enc.tokens.len();
    let (starts, ends) = (span_logits(logits.view(), 1, t, 0), span_logits(logits.view(), 1, t, 1));
    let in_context: Vec<usize> = (0..t).filter(|&i| enc.sequence[i] == Some(1)).collect();
    let mut spans = Vec::new();
    for &s in &in_context {
        for &e in in_context.iter().filter(|&&e| e >= s && e < s + MAX_ANSWER_TOKENS) {
            let (from, to) = (enc.offsets[s].0, enc.offsets[e].1);
            let text = context.get(from..to).unwrap_or_default().to_string();
            spans.push(Span { text, start: s, end: e, score: starts[[0, s]] + ends[[0, e]] });
        }
    }
    spans.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.start.cmp(&b.start)).then(a.end.cmp(&b.end)));
    spans.truncate(top_k.max(1));
    spans
}

/// The labels of `text` (and `pair`) from a sequence classifier.
pub async fn classify(backend: &mut Backend, bert: &Bert, text: &str, pair: Option<&str>) -> Result<Classified> {
    head_of(bert, TaskKind::SequenceClassification)?;
    let (enc, trace) = run(backend, bert, text, pair).await?;
    let logits = trace.task.as_ref().ok_or_else(|| BertError::Input("the forward ran no task head".into()))?.logits.row(0).to_vec();
    if bert.cfg.is_regression() {
        return Ok(Classified { tokens: enc.tokens, labels: None, score: logits.first().copied() });
    }
    Ok(Classified { tokens: enc.tokens, labels: Some(ranked(bert, &logits)), score: None })
}

/// The most probable tag of every token from a token classifier.
pub async fn tag(backend: &mut Backend, bert: &Bert, text: &str, pair: Option<&str>) -> Result<Tagged> {
    head_of(bert, TaskKind::TokenClassification)?;
    let (enc, trace) = run(backend, bert, text, pair).await?;
    let logits = &trace.task.as_ref().ok_or_else(|| BertError::Input("the forward ran no task head".into()))?.logits;
    let tags = best_per_row(bert, logits);
    Ok(Tagged { tokens: enc.tokens, tags })
}

/// The `top_k` best answer spans of `question` in `context` from a question-answering head: both
/// ends inside the context segment, `start <= end < start + MAX_ANSWER_TOKENS`, best score first.
pub async fn answer(backend: &mut Backend, bert: &Bert, question: &str, context: &str, top_k: usize) -> Result<Answered> {
    head_of(bert, TaskKind::QuestionAnswering)?;
    if context.trim().is_empty() {
        return Err(BertError::Input("the context is empty: there is nowhere to find an answer".into()));
    }
    let (enc, trace) = run(backend, bert, question, Some(context)).await?;
    let logits = &trace.task.as_ref().ok_or_else(|| BertError::Input("the forward ran no task head".into()))?.logits;
    let spans = best_spans(&enc, context, logits, top_k);
    Ok(Answered { tokens: enc.tokens, answers: spans })
}
