//! The encoder-decoder against HF transformers' `EncoderDecoderModel` (BERT encoder, BERT decoder
//! with cross-attention; fixtures from `scripts/make_decoder_fixtures.py`): a padded batch of two
//! teacher-forced pairs and one first step (T = 1), for a model with the same widths and one with
//! `enc_to_dec_proj`. Every hidden state of both halves, the decoder's causal self-attention and its
//! cross-attention, the logits, the loss and every gradient. Tolerances as tests/reference.rs.

use bertscope::model::forward::{Batch, MlmRows};
use bertscope::seq2seq::forward::{forward, loss_and_grads, Seq2SeqBatch};
use bertscope::seq2seq::Seq2Seq;
use ndarray::ArrayViewD;
use std::collections::HashMap;

mod common;
use common::{close, close_grad, load_fixture, root};

fn run(name: &str) -> usize {
    let c = load_fixture(name);
    let m = Seq2Seq::from_dir(&root().join(&c.meta["model"])).unwrap();
    let batch_of = |ids: &str, mask: &str| {
        let a = &c.i64s[ids];
        let (b, t) = (a.shape()[0], a.shape()[1]);
        Batch {
            b,
            t,
            input_ids: a.iter().map(|&v| v as usize).collect(),
            token_type_ids: vec![0; b * t],
            attention_mask: c.i64s[mask].iter().map(|&v| v as u8).collect(),
        }
    };
    let batch = Seq2SeqBatch { src: batch_of("input_ids", "attention_mask"), tgt: batch_of("decoder_input_ids", "decoder_attention_mask") };
    let (b, s, t) = (batch.src.b, batch.src.t, batch.tgt.t);
    let tr = forward(&m.params, &m.cfg, &batch, MlmRows::All).unwrap();
    let mut checks = 0;
    for (half, trace, len) in [("encoder", &tr.encoder, s), ("decoder", &tr.decoder, t)] {
        checks += c.compare_hidden(name, &format!("{half}_"), &trace.hidden, (b, len));
        for (l, lt) in trace.layers.iter().enumerate() {
            let key = format!("{half}_attentions.{l}");
            close(&format!("{name} {key}"), lt.attn.probs.view().into_dyn(), c.f32s[&key].view(), 1e-5);
            checks += 1;
        }
    }
    for (l, lt) in tr.decoder.layers.iter().enumerate() {
        let key = format!("cross_attentions.{l}");
        close(&format!("{name} {key}"), lt.cross.as_ref().unwrap().attn.probs.view().into_dyn(), c.f32s[&key].view(), 1e-5);
        checks += 1;
    }
    let v = m.cfg.decoder.vocab_size;
    let logits = tr.decoder.mlm.as_ref().unwrap().logits.view().into_shape_with_order((b, t, v)).unwrap().into_dyn();
    close(&format!("{name} logits"), logits, c.f32s["logits"].view(), 1e-4);
    let labels: Vec<i64> = c.i64s["labels"].iter().copied().collect();
    let out = loss_and_grads(&m.params, &m.cfg, &batch, &labels).unwrap();
    let (loss, grads) = (out.loss, out.grads);
    assert!(out.correct <= out.labelled && out.labelled == labels.iter().filter(|&&l| l >= 0).count());
    let want = c.f32s["loss"][[0]];
    assert!((loss - want).abs() <= 1e-5 * want.abs().max(1.0), "{name} loss {loss} vs {want}");
    let ours: HashMap<String, ArrayViewD<f32>> = grads.tensors().into_iter().collect();
    let none: Vec<&str> = c.meta.get("grad_none").map(|s| s.split(',').filter(|x| !x.is_empty()).collect()).unwrap_or_default();
    let mut graded = 0;
    for (key, g) in c.f32s.iter().filter(|(k, _)| k.starts_with("grad.")) {
        let hf = &key["grad.".len()..];
        let mine = ours.get(hf).unwrap_or_else(|| panic!("{name}: no gradient for {hf}"));
        close_grad(&format!("{name} grad {hf}"), mine.view(), g.view());
        graded += 1;
    }
    // HF's None gradients (a pooler nothing reads) are zero here
    for n in &none {
        let g = ours.get(*n).unwrap_or_else(|| panic!("{name}: {n} is not a parameter"));
        assert!(g.iter().all(|&x| x == 0.0), "{name}: {n} should get no gradient");
    }
    assert_eq!(graded + none.len(), ours.len(), "{name}: every parameter compared");
    checks + graded
}

