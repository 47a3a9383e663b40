//! The embeddings views: what layer 0 reads for each token (the token, segment and position rows of
//! the model's tables, their sum, the LayerNorm'd output), the sinusoidal position encoding with its
//! clock hands, position-to-position similarity (learned vs sinusoidal), and "attention without
//! training" (softmax over cosine similarities of the raw token embeddings).
//! Follows HF `BertEmbeddings` (`modeling_bert.py`): x = E_tok[id] + E_pos[t] + E_seg[s], LayerNorm.

use crate::bundle::Bert;
use crate::config::PositionEncoding;
use crate::cpu::position::sinusoidal_table;
use crate::cpu::softmax::softmax_row;
use crate::model::forward::ForwardTrace;
pub use bertscope_view::explain::embeddings::*;
use ndarray::{Array2, ArrayView1, ArrayView2};

/// Where the clock's hands sit, as fractions of the H/2 sin/cos pairs: fast to slow.
const HAND_FRACTIONS: [f64; 4] = [0.0, 0.125, 0.25, 0.5];

/// The first `d` columns of `x` (R, H) as a row-major (R*d) vector.
fn first_cols(x: ArrayView2<f32>, d: usize) -> Vec<f32> {
    x.rows().into_iter().flat_map(|r| r.iter().take(d).copied().collect::<Vec<_>>()).collect()
}

fn cosine(a: ArrayView1<f32>, b: ArrayView1<f32>) -> f32 {
    let (na, nb) = (a.dot(&a).sqrt(), b.dot(&b).sqrt());
    a.dot(&b) / (na * nb).max(1e-12)
}

/// (R*R) cosine similarity of every pair of rows of `x` (R, H).
pub fn row_cosines(x: ArrayView2<f32>) -> Vec<f32> {
    let r = x.nrows();
    let mut out = vec![0.0; r * r];
    for i in 0..r {
        for j in i..r {
            let c = cosine(x.row(i), x.row(j));
            out[i * r + j] = c;
            out[j * r + i] = c;
        }
    }
    out
}

/// Softmax of each row of the (n*n) matrix `scores`.
pub fn row_softmax(scores: &[f32], n: usize) -> Vec<f32> {
    let mut p = scores.to_vec();
    for row in p.chunks_mut(n.max(1)) {
        softmax_row(row);
    }
    p
}

/// The position rows (T, H) the model adds at position ids `pos`: its learned table or the
/// sinusoidal encoding (as the forward chooses them).
fn position_rows(bert: &Bert, pos: &[usize]) -> Array2<f32> {
    let h = bert.cfg.hidden_size;
    let table = match (&bert.params.emb.position, bert.cfg.position_encoding) {
        (Some(table), PositionEncoding::Learned) => table.clone(),
        _ => sinusoidal_table::<f32>(pos.iter().max().map_or(0, |m| m + 1), h),
    };
    Array2::from_shape_fn((pos.len(), h), |(r, c)| table[[pos[r], c]])
}

/// The embedding view of one forward (batch of one): the parts from the model's tables (so a GPU
/// trace, which may not read them back, shows them too), the sum and LayerNorm from the trace.
pub fn embedding_view(bert: &Bert, ids: &[u32], segments: &[u32], trace: &ForwardTrace<f32>) -> EmbeddingView {
    embedding_view_capped(bert, ids, segments, trace, MAX_DIMS)
}

