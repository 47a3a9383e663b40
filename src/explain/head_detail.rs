//! One attention head, step by step, as the page shows it: Q, K, V of the head, the raw scores
//! Q K^T, scaled by 1/sqrt(d_k), the padding mask added, softmax, times V = context, then the
//! concatenation of all heads and W_O (HF `BertSelfAttention` + `BertSelfOutput.dense`).
//! Only the chosen (layer, head) is kept, so a bert-base snapshot does not carry 144 heads of Q/K/V;
//! the concat / output matrices are cut to a window of columns around the head's block.
//! The formulas with live numbers for a selected cell are built here too (`formula`), so the page
//! only prints them.

use crate::bundle::Bert;
use crate::model::forward::ForwardTrace;
use ndarray::s;
use serde::{Deserialize, Serialize};

/// The most columns of the concat / output matrices sent (bert-base has H = 768).
pub const MAX_COLS: usize = 128;

/// A small row-major matrix; `col0` is the first column of the full matrix it shows (a window).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Mat {
    pub rows: usize,
    pub cols: usize,
    pub col0: usize,
    pub data: Vec<f32>, // (rows * cols)
}

impl Mat {
    pub fn at(&self, r: usize, c: usize) -> f32 {
        self.data[r * self.cols + c]
    }

    /// (min, max) over the finite entries; (0, 0) when none.
    pub fn range(&self) -> (f32, f32) {
        let mut it = self.data.iter().copied().filter(|v| v.is_finite());
        let Some(first) = it.next() else { return (0.0, 0.0) };
        it.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v)))
    }
}

fn mat(a: ndarray::ArrayView2<f32>, col0: usize) -> Mat {
    Mat { rows: a.nrows(), cols: a.ncols(), col0, data: a.iter().copied().collect() }
}

/// The steps, in the order the page shows them (`data-step` values).
pub const STEPS: [&str; 10] = ["q", "k", "v", "scores", "scaled", "masked", "softmax", "context", "concat", "output"];

/// One head of one layer, every step (T tokens, HD = d_k).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HeadDetail {
    pub layer: usize,
    pub head: usize,
    pub heads: usize,
    /// d_k (the head's width).
    pub hd: usize,
    pub hidden: usize,
    /// The head is switched off: its context (and share of the output) is multiplied by 0.
    pub off: bool,
    pub q: Mat, // (T, HD) X W_Q^T + b_Q, the head's columns
    pub k: Mat, // (T, HD)
    pub v: Mat, // (T, HD)
    /// (HD) each: the biases of the head's columns.
    pub q_bias: Vec<f32>,
    pub k_bias: Vec<f32>,
    pub v_bias: Vec<f32>,
    pub scores: Mat, // (T, T) Q K^T
    pub scaled: Mat, // (T, T) Q K^T / sqrt(HD)
    /// (T) true where the key is padding (the mask adds -inf there; the masked matrix holds the
    /// scaled score and the page prints -inf for these columns, so the numbers stay finite for JSON).
    pub padding: Vec<bool>,
    pub masked: Mat, // (T, T)
    /// (T) per query row: the max of the masked scores and sum_j exp(s_ij - max).
    pub row_max: Vec<f32>,
    pub row_sum_exp: Vec<f32>,
    pub probs: Mat,         // (T, T) softmax (before the head mask), as the snapshot's attention
    pub context: Mat,       // (T, HD) the head's columns of the context (head mask applied)
    pub concat: Mat,        // (T, <= MAX_COLS) all heads' context, a window of columns around this head
    pub output: Mat,        // (T, same window) attn_dense = concat W_O^T + b_O
    pub out_bias: Vec<f32>, // (window) b_O
    /// (T, window) this head's share of the output: context_h W_O[:, head block]^T.
    pub head_share: Mat,
}

/// The window of `cols` columns (at most MAX_COLS) that holds the head's block [b0, b1).
fn window(h: usize, b0: usize, b1: usize) -> (usize, usize) {
    if h <= MAX_COLS {
        return (0, h);
    }
    let mid = (b0 + b1) / 2;
    let c0 = mid.saturating_sub(MAX_COLS / 2).min(h - MAX_COLS);
    (c0, c0 + MAX_COLS)
}