#[test]
fn teacher_forced_batch_matches_hf() {
    assert!(run("dec_teacher") > 40);
}

#[test]
fn the_first_decoding_step_matches_hf() {
    run("dec_single");
}

#[test]
fn an_encoder_narrower_than_its_decoder_goes_through_enc_to_dec_proj() {
    run("dec_odd_teacher");
}

#[derive(serde::Deserialize)]
struct GenCase {
    source: String,
    input_ids: Vec<u32>,
    greedy: GreedyRef,
}

#[derive(serde::Deserialize)]
struct GreedyRef {
    sequence: Vec<u32>,
    steps: Vec<StepRef>,
}

#[derive(serde::Deserialize)]
struct StepRef {
    top_ids: Vec<u32>,
    top_logprobs: Vec<f32>,
}

/// Greedy decoding gives HF `generate`'s tokens (num_beams = 1, max_new_tokens = 8), and every
/// step's five most probable tokens with their log-probabilities.
#[test]
fn greedy_decoding_matches_hf_generate() {
    use bertscope::seq2seq::generate::greedy;
    #[derive(serde::Deserialize)]
    struct File {
        model: String,
        cases: Vec<GenCase>,
    }
    let f: File = serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/ref/dec_generate.json")).unwrap()).unwrap();
    let m = Seq2Seq::from_dir(&root().join(&f.model)).unwrap();
    assert!(f.cases.len() >= 4);
    for c in &f.cases {
        assert_eq!(m.tokenizer.encode(&c.source, None).unwrap().input_ids, c.input_ids, "{}: the source's ids", c.source);
        let g = greedy(&m, &c.source, 8, 5).unwrap();
        assert_eq!(g.ids, c.greedy.sequence[1..], "{}: greedy tokens", c.source);
        for (i, (ours, theirs)) in g.steps.iter().zip(&c.greedy.steps).enumerate() {
            let ids: Vec<u32> = ours.top.iter().map(|t| t.0).collect();
            assert_eq!(ids, theirs.top_ids, "{} step {i}: top 5", c.source);
            for (t, lp) in ours.top.iter().zip(&theirs.top_logprobs) {
                assert!((t.2.ln() - lp).abs() < 1e-4, "{} step {i}: log p {} vs {lp}", c.source, t.2.ln());
            }
        }
    }
}

/// Beam search (3 beams, length_penalty 1) gives HF's sequence and `sequences_scores`, and never a
/// sequence scored worse than greedy's under the same score.
#[test]
fn beam_search_matches_hf_and_is_never_worse_than_greedy() {
    use bertscope::seq2seq::generate::{beam, greedy};
    #[derive(serde::Deserialize)]
    struct BeamRef {
        sequence: Vec<u32>,
        sequences_score: f64,
    }
    #[derive(serde::Deserialize)]
    struct Case {
        source: String,
        beam: BeamRef,
    }
    #[derive(serde::Deserialize)]
    struct File {
        model: String,
        cases: Vec<Case>,
    }
    let f: File = serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/ref/dec_generate.json")).unwrap()).unwrap();
    let m = Seq2Seq::from_dir(&root().join(&f.model)).unwrap();
    for c in &f.cases {
        let b = beam(&m, &c.source, 8, 3, 1.0).unwrap();
        assert_eq!(b.ids, c.beam.sequence[1..], "{}: beam tokens", c.source);
        assert!((b.score - c.beam.sequences_score).abs() < 1e-4, "{}: score {} vs HF's {}", c.source, b.score, c.beam.sequences_score);
        let g = greedy(&m, &c.source, 8, 1).unwrap();
        let g_score = g.steps.iter().map(|s| (s.prob as f64).ln()).sum::<f64>() / g.ids.len() as f64;
        assert!(b.score >= g_score - 1e-6, "{}: beam {} worse than greedy {g_score}", c.source, b.score);
    }
}