fn embedding_view_capped(bert: &Bert, ids: &[u32], segments: &[u32], trace: &ForwardTrace<f32>, max_dims: usize) -> EmbeddingView {
    let h = bert.cfg.hidden_size;
    let t = ids.len();
    let d = h.min(max_dims);
    let emb = &bert.params.emb;
    let gather = |table: &Array2<f32>, ix: &[u32]| -> Array2<f32> {
        Array2::from_shape_fn((ix.len(), h), |(r, c)| table[[ix[r] as usize, c]])
        // (T, H)
    };
    let word = gather(&emb.word, ids);
    // no segment table (DistilBERT): nothing is added
    let segment = emb.token_type.as_ref().map_or_else(|| Array2::zeros((t, h)), |tt| gather(tt, segments));
    let position_ids = bert.cfg.position_ids(&ids.iter().map(|&i| i as usize).collect::<Vec<_>>());
    let position = position_rows(bert, &position_ids);
    let rows = |x: &Array2<f32>| first_cols(x.slice(ndarray::s![..t, ..]), d);
    let cos = row_cosines(word.view());
    EmbeddingView {
        t,
        hidden: h,
        dims: d,
        sinusoidal: emb.position.is_none() || bert.cfg.position_encoding == PositionEncoding::Sinusoidal,
        has_segments: emb.token_type.is_some(),
        first_position: position_ids.first().copied().unwrap_or(0),
        word: rows(&word),
        segment: rows(&segment),
        position: rows(&position),
        sum: rows(&trace.emb.sum),
        ln_out: rows(&trace.hidden[0]),
        ln_mean: trace.emb.ln_mean.iter().take(t).copied().collect(),
        ln_rstd: trace.emb.ln_rstd.iter().take(t).copied().collect(),
        gamma: emb.ln.gamma.iter().take(d).copied().collect(),
        beta: emb.ln.beta.iter().take(d).copied().collect(),
        cos_attention: row_softmax(&cos, t),
        cosine: cos,
    }
}

/// w_i = 1 / 10000^(2i / H): the angle pair i turns by from one position to the next (radians), as
/// `sinusoidal_table` computes it.
fn pair_freq(i: usize, h: usize) -> f64 {
    1.0 / 10000f64.powf(2.0 * i as f64 / h as f64)
}

/// The position views of `bert`: the sinusoidal matrix, its clock hands, and the similarity of
/// positions under the sinusoidal encoding and under the model's learned table.
pub fn position_view(bert: &Bert) -> PositionView {
    position_view_capped(bert, MAX_DIMS)
}

