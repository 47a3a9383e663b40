//! Tests of `explainer`: which requests run a forward, and that a cached answer is the answer.

use super::*;
use crate::backend::block_on;
use crate::config::{BertConfig, Heads};
use crate::explain::snapshot::build;
use crate::tokenize::BertTokenizer;

const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n##s\non\nmat\n.\nplay\n##ing\ndog\n";

fn model(seed: u64) -> Bert {
    let tok = BertTokenizer::from_vocab_txt(VOCAB, true, 16).unwrap();
    Bert::from_scratch(BertConfig::new(0, 12, 2, 3, 20, 16), tok, Heads::MASKED_LM, seed).unwrap()
}

fn req(text: &str) -> Request {
    Request { seq: 1, text: text.into(), top_k: 5, ..Default::default() }
}

fn ask(e: &mut Explainer, bert: &Bert, r: &Request) -> Answer {
    block_on(e.explain(None, bert, (0, 0), r, &|| 0.0)).unwrap()
}

/// The snapshot without the fields the caller fills in (time, device).
fn plain(mut s: Snapshot) -> Snapshot {
    s.forward_ms = 0.0;
    s.device = String::new();
    s
}

#[test]
fn looking_at_another_part_of_the_same_forward_runs_no_forward() {
    let bert = model(7);
    let mut e = Explainer::default();
    let first = req("the cat sat on the [MASK].");
    assert!(!ask(&mut e, &bert, &first).cached);
    assert_eq!(e.forwards(), 1);
    // focus a head, open its steps, open the FFN of another token, keep more guesses, ask "why"
    let views = [
        Request { head_focus: (1, 2), head_steps: true, ..first.clone() },
        Request { ffn_focus: (1, 3), ffn_steps: true, ..first.clone() },
        Request { top_k: 12, seq: 9, ..first.clone() },
        Request { why: Some(Default::default()), ..first.clone() },
        Request { lens: true, ..first.clone() },
    ];
    for r in &views {
        let a = ask(&mut e, &bert, r);
        assert!(a.cached, "{r:?}");
        assert_eq!(plain(a.snapshot), build(&bert, r).unwrap(), "a cached answer is the answer");
    }
    assert_eq!(e.forwards(), 1, "views of one forward");
    assert!(ask(&mut e, &bert, &views[0]).snapshot.head_detail.is_some());
    let lens = ask(&mut e, &bert, &views[4]).snapshot.lens;
    assert_eq!(lens.len(), 1, "the lens of the one mask, from the cached trace");
    assert_eq!(lens[0].layers.len(), 3, "the embeddings and 2 layers");
    let own = &build(&bert, &first).unwrap().predictions[0].top;
    let last = &lens[0].layers[2];
    assert_eq!(
        last.top.iter().map(|p| p.id).collect::<Vec<_>>(),
        own[..3].iter().map(|p| p.id).collect::<Vec<_>>(),
        "the last layer's guesses are the model's"
    );
    assert!((last.answer_prob - own[0].prob).abs() < 1e-6);
    assert_eq!(e.forwards(), 1);
}

#[test]
fn a_new_input_runs_a_forward_and_the_last_few_stay_cached() {
    let bert = model(7);
    let mut e = Explainer::default();
    let a = req("the cat sat on the mat.");
    let inputs = [
        a.clone(),
        req("the dog sat."),
        Request { heads_off: vec![(0, 1)], ..a.clone() },
        Request { masked: vec![2], ..a.clone() },
        Request { pair: Some("the mat.".into()), ..a.clone() },
    ];
    for (i, r) in inputs.iter().enumerate() {
        let ans = ask(&mut e, &bert, r);
        assert!(!ans.cached);
        assert_eq!(e.forwards(), i + 1);
        assert_eq!(plain(ans.snapshot), build(&bert, r).unwrap());
    }
    // the same head switched off, written in another order, is the same input
    let twice = Request { heads_off: vec![(0, 1), (0, 1)], ..a.clone() };
    assert!(ask(&mut e, &bert, &twice).cached);
    // an empty pair is no pair
    let empty_pair = Request { pair: Some(" ".into()), masked: vec![2], ..a.clone() };
    assert!(ask(&mut e, &bert, &empty_pair).cached);
    // five inputs, four kept: the first one went
    assert!(!ask(&mut e, &bert, &a).cached);
    assert_eq!(e.forwards(), 6);
}

#[test]
fn another_model_or_weights_key_is_another_forward() {
    let (m1, m2) = (model(7), model(8));
    let mut e = Explainer::default();
    let r = req("the cat sat on the [MASK].");
    ask(&mut e, &m1, &r);
    // the same weights key after a new model was loaded: `forget` keeps its answer from being reused
    e.forget();
    let b = ask(&mut e, &m2, &r);
    assert!(!b.cached);
    assert_eq!(plain(b.snapshot), build(&m2, &r).unwrap());
    let c = block_on(e.explain(None, &m2, (1, 5), &r, &|| 0.0)).unwrap();
    assert!(!c.cached, "a training run's step is another set of weights");
    assert_eq!(e.forwards(), 3);
}

#[test]
fn bad_input_is_an_error_and_runs_nothing() {
    let bert = model(7);
    let mut e = Explainer::default();
    let err = block_on(e.explain(None, &bert, (0, 0), &req("   "), &|| 0.0)).err().unwrap();
    assert!(err.to_string().contains("empty"), "{err}");
    assert_eq!(e.forwards(), 0);
    assert!(e.last_trace().is_none());
}

#[test]
fn the_forward_is_timed_and_labelled() {
    let bert = model(7);
    let mut e = Explainer::default();
    let clock = std::cell::Cell::new(0.0);
    let now = || {
        clock.set(clock.get() + 5.0);
        clock.get()
    };
    let a = block_on(e.explain(None, &bert, (0, 0), &req("the cat"), &now)).unwrap();
    assert_eq!((a.snapshot.forward_ms, a.snapshot.device.as_str()), (5.0, CPU_LABEL));
    let b = block_on(e.explain(None, &bert, (0, 0), &Request { head_focus: (1, 1), ..req("the cat") }, &now)).unwrap();
    assert_eq!(b.snapshot.forward_ms, 5.0, "a cached answer shows the time of its forward");
}
