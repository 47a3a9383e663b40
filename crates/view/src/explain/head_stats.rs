//! What each head does, from its attention over many sentences (Clark et al. 2019, "What Does BERT
//! Look At?"; Kovaleva et al. 2019): the share of attention a query gives to [CLS], to the [SEP]s, to
//! the previous and the next token, to itself and to punctuation, and the row's entropy, pooled over
//! every query row of every sentence. A trained model parks most of its attention on a special
//! token (a no-op), so the same statistics are also taken over the ordinary tokens only
//! (`HeadStats::content`), where what a head does shows. Pure: the attention comes from any backend.
//!
//! Definitions (A: one head's (T, T) softmax probabilities, query row i, key column j; Q: query rows
//! pooled):
//! - `cls`: mean of A[i, 0]; `sep`: mean of the sum of A[i, j] over the [SEP] positions j;
//! - `prev`: mean of A[i, i-1] over rows i >= 1; `next`: mean of A[i, i+1] over rows i <= T-2;
//! - `self`: mean of A[i, i]; `punct`: mean of the sum of A[i, j] over punctuation tokens j
//!   (`PUNCTUATION`); `entropy`: mean of -sum_j A[i, j] ln A[i, j] (nats);
//! - `content`: rows and columns of ordinary tokens only (no [CLS], [SEP] or other special token),
//!   each row renormalised to sum 1: `mass` is the mean share those columns had before
//!   renormalising; `prev` / `next` count only rows whose neighbour is ordinary.

use serde::{Deserialize, Serialize};

/// The tokens counted as punctuation (whole pieces).
pub const PUNCTUATION: [&str; 13] = [".", ",", ";", ":", "!", "?", "'", "\"", "(", ")", "-", "`", "’"];

/// What `bertscope heads` prints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SurveyReport {
    pub sentences: usize,
    pub queries: usize,
    /// Lines cut to the model's longest input (their first tokens counted).
    pub truncated: usize,
    pub heads: Vec<HeadStats>,
}

/// What a key position is, for the statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Cls,
    Sep,
    /// Another special token ([PAD], [UNK] is not special).
    Special,
    Punct,
    Word,
}

impl Kind {
    fn ordinary(self) -> bool {
        matches!(self, Kind::Punct | Kind::Word)
    }
}

/// Statistics over the ordinary tokens, each row renormalised (see the module's docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ContentStats {
    pub mass: f32,
    pub prev: f32,
    pub next: f32,
    #[serde(rename = "self")]
    pub self_: f32,
    pub punct: f32,
    pub entropy: f32,
}

/// One head's statistics and the role they give it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeadStats {
    pub layer: usize,
    pub head: usize,
    pub cls: f32,
    pub sep: f32,
    pub prev: f32,
    pub next: f32,
    #[serde(rename = "self")]
    pub self_: f32,
    pub punct: f32,
    pub entropy: f32,
    /// Mean of each row's entropy over its largest, ln T (1: uniform over the sentence).
    pub entropy_share: f32,
    pub content: ContentStats,
    pub role: Role,
    /// The sentences where the head's row maxima are most peaked, most peaked first.
    pub examples: Vec<Example>,
}

/// A sentence (its line, from 0), the mean of its rows' largest attention, and its text (filled in
/// by whoever holds the lines: `app::head_survey`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Example {
    pub line: usize,
    pub peak: f32,
    pub text: String,
}

/// What a head does, decided from its statistics (`Role::of`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    PreviousToken,
    NextToken,
    #[serde(rename = "self")]
    SelfToken,
    Punctuation,
    #[serde(rename = "[SEP]")]
    Sep,
    #[serde(rename = "[CLS]")]
    Cls,
    Broad,
    Other,
}

/// A pattern among the ordinary tokens counts when they keep at least this share of the attention
/// (below it the head is a no-op parked on special tokens, whatever its remainder does).
pub const MIN_CONTENT_MASS: f32 = 0.2;
/// The share of attention that makes a pattern the head's role.
pub const ROLE_SHARE: f32 = 0.5;
/// Rows this close to uniform (entropy over ln T) make a broad head.
pub const BROAD_SHARE: f32 = 0.75;

