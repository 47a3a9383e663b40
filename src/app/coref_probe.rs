//! The coreference probe: for every head, the share of sentences where the pronoun's attention to
//! its antecedent's first piece exceeds its attention to the distractor's ("the boy told the girl
//! that he was late": he -> boy, not girl; www/datasets/coref/, made by
//! scripts/make_coref_probe.py). The best head is picked on the dev sentences and reported on the
//! held-out ones, against the baseline "the nearest noun" (Clark et al. 2019 probe coreference
//! the same way, with the same baseline).

use crate::backend::{Backend, WeightsKey};
use crate::bundle::Bert;
use crate::error::{BertError, Result};
pub use crate::explain::coref::{Baseline, CorefReport, HeadScore};
use crate::infer::batch_of;
use crate::model::forward::ForwardOptions;
use crate::tokenize::Encoded;
use ndarray::Axis;
use serde::Deserialize;

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

/// The token of `enc`'s first text that holds character `at` (a word's first piece).
fn token_at(enc: &Encoded, at: usize, item: &CorefItem) -> Result<usize> {
    (0..enc.input_ids.len())
        .find(|&i| enc.sequence[i] == Some(0) && enc.offsets[i].0 <= at && at < enc.offsets[i].1.max(enc.offsets[i].0 + 1))
        .ok_or_else(|| BertError::Input(format!("no token at character {at} of {:?} (cut off?)", item.text)))
}

/// For each head (layer-major), whether it prefers the antecedent in `item`.
async fn item_hits(backend: &mut Backend, bert: &Bert, key: WeightsKey, item: &CorefItem) -> Result<Vec<bool>> {
    let nh = bert.cfg.num_attention_heads;
    let enc = bert.tokenizer.encode(&item.text, None)?;
    let (p, a, d) =
        (token_at(&enc, item.pronoun.0, item)?, token_at(&enc, item.antecedent.0, item)?, token_at(&enc, item.distractor.0, item)?);
    let trace = backend.forward(bert, key, &batch_of(&enc), &ForwardOptions::default()).await?;
    let mut out = Vec::with_capacity(trace.layers.len() * nh);
    for layer in &trace.layers {
        let probs = layer.attn.probs.index_axis(Axis(0), 0); // (NH, T, T)
        out.extend((0..nh).map(|h| probs[[h, p, a]] > probs[[h, p, d]]));
    }
    Ok(out)
}

/// The probe as a long job: the dev sentences, then the test ones, a few at a time (`run`).
pub struct CorefProbe {
    dev: Vec<CorefItem>,
    test: Vec<CorefItem>,
    /// Per item done (dev first), each head's hit.
    hits: Vec<Vec<bool>>,
}

impl CorefProbe {
    pub fn new(dev: Vec<CorefItem>, test: Vec<CorefItem>) -> Self {
        CorefProbe { dev, test, hits: vec![] }
    }

    /// Sentences probed and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.hits.len(), self.dev.len() + self.test.len())
    }

    pub fn finished(&self) -> bool {
        self.hits.len() == self.dev.len() + self.test.len()
    }

    /// Probes up to `n` more sentences; returns how many it did.
    pub async fn run(&mut self, backend: &mut Backend, bert: &Bert, key: WeightsKey, n: usize) -> Result<usize> {
        let mut done = 0;
        while done < n && !self.finished() {
            let i = self.hits.len();
            let item = if i < self.dev.len() { &self.dev[i] } else { &self.test[i - self.dev.len()] };
            let h = item_hits(backend, bert, key, item).await?;
            self.hits.push(h);
            done += 1;
        }
        Ok(done)
    }

    /// The report, once finished (None before).
    pub fn report(&self, bert: &Bert) -> Option<CorefReport> {
        if !self.finished() {
            return None;
        }
        let nh = bert.cfg.num_attention_heads;
        let n = self.hits.first().map_or(0, Vec::len);
        let column = |rows: &[Vec<bool>], k: usize| rows.iter().map(|r| r[k]).collect::<Vec<bool>>();
        let (hd, ht) = self.hits.split_at(self.dev.len());
        let heads: Vec<HeadScore> =
            (0..n).map(|k| HeadScore { layer: k / nh, head: k % nh, dev: share(&column(hd, k)), test: share(&column(ht, k)) }).collect();
        let best = heads.iter().fold(heads[0].clone(), |b, h| if h.dev > b.dev { h.clone() } else { b });
        Some(CorefReport {
            dev_sentences: self.dev.len(),
            test_sentences: self.test.len(),
            best,
            nearest_noun: Baseline { dev: nearest_noun(&self.dev), test: nearest_noun(&self.test) },
            heads,
        })
    }
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
    let mut job = CorefProbe::new(dev.to_vec(), test.to_vec());
    while !job.finished() {
        job.run(backend, bert, key, 64).await?;
    }
    Ok(job.report(bert).expect("finished"))
}
