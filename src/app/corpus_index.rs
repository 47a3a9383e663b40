//! The page's index for corpus search, filled by the head survey's scan (one pass over the
//! sentences for both): for every non-special token, its hidden state after each layer (0: the
//! embeddings' output) and each head's part of each layer's attention output, stored as int8: a
//! hidden state scaled so its largest entry is 127 (its scale and its int8 length kept, two f32),
//! a head's part scaled to unit length (x 127). Why int8: every layer and head of 1,000 sentences in f32
//! would be about 550 MB for MiniLM-L6, in f16 275 MB; int8 is 137 MB, and a cosine read back from
//! it is within about 0.01 of the exact one (the CLI's `bertscope search` computes exact scores).
//!
//! The queries-and-keys scatter needs no more: a head's queries and keys are linear in the hidden
//! state its layer reads (Q = X W_Q^T + b_Q), so they are computed on demand from the stored
//! hidden states, read back whole with their scales. (Scaled by the largest entry, not to unit
//! length, a hidden state keeps about 3 more bits: BERT's entries are small next to the vector's
//! length.) Keeping every head's queries and keys instead would add about 124 MB for MiniLM-L6.

use crate::app::corpus_views::Space;
pub use crate::explain::corpus_search::IndexMatch;
use crate::model::forward::ForwardTrace;
use crate::model::params::BertParams;
use crate::tokenize::Encoded;
use ndarray::Array2;

#[derive(Clone, Debug, Default)]
pub struct CorpusIndex {
    /// L+1 hidden states and L layers' heads, H = NH * HD wide.
    layers: usize,
    heads: usize,
    width: usize,
    /// (line, position) of each indexed token.
    tokens: Vec<(u32, u16)>,
    /// Each line's readable pieces, by line number (empty for lines not indexed).
    lines: Vec<(usize, Vec<String>)>,
    /// tokens x (L+1) x H.
    hidden: Vec<i8>,
    /// tokens x (L+1): each hidden state's scale (its entries are `hidden` x scale), and one over
    /// the length of its int8 entries (a cosine with them).
    scales: Vec<f32>,
    inv_lengths: Vec<f32>,
    /// tokens x L x H, each head's HD values unit-scaled on their own.
    context: Vec<i8>,
}

/// Appends `v` unit-scaled as int8 (x 127).
fn quantize(v: impl Iterator<Item = f32> + Clone, out: &mut Vec<i8>) {
    let n = v.clone().map(|x| (x as f64) * (x as f64)).sum::<f64>().sqrt().max(1e-12);
    out.extend(v.map(|x| ((x as f64 / n) * 127.0).round().clamp(-127.0, 127.0) as i8));
}

/// Appends `v` as int8 with its largest entry at 127; returns (its scale, one over its int8 length).
fn quantize_max(v: &[f32], out: &mut Vec<i8>) -> (f32, f32) {
    let scale = v.iter().fold(0f32, |m, x| m.max(x.abs())).max(1e-30) / 127.0;
    let start = out.len();
    out.extend(v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8));
    let len = out[start..].iter().map(|&x| (x as f64) * (x as f64)).sum::<f64>().sqrt().max(1e-12);
    (scale, (1.0 / len) as f32)
}

impl CorpusIndex {
    pub fn new(layers: usize, heads: usize, width: usize) -> Self {
        CorpusIndex { layers, heads, width, ..Default::default() }
    }

    /// Tokens indexed.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Bytes held by the vectors and their lengths.
    pub fn bytes(&self) -> usize {
        self.hidden.len() + self.context.len() + 4 * (self.scales.len() + self.inv_lengths.len())
    }

    /// (line, position) of each indexed token, in the order of `queries_and_keys`' points.
    pub fn tokens(&self) -> &[(u32, u16)] {
        &self.tokens
    }

    /// Each indexed line's readable pieces, by line number.
    pub fn lines(&self) -> &[(usize, Vec<String>)] {
        &self.lines
    }

    /// The readable pieces of line `line` ([CLS] and [SEP] included), if it was indexed.
    pub fn line(&self, line: usize) -> Option<&[String]> {
        self.lines.binary_search_by_key(&line, |(l, _)| *l).ok().map(|i| self.lines[i].1.as_slice())
    }