impl Role {
    pub const ALL: [Role; 8] =
        [Role::PreviousToken, Role::NextToken, Role::SelfToken, Role::Punctuation, Role::Sep, Role::Cls, Role::Broad, Role::Other];

    /// In order: a pattern among the ordinary tokens (previous, next, self, punctuation: at least
    /// `ROLE_SHARE` of what is left after the specials, when that is at least `MIN_CONTENT_MASS`),
    /// then parking on [SEP] or [CLS] (`ROLE_SHARE` of all attention), then broad, else other.
    pub fn of(s: &HeadStats) -> Role {
        let c = &s.content;
        let content = c.mass >= MIN_CONTENT_MASS;
        if content && c.prev >= ROLE_SHARE {
            Role::PreviousToken
        } else if content && c.next >= ROLE_SHARE {
            Role::NextToken
        } else if content && c.self_ >= ROLE_SHARE {
            Role::SelfToken
        } else if content && c.punct >= ROLE_SHARE {
            Role::Punctuation
        } else if s.sep >= ROLE_SHARE {
            Role::Sep
        } else if s.cls >= ROLE_SHARE {
            Role::Cls
        } else if s.entropy_share >= BROAD_SHARE {
            Role::Broad
        } else {
            Role::Other
        }
    }

    /// As the page names it.
    pub fn label(self) -> &'static str {
        match self {
            Role::PreviousToken => "previous token",
            Role::NextToken => "next token",
            Role::SelfToken => "self",
            Role::Punctuation => "punctuation",
            Role::Sep => "[SEP]",
            Role::Cls => "[CLS]",
            Role::Broad => "broad",
            Role::Other => "other",
        }
    }
}

/// Sums for one head, over the sentences added so far.
#[derive(Clone, Debug, Default)]
struct Sums {
    cls: f64,
    sep: f64,
    prev: f64,
    next: f64,
    self_: f64,
    punct: f64,
    entropy: f64,
    entropy_share: f64,
    c_mass: f64,
    c_prev: f64,
    c_next: f64,
    c_self: f64,
    c_punct: f64,
    c_entropy: f64,
    /// (peak, line) of the most peaked sentences.
    examples: Vec<(f32, usize)>,
}

/// Row counts, the same for every head.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    rows: usize,
    neighbour_rows: usize,
    /// Rows whose T > 1 (entropy share).
    share_rows: usize,
    c_rows: usize,
    c_prev_rows: usize,
    c_next_rows: usize,
}

/// The survey's running totals for every head of a model.
#[derive(Clone, Debug)]
pub struct Survey {
    layers: usize,
    heads: usize,
    sums: Vec<Sums>,
    counts: Counts,
    sentences: usize,
    examples: usize,
}

impl Survey {
    /// `examples`: the most peaked sentences kept per head.
    pub fn new(layers: usize, heads: usize, examples: usize) -> Self {
        Survey { layers, heads, sums: vec![Sums::default(); layers * heads], counts: Counts::default(), sentences: 0, examples }
    }

    pub fn sentences(&self) -> usize {
        self.sentences
    }

    /// Query rows pooled so far.
    pub fn queries(&self) -> usize {
        self.counts.rows
    }

