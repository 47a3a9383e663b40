//! Tests of `translate_state` (kept beside it so the module reads top to bottom).

use super::*;
use crate::protocol::Progress;

fn ready() -> TranslateEvent {
    let scores = TranslateScores { step: 0, exact_match: 0.0, pairs: 30, held_out: true, examples: vec![] };
    let ready = TranslateReady { info: Seq2SeqInfo::default(), train: 900, held_out: 30, scores };
    TranslateEvent::Ready { ready: Box::new(ready), setup_ms: 12.0, device: "CPU (wasm)".into() }
}

#[test]
fn a_data_set_sets_the_sizes_and_source_and_the_training_form_locks_during_a_run() {
    let mut v = TranslateView::default();
    assert_eq!((v.form.source.as_str(), v.form.setup.max_len), ("4 5 7", 24));
    v.apply(TranslateAction::Edit(TranslateField::Dataset("toy-translate".into())));
    assert_eq!((v.form.setup.max_len, v.form.setup.steps), (32, 1500));
    assert!(v.form.source.contains("bank"));
    let s = v.form.setup(|p| format!("http://h/{p}"));
    let urls = ("http://h/datasets/toy-translate/train.jsonl".to_string(), "http://h/datasets/toy-translate/test.jsonl".to_string());
    assert_eq!(s.data, TranslateData::Urls { train: urls.0, test: urls.1 });
    v.apply(TranslateAction::Edit(TranslateField::Steps("200".into())));
    assert_eq!((v.form.setup.steps, v.form.setup.eval_every), (200, 20));
    v.apply(TranslateAction::Edit(TranslateField::Lr("fast".into())));
    assert_eq!(v.form.setup.lr, 2e-3, "a bad number keeps the old one");
    v.apply(TranslateAction::Edit(TranslateField::Dataset("custom".into())));
    v.apply(TranslateAction::Edit(TranslateField::Custom("{}\n{}".into())));
    assert_eq!(v.form.setup(|p| p.to_string()).data, TranslateData::Text("{}\n{}".into()));
    v.apply(TranslateAction::Event(ready()));
    assert!(v.run.has_run && v.run.phase == Phase::Paused && v.exact_match() == Some(0.0));
    v.apply(TranslateAction::Edit(TranslateField::Steps("5".into())));
    assert_eq!(v.form.setup.steps, 1500, "locked during a run (the custom set's default)");
    v.apply(TranslateAction::Edit(TranslateField::Source("1 0".into())));
    v.apply(TranslateAction::Edit(TranslateField::Method(MethodKind::Beam)));
    v.apply(TranslateAction::Edit(TranslateField::Beams("20".into())));
    assert_eq!(v.form.request(), DecodeRequest { source: "1 0".into(), method: Method::Beam { k: 3, length_penalty: 1.0 } });
    v.apply(TranslateAction::Edit(TranslateField::Method(MethodKind::Sample)));
    v.apply(TranslateAction::Edit(TranslateField::Temperature("0".into())));
    v.apply(TranslateAction::Edit(TranslateField::TopK("0".into())));
    assert_eq!(v.form.request().method, Method::Sample { temperature: 0.8, top_k: 0, seed: 1 });
}

