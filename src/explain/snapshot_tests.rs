//! Tests of `snapshot` (kept beside it so the module reads top to bottom).

use super::*;
use crate::config::{BertConfig, Heads};
use crate::tokenize::BertTokenizer;

const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n##s\non\nmat\n.\nplay\n##ing\ndog\n";

fn model(heads: Heads) -> Bert {
    let tok = BertTokenizer::from_vocab_txt(VOCAB, true, 16).unwrap();
    let cfg = BertConfig::new(0, 12, 2, 3, 20, 16);
    Bert::from_scratch(cfg, tok, heads, 7).unwrap()
}

fn req(text: &str) -> Request {
    Request { seq: 3, text: text.into(), top_k: 5, ..Default::default() }
}

#[test]
fn tokens_carry_ids_segments_and_flags() {
    let bert = model(Heads::MASKED_LM);
    let s = build(&bert, &Request { pair: Some("the dog".into()), ..req("the cats [MASK]") }).unwrap();
    let texts: Vec<&str> = s.tokens.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["[CLS]", "the", "cat", "##s", "[MASK]", "[SEP]", "the", "dog", "[SEP]"]);
    assert_eq!(s.tokens.iter().map(|t| t.segment).collect::<Vec<_>>(), [0, 0, 0, 0, 0, 0, 1, 1, 1]);
    assert!(s.tokens[0].special && s.tokens[5].special && !s.tokens[1].special);
    assert!(s.tokens[3].continuation && !s.tokens[2].continuation);
    assert!(s.tokens.iter().all(|t| t.attention == 1));
    assert_eq!(s.tokens[2].id, 6);
    assert_eq!(s.seq, 3);
    assert!(!s.truncated);
    assert_eq!(s.is_next, None, "no NSP head");
}

#[test]
fn attention_rows_are_distributions_for_every_head() {
    let bert = model(Heads::MASKED_LM);
    let s = build(&bert, &req("the cat sat on the mat.")).unwrap();
    let t = s.len();
    assert_eq!((s.layers, s.heads, s.attention.len()), (2, 3, 6));
    for a in &s.attention {
        assert_eq!(a.len(), t * t);
        for row in a.chunks(t) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(row.iter().all(|&p| (0.0..=1.0).contains(&p)));
        }
    }
    assert_eq!(s.hidden.len(), 3);
    assert!(s.hidden.iter().all(|h| h.norm.len() == t && h.cos_prev.len() == t));
    assert!(s.hidden[1].cos_prev.iter().all(|c| (-1.0001..=1.0001).contains(c)));
}

#[test]
fn predictions_at_typed_and_requested_masks_are_sorted_probabilities() {
    let bert = model(Heads::MASKED_LM);
    // position 2 is "cat": masked by the request; the typed [MASK] is at 4
    let s = build(&bert, &Request { masked: vec![2, 0, 99], ..req("the cat [MASK] on the mat") }).unwrap();
    assert_eq!(s.tokens[2].text, "[MASK]");
    assert_eq!(s.tokens[2].masked_from.as_deref(), Some("cat"));
    assert_eq!(s.tokens[0].text, "[CLS]", "special tokens are never masked");
    assert_eq!(s.predictions.iter().map(|p| p.position).collect::<Vec<_>>(), [2, 3]);
    for m in &s.predictions {
        assert_eq!(m.top.len(), 5);
        assert!(m.top.windows(2).all(|w| w[0].prob >= w[1].prob));
        assert!(m.top.iter().all(|p| (0.0..=1.0).contains(&p.prob)));
    }
}

#[test]
fn predictions_match_fill_mask() {
    let bert = model(Heads::MASKED_LM);
    let s = build(&bert, &req("the [MASK] sat")).unwrap();
    let f =
        crate::backend::block_on(crate::infer::fill(&mut crate::backend::Backend::cpu(), &bert, "the [MASK] sat", None, 5, None)).unwrap();
    let ids = |v: Vec<u32>| v;
    assert_eq!(ids(s.predictions[0].top.iter().map(|p| p.id).collect()), ids(f.masks[0].predictions.iter().map(|p| p.id).collect()));
}

