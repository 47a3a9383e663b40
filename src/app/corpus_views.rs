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

use crate::app::qk_projection::QkProjection;
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
        let (q, k) = (tr.layers[layer - 1].q.slice(cols), tr.layers[layer - 1].k.slice(cols));
        for p in (0..e.input_ids.len()).filter(|&p| e.special[p] == 0) {
            qs.extend(q.row(p).iter());
            ks.extend(k.row(p).iter());
            who.push((line, p, bert.tokenizer.readable(&e.tokens[p])));
        }
    }
    let m = who.len();
    if m < 2 {
        return Err(BertError::Input("the corpus has fewer than two tokens: nothing to project".into()));
    }
    let (qs, ks) = (Array2::from_shape_vec((m, hd), qs).expect("M x HD"), Array2::from_shape_vec((m, hd), ks).expect("M x HD"));
    let fit = QkProjection::fit(qs.view(), ks.view());
    let points = (0..2 * m)
        .map(|i| {
            let (line, position, token) = who[i % m].clone();
            let [x, y] =
                if i < m { fit.query(qs.row(i).as_slice().expect("row")) } else { fit.key(ks.row(i - m).as_slice().expect("row")) };
            QkPoint { kind: if i < m { "query" } else { "key" }, line, position, token, x, y }
        })
        .collect();
    Ok(QkResult { layer, head, explained: fit.explained, points })
}