#[test]
fn progress_fills_the_curves_and_decoding_keeps_its_own_errors() {
    let mut v = TranslateView::default();
    v.apply(TranslateAction::Event(ready()));
    let points = (1..=20)
        .map(|i| TranslatePoint {
            step: i,
            loss: 5.0 / i as f32,
            acc: i as f32 / 20.0,
            exact_match: (i == 20).then_some(0.6),
            ..Default::default()
        })
        .collect();
    v.apply(TranslateAction::Event(TranslateEvent::Progress(Progress {
        points,
        step: 20,
        total: 400,
        running: true,
        per_s: 300.0,
        ..Default::default()
    })));
    assert_eq!((v.loss.len(), v.acc.len(), v.exact.len(), v.run.phase.clone()), (20, 20, 2, Phase::Running));
    assert!((v.exact_match().unwrap() - 0.6).abs() < 1e-6);
    v.apply(TranslateAction::Edit(TranslateField::Decode(v.form.request())));
    assert!(v.decoding && !v.decode_finished());
    v.apply(TranslateAction::Event(TranslateEvent::Show(TranslateShow::DecodeFailed("the source is empty".into()))));
    assert_eq!((v.decoding, v.decode_error.as_deref(), v.run.error.as_deref()), (false, Some("the source is empty"), None));
    assert_eq!(v.answers, 1, "counted for scripts");
    v.apply(TranslateAction::Event(TranslateEvent::Failed("the loss is NaN".into())));
    assert_eq!((v.run.phase.clone(), v.run.error.as_deref()), (Phase::Paused, Some("the loss is NaN")));
    v.apply(TranslateAction::Event(TranslateEvent::Reset));
    assert!(!v.run.has_run && v.loss.is_empty() && v.decode_error.is_none() && v.form.source == "4 5 7");
    v.apply(TranslateAction::Event(TranslateEvent::Failed("line 3: not a pair".into())));
    assert_eq!(v.run.phase, Phase::Idle, "a failed start leaves no run");
}

#[test]
fn each_decoded_step_carries_its_time() {
    let view = |step| DecodeView {
        method: Method::Greedy,
        source: vec![],
        prefix: vec![],
        generated: vec![],
        text: String::new(),
        step,
        chosen: None,
        next: vec![],
        next_note: String::new(),
        done: false,
        stop: String::new(),
        layers: 0,
        heads: 0,
        self_attn: vec![],
        cross_attn: vec![],
        beams: None,
    };
    let mut v = TranslateView::default();
    v.apply(TranslateAction::Event(ready()));
    assert_eq!(v.step_time(), None);
    v.apply(TranslateAction::Event(TranslateEvent::Show(TranslateShow::Decoded { view: Box::new(view(0)), ms: 3.04 })));
    assert_eq!(v.step_time().as_deref(), Some("first forward: 3.0 ms"));
    v.apply(TranslateAction::Event(TranslateEvent::Show(TranslateShow::Decoded { view: Box::new(view(4)), ms: 2.06 })));
    assert_eq!((v.step_time().as_deref(), v.step_ms), (Some("step 4: 2.1 ms"), Some(2.06)));
    v.apply(TranslateAction::Event(TranslateEvent::Reset));
    assert_eq!(v.step_time(), None);
}

#[test]
fn save_says_why_it_waits_and_keeps_the_links_until_reset() {
    let mut v = TranslateView::default();
    assert!(v.save_blocked().is_some_and(|m| m.contains("train a model first")));
    v.apply(TranslateAction::Requested);
    assert!(v.save_blocked().is_some_and(|m| m.contains("set up")));
    v.apply(TranslateAction::Event(ready()));
    assert!(v.save_blocked().is_some_and(|m| m.contains("first training step")), "a run at step 0 has learnt nothing");
    v.apply(TranslateAction::Event(TranslateEvent::Progress(Progress { step: 30, total: 400, running: true, ..Default::default() })));
    assert_eq!(v.save_blocked(), None, "saving while training saves the current step");
    let links = vec![("config.json".to_string(), 900, "blob:a".to_string())];
    v.apply(TranslateAction::Event(TranslateEvent::Saved { step: 30, links: links.clone() }));
    assert_eq!((v.run.saved_step, &v.run.links), (30, &links));
    v.apply(TranslateAction::Event(TranslateEvent::Reset));
    assert!(v.run.links.is_empty() && v.run.saved_step == 0);
    v.apply(TranslateAction::Event(TranslateEvent::Saved { step: 30, links }));
    assert!(v.run.links.is_empty(), "links of a dropped run are not shown");
}