#[test]
fn switching_a_head_off_changes_predictions_but_not_its_heatmap() {
    let bert = model(Heads::MASKED_LM);
    let on = build(&bert, &req("the cat [MASK] on the mat")).unwrap();
    let off = build(&bert, &Request { heads_off: vec![(0, 1), (0, 1), (5, 0)], ..req("the cat [MASK] on the mat") }).unwrap();
    assert_eq!(off.heads_off, [(0, 1)], "out of range dropped, duplicates merged");
    assert!(off.head_is_off(0, 1) && !off.head_is_off(1, 1));
    assert_eq!(on.head(0, 1), off.head(0, 1), "layer 0 attention is computed before the mask");
    assert_ne!(on.predictions[0].top[0].prob, off.predictions[0].top[0].prob);
}

#[test]
fn nsp_probability_with_a_pair() {
    let bert = model(Heads::PRETRAINING);
    let s = build(&bert, &Request { pair: Some("the dog".into()), ..req("the cat") }).unwrap();
    let p = s.is_next.expect("pretraining model with a pair");
    assert!((0.0..=1.0).contains(&p));
    assert_eq!(build(&bert, &req("the cat")).unwrap().is_next, None);
}

#[test]
fn hostile_input_is_a_message_or_a_truncated_snapshot() {
    let bert = model(Heads::MASKED_LM);
    let err = |text: &str| build(&bert, &req(text)).unwrap_err().to_string();
    assert!(err("").contains("empty"));
    assert!(err("  \n\t ").contains("empty"));
    assert!(err("\u{0}\u{1}\u{7}").contains("no tokens"));
    let long = build(&bert, &req(&"the cat ".repeat(700))).unwrap();
    assert!(long.truncated);
    assert_eq!(long.len(), 16);
    let odd = build(&bert, &req("😀 שלום \u{202e} [MASK] [MASK]")).unwrap();
    assert_eq!(odd.predictions.len(), 2);
    assert!(odd.tokens.iter().any(|t| t.text == "[UNK]"));
}

#[test]
fn snapshots_round_trip_through_serde() {
    let bert = model(Heads::MASKED_LM);
    let s = build(&bert, &req("the [MASK] sat")).unwrap();
    let back: Snapshot = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(back, s);
    let info = crate::explain::snapshot::model_info(&bert);
    assert_eq!((info.layers, info.heads, info.hidden, info.vocab), (2, 3, 12, 15));
    assert!(info.has_mlm && !info.has_nsp && info.params > 0);
}

#[test]
fn a_fine_tuned_models_answer_comes_with_the_snapshot() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/models");
    let cls = Bert::from_dir(&dir.join("task_seqcls")).unwrap();
    let s = build(&cls, &req("the cat sat")).unwrap();
    match s.task {
        Some(TaskOutput::Classes(l)) => {
            assert_eq!(l.len(), 3);
            assert!(l.windows(2).all(|w| w[0].prob >= w[1].prob), "most probable first");
            assert!((l.iter().map(|x| x.prob).sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(l.iter().any(|x| x.label == "neutral"));
        }
        other => panic!("classes expected, got {other:?}"),
    }
    let tagger = Bert::from_dir(&dir.join("task_tokcls")).unwrap();
    let s = build(&tagger, &req("the cat sat on the mat")).unwrap();
    match &s.task {
        Some(TaskOutput::Tags(t)) => assert_eq!(t.len(), s.tokens.len()),
        other => panic!("tags expected, got {other:?}"),
    }
    let qa = Bert::from_dir(&dir.join("task_qa")).unwrap();
    let with_context = build(&qa, &Request { pair: Some("the cat sat on the mat".into()), ..req("where did the cat sit") }).unwrap();
    match &with_context.task {
        Some(TaskOutput::Answer { spans, start_logits, end_logits }) => {
            assert_eq!((start_logits.len(), end_logits.len()), (with_context.tokens.len(), with_context.tokens.len()));
            let first_ctx = with_context.tokens.iter().position(|t| t.segment == 1).unwrap();
            assert!(!spans.is_empty() && spans.iter().all(|s| s.start >= first_ctx && s.start <= s.end));
            assert!("the cat sat on the mat".contains(&spans[0].text));
        }
        other => panic!("an answer expected, got {other:?}"),
    }
    let no_context = build(&qa, &req("where did the cat sit")).unwrap();
    assert!(matches!(no_context.task, Some(TaskOutput::Answer { ref spans, .. }) if spans.is_empty()), "no context, no span");
    // a pre-trained model has none
    assert!(build(&model(Heads::MASKED_LM), &req("the [MASK] sat")).unwrap().task.is_none());
}