    /// Adds one sentence (line `line`): `kinds` of its T tokens, and `attention(layer, head)` giving
    /// that head's (T*T) row-major probabilities.
    pub fn add<'a>(&mut self, line: usize, kinds: &[Kind], attention: impl Fn(usize, usize) -> &'a [f32]) {
        let t = kinds.len();
        let ordinary: Vec<bool> = kinds.iter().map(|k| k.ordinary()).collect();
        let mut counts =
            Counts { rows: t, neighbour_rows: t.saturating_sub(1), share_rows: if t > 1 { t } else { 0 }, ..Counts::default() };
        for i in 0..t {
            if !ordinary[i] {
                continue;
            }
            counts.c_rows += 1;
            counts.c_prev_rows += usize::from(i >= 1 && ordinary[i - 1]);
            counts.c_next_rows += usize::from(i + 1 < t && ordinary[i + 1]);
        }
        for layer in 0..self.layers {
            for head in 0..self.heads {
                let a = attention(layer, head);
                assert_eq!(a.len(), t * t, "attention of ({layer}, {head}) is not {t} x {t}");
                add_head(&mut self.sums[layer * self.heads + head], a, kinds, &ordinary, line, self.examples);
            }
        }
        let c = &mut self.counts;
        c.rows += counts.rows;
        c.neighbour_rows += counts.neighbour_rows;
        c.share_rows += counts.share_rows;
        c.c_rows += counts.c_rows;
        c.c_prev_rows += counts.c_prev_rows;
        c.c_next_rows += counts.c_next_rows;
        self.sentences += 1;
    }

    /// Every head's statistics and role, layer by layer (the HF order).
    pub fn stats(&self) -> Vec<HeadStats> {
        let c = self.counts;
        let mean = |s: f64, n: usize| if n == 0 { 0.0 } else { (s / n as f64) as f32 };
        self.sums
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let mut h = HeadStats {
                    layer: k / self.heads,
                    head: k % self.heads,
                    cls: mean(s.cls, c.rows),
                    sep: mean(s.sep, c.rows),
                    prev: mean(s.prev, c.neighbour_rows),
                    next: mean(s.next, c.neighbour_rows),
                    self_: mean(s.self_, c.rows),
                    punct: mean(s.punct, c.rows),
                    entropy: mean(s.entropy, c.rows),
                    entropy_share: mean(s.entropy_share, c.share_rows),
                    content: ContentStats {
                        mass: mean(s.c_mass, c.c_rows),
                        prev: mean(s.c_prev, c.c_prev_rows),
                        next: mean(s.c_next, c.c_next_rows),
                        self_: mean(s.c_self, c.c_rows),
                        punct: mean(s.c_punct, c.c_rows),
                        entropy: mean(s.c_entropy, c.c_rows),
                    },
                    role: Role::Other,
                    examples: s.examples.iter().map(|&(peak, line)| Example { line, peak, text: String::new() }).collect(),
                };
                h.role = Role::of(&h);
                h
            })
            .collect()
    }
}

fn entropy(row: impl Iterator<Item = f64>) -> f64 {
    row.filter(|&p| p > 0.0).map(|p| -p * p.ln()).sum()
}

/// One head's (T*T) attention `a` of one sentence into its sums.
fn add_head(s: &mut Sums, a: &[f32], kinds: &[Kind], ordinary: &[bool], line: usize, keep: usize) {
    let t = kinds.len();
    let mut peak = 0f64;
    for i in 0..t {
        let row = &a[i * t..(i + 1) * t];
        let p = |j: usize| row[j] as f64;
        s.cls += p(0);
        for j in 0..t {
            match kinds[j] {
                Kind::Sep => s.sep += p(j),
                Kind::Punct => s.punct += p(j),
                _ => {}
            }
        }
        if i >= 1 {
            s.prev += p(i - 1);
        }
        if i + 1 < t {
            s.next += p(i + 1);
        }
        s.self_ += p(i);
        let h = entropy(row.iter().map(|&x| x as f64));
        s.entropy += h;
        if t > 1 {
            s.entropy_share += h / (t as f64).ln();
        }
        peak += row.iter().fold(0f32, |m, &x| m.max(x)) as f64;
        if !ordinary[i] {
            continue;
        }
        let mass: f64 = (0..t).filter(|&j| ordinary[j]).map(p).sum();
        s.c_mass += mass;
        if mass <= 0.0 {
            continue; // nothing left to renormalise: the row adds 0 to each share
        }
        let q = |j: usize| p(j) / mass;
        if i >= 1 && ordinary[i - 1] {
            s.c_prev += q(i - 1);
        }
        if i + 1 < t && ordinary[i + 1] {
            s.c_next += q(i + 1);
        }
        s.c_self += q(i);
        s.c_punct += (0..t).filter(|&j| kinds[j] == Kind::Punct).map(q).sum::<f64>();
        s.c_entropy += entropy((0..t).filter(|&j| ordinary[j]).map(q));
    }
    if keep > 0 && t > 0 {
        let peak = (peak / t as f64) as f32;
        // most peaked first; ties to the earlier line
        let at = s.examples.partition_point(|&(p, l)| p > peak || (p == peak && l < line));
        if at < keep {
            s.examples.insert(at, (peak, line));
            s.examples.truncate(keep);
        }
    }
}

#[cfg(test)]
#[path = "head_stats_tests.rs"]
mod tests;
