//! Labelled JSON lines for fine-tuning, as HF's examples read them, encoded for a model's head:
//! classify `{"text", "pair"?, "label"}`; tag `{"tokens": [words], "tags": [labels]}` (a word's
//! label on its first piece, -100 on the others and on specials); answer `{"question", "context",
//! "answer": {"text", "start"}}` (start: a character offset into the context; the answer's first and
//! last pieces become the start and end positions, [CLS] = 0 when the context was cut before it).
//! Bad lines are errors naming the file and line.

use crate::bundle::Bert;
use crate::config::TaskKind;
use crate::cpu::cross_entropy::IGNORE;
use crate::error::{BertError, Result};
use crate::model::backward::Targets;
use crate::model::forward::Batch;
use crate::model::task::TaskLabels;
use crate::tokenize::Encoded;
use serde::Deserialize;

#[derive(Deserialize)]
struct ClassLine {
    text: String,
    pair: Option<String>,
    label: serde_json::Value,
}

#[derive(Deserialize)]
struct TagLine {
    tokens: Vec<String>,
    tags: Vec<String>,
}

#[derive(Deserialize)]
struct AnswerText {
    text: String,
    start: usize,
}

#[derive(Deserialize)]
struct AnswerLine {
    question: String,
    context: String,
    answer: AnswerText,
}

/// One encoded training item.
#[derive(Clone, Debug)]
pub struct Feature {
    pub input_ids: Vec<u32>,
    pub token_type_ids: Vec<u32>,
    pub label: FeatureLabel,
}

#[derive(Clone, Debug)]
pub enum FeatureLabel {
    Class(i64),
    Tags(Vec<i64>),
    Span(i64, i64),
}

fn line_err(file: &str, i: usize, m: impl std::fmt::Display) -> BertError {
    BertError::Input(format!("{file} line {}: {m}", i + 1))
}

/// The lines of a JSONL file (blank lines skipped) with their 0-based numbers.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty())
}

/// The label names in the order of first appearance in `text` (classify: `label`; tag: `tags`).
pub fn labels_in(kind: TaskKind, file: &str, text: &str) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for (i, l) in lines(text) {
        let names: Vec<String> = match kind {
            TaskKind::SequenceClassification => {
                let c: ClassLine = serde_json::from_str(l).map_err(|e| line_err(file, i, e))?;
                vec![label_text(&c.label)]
            }
            TaskKind::TokenClassification => serde_json::from_str::<TagLine>(l).map_err(|e| line_err(file, i, e))?.tags,
            TaskKind::QuestionAnswering => vec![],
        };
        for n in names {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    if out.is_empty() && kind != TaskKind::QuestionAnswering {
        return Err(BertError::Input(format!("{file} holds no labelled lines")));
    }
    Ok(out)
}

fn label_text(v: &serde_json::Value) -> String {
    v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())
}

/// `enc` cut to `seq` tokens, its last kept token becoming [SEP] (as a tokenizer's truncation).
fn cut(mut enc: Encoded, seq: usize, sep: u32) -> Encoded {
    if enc.input_ids.len() > seq {
        for v in [&mut enc.input_ids, &mut enc.token_type_ids, &mut enc.attention_mask, &mut enc.special] {
            v.truncate(seq);
        }
        enc.tokens.truncate(seq);
        enc.offsets.truncate(seq);
        enc.sequence.truncate(seq);
        if let Some(last) = enc.input_ids.last_mut() {
            *last = sep;
        }
        if let Some(s) = enc.sequence.last_mut() {
            *s = None;
        }
        enc.truncated = true;
    }
    enc
}

