//! The second half of a layer for one token, as the page shows it (HF `BertSelfOutput` LayerNorm,
//! `BertIntermediate`, `BertOutput`): attn_res = x + attn_dense, LayerNorm (mean, variance, gamma,
//! beta), FFN pre-activation -> GELU -> FFN out, + residual, LayerNorm. Only the chosen (layer,
//! token) is kept: a few vectors of H and two of I. Also each token's path across the layers
//! (norm and cosine with the previous layer) from the snapshot's `hidden` summaries.

use crate::bundle::Bert;
use crate::cpu::activation::activation_forward;
use crate::model::forward::ForwardTrace;
use crate::model::params::LayerNorm;
pub use bertscope_view::explain::ffn_detail::*;
use ndarray::{Array1, Array2};

fn ln_detail(input: Vec<f32>, mean: f32, rstd: f32, eps: f64, gamma: &[f32], beta: &[f32], out: Vec<f32>) -> LnDetail {
    let h = input.len().max(1) as f32;
    let var = input.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h;
    LnDetail { input, mean, var, eps: eps as f32, rstd, gamma: gamma.to_vec(), beta: beta.to_vec(), out }
}

/// The detail of token `token` in layer `layer` (both clamped) from a trace of one sequence. The
/// GPU forward reads back attn_res, the LN statistics, ffn_pre/act/out and out_res too, so either
/// backend's trace serves.
pub fn ffn_detail(bert: &Bert, trace: &ForwardTrace<f32>, layer: usize, token: usize) -> FfnDetail {
    let layer = layer.min(bert.cfg.num_hidden_layers.saturating_sub(1));
    let token = token.min(trace.t.saturating_sub(1));
    let (lt, lp) = (&trace.layers[layer], &bert.params.layers[layer]);
    let row = |a: &Array2<f32>| a.row(token).to_vec();
    // one LayerNorm of the token: its input (the residual sum), statistics, parameters, output
    let ln = |input: &Array2<f32>, mean: &Array1<f32>, rstd: &Array1<f32>, p: &LayerNorm<f32>, out: &Array2<f32>| {
        let (g, b) = (p.gamma.to_vec(), p.beta.to_vec());
        ln_detail(row(input), mean[token], rstd[token], bert.cfg.layer_norm_eps, &g, &b, row(out))
    };
    let ln1 = ln(&lt.attn_res, &lt.attn_ln_mean, &lt.attn_ln_rstd, &lp.attn_ln, &lt.attn_ln_out);
    let ln2 = ln(&lt.out_res, &lt.out_ln_mean, &lt.out_ln_rstd, &lp.out_ln, &trace.hidden[layer + 1]);
    let ffn_pre = row(&lt.ffn_pre);
    let (lo, hi) = ffn_pre.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let (lo, hi) = if lo.is_finite() && hi > lo { (lo, hi) } else { (-3.0, 3.0) };
    let xs = Array2::from_shape_fn((1, CURVE_POINTS), |(_, i)| lo + (hi - lo) * i as f32 / (CURVE_POINTS - 1) as f32);
    let ys = activation_forward(bert.cfg.activation(), xs.view());
    FfnDetail {
        layer,
        token,
        activation: bert.cfg.hidden_act.clone(),
        x: row(&trace.hidden[layer]),
        attn_dense: row(&lt.attn_dense),
        ln1,
        ffn_pre,
        b1: lp.intermediate.bias.to_vec(),
        ffn_act: row(&lt.ffn_act),
        ffn_out: row(&lt.ffn_out),
        b2: lp.output.bias.to_vec(),
        ln2,
        curve: xs.iter().copied().zip(ys.iter().copied()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BertConfig, Heads};
    use crate::explain::snapshot::{build_with_trace, Request};
    use crate::tokenize::BertTokenizer;

    const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n##s\non\nmat\n.\n";

    fn model() -> Bert {
        let tok = BertTokenizer::from_vocab_txt(VOCAB, true, 16).unwrap();
        let cfg = BertConfig::new(0, 12, 2, 3, 20, 16);
        Bert::from_scratch(cfg, tok, Heads::MASKED_LM, 5).unwrap()
    }

    fn req(layer: usize, token: usize) -> Request {
        Request { text: "the cat sat on the mat.".into(), top_k: 3, ffn_focus: (layer, token), ffn_steps: true, ..Default::default() }
    }

    #[test]
    fn layernorm_numbers_reproduce_the_output() {
        let bert = model();
        let (s, trace) = build_with_trace(&bert, &req(1, 3)).unwrap();
        let d = s.ffn_detail.expect("a detail");
        assert_eq!((d.layer, d.token, d.hidden(), d.intermediate()), (1, 3, 12, 20));
        for ln in [&d.ln1, &d.ln2] {
            let mean = ln.input.iter().sum::<f32>() / 12.0;
            assert!((mean - ln.mean).abs() < 1e-5);
            assert!((1.0 / (ln.var + ln.eps).sqrt() - ln.rstd).abs() < 1e-3 * ln.rstd);
            for c in 0..12 {
                let y = ln.gamma[c] * (ln.input[c] - ln.mean) * ln.rstd + ln.beta[c];
                assert!((y - ln.out[c]).abs() < 1e-5, "LN[{c}]");
            }
        }
        for c in 0..12 {
            assert!((d.x[c] + d.attn_dense[c] - d.ln1.input[c]).abs() < 1e-6, "first residual");
            assert!((d.ln1.out[c] + d.ffn_out[c] - d.ln2.input[c]).abs() < 1e-6, "second residual");
        }
        assert_eq!(d.ln2.out, trace.hidden[2].row(3).to_vec(), "LN2 is the layer's output");
        assert_eq!(d.x, trace.hidden[1].row(3).to_vec(), "the input is the previous layer's output");
    }

    #[test]
    fn activation_curve_covers_the_tokens_values_and_formulas_end_in_them() {
        let bert = model();
        let (s, _) = build_with_trace(&bert, &req(0, 1)).unwrap();
        let d = s.ffn_detail.unwrap();
        assert_eq!(d.curve.len(), CURVE_POINTS);
        let lo = d.ffn_pre.iter().copied().fold(f32::INFINITY, f32::min);
        assert!((d.curve[0].0 - lo).abs() < 1e-6);
        assert!(d.curve.windows(2).all(|w| w[0].0 < w[1].0));
        for (m, (&p, &a)) in d.ffn_pre.iter().zip(&d.ffn_act).enumerate() {
            let g = 0.5 * p * (1.0 + libm_erf(p / std::f32::consts::SQRT_2));
            assert!((g - a).abs() < 1e-4, "GELU at unit {m}");
        }
        let fs = d.hidden_formulas(4);
        assert_eq!(fs.iter().map(|f| f.0).collect::<Vec<_>>(), ["res1", "ln1", "ffn_out", "res2", "ln2"]);
        for (_, f) in fs.iter().chain(&d.unit_formulas(7)) {
            assert!(f.text.ends_with(&format!("{:.4}", f.value)), "{}", f.text);
        }
        assert!(d.hidden_formulas(12).is_empty() && d.unit_formulas(20).is_empty());
        assert!((0.0..=1.0).contains(&d.quiet_share()));
    }

    /// erf by its series (enough for |x| < 6 in f64), to check GELU independently of the engine.
    fn libm_erf(x: f32) -> f32 {
        let x = x as f64;
        let (mut sum, mut term, mut k) = (x, x, 0.0);
        while term.abs() > 1e-12 && k < 200.0 {
            k += 1.0;
            term *= -x * x / k;
            sum += term / (2.0 * k + 1.0);
        }
        (2.0 / std::f64::consts::PI.sqrt() * sum) as f32
    }

    #[test]
    fn focus_is_clamped_and_the_trajectory_follows_hidden() {
        let bert = model();
        let (s, _) = build_with_trace(&bert, &req(9, 99)).unwrap();
        let d = s.ffn_detail.as_ref().unwrap();
        assert_eq!((d.layer, d.token), (1, s.len() - 1));
        let tr = trajectory(&s.hidden);
        assert_eq!((tr.norm.len(), tr.norm[0].len()), (s.len(), 3));
        assert_eq!(tr.norm[2][1], s.hidden[1].norm[2]);
        assert_eq!(tr.cos[0][0], 1.0);
        assert!(tr.norm_max >= tr.norm[2][1] && tr.cos_min <= 1.0);
    }
}
