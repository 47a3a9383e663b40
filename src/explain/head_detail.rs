//! One attention head, step by step, as the page shows it: Q, K, V of the head, the raw scores
//! Q K^T, scaled by 1/sqrt(d_k), the padding mask added, softmax, times V = context, then the
//! concatenation of all heads and W_O (HF `BertSelfAttention` + `BertSelfOutput.dense`).
//! Only the chosen (layer, head) is kept, so a bert-base snapshot does not carry 144 heads of Q/K/V;
//! the concat / output matrices are cut to a window of columns around the head's block.
//! The formulas with live numbers for a selected cell are built here too (`formula`), so the page
//! only prints them.

use crate::bundle::Bert;
use crate::model::forward::ForwardTrace;
pub use bertscope_view::explain::head_detail::*;
use ndarray::s;

fn mat(a: ndarray::ArrayView2<f32>, col0: usize) -> Mat {
    Mat { rows: a.nrows(), cols: a.ncols(), col0, data: a.iter().copied().collect() }
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
