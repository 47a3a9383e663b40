//! The coreference probe: for every head, the share of sentences where the pronoun's attention to
//! its antecedent's first piece exceeds its attention to the distractor's ("the boy told the girl
//! that he was late": he -> boy, not girl; www/datasets/coref/, made by
//! scripts/make_coref_probe.py). The best head is picked on the dev sentences and reported on the
//! held-out ones, against the baseline "the nearest noun" (Clark et al. 2019 probe coreference
//! the same way, with the same baseline).

use crate::backend::{Backend, WeightsKey};
use crate::bundle::Bert;
use crate::error::{BertError, Result};
use crate::infer::batch_of;
use crate::model::forward::ForwardOptions;
use crate::tokenize::Encoded;
use ndarray::Axis;
use serde::{Deserialize, Serialize};

/// One sentence: character offsets [start, end) of the pronoun, its antecedent and the distractor.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct CorefItem {
    pub text: String,
    pub pronoun: (usize, usize),
    pub antecedent: (usize, usize),
    pub distractor: (usize, usize),
}

/// JSON lines of `CorefItem`; an error names the line.
pub fn parse_items(text: &str) -> Result<Vec<CorefItem>> {
    let items: Vec<CorefItem> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| BertError::Input(format!("line {}: {e}", i + 1))))
        .collect::<Result<_>>()?;
    if items.is_empty() {
        return Err(BertError::Input("no sentences: give JSON lines of {text, pronoun, antecedent, distractor}".into()));
    }
    Ok(items)
}

/// A head's share of sentences where it prefers the antecedent, on each split.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeadScore {
    pub layer: usize,
    pub head: usize,
    pub dev: f32,
    pub test: f32,
}

#[derive(Clone, Debug, Serialize)]
pub struct CorefReport {
    pub dev_sentences: usize,
    pub test_sentences: usize,
    /// The head with the highest dev share (ties: the first in HF's order).
    pub best: HeadScore,
    /// The share where the noun nearest to the pronoun is its antecedent.
    pub nearest_noun: Baseline,
    pub heads: Vec<HeadScore>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Baseline {
    pub dev: f32,
    pub test: f32,
}

/// The token of `enc`'s first text that holds character `at` (a word's first piece).
fn token_at(enc: &Encoded, at: usize, item: &CorefItem) -> Result<usize> {
    (0..enc.input_ids.len())
        .find(|&i| enc.sequence[i] == Some(0) && enc.offsets[i].0 <= at && at < enc.offsets[i].1.max(enc.offsets[i].0 + 1))
        .ok_or_else(|| BertError::Input(format!("no token at character {at} of {:?} (cut off?)", item.text)))
}

/// For each head (layer-major), whether it prefers the antecedent in each item.
async fn hits(backend: &mut Backend, bert: &Bert, key: WeightsKey, items: &[CorefItem]) -> Result<Vec<Vec<bool>>> {
    let (l, nh) = (bert.cfg.num_hidden_layers, bert.cfg.num_attention_heads);
    let mut out = vec![Vec::with_capacity(items.len()); l * nh];
    for item in items {
        let enc = bert.tokenizer.encode(&item.text, None)?;
        let (p, a, d) =
            (token_at(&enc, item.pronoun.0, item)?, token_at(&enc, item.antecedent.0, item)?, token_at(&enc, item.distractor.0, item)?);
        let trace = backend.forward(bert, key, &batch_of(&enc), &ForwardOptions::default()).await?;
        for (li, layer) in trace.layers.iter().enumerate() {
            let probs = layer.attn.probs.index_axis(Axis(0), 0); // (NH, T, T)
            for h in 0..nh {
                out[li * nh + h].push(probs[[h, p, a]] > probs[[h, p, d]]);
            }
        }
    }
    Ok(out)
}

fn share(v: &[bool]) -> f32 {
    v.iter().filter(|&&x| x).count() as f32 / v.len().max(1) as f32
}

fn nearest_noun(items: &[CorefItem]) -> f32 {
    let dist = |s: (usize, usize), p: (usize, usize)| s.0.abs_diff(p.0);
    share(&items.iter().map(|i| dist(i.antecedent, i.pronoun) < dist(i.distractor, i.pronoun)).collect::<Vec<_>>())
}

/// Every head's shares on `dev` and `test`, the best head (by dev) and the baseline.
pub async fn probe(backend: &mut Backend, bert: &Bert, key: WeightsKey, dev: &[CorefItem], test: &[CorefItem]) -> Result<CorefReport> {
    let nh = bert.cfg.num_attention_heads;
    let (hd, ht) = (hits(backend, bert, key, dev).await?, hits(backend, bert, key, test).await?);
    let heads: Vec<HeadScore> = hd
        .iter()
        .zip(&ht)
        .enumerate()
        .map(|(k, (d, t))| HeadScore { layer: k / nh, head: k % nh, dev: share(d), test: share(t) })
        .collect();
    let best = heads.iter().fold(heads[0].clone(), |b, h| if h.dev > b.dev { h.clone() } else { b });
    Ok(CorefReport {
        dev_sentences: dev.len(),
        test_sentences: test.len(),
        best,
        nearest_noun: Baseline { dev: nearest_noun(dev), test: nearest_noun(test) },
        heads,
    })
}
