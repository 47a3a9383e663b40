//! One decoding step of an encoder-decoder, as the Translate tab shows it: the source's tokens, the
//! prefix the decoder read (decoder_start first), the next-token distribution after temperature and
//! top-k (the top ten), the decoder's causal self-attention per layer and head (T x T, the cells
//! above the diagonal masked: -inf before the softmax, exactly 0 after), the cross-attention per
//! layer and head (T x S), and for beam search the tree of kept beams. Also the "three shapes" of
//! the Transformer side by side. Pure data (tested natively); `app::jobs::translate` builds it
//! from `seq2seq::stepper`.

use crate::seq2seq::stepper::{distribution, BeamNode, Look, Stepper};
use crate::seq2seq::Seq2Seq;
pub use bertscope_view::explain::decode::*;
use ndarray::{s, Array4};

/// Every head of one layer of an attention cache (B = 1): `causal` masks the keys after each query.
pub fn attention_maps(probs: &Array4<f32>, scores: &Array4<f32>, layer: usize, causal: bool) -> Vec<AttnMap> {
    let (_, nh, rows, cols) = probs.dim();
    (0..nh)
        .map(|h| {
            let masked: Vec<bool> = (0..rows * cols).map(|i| causal && i % cols > i / cols).collect();
            let p = probs.slice(s![0, h, .., ..]);
            let sc = scores.slice(s![0, h, .., ..]);
            AttnMap {
                layer,
                head: h,
                rows,
                cols,
                probs: p.iter().copied().collect(),
                scores: sc.iter().zip(&masked).map(|(&v, &m)| if m { f32::NEG_INFINITY } else { v }).collect(),
                masked,
            }
        })
        .collect()
}

/// The tree of `tree` (as the stepper keeps it) with the path to `output` (ids after
/// decoder_start) marked.
pub fn beam_tree(tree: &[Vec<BeamNode>], k: usize, start: &str, output: &[u32], token: impl Fn(u32) -> String) -> BeamTree {
    let mut steps: Vec<Vec<BeamShown>> = tree
        .iter()
        .map(|level| {
            level
                .iter()
                .map(|n| BeamShown {
                    token: token(n.id),
                    parent: n.parent,
                    sum: n.sum,
                    finished: n.finished,
                    score: n.score,
                    on_path: false,
                })
                .collect()
        })
        .collect();
    // walk down: at each step the node extending the path's beam with the output's next token
    let mut parent = 0;
    for (i, level) in tree.iter().enumerate() {
        let Some(&want) = output.get(i) else { break };
        let Some(j) = level.iter().position(|n| n.parent == parent && n.id == want) else { break };
        steps[i][j].on_path = true;
        parent = level[..j].iter().filter(|n| !n.finished).count();
    }
    BeamTree { k, start: start.to_string(), steps }
}