/// The detail of head `head` of layer `layer` (clamped to the model) from a forward trace of one
/// sequence (B = 1). The GPU forward reads back every intermediate used here (q/k/v, scores,
/// probs, context, attn_dense), so this works on either backend's trace.
pub fn head_detail(bert: &Bert, trace: &ForwardTrace<f32>, layer: usize, head: usize) -> HeadDetail {
    let (l, nh, h) = (bert.cfg.num_hidden_layers, bert.cfg.num_attention_heads, bert.cfg.hidden_size);
    let (layer, head) = (layer.min(l.saturating_sub(1)), head.min(nh.saturating_sub(1)));
    let hd = h / nh;
    let t = trace.t;
    let (b0, b1) = (head * hd, (head + 1) * hd);
    let lt = &trace.layers[layer];
    let lp = &bert.params.layers[layer];
    let rows = 0..t; // batch 0
    let q = lt.q.slice(s![rows.clone(), b0..b1]); // (T, HD)
    let k = lt.k.slice(s![rows.clone(), b0..b1]);
    let v = lt.v.slice(s![rows.clone(), b0..b1]);
    let scores = q.dot(&k.t()); // (T, T)
    let scaled = lt.attn.scores.slice(s![0, head, .., ..]); // (T, T) scores / sqrt(HD)
    let probs = lt.attn.probs.slice(s![0, head, .., ..]);
    let padding: Vec<bool> = (0..t).map(|j| trace.mask[[0, j]] == 0.0).collect();
    let (mut row_max, mut row_sum_exp) = (Vec::with_capacity(t), Vec::with_capacity(t));
    for r in scaled.rows() {
        let live = r.iter().zip(&padding).filter(|(_, &p)| !p).map(|(&x, _)| x);
        let m = live.clone().fold(f32::NEG_INFINITY, f32::max);
        row_max.push(m);
        row_sum_exp.push(live.map(|x| (x - m).exp()).sum());
    }
    let (c0, c1) = window(h, b0, b1);
    let wo = lp.attn_out.weight.slice(s![c0..c1, b0..b1]); // (window, HD)
    let share = lt.context.slice(s![rows.clone(), b0..b1]).dot(&wo.t()); // (T, window)
    let off = trace.head_mask.as_ref().is_some_and(|m| m[[layer, head]] == 0.0);
    HeadDetail {
        layer,
        head,
        heads: nh,
        hd,
        hidden: h,
        off,
        q: mat(q, b0),
        k: mat(k, b0),
        v: mat(v, b0),
        q_bias: lp.query.bias.slice(s![b0..b1]).to_vec(),
        k_bias: lp.key.bias.slice(s![b0..b1]).to_vec(),
        v_bias: lp.value.bias.slice(s![b0..b1]).to_vec(),
        scores: mat(scores.view(), 0),
        scaled: mat(scaled, 0),
        padding,
        masked: mat(scaled, 0),
        row_max,
        row_sum_exp,
        probs: mat(probs, 0),
        context: mat(lt.context.slice(s![rows.clone(), b0..b1]), b0),
        concat: mat(lt.context.slice(s![rows.clone(), c0..c1]), c0),
        output: mat(lt.attn_dense.slice(s![rows, c0..c1]), c0),
        out_bias: lp.attn_out.bias.slice(s![c0..c1]).to_vec(),
        head_share: mat(share.view(), c0),
    }
}

/// A formula with the live numbers of one cell, and the value it ends in.
#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    pub text: String,
    pub value: f32,
}

fn n(x: f32) -> String {
    if x == f32::NEG_INFINITY {
        "−∞".into()
    } else {
        format!("{x:.4}")
    }
}

/// The first `k` terms of a sum a_0 b_0 + a_1 b_1 + ..., as text.
fn terms(a: impl Iterator<Item = f32>, b: impl Iterator<Item = f32>, len: usize, k: usize) -> String {
    let shown: Vec<String> = a.zip(b).take(k).map(|(x, y)| format!("{}·{}", n(x), n(y))).collect();
    let more = if len > k { format!(" + … ({len} terms)") } else { String::new() };
    format!("{}{more}", shown.join(" + "))
}

impl HeadDetail {
    pub fn t(&self) -> usize {
        self.probs.rows
    }

