//! One head step by step, as the page shows it (`bertscope::explain::head_detail` builds it from a
//! forward): Q, K, V, the scores, scaling, the mask, softmax, the context, the concat and W_O, each
//! cell's formula with its numbers.

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