/// Builds the view of `look` (the forward of this step) with the stepper as it is after it.
pub fn decode_view(m: &Seq2Seq, st: &Stepper, look: &Look) -> DecodeView {
    {
        let tok = |i: u32| m.tokenizer.id_to_token(i);
        let (dist, next_note) = match st.method {
            Method::Greedy => {
                (distribution(&look.logits, 1.0, 0), "softmax of the decoder's logits; greedy takes the most probable".to_string())
            }
            Method::Sample { temperature, top_k, .. } => (
                distribution(&look.logits, temperature, top_k),
                format!(
                    "softmax(logits / {temperature}) over the {} most probable, renormalised; the token is drawn from it",
                    if top_k == 0 { "all".to_string() } else { top_k.to_string() }
                ),
            ),
            Method::Beam { k, .. } => (
                distribution(&look.logits, 1.0, 0),
                format!(
                    "the softmax of the best beam still running at this step (the one read here, and drawn in the maps below: once decoding is done it can differ from the answer, a finished beam); beam search keeps the {k} best sums of log-probabilities over every beam"
                ),
            ),
        };
        let cand = |&(id, prob): &(u32, f32)| Candidate { id, token: tok(id), prob };
        let chosen = match (&st.method, look.chosen) {
            (Method::Beam { .. }, _) | (_, None) => None,
            (_, Some(id)) => Some(dist.iter().find(|d| d.0 == id).map(cand).unwrap_or(Candidate { id, token: tok(id), prob: 0.0 })),
        };
        let output = st.output();
        let eos = m.cfg.eos;
        let stop = match (st.done, output.last() == Some(&eos)) {
            (false, _) => String::new(),
            (true, true) => format!("stopped at {}, the end-of-sequence token", tok(eos)),
            (true, false) => format!("stopped after {} tokens, the most the decoder takes", output.len()),
        };
        let dec = &look.trace.decoder;
        let mut self_attn = vec![];
        let mut cross_attn = vec![];
        for (l, lt) in dec.layers.iter().enumerate() {
            self_attn.extend(attention_maps(&lt.attn.probs, &lt.attn.scores, l, true));
            let c = &lt.cross.as_ref().expect("a decoder layer has cross-attention").attn;
            cross_attn.extend(attention_maps(&c.probs, &c.scores, l, false));
        }
        let beams = match st.method {
            Method::Beam { k, .. } => Some(beam_tree(&st.tree, k, &tok(m.cfg.decoder_start), &output, tok)),
            _ => None,
        };
        DecodeView {
            method: st.method.clone(),
            source: st.source_ids().into_iter().map(tok).collect(),
            prefix: look.prefix.iter().map(|&i| tok(i)).collect(),
            generated: output.iter().map(|&i| tok(i)).collect(),
            text: m.tokenizer.decode(&output).unwrap_or_default(),
            step: st.steps,
            chosen,
            next: dist.iter().take(TOP).map(cand).collect(),
            next_note,
            done: st.done,
            stop,
            layers: dec.layers.len(),
            heads: m.cfg.decoder.num_attention_heads,
            self_attn,
            cross_attn,
            beams,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array4;

    #[test]
    fn a_causal_map_masks_above_the_diagonal_with_minus_infinity() {
        let probs = Array4::from_shape_fn((1, 2, 3, 3), |(_, h, i, j)| if j > i { 0.0 } else { (h + 1) as f32 / (i + 1) as f32 });
        let scores = Array4::from_elem((1, 2, 3, 3), 0.5f32);
        let maps = attention_maps(&probs, &scores, 1, true);
        assert_eq!(maps.len(), 2);
        let m = &maps[1];
        assert_eq!((m.layer, m.head, m.rows, m.cols), (1, 1, 3, 3));
        for i in 0..3 {
            for j in 0..3 {
                let k = i * 3 + j;
                assert_eq!(m.masked[k], j > i);
                assert_eq!(m.scores[k], if j > i { f32::NEG_INFINITY } else { 0.5 });
            }
        }
        let cross = attention_maps(&Array4::from_elem((1, 1, 2, 5), 0.2f32), &Array4::zeros((1, 1, 2, 5)), 0, false);
        assert!(cross[0].masked.iter().all(|m| !m) && cross[0].cols == 5);
    }

    #[test]
    fn the_beam_tree_marks_the_path_to_the_output() {
        let n = |parent, id, finished| BeamNode { parent, id, sum: -1.0, finished, score: finished.then_some(-1.0) };
        // step 0: beams a(1), b(2); step 1: b's child c(3), a's child eos(9, finished), a's child d(4)
        let tree = vec![vec![n(0, 1, false), n(0, 2, false)], vec![n(1, 3, false), n(0, 9, true), n(0, 4, false)], vec![n(1, 5, false)]];
        let t = beam_tree(&tree, 2, "[CLS]", &[1, 4, 5], |i| format!("t{i}"));
        let path: Vec<(usize, usize)> =
            t.steps.iter().enumerate().flat_map(|(i, l)| l.iter().enumerate().filter(|n| n.1.on_path).map(move |(j, _)| (i, j))).collect();
        // d is the second running beam of step 1, so its child at step 2 has parent 1
        assert_eq!(path, [(0, 0), (1, 2), (2, 0)]);
        assert_eq!(t.steps[1][1].token, "t9");
    }

    #[test]
    fn the_three_shapes_differ_in_who_sees_whom() {
        let [enc, dec, ed] = shapes();
        assert!(enc.sees.iter().all(|&s| s));
        assert_eq!(dec.sees.iter().filter(|&&s| s).count(), 10, "a lower triangle of 4 x 4");
        assert!(!dec.sees[1] && dec.sees[4]);
        assert_eq!((ed.rows.len(), ed.cols.len()), (4, 7));
        for r in 0..4 {
            let row = &ed.sees[r * 7..(r + 1) * 7];
            assert!(row[..3].iter().all(|&s| s), "all of the source");
            assert_eq!(row[3..].iter().filter(|&&s| s).count(), r + 1, "its own earlier tokens");
        }
        assert!(enc.what.contains("cannot") && dec.what.contains("before") && ed.what.contains("cross-attention"));
    }
}