    /// The matrix of a step (`STEPS`).
    pub fn step(&self, step: &str) -> Option<&Mat> {
        Some(match step {
            "q" => &self.q,
            "k" => &self.k,
            "v" => &self.v,
            "scores" => &self.scores,
            "scaled" => &self.scaled,
            "masked" => &self.masked,
            "softmax" => &self.probs,
            "context" => &self.context,
            "concat" => &self.concat,
            "output" => &self.output,
            _ => return None,
        })
    }

    /// The value a step's cell shows (-inf for a masked padding column).
    pub fn value(&self, step: &str, i: usize, j: usize) -> Option<f32> {
        let m = self.step(step)?;
        if i >= m.rows || j >= m.cols {
            return None;
        }
        Some(if step == "masked" && self.padding[j] { f32::NEG_INFINITY } else { m.at(i, j) })
    }

    /// The formula of cell (i, j) of `step`, with its numbers.
    pub fn formula(&self, step: &str, i: usize, j: usize) -> Option<Formula> {
        let value = self.value(step, i, j)?;
        let hd = self.hd;
        let sq = (hd as f32).sqrt();
        let text = match step {
            "q" | "k" | "v" => {
                let (name, bias) = match step {
                    "q" => ("Q", &self.q_bias),
                    "k" => ("K", &self.k_bias),
                    _ => ("V", &self.v_bias),
                };
                let d = self.q.col0 + j;
                format!(
                    "{name}[{i},{j}] = x_{i} · W_{name}[{d},:] + b_{name}[{d}] = {} + {} = {}",
                    n(value - bias[j]),
                    n(bias[j]),
                    n(value)
                )
            }
            "scores" => format!(
                "score[{i},{j}] = Σ_d Q[{i},d]·K[{j},d] = {} = {}",
                terms(self.q.data[i * hd..].iter().copied(), self.k.data[j * hd..].iter().copied(), hd, 3),
                n(value)
            ),
            "scaled" => format!("scaled[{i},{j}] = score / √{hd} = {} / {} = {}", n(self.scores.at(i, j)), n(sq), n(value)),
            "masked" => format!(
                "masked[{i},{j}] = scaled + mask[{j}] = {} + {} = {}",
                n(self.scaled.at(i, j)),
                if self.padding[j] { "−∞ (padding)" } else { "0" },
                n(value)
            ),
            "softmax" => {
                let e = if self.padding[j] { 0.0 } else { (self.masked.at(i, j) - self.row_max[i]).exp() };
                format!(
                    "P[{i},{j}] = exp(s[{i},{j}] − max_{i}) / Σ_k exp(s[{i},k] − max_{i}) = exp({} − {}) / {} = {} / {} = {}",
                    n(self.value("masked", i, j).unwrap_or(value)),
                    n(self.row_max[i]),
                    n(self.row_sum_exp[i]),
                    n(e),
                    n(self.row_sum_exp[i]),
                    n(value)
                )
            }
            "context" => {
                let t = self.t();
                let v_col = (0..t).map(|r| self.v.at(r, j));
                let note = if self.off { " (head switched off: × 0)" } else { "" };
                format!(
                    "context[{i},{j}] = Σ_j P[{i},j]·V[j,{j}] = {} = {}{note}",
                    terms(self.probs.data[i * t..(i + 1) * t].iter().copied(), v_col, t, 3),
                    n(value)
                )
            }
            "concat" => {
                let c = self.concat.col0 + j;
                format!("concat[{i},{c}] = head {}'s context[{i},{}] = {}", c / hd, c % hd, n(value))
            }
            "output" => {
                let c = self.output.col0 + j;
                let share = self.head_share.at(i, j);
                let bias = self.out_bias[j];
                format!(
                    "out[{i},{c}] = concat[{i},:] · W_O[{c},:] + b_O[{c}] = {} (head {}) + {} (other heads) + {} = {}",
                    n(share),
                    self.head,
                    n(value - share - bias),
                    n(bias),
                    n(value)
                )
            }
            _ => return None,
        };
        Some(Formula { text, value })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BertConfig, Heads};
    use crate::explain::snapshot::{build_with_trace, Request};
    use crate::tokenize::BertTokenizer;

    const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n##s\non\nmat\n.\n";

    fn model(h: usize, nh: usize) -> Bert {
        let tok = BertTokenizer::from_vocab_txt(VOCAB, true, 16).unwrap();
        let cfg = BertConfig::new(0, h, 2, nh, 2 * h, 16);
        Bert::from_scratch(cfg, tok, Heads::MASKED_LM, 5).unwrap()
    }