    /// Adds line `line` (its encoding, readable pieces and forward trace).
    pub fn add(&mut self, line: usize, enc: &Encoded, pieces: Vec<String>, trace: &ForwardTrace<f32>) {
        let (h, nh) = (self.width, self.heads);
        let hd = h / nh;
        for p in (0..enc.input_ids.len()).filter(|&p| enc.special[p] == 0) {
            self.tokens.push((line as u32, p as u16));
            for l in 0..=self.layers {
                let row = trace.hidden[l].row(p);
                let (scale, inv) = quantize_max(row.as_slice().expect("a standard row"), &mut self.hidden);
                self.scales.push(scale);
                self.inv_lengths.push(inv);
            }
            for l in 0..self.layers {
                let row = trace.layers[l].context.row(p);
                for head in 0..nh {
                    quantize(row.iter().skip(head * hd).take(hd).copied(), &mut self.context);
                }
            }
        }
        self.lines.push((line, pieces));
    }

    /// The `k` indexed tokens closest to `query` (the vector of the space, any length) in `space`,
    /// best first; ties to the earlier line, then position.
    pub fn search(&self, query: &[f32], space: Space, k: usize) -> Vec<IndexMatch> {
        let (h, nh) = (self.width, self.heads);
        let hd = h / nh;
        let n = query.iter().map(|x| (*x as f64) * (*x as f64)).sum::<f64>().sqrt().max(1e-12);
        let q: Vec<f32> = query.iter().map(|x| (*x as f64 / n) as f32).collect();
        let l1 = self.layers + 1;
        // (stride, offset, width, int8 entries, each vector's int8 lengths: None for 127)
        let (stride, offset, len, data, lengths) = match space {
            Space::Hidden { layer } => (l1 * h, layer * h, h, &self.hidden, Some((l1, layer))),
            Space::Head { layer, head } => (self.layers * h, (layer - 1) * h + head * hd, hd, &self.context, None),
        };
        let inv = |t: usize| lengths.map_or(1.0 / 127.0, |(stride, at)| self.inv_lengths[t * stride + at]);
        assert_eq!(q.len(), len, "the query's width");
        let mut scored: Vec<(f32, usize)> = (0..self.tokens.len())
            .map(|t| {
                let v = &data[t * stride + offset..t * stride + offset + len];
                (v.iter().zip(&q).map(|(a, b)| *a as f32 * b).sum::<f32>() * inv(t), t)
            })
            .collect();
        let k = k.min(scored.len());
        if k == 0 {
            return vec![];
        }
        let order = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        scored.select_nth_unstable_by(k - 1, order);
        scored.truncate(k);
        scored.sort_by(order);
        scored
            .into_iter()
            .map(|(score, t)| {
                let (line, position) = (self.tokens[t].0 as usize, self.tokens[t].1 as usize);
                let pieces = self.line(line).map(<[String]>::to_vec).unwrap_or_default();
                IndexMatch { line, position, score, pieces }
            })
            .collect()
    }

    /// Head `head` of layer `layer` (1..=L) of `params` (the model the index was filled with):
    /// every indexed token's query and key (each (tokens, HD)), from the hidden states the layer
    /// reads, read back from int8.
    pub fn queries_and_keys(&self, params: &BertParams<f32>, layer: usize, head: usize) -> (Array2<f32>, Array2<f32>) {
        let (h, nh) = (self.width, self.heads);
        let hd = h / nh;
        assert!((1..=self.layers).contains(&layer) && head < nh, "a layer 1..=L and a head of the index");
        let lp = &params.layers[layer - 1];
        let rows = ndarray::s![head * hd..(head + 1) * hd, ..];
        let (wq, wk) = (lp.query.weight.slice(rows), lp.key.weight.slice(rows)); // (HD, H)
        let (bq, bk) =
            (lp.query.bias.slice(ndarray::s![head * hd..(head + 1) * hd]), lp.key.bias.slice(ndarray::s![head * hd..(head + 1) * hd]));
        let n = self.tokens.len();
        let (mut qs, mut ks) = (Array2::<f32>::zeros((n, hd)), Array2::<f32>::zeros((n, hd)));
        // a few hundred tokens at a time: the f32 hidden states of all of them would be 40 MB
        const CHUNK: usize = 512;
        let stride = (self.layers + 1) * h;
        for start in (0..n).step_by(CHUNK) {
            let end = (start + CHUNK).min(n);
            let x = Array2::from_shape_fn((end - start, h), |(t, j)| {
                let t = start + t;
                let scale = self.scales[t * (self.layers + 1) + layer - 1];
                self.hidden[t * stride + (layer - 1) * h + j] as f32 * scale
            });
            qs.slice_mut(ndarray::s![start..end, ..]).assign(&(x.dot(&wq.t()) + bq));
            ks.slice_mut(ndarray::s![start..end, ..]).assign(&(x.dot(&wk.t()) + bk));
        }
        (qs, ks)
    }
}
