//! The page's index for corpus search, filled by the head survey's scan (one pass over the
//! sentences for both): for every non-special token, its hidden state after each layer (0: the
//! embeddings' output) and each head's part of each layer's attention output, each scaled to unit
//! length and stored as int8 (x 127). Why int8: every layer and head of 1,000 sentences in f32
//! would be about 550 MB for MiniLM-L6, in f16 275 MB; int8 is 137 MB, and a cosine read back from
//! it is within about 0.01 of the exact one (the CLI's `bertscope search` computes exact scores).

use crate::app::corpus_views::Space;
pub use crate::explain::corpus_search::IndexMatch;
use crate::model::forward::ForwardTrace;
use crate::tokenize::Encoded;

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
    /// tokens x L x H, each head's HD values unit-scaled on their own.
    context: Vec<i8>,
}

fn quantize(v: impl Iterator<Item = f32> + Clone, out: &mut Vec<i8>) {
    let n = v.clone().map(|x| (x as f64) * (x as f64)).sum::<f64>().sqrt().max(1e-12);
    out.extend(v.map(|x| ((x as f64 / n) * 127.0).round().clamp(-127.0, 127.0) as i8));
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

    /// Bytes held by the vectors.
    pub fn bytes(&self) -> usize {
        self.hidden.len() + self.context.len()
    }

    /// Adds line `line` (its encoding, readable pieces and forward trace).
    pub fn add(&mut self, line: usize, enc: &Encoded, pieces: Vec<String>, trace: &ForwardTrace<f32>) {
        let (h, nh) = (self.width, self.heads);
        let hd = h / nh;
        for p in (0..enc.input_ids.len()).filter(|&p| enc.special[p] == 0) {
            self.tokens.push((line as u32, p as u16));
            for l in 0..=self.layers {
                quantize(trace.hidden[l].row(p).iter().copied(), &mut self.hidden);
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
        let q: Vec<f32> = query.iter().map(|x| (*x as f64 / n / 127.0) as f32).collect();
        let (stride, offset, len, data) = match space {
            Space::Hidden { layer } => ((self.layers + 1) * h, layer * h, h, &self.hidden),
            Space::Head { layer, head } => (self.layers * h, (layer - 1) * h + head * hd, hd, &self.context),
        };
        assert_eq!(q.len(), len, "the query's width");
        let mut scored: Vec<(f32, usize)> = (0..self.tokens.len())
            .map(|t| {
                let v = &data[t * stride + offset..t * stride + offset + len];
                (v.iter().zip(&q).map(|(a, b)| *a as f32 * b).sum::<f32>(), t)
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
                let pieces = self.lines.binary_search_by_key(&line, |(l, _)| *l).map(|i| self.lines[i].1.clone()).unwrap_or_default();
                IndexMatch { line, position, score, pieces }
            })
            .collect()
    }
}