/// Encodes the lines of `text` for `bert`'s head; an unknown label, tags that do not match the
/// words, or an answer that is not at its offset is an error naming the line.
pub fn features(bert: &Bert, kind: TaskKind, file: &str, text: &str, seq: usize) -> Result<Vec<Feature>> {
    let tok = &bert.tokenizer;
    let id_of = |i: usize, name: &str| -> Result<i64> {
        bert.cfg
            .label_id(name)
            .map(|v| v as i64)
            .ok_or_else(|| line_err(file, i, format!("unknown label `{name}` (the model's labels: {})", label_list(bert))))
    };
    let mut out = Vec::new();
    for (i, l) in lines(text) {
        let f = match kind {
            TaskKind::SequenceClassification => {
                let c: ClassLine = serde_json::from_str(l).map_err(|e| line_err(file, i, e))?;
                let enc = cut(tok.encode(&c.text, c.pair.as_deref())?, seq, tok.sep_id);
                Feature {
                    input_ids: enc.input_ids,
                    token_type_ids: enc.token_type_ids,
                    label: FeatureLabel::Class(id_of(i, &label_text(&c.label))?),
                }
            }
            TaskKind::TokenClassification => {
                let t: TagLine = serde_json::from_str(l).map_err(|e| line_err(file, i, e))?;
                if t.tokens.len() != t.tags.len() || t.tokens.is_empty() {
                    return Err(line_err(file, i, format!("{} words but {} tags", t.tokens.len(), t.tags.len())));
                }
                let text = t.tokens.join(" ");
                // each word's byte range in the joined text
                let mut spans = Vec::with_capacity(t.tokens.len());
                let mut at = 0;
                for w in &t.tokens {
                    spans.push((at, at + w.len()));
                    at += w.len() + 1;
                }
                let enc = cut(tok.encode(&text, None)?, seq, tok.sep_id);
                let mut labels = vec![IGNORE; enc.input_ids.len()];
                let mut seen = vec![false; t.tokens.len()];
                for (p, &(s, e)) in enc.offsets.iter().enumerate() {
                    if enc.sequence[p].is_none() || s == e {
                        continue;
                    }
                    if let Some(w) = spans.iter().position(|&(ws, we)| s >= ws && s < we.max(ws + 1)) {
                        if !seen[w] {
                            seen[w] = true;
                            labels[p] = id_of(i, &t.tags[w])?;
                        }
                    }
                }
                Feature { input_ids: enc.input_ids, token_type_ids: enc.token_type_ids, label: FeatureLabel::Tags(labels) }
            }
            TaskKind::QuestionAnswering => {
                let a: AnswerLine = serde_json::from_str(l).map_err(|e| line_err(file, i, e))?;
                let start = a.context.char_indices().nth(a.answer.start).map(|(b, _)| b).unwrap_or(a.context.len());
                if a.answer.text.is_empty() || !a.context[start..].starts_with(&a.answer.text) {
                    return Err(line_err(
                        file,
                        i,
                        format!("the answer `{}` is not at character {} of the context", a.answer.text, a.answer.start),
                    ));
                }
                let end = start + a.answer.text.len();
                let enc = cut(tok.encode(&a.question, Some(&a.context))?, seq, tok.sep_id);
                let in_ctx = |p: usize| enc.sequence[p] == Some(1);
                let first = (0..enc.input_ids.len()).find(|&p| in_ctx(p) && enc.offsets[p].1 > start);
                let last = (0..enc.input_ids.len()).rev().find(|&p| in_ctx(p) && enc.offsets[p].0 < end);
                let (s, e) = match (first, last) {
                    (Some(s), Some(e)) if s <= e => (s as i64, e as i64),
                    _ => (0, 0), // cut away: [CLS], as HF's examples
                };
                Feature { input_ids: enc.input_ids, token_type_ids: enc.token_type_ids, label: FeatureLabel::Span(s, e) }
            }
        };
        out.push(f);
    }
    if out.is_empty() {
        return Err(BertError::Input(format!("{file} is empty")));
    }
    Ok(out)
}

fn label_list(bert: &Bert) -> String {
    (0..bert.cfg.num_labels()).map(|i| bert.cfg.label_name(i)).collect::<Vec<_>>().join(", ")
}

/// Pads `items` into one batch with the head's targets.
pub fn collate(items: &[&Feature], pad_id: u32) -> (Batch, Targets) {
    let b = items.len();
    let t = items.iter().map(|f| f.input_ids.len()).max().unwrap_or(0);
    let mut batch = Batch { b, t, input_ids: vec![pad_id as usize; b * t], token_type_ids: vec![0; b * t], attention_mask: vec![0; b * t] };
    let (mut classes, mut tags, mut starts, mut ends) = (vec![], vec![IGNORE; b * t], vec![], vec![]);
    for (i, f) in items.iter().enumerate() {
        for (j, &id) in f.input_ids.iter().enumerate() {
            batch.input_ids[i * t + j] = id as usize;
            batch.token_type_ids[i * t + j] = f.token_type_ids[j] as usize;
            batch.attention_mask[i * t + j] = 1;
        }
        match &f.label {
            FeatureLabel::Class(c) => classes.push(*c),
            FeatureLabel::Tags(l) => tags[i * t..i * t + l.len()].copy_from_slice(l),
            FeatureLabel::Span(s, e) => {
                starts.push(*s);
                ends.push(*e);
            }
        }
    }
    let task = match items.first().map(|f| &f.label) {
        Some(FeatureLabel::Class(_)) => TaskLabels::Classes(classes),
        Some(FeatureLabel::Tags(_)) => TaskLabels::Tags(tags),
        _ => TaskLabels::Spans { start: starts, end: ends },
    };
    (batch, Targets { mlm_labels: None, nsp_labels: None, task: Some(task) })
}
