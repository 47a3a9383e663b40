//! Views over a corpus (exBERT's search, AttentionViz's joint scatter), computed by scanning it:
//! - `search`: the corpus tokens whose vector is closest (cosine) to one token of a sentence, where
//!   the vector is the hidden state after a layer (0: the embeddings' output), or one head's slice
//!   of a layer's attention output before the output projection (softmax(QK^T/sqrt(HD)) V);
//! - `queries_and_keys`: one head's query and key vectors of every corpus token in one 2D scatter:
//!   the keys shifted so their mean is the queries' (softmax does not change when every key moves
//!   by the same vector), both projected on the same two principal components.
//!
//! Corpus tokens are the non-special tokens of every non-empty line (lines counted from 0, empty
//! ones included; positions with [CLS] at 0). This is the scan on demand: each call runs the corpus
//! through the model and keeps only the one space asked for (the CLI's way; a page keeps an index).

use crate::backend::{Backend, WeightsKey};
use crate::bundle::Bert;
use crate::error::{BertError, Result};
use crate::infer::batch_of;
use crate::model::forward::{ForwardOptions, ForwardTrace};
use crate::tokenize::Encoded;
use ndarray::Array2;
use serde::Serialize;

/// Which vectors are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// The hidden state after layer `layer` (0: the embeddings' output; 1..=L).
    Hidden { layer: usize },
    /// Head `head` of layer `layer` (1..=L): its HD values of the attention output.
    Head { layer: usize, head: usize },
}

impl Space {
    /// `layer` and `head` as the CLI takes them, checked against the model.
    pub fn of(bert: &Bert, layer: usize, head: Option<usize>) -> Result<Space> {
        let (l, nh) = (bert.cfg.num_hidden_layers, bert.cfg.num_attention_heads);
        match head {
            None if layer > l => Err(BertError::Input(format!("layer {layer} does not exist: 0 (the embeddings) to {l}"))),
            None => Ok(Space::Hidden { layer }),
            Some(_) if layer == 0 || layer > l => Err(BertError::Input(format!("a head's layer is 1 to {l}, not {layer}"))),
            Some(h) if h >= nh => Err(BertError::Input(format!("head {h} does not exist: 0 to {}", nh - 1))),
            Some(head) => Ok(Space::Head { layer, head }),
        }
    }

    /// The (T, D) vectors of this space in `trace` (one sequence).
    fn vectors(self, trace: &ForwardTrace<f32>, hd: usize) -> Array2<f32> {
        match self {
            Space::Hidden { layer } => trace.hidden[layer].clone(),
            Space::Head { layer, head } => trace.layers[layer - 1].context.slice(ndarray::s![.., head * hd..(head + 1) * hd]).to_owned(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryToken {
    pub position: usize,
    pub token: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Match {
    pub line: usize,
    pub position: usize,
    pub token: String,
    pub score: f32,
}

/// What `bertscope search` prints.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchResult {
    pub query: QueryToken,
    pub matches: Vec<Match>,
}

/// The corpus's non-empty lines: (line from 0, text).
fn lines(corpus: &str) -> Result<Vec<(usize, &str)>> {
    let v: Vec<(usize, &str)> = corpus.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).collect();
    if v.is_empty() {
        return Err(BertError::Input("the corpus has no sentences: give one per line".into()));
    }
    Ok(v)
}

async fn run(backend: &mut Backend, bert: &Bert, key: WeightsKey, text: &str) -> Result<(Encoded, ForwardTrace<f32>)> {
    let enc = bert.tokenizer.encode(text, None)?;
    let trace = backend.forward(bert, key, &batch_of(&enc), &ForwardOptions::default()).await?;
    Ok((enc, trace))
}

fn hd(bert: &Bert) -> usize {
    bert.cfg.hidden_size / bert.cfg.num_attention_heads
}

fn unit(v: ndarray::ArrayView1<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| (*x as f64) * (*x as f64)).sum::<f64>().sqrt().max(1e-12);
    v.iter().map(|x| (*x as f64 / n) as f32).collect()
}

/// The `k` corpus tokens closest to token `position` of `text` in `space`, best first (ties: the
/// earlier line, then position).
#[allow(clippy::too_many_arguments)]
pub async fn search(
    backend: &mut Backend,
    bert: &Bert,
    key: WeightsKey,
    corpus: &str,
    text: &str,
    position: usize,
    space: Space,
    k: usize,
) -> Result<SearchResult> {
    let lines = lines(corpus)?;
    let (enc, trace) = run(backend, bert, key, text).await?;
    if position >= enc.input_ids.len() {
        return Err(BertError::Input(format!("position {position} is outside the text's {} tokens ([CLS] at 0)", enc.input_ids.len())));
    }
    let hd = hd(bert);
    let q = unit(space.vectors(&trace, hd).row(position));
    let mut all: Vec<Match> = Vec::new();
    for (line, text) in lines {
        let (e, tr) = run(backend, bert, key, text).await?;
        let vs = space.vectors(&tr, hd);
        for p in (0..e.input_ids.len()).filter(|&p| e.special[p] == 0) {
            let v = unit(vs.row(p));
            let score = q.iter().zip(&v).map(|(a, b)| (*a as f64) * (*b as f64)).sum::<f64>() as f32;
            all.push(Match { line, position: p, token: bert.tokenizer.readable(&e.tokens[p]), score });
        }
    }
    all.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.line.cmp(&b.line)).then(a.position.cmp(&b.position)));
    all.truncate(k);
    Ok(SearchResult { query: QueryToken { position, token: bert.tokenizer.readable(&enc.tokens[position]) }, matches: all })
}

