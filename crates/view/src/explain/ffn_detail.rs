//! The second half of a layer for one token, as the page shows it (`bertscope::explain::ffn_detail`
//! builds it from a forward): attn_res = x + attn_dense, LayerNorm, FFN pre-activation -> GELU ->
//! FFN out, + residual, LayerNorm; each step's formula with its numbers; and every token's path
//! through the layers.

use super::head_detail::Formula;
use super::layer_summary::LayerSummary;
use serde::{Deserialize, Serialize};

/// Points of the activation curve drawn under the token's values.
pub const CURVE_POINTS: usize = 65;

/// One LayerNorm of one token's vector: y = gamma (x - mean) / sqrt(var + eps) + beta.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LnDetail {
    pub input: Vec<f32>, // (H)
    pub mean: f32,
    /// Biased variance of the input (as torch).
    pub var: f32,
    pub eps: f32,
    /// 1 / sqrt(var + eps), as the forward kept it.
    pub rstd: f32,
    pub gamma: Vec<f32>, // (H)
    pub beta: Vec<f32>,  // (H)
    pub out: Vec<f32>,   // (H)
}

/// The FFN half of layer `layer` for token `token` (H = hidden, I = intermediate).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FfnDetail {
    pub layer: usize,
    pub token: usize,
    /// The activation's name in the config ("gelu", ...).
    pub activation: String,
    pub x: Vec<f32>,          // (H) the layer's input
    pub attn_dense: Vec<f32>, // (H) the attention block's output
    pub ln1: LnDetail,        // of attn_res = x + attn_dense
    pub ffn_pre: Vec<f32>,    // (I) LN1 W_1^T + b_1
    pub b1: Vec<f32>,         // (I)
    pub ffn_act: Vec<f32>,    // (I) GELU(ffn_pre)
    pub ffn_out: Vec<f32>,    // (H) act W_2^T + b_2
    pub b2: Vec<f32>,         // (H)
    pub ln2: LnDetail,        // of out_res = LN1 + ffn_out; its output is the layer's output
    /// (CURVE_POINTS) (x, act(x)) over the range of ffn_pre.
    pub curve: Vec<(f32, f32)>,
}

fn n(x: f32) -> String {
    format!("{x:.4}")
}

impl LnDetail {
    /// y[c] with its numbers.
    pub fn formula(&self, name: &str, c: usize) -> Option<Formula> {
        let (x, g, b, y) = (*self.input.get(c)?, self.gamma[c], self.beta[c], self.out[c]);
        let text = format!(
            "{name}[{c}] = γ[{c}]·(x[{c}] − μ)/√(σ² + ε) + β[{c}] = {}·({} − {})/√({} + {:e}) + {} = {}·{}·{} + {} = {}",
            n(g),
            n(x),
            n(self.mean),
            n(self.var),
            self.eps,
            n(b),
            n(g),
            n(x - self.mean),
            n(self.rstd),
            n(b),
            n(y)
        );
        Some(Formula { text, value: y })
    }

    /// "μ = ..., σ² = ..." of the whole vector.
    pub fn stats(&self) -> String {
        format!("μ = mean of the {} numbers = {}, σ² = {}, 1/√(σ² + ε) = {}", self.input.len(), n(self.mean), n(self.var), n(self.rstd))
    }
}

impl FfnDetail {
    pub fn hidden(&self) -> usize {
        self.x.len()
    }

    pub fn intermediate(&self) -> usize {
        self.ffn_pre.len()
    }

    /// The formulas of hidden dimension `c`, in the order of the layer: residual, LN1, FFN out,
    /// residual, LN2 (stage key, formula).
    pub fn hidden_formulas(&self, c: usize) -> Vec<(&'static str, Formula)> {
        if c >= self.hidden() {
            return vec![];
        }
        let res1 = Formula {
            text: format!(
                "attn_res[{c}] = x[{c}] + attn_out[{c}] = {} + {} = {}",
                n(self.x[c]),
                n(self.attn_dense[c]),
                n(self.ln1.input[c])
            ),
            value: self.ln1.input[c],
        };
        let out = Formula {
            text: format!(
                "ffn_out[{c}] = GELU(pre) · W_2[{c},:] + b_2[{c}] = {} + {} = {}",
                n(self.ffn_out[c] - self.b2[c]),
                n(self.b2[c]),
                n(self.ffn_out[c])
            ),
            value: self.ffn_out[c],
        };
        let res2 = Formula {
            text: format!(
                "out_res[{c}] = LN1[{c}] + ffn_out[{c}] = {} + {} = {}",
                n(self.ln1.out[c]),
                n(self.ffn_out[c]),
                n(self.ln2.input[c])
            ),
            value: self.ln2.input[c],
        };
        let mut v = vec![("res1", res1)];
        v.extend(self.ln1.formula("LN1", c).map(|f| ("ln1", f)));
        v.push(("ffn_out", out));
        v.push(("res2", res2));
        v.extend(self.ln2.formula("LN2", c).map(|f| ("ln2", f)));
        v
    }

    /// The formulas of intermediate unit `m`: pre-activation and activation.
    pub fn unit_formulas(&self, m: usize) -> Vec<(&'static str, Formula)> {
        let (Some(&pre), Some(&act)) = (self.ffn_pre.get(m), self.ffn_act.get(m)) else { return vec![] };
        vec![
            (
                "pre",
                Formula {
                    text: format!("pre[{m}] = LN1 · W_1[{m},:] + b_1[{m}] = {} + {} = {}", n(pre - self.b1[m]), n(self.b1[m]), n(pre)),
                    value: pre,
                },
            ),
            ("act", Formula { text: format!("{}(pre[{m}]) = {}({}) = {}", self.activation, self.activation, n(pre), n(act)), value: act }),
        ]
    }

    /// The share of the FFN's units the activation (nearly) switches off: |act| < 0.01·max|act|.
    pub fn quiet_share(&self) -> f32 {
        let max = self.ffn_act.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let quiet = self.ffn_act.iter().filter(|v| v.abs() < 0.01 * max).count();
        quiet as f32 / self.ffn_act.len().max(1) as f32
    }
}

/// Each token's path through the layers: norm and cosine with its previous vector, per layer
/// (entry 0 = the embeddings).
#[derive(Clone, Debug, PartialEq)]
pub struct Trajectory {
    /// [token] -> (L+1) norms.
    pub norm: Vec<Vec<f32>>,
    /// [token] -> (L+1) cosines (1 at the embeddings).
    pub cos: Vec<Vec<f32>>,
    pub norm_max: f32,
    pub cos_min: f32,
}

pub fn trajectory(hidden: &[LayerSummary]) -> Trajectory {
    let t = hidden.first().map_or(0, |h| h.norm.len());
    let norm: Vec<Vec<f32>> = (0..t).map(|i| hidden.iter().map(|h| h.norm[i]).collect()).collect();
    let cos: Vec<Vec<f32>> = (0..t).map(|i| hidden.iter().map(|h| h.cos_prev[i]).collect()).collect();
    let norm_max = norm.iter().flatten().fold(0.0f32, |m, &v| m.max(v));
    let cos_min = cos.iter().flatten().fold(1.0f32, |m, &v| m.min(v));
    Trajectory { norm, cos, norm_max, cos_min }
}
