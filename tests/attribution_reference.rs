//! Attributions against PyTorch autograd (`scripts/make_attribution_fixtures.py`, float64, the same
//! definitions): grad, grad x input and integrated gradients (N = 8, 32, 128) for a masked-LM guess,
//! one on a sentence pair with an NSP model, a class, a tag, an answer's start and end, and a
//! one-token input. Tolerance: 1e-3 of the reference's largest |score| per vector (our path is f32);
//! f(x) within 1e-4; the completeness gap shrinks as N grows, as the reference's does.

use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::infer::attribute::{attribute_input, Input, Method, Target};
use std::collections::HashMap;

mod common;
use common::{load_fixture, root};

struct Case {
    meta: HashMap<String, String>,
    f: HashMap<String, Vec<f32>>,
    i: HashMap<String, Vec<i64>>,
}

fn load(name: &str) -> Case {
    let x = load_fixture(&format!("attr_{name}"));
    let flat = |m: HashMap<String, ndarray::ArrayD<f32>>| m.into_iter().map(|(k, v)| (k, v.iter().copied().collect())).collect();
    Case { meta: x.meta, f: flat(x.f32s), i: x.i64s.into_iter().map(|(k, v)| (k, v.iter().copied().collect())).collect() }
}

fn close(what: &str, ours: &[f32], theirs: &[f32]) {
    assert_eq!(ours.len(), theirs.len(), "{what}: length");
    let scale = theirs.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
    let d = ours.iter().zip(theirs).fold(0f32, |m, (a, b)| m.max((a - b).abs()));
    assert!(d <= 1e-3 * scale, "{what}: max |diff| {d:e} > 1e-3 x {scale:e}\n ours   {ours:?}\n theirs {theirs:?}");
}

fn check(name: &str) {
    let c = load(name);
    let bert = Bert::from_dir(&root().join("tests/fixtures/models").join(&c.meta["model"])).unwrap();
    let ids: Vec<u32> = c.i["input_ids"].iter().map(|&v| v as u32).collect();
    let input = Input {
        segments: c.i["token_type_ids"].iter().map(|&v| v as u32).collect(),
        tokens: ids.iter().map(|&i| bert.tokenizer.id_to_token(i)).collect(),
        ids,
        head_mask: None,
    };
    let spec = &c.meta["target"];
    let target = Target::parse(spec, &bert, input.ids.len()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let value = c.f["value"][0];
    for (method, key) in [(Method::Grad, "grad"), (Method::GradXInput, "grad_x_input")] {
        let a = block_on(attribute_input(&mut Backend::cpu(), &bert, (0, 0), &input, &target, method, 1)).unwrap();
        assert!((a.value - value).abs() < 1e-4, "{name}: f(x) {} vs {value}", a.value);
        close(&format!("{name} {key}"), &a.scores, &c.f[key]);
    }
    let mut gaps = vec![];
    for n in [8, 32, 128] {
        let a = block_on(attribute_input(&mut Backend::cpu(), &bert, (0, 0), &input, &target, Method::Ig, n)).unwrap();
        close(&format!("{name} ig_{n}"), &a.scores, &c.f[&format!("ig_{n}")]);
        let (gap, want) = (a.completeness_gap.unwrap(), c.f[&format!("ig_gap_{n}")][0]);
        assert!((gap - want).abs() <= 1e-3 * want.abs().max(1.0), "{name}: gap at N = {n}: {gap} vs {want}");
        gaps.push(gap);
    }
    assert!(gaps[0] > gaps[1] && gaps[1] > gaps[2], "{name}: the completeness gap shrinks as N grows: {gaps:?}");
}

#[test]
fn masked_lm_guess() {
    check("mlm");
}

#[test]
fn masked_lm_guess_in_a_pair_with_an_nsp_model() {
    check("nsp_pair");
}

#[test]
fn a_class() {
    check("seqcls");
}

#[test]
fn a_tag() {
    check("tokcls");
}

#[test]
fn an_answers_start_and_end() {
    check("qa_start");
    check("qa_end");
}

#[test]
fn one_token() {
    check("t1");
}

#[test]
fn bad_targets_are_messages() {
    let bert = Bert::from_dir(&root().join("tests/fixtures/models/task_seqcls")).unwrap();
    let err = |spec: &str| Target::parse(spec, &bert, 5).unwrap_err().to_string();
    assert!(err("class:maybe").contains("no label `maybe`"), "{}", err("class:maybe"));
    assert!(err("mask:1:the").contains("no masked-LM head"));
    assert!(err("start:1").contains("not a BertForQuestionAnswering"));
    assert!(err("tag:9:O").contains("not a BertForTokenClassification"));
    assert!(err("nonsense").contains("expected mask:POS:TOKEN"));
    assert_eq!(Target::parse("class:1", &bert, 5).unwrap(), Target::Class(1), "a label id works too");
    let qa = Bert::from_dir(&root().join("tests/fixtures/models/task_qa")).unwrap();
    assert!(Target::parse("start:7", &qa, 5).unwrap_err().to_string().contains("outside the 5 tokens"));
}
