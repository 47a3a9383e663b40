//! Training sequences from a corpus, as BERT's `create_pretraining_data.py`: pack a document's
//! sentences up to the target length, split into A and B, and for NSP replace B by text from
//! another document half of the time.

use crate::error::Result;
use crate::rng::Rng;
use crate::tokenize::BertTokenizer;
use crate::train::corpus::Corpus;
use serde::Serialize;

/// One unmasked training sequence: `[CLS] A [SEP]` or `[CLS] A [SEP] B [SEP]`.
#[derive(Clone, Debug, Serialize)]
pub struct Example {
    pub ids: Vec<u32>,
    pub type_ids: Vec<u32>,
    /// With NSP: true when B follows A in the document.
    pub is_next: Option<bool>,
}

/// A corpus as WordPiece ids: documents -> sentences -> ids (no special tokens).
#[derive(Clone, Debug, Default)]
pub struct TokenizedCorpus {
    pub docs: Vec<Vec<Vec<u32>>>,
}

impl TokenizedCorpus {
    pub fn new(corpus: &Corpus, tok: &BertTokenizer) -> Result<Self> {
        let mut docs = Vec::with_capacity(corpus.docs.len());
        for d in &corpus.docs {
            let mut sents = Vec::with_capacity(d.len());
            for s in d {
                let ids = tok.ids(s)?;
                if !ids.is_empty() {
                    sents.push(ids);
                }
            }
            if !sents.is_empty() {
                docs.push(sents);
            }
        }
        Ok(TokenizedCorpus { docs })
    }

    pub fn tokens(&self) -> usize {
        self.docs.iter().flatten().map(Vec::len).sum()
    }
}

#[derive(Clone, Copy, Debug)]
pub struct ExampleConfig {
    pub max_len: usize,
    pub nsp: bool,
    pub cls: u32,
    pub sep: u32,
    /// BERT makes 10% of sequences shorter than the maximum so short inputs are seen too.
    pub short_seq_prob: f64,
}

/// Trims the longer of A and B, from the front or the back at random, until they fit.
fn truncate_pair(a: &mut Vec<u32>, b: &mut Vec<u32>, max: usize, rng: &mut Rng) {
    while a.len() + b.len() > max {
        let t = if a.len() > b.len() { &mut *a } else { &mut *b };
        if rng.uniform() < 0.5 {
            t.remove(0);
        } else {
            t.pop();
        }
    }
}