fn position_view_capped(bert: &Bert, max_dims: usize) -> PositionView {
    let h = bert.cfg.hidden_size;
    let max_len = bert.cfg.max_position_embeddings;
    let p = max_len.min(MAX_POSITIONS);
    let d = h.min(max_dims);
    let pe = sinusoidal_table::<f32>(p, h); // (P, H)
    let learned = match (&bert.params.emb.position, bert.cfg.position_encoding) {
        (Some(table), PositionEncoding::Learned) => Some(row_cosines(table.slice(ndarray::s![..p, ..]))),
        _ => None,
    };
    let cp = max_len.min(MAX_CLOCK_POSITIONS);
    let clock = sinusoidal_table::<f32>(cp, h); // (CP, H)
    let mut pairs: Vec<usize> =
        HAND_FRACTIONS.iter().map(|f| ((f * (h / 2) as f64).round() as usize).min((h / 2).saturating_sub(1))).collect();
    pairs.dedup();
    let hands = pairs
        .into_iter()
        .filter(|&i| 2 * i + 1 < h)
        .map(|i| {
            let freq = pair_freq(i, h);
            ClockHand {
                pair: i,
                freq,
                period: std::f64::consts::TAU / freq,
                angle: (0..cp).map(|pos| (pos as f64 * freq) as f32).collect(),
                sin: clock.column(2 * i).to_vec(),
                cos: clock.column(2 * i + 1).to_vec(),
            }
        })
        .collect();
    PositionView {
        hidden: h,
        max_len,
        positions: p,
        dims: d,
        sinusoidal: bert.cfg.position_encoding == PositionEncoding::Sinusoidal,
        pe: first_cols(pe.view(), d),
        pair_freq: (0..d.div_ceil(2)).map(|i| pair_freq(i, h)).collect(),
        pe_similarity: row_cosines(pe.view()),
        learned_similarity: learned,
        clock_positions: cp,
        hands,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BertConfig, Heads};
    use crate::explain::snapshot::{prepare, Request};
    use crate::model::forward::forward;
    use crate::tokenize::BertTokenizer;

    const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n##s\non\nmat\n.\nplay\n##ing\ndog\n";

    fn model(pe: PositionEncoding) -> Bert {
        let tok = BertTokenizer::from_vocab_txt(VOCAB, true, 16).unwrap();
        let mut cfg = BertConfig::new(0, 12, 2, 3, 20, 16);
        cfg.position_encoding = pe;
        let mut bert = Bert::from_scratch(cfg, tok, Heads::MASKED_LM, 7).unwrap();
        // non-trivial LayerNorm parameters, so the formula test exercises them
        for (j, g) in bert.params.emb.ln.gamma.iter_mut().enumerate() {
            *g = 0.5 + 0.1 * j as f32;
        }
        for (j, b) in bert.params.emb.ln.beta.iter_mut().enumerate() {
            *b = 0.01 * j as f32 - 0.05;
        }
        bert
    }

    fn view(bert: &Bert, max_dims: usize) -> (EmbeddingView, ForwardTrace<f32>) {
        let req = Request { text: "the cat sat on the mat".into(), pair: Some("the dog".into()), top_k: 3, ..Default::default() };
        let prep = prepare(bert, &req).unwrap();
        let trace = forward(&bert.params, &bert.cfg, &prep.batch, &prep.opts).unwrap();
        let ids: Vec<u32> = prep.batch.input_ids.iter().map(|&i| i as u32).collect();
        let segs: Vec<u32> = prep.batch.token_type_ids.iter().map(|&i| i as u32).collect();
        (embedding_view_capped(bert, &ids, &segs, &trace, max_dims), trace)
    }

    #[test]
    fn parts_add_up_to_the_forward_sum_and_layernorm_gives_hidden_0() {
        for pe in [PositionEncoding::Learned, PositionEncoding::Sinusoidal] {
            let bert = model(pe);
            let (v, trace) = view(&bert, MAX_DIMS);
            assert_eq!((v.t, v.hidden, v.dims), (trace.t, 12, 12));
            assert_eq!(v.sinusoidal, pe == PositionEncoding::Sinusoidal);
            for i in 0..v.t * v.dims {
                let parts = v.word[i] + v.segment[i] + v.position[i];
                assert!((parts - v.sum[i]).abs() < 1e-6, "{pe:?} cell {i}: {parts} vs {}", v.sum[i]);
            }
            // the formula shown: y = (x - mean) * rstd * gamma + beta
            for t in 0..v.t {
                for d in 0..v.dims {
                    let i = t * v.dims + d;
                    let y = (v.sum[i] - v.ln_mean[t]) * v.ln_rstd[t] * v.gamma[d] + v.beta[d];
                    assert!((y - v.ln_out[i]).abs() < 1e-5, "LN at ({t},{d}): {y} vs {}", v.ln_out[i]);
                    assert_eq!(v.ln_out[i], trace.hidden[0][[t, d]]);
                }
            }
            // [CLS] the cat sat on the mat [SEP] the dog [SEP]: "the" at 1 (sentence A) and 8 (B)
            assert_eq!(v.word[v.dims..2 * v.dims], v.word[8 * v.dims..9 * v.dims]);
            assert_ne!(v.segment[v.dims..2 * v.dims], v.segment[8 * v.dims..9 * v.dims]);
        }
    }

    #[test]
    fn wide_models_show_only_the_first_dims() {
        let bert = model(PositionEncoding::Learned);
        let (v, trace) = view(&bert, 5);
        assert_eq!((v.dims, v.hidden), (5, 12));
        for x in [&v.word, &v.segment, &v.position, &v.sum, &v.ln_out] {
            assert_eq!(x.len(), v.t * 5);
        }
        assert_eq!(v.gamma.len(), 5);
        assert_eq!(v.sum[2 * 5 + 4], trace.emb.sum[[2, 4]]);
        let p = position_view_capped(&bert, 5);
        assert_eq!((p.dims, p.pe.len()), (5, p.positions * 5));
    }

    #[test]
    fn cosine_attention_rows_are_distributions_peaked_on_the_same_token() {
        let bert = model(PositionEncoding::Learned);
        let (v, _) = view(&bert, MAX_DIMS);
        let t = v.t;
        assert_eq!((v.cosine.len(), v.cos_attention.len()), (t * t, t * t));
        for i in 0..t {
            let row = &v.cos_attention[i * t..(i + 1) * t];
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!((v.cosine[i * t + i] - 1.0).abs() < 1e-5, "a token's cosine with itself is 1");
            let max = row.iter().copied().fold(f32::MIN, f32::max);
            assert_eq!(row[i], max, "row {i} peaks on itself");
            // the formula: exp(c_ij) / sum_k exp(c_ik)
            let z: f32 = v.cosine[i * t..(i + 1) * t].iter().map(|c| c.exp()).sum();
            assert!((row[0] - v.cosine[i * t].exp() / z).abs() < 1e-6);
        }
        // "the" at 1 and 5: the same token embedding (no position here), so cosine 1
        assert!((v.cosine[t + 5] - 1.0).abs() < 1e-5);
        assert_eq!(v.cos_attention[t + 5], v.cos_attention[t + 1]);
    }

    #[test]
    fn sinusoidal_matrix_and_clock_follow_the_formula() {
        let bert = model(PositionEncoding::Learned);
        let p = position_view(&bert);
        let h = 12.0f64;
        assert_eq!((p.positions, p.dims, p.hidden, p.clock_positions), (16, 12, 12, 16));
        for pos in 0..p.positions {
            for j in 0..p.dims {
                let a = pos as f64 / 10000f64.powf((2 * (j / 2)) as f64 / h);
                let want = if j % 2 == 0 { a.sin() } else { a.cos() };
                assert!((p.pe[pos * p.dims + j] as f64 - want).abs() < 1e-6, "PE[{pos},{j}]");
            }
        }
        // pairs at 0, 1/8, 1/4, 1/2 of the 6 pairs: 0, 1 (0.75 rounded), 2 (1.5 rounded), 3
        assert_eq!(p.hands.iter().map(|c| c.pair).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!(p.pair_freq.len(), 6);
        for (i, w) in p.pair_freq.iter().enumerate() {
            // PE[1, 2i] = sin(w_i)
            assert!(((*w).sin() - p.pe[p.dims + 2 * i] as f64).abs() < 1e-6, "pair {i}");
        }
        for c in &p.hands {
            assert!((c.freq - 1.0 / 10000f64.powf(2.0 * c.pair as f64 / h)).abs() < 1e-12);
            assert!((c.period * c.freq - std::f64::consts::TAU).abs() < 1e-9);
            for pos in 0..p.clock_positions {
                assert!((c.angle[pos] as f64 - pos as f64 * c.freq).abs() < 1e-5);
                assert!((c.sin[pos] - p.pe[pos * p.dims + 2 * c.pair]).abs() < 1e-6);
                assert!((c.cos[pos] - p.pe[pos * p.dims + 2 * c.pair + 1]).abs() < 1e-6);
            }
        }
        assert!(p.hands.windows(2).all(|w| w[1].freq < w[0].freq), "fast hands first");
    }

    #[test]
    fn position_similarity_learned_and_sinusoidal() {
        let learned = position_view(&model(PositionEncoding::Learned));
        let n = learned.positions;
        let sim = learned.learned_similarity.as_ref().expect("a learned table");
        for m in [&learned.pe_similarity, sim] {
            assert_eq!(m.len(), n * n);
            for i in 0..n {
                assert!((m[i * n + i] - 1.0).abs() < 1e-5);
                assert!(m[i * n..(i + 1) * n].iter().all(|c| (-1.0001..=1.0001).contains(c)));
                assert_eq!(m[i * n + (n - 1 - i)], m[(n - 1 - i) * n + i], "symmetric");
            }
        }
        // the sinusoidal encoding: neighbours are more alike than far positions
        assert!(learned.pe_similarity[1] > learned.pe_similarity[n - 1]);
        assert!(!learned.sinusoidal);
        let sin = position_view(&model(PositionEncoding::Sinusoidal));
        assert!(sin.sinusoidal && sin.learned_similarity.is_none());
        assert_eq!(sin.pe, learned.pe, "the same function, whatever the model uses");
    }
}