/// One token's query or key in the scatter.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QkPoint {
    /// "query" or "key".
    pub kind: &'static str,
    pub line: usize,
    pub position: usize,
    pub token: String,
    pub x: f32,
    pub y: f32,
}

/// What `bertscope qk` prints: the share of variance each component explains, and the points
/// (every corpus token's query, then every key, in corpus order).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QkResult {
    pub layer: usize,
    pub head: usize,
    pub explained: [f32; 2],
    pub points: Vec<QkPoint>,
}

/// Head `head` of layer `layer` (1..=L): every corpus token's query and key in one PCA.
pub async fn queries_and_keys(
    backend: &mut Backend,
    bert: &Bert,
    key: WeightsKey,
    corpus: &str,
    layer: usize,
    head: usize,
) -> Result<QkResult> {
    Space::of(bert, layer, Some(head))?;
    let hd = hd(bert);
    let cols = ndarray::s![.., head * hd..(head + 1) * hd];
    let (mut qs, mut ks, mut who) = (Vec::new(), Vec::new(), Vec::new());
    for (line, text) in lines(corpus)? {
        let (e, tr) = run(backend, bert, key, text).await?;
        let (q, k) = (tr.layers[layer - 1].q.slice(cols).to_owned(), tr.layers[layer - 1].k.slice(cols).to_owned());
        for p in (0..e.input_ids.len()).filter(|&p| e.special[p] == 0) {
            qs.push(q.row(p).to_vec());
            ks.push(k.row(p).to_vec());
            who.push((line, p, bert.tokenizer.readable(&e.tokens[p])));
        }
    }
    let m = qs.len();
    if m < 2 {
        return Err(BertError::Input("the corpus has fewer than two tokens: nothing to project".into()));
    }
    // keys moved so their mean is the queries' mean; then all 2M rows centred on it
    let mean = |rows: &[Vec<f32>]| (0..hd).map(|j| rows.iter().map(|r| r[j] as f64).sum::<f64>() / rows.len() as f64).collect::<Vec<f64>>();
    let (mq, mk) = (mean(&qs), mean(&ks));
    let x = Array2::from_shape_fn((2 * m, hd), |(i, j)| if i < m { qs[i][j] as f64 - mq[j] } else { ks[i - m][j] as f64 - mk[j] });
    let cov = x.t().dot(&x) / (2 * m - 1) as f64; // (HD, HD)
    let (values, vectors) = symmetric_eigen(cov);
    let total: f64 = values.iter().sum::<f64>().max(1e-30);
    let proj = x.dot(&vectors.slice(ndarray::s![.., 0..2])); // (2M, 2)
    let points = (0..2 * m)
        .map(|i| {
            let (line, position, token) = who[i % m].clone();
            QkPoint { kind: if i < m { "query" } else { "key" }, line, position, token, x: proj[[i, 0]] as f32, y: proj[[i, 1]] as f32 }
        })
        .collect();
    Ok(QkResult { layer, head, explained: [(values[0] / total) as f32, (values[1] / total) as f32], points })
}

/// Eigenvalues (largest first) and eigenvectors (columns) of a symmetric matrix, by cyclic Jacobi
/// rotations; each vector's largest entry made positive (a sign convention).
fn symmetric_eigen(mut a: Array2<f64>) -> (Vec<f64>, Array2<f64>) {
    let n = a.nrows();
    let mut v = Array2::<f64>::eye(n);
    for _sweep in 0..100 {
        let off: f64 = (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j))).map(|(i, j)| a[[i, j]] * a[[i, j]]).sum();
        if off < 1e-24 * (1.0 + (0..n).map(|i| a[[i, i]] * a[[i, i]]).sum::<f64>()) {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                if a[[p, q]].abs() < 1e-300 {
                    continue;
                }
                let theta = (a[[q, q]] - a[[p, p]]) / (2.0 * a[[p, q]]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[[k, p]], a[[k, q]]);
                    a[[k, p]] = c * akp - s * akq;
                    a[[k, q]] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[[p, k]], a[[q, k]]);
                    a[[p, k]] = c * apk - s * aqk;
                    a[[q, k]] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[[k, p]], v[[k, q]]);
                    v[[k, p]] = c * vkp - s * vkq;
                    v[[k, q]] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[[j, j]].total_cmp(&a[[i, i]]));
    let values = order.iter().map(|&i| a[[i, i]].max(0.0)).collect();
    let mut vectors = Array2::<f64>::zeros((n, n));
    for (c, &i) in order.iter().enumerate() {
        let col = v.column(i);
        let big = col.iter().fold(0f64, |m, &x| if x.abs() > m.abs() { x } else { m });
        let sign = if big < 0.0 { -1.0 } else { 1.0 };
        for r in 0..n {
            vectors[[r, c]] = sign * col[r];
        }
    }
    (values, vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_finds_the_eigenpairs_of_a_known_matrix() {
        // eigenvalues 6, 3, 1 of a rotated diagonal matrix
        let r = ndarray::arr2(&[[2.0 / 3.0, -2.0 / 3.0, 1.0 / 3.0], [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0], [2.0 / 3.0, 1.0 / 3.0, -2.0 / 3.0]]);
        let d = Array2::from_diag(&ndarray::arr1(&[3.0, 6.0, 1.0]));
        let a = r.dot(&d).dot(&r.t());
        let (values, vectors) = symmetric_eigen(a.clone());
        for (got, want) in values.iter().zip([6.0, 3.0, 1.0]) {
            assert!((got - want).abs() < 1e-10, "{values:?}");
        }
        for c in 0..3 {
            let v = vectors.column(c);
            let av = a.dot(&v);
            for i in 0..3 {
                assert!((av[i] - values[c] * v[i]).abs() < 1e-10, "A v = lambda v for column {c}");
            }
        }
    }
}