/// All sequences of one pass over the corpus (one "dupe" in BERT's terms).
pub fn make_examples(tc: &TokenizedCorpus, cfg: &ExampleConfig, rng: &mut Rng) -> Vec<Example> {
    let mut out = Vec::new();
    let specials = if cfg.nsp { 3 } else { 2 };
    let max_tokens = cfg.max_len.saturating_sub(specials).max(2);
    for (di, doc) in tc.docs.iter().enumerate() {
        let mut target = max_tokens;
        if rng.uniform() < cfg.short_seq_prob {
            target = 2 + rng.below(max_tokens - 1);
        }
        let mut chunk: Vec<&Vec<u32>> = Vec::new();
        let mut len = 0;
        let mut i = 0;
        while i < doc.len() {
            chunk.push(&doc[i]);
            len += doc[i].len();
            if i == doc.len() - 1 || len >= target {
                // A lone sentence could only get a random B; take the next one along when there
                // is one, so IsNext stays near half even with short targets.
                if cfg.nsp && chunk.len() == 1 && i + 1 < doc.len() {
                    i += 1;
                    chunk.push(&doc[i]);
                }
                if cfg.nsp {
                    let a_end = if chunk.len() >= 2 { 1 + rng.below(chunk.len() - 1) } else { 1 };
                    let mut a: Vec<u32> = chunk[..a_end].iter().flat_map(|s| s.iter().copied()).collect();
                    let random_next = tc.docs.len() > 1 && rng.uniform() < 0.5;
                    let mut b: Vec<u32>;
                    if random_next {
                        let target_b = target.saturating_sub(a.len()).max(1);
                        let mut other = rng.below(tc.docs.len() - 1);
                        if other >= di {
                            other += 1;
                        }
                        let od = &tc.docs[other];
                        b = Vec::new();
                        for s in &od[rng.below(od.len())..] {
                            b.extend_from_slice(s);
                            if b.len() >= target_b {
                                break;
                            }
                        }
                        // the unused sentences of this chunk go back for the next sequence
                        i -= chunk.len() - a_end;
                    } else if chunk.len() == 1 {
                        // one sentence left in the document: its second part follows its first
                        let cut = 1 + rng.below(a.len().max(2) - 1);
                        b = a.split_off(cut.min(a.len()));
                    } else {
                        b = chunk[a_end..].iter().flat_map(|s| s.iter().copied()).collect();
                    }
                    truncate_pair(&mut a, &mut b, max_tokens, rng);
                    if !a.is_empty() && !b.is_empty() {
                        let mut ids = vec![cfg.cls];
                        ids.extend(&a);
                        ids.push(cfg.sep);
                        let mut type_ids = vec![0; ids.len()];
                        ids.extend(&b);
                        ids.push(cfg.sep);
                        type_ids.resize(ids.len(), 1);
                        out.push(Example { ids, type_ids, is_next: Some(!random_next) });
                    }
                } else {
                    let mut a: Vec<u32> = chunk.iter().flat_map(|s| s.iter().copied()).collect();
                    a.truncate(max_tokens);
                    let mut ids = vec![cfg.cls];
                    ids.extend(a);
                    ids.push(cfg.sep);
                    let n = ids.len();
                    out.push(Example { ids, type_ids: vec![0; n], is_next: None });
                }
                chunk.clear();
                len = 0;
            }
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> TokenizedCorpus {
        // 6 documents of 5 sentences; id = 100 * doc + 10 * sentence + word
        TokenizedCorpus { docs: (0..6).map(|d| (0..5).map(|s| (0..4).map(|w| 100 * d + 10 * s + w + 5).collect()).collect()).collect() }
    }

    #[test]
    fn nsp_pairs_are_half_random_and_fit() {
        let cfg = ExampleConfig { max_len: 16, nsp: true, cls: 2, sep: 3, short_seq_prob: 0.1 };
        let mut rng = Rng::new(1);
        let mut next = 0;
        let mut total = 0;
        for _ in 0..50 {
            for e in make_examples(&corpus(), &cfg, &mut rng) {
                assert!(e.ids.len() <= 16);
                assert_eq!(e.ids[0], 2);
                assert_eq!(*e.ids.last().unwrap(), 3);
                assert_eq!(e.ids.iter().filter(|&&i| i == 3).count(), 2);
                let first_b = e.type_ids.iter().position(|&t| t == 1).unwrap();
                assert_eq!(e.ids[first_b - 1], 3);
                let doc_of = |i: u32| (i - 5) / 100;
                let (a, b) = (e.ids[1], e.ids[first_b]);
                if e.is_next.unwrap() {
                    next += 1;
                    assert_eq!(doc_of(a), doc_of(b), "IsNext keeps the document");
                    assert!(b > a);
                } else {
                    assert_ne!(doc_of(a), doc_of(b), "NotNext comes from another document");
                }
                total += 1;
            }
        }
        let f = next as f64 / total as f64;
        assert!((0.35..0.65).contains(&f), "IsNext fraction {f}");
    }

    #[test]
    fn single_segment_sequences_without_nsp() {
        let cfg = ExampleConfig { max_len: 10, nsp: false, cls: 2, sep: 3, short_seq_prob: 0.0 };
        let ex = make_examples(&corpus(), &cfg, &mut Rng::new(3));
        assert!(ex.iter().all(|e| e.ids.len() <= 10 && e.type_ids.iter().all(|&t| t == 0) && e.is_next.is_none()));
        let covered: usize = ex.iter().map(|e| e.ids.len() - 2).sum();
        assert_eq!(covered, 6 * 5 * 4, "every token is used once");
    }
}