    fn req(l: usize, h: usize) -> Request {
        Request { text: "the cat sat on the mat.".into(), top_k: 3, head_focus: (l, h), head_steps: true, ..Default::default() }
    }

    #[test]
    fn softmax_rows_equal_the_snapshots_attention_and_context_is_probs_times_v() {
        let bert = model(12, 3);
        let (s, _) = build_with_trace(&bert, &req(1, 2)).unwrap();
        let d = s.head_detail.as_ref().expect("a detail");
        assert_eq!((d.layer, d.head, d.hd, d.t()), (1, 2, 4, s.len()));
        assert_eq!(d.probs.data, s.head(1, 2), "the detail shows the grid's numbers");
        let t = d.t();
        for i in 0..t {
            for c in 0..d.hd {
                let pv: f32 = (0..t).map(|j| d.probs.at(i, j) * d.v.at(j, c)).sum();
                assert!((pv - d.context.at(i, c)).abs() < 1e-5, "context = P V");
            }
            for j in 0..t {
                assert!((d.scores.at(i, j) / 2.0 - d.scaled.at(i, j)).abs() < 1e-5, "scaled = scores / sqrt(4)");
                let p = (d.masked.at(i, j) - d.row_max[i]).exp() / d.row_sum_exp[i];
                assert!((p - d.probs.at(i, j)).abs() < 1e-6, "softmax from the row max and sum");
            }
        }
        // the concat holds the head's context in its block, and the output splits into shares
        assert_eq!(d.concat.at(3, 2 * 4 + 1), d.context.at(3, 1));
        assert_eq!((d.concat.cols, d.output.cols, d.concat.col0), (12, 12, 0));
    }

    #[test]
    fn formulas_end_in_the_cells_value_and_name_the_numbers() {
        let bert = model(12, 3);
        let (s, _) = build_with_trace(&bert, &req(0, 1)).unwrap();
        let d = s.head_detail.unwrap();
        for step in STEPS {
            let f = d.formula(step, 2, 1).unwrap_or_else(|| panic!("{step}"));
            assert_eq!(f.value, d.value(step, 2, 1).unwrap());
            assert!(f.text.ends_with(&format!("{:.4}", f.value)), "{step}: {}", f.text);
        }
        let f = d.formula("scaled", 2, 1).unwrap();
        assert!(f.text.contains("√4") && f.text.contains(&format!("{:.4}", d.scores.at(2, 1))), "{}", f.text);
        assert!(d.formula("softmax", 99, 0).is_none() && d.formula("nope", 0, 0).is_none());
    }

    #[test]
    fn big_models_send_a_window_around_the_head_and_a_switched_off_head_has_zero_context() {
        let bert = model(160, 5); // H > MAX_COLS, HD = 32
        let r = Request { heads_off: vec![(0, 4)], ..req(0, 4) };
        let (s, trace) = build_with_trace(&bert, &r).unwrap();
        let d = s.head_detail.unwrap();
        assert!(d.off);
        assert_eq!((d.concat.cols, d.concat.col0), (MAX_COLS, 160 - MAX_COLS), "the last head's block is in the window");
        assert!(d.context.data.iter().all(|&c| c == 0.0));
        assert!(d.head_share.data.iter().all(|&c| c == 0.0));
        let c = d.output.col0 + 5;
        assert_eq!(d.output.at(1, 5), trace.layers[0].attn_dense[[1, c]]);
        // out of range focus is clamped to the model
        let (s, _) = build_with_trace(&bert, &req(7, 9)).unwrap();
        assert_eq!(s.head_detail.map(|d| (d.layer, d.head)), Some((1, 4)));
    }

    #[test]
    fn output_is_the_sum_of_head_shares_and_bias() {
        let bert = model(12, 3);
        let (_, trace) = build_with_trace(&bert, &req(0, 0)).unwrap();
        let ds: Vec<HeadDetail> = (0..3).map(|h| head_detail(&bert, &trace, 0, h)).collect();
        for i in 0..ds[0].t() {
            for c in 0..12 {
                let sum: f32 = ds.iter().map(|d| d.head_share.at(i, c)).sum::<f32>() + ds[0].out_bias[c];
                assert!((sum - ds[0].output.at(i, c)).abs() < 1e-5);
            }
        }
    }
}
