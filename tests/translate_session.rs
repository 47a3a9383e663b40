//! The Translate tab's run (`app::jobs::translate`) as the page drives it: numbers to words
//! from scratch until the held-out exact match is high, then "4 5 7" decoded step by step (greedy,
//! seeded sampling, beam search with its tree), each step's attention in the shapes the page draws
//! (the causal mask exactly 0 above the diagonal, -inf before the softmax; cross-attention target
//! rows by source columns); the files Save offers decode the same; pasted data held out a tenth,
//! bad lines named, an empty source refused.

use bertscope::app::jobs::translate::TranslateSession;
use bertscope::app::jobs::Job;
use bertscope::explain::decode::{DecodeAction, DecodeRequest, DecodeView};
use bertscope::explain::translate::{TranslateData, TranslateSetup};
use bertscope::seq2seq::generate::{beam, greedy};
use bertscope::seq2seq::stepper::Method;
use bertscope::seq2seq::Seq2Seq;
use std::path::PathBuf;

fn numbers(f: &str) -> String {
    std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("www/datasets/numbers").join(f)).unwrap()
}

fn check_attention(v: &DecodeView) {
    let (t, s) = (v.prefix.len(), v.source.len());
    assert_eq!((v.self_attn.len(), v.cross_attn.len()), (v.layers * v.heads, v.layers * v.heads));
    for (i, a) in v.self_attn.iter().enumerate() {
        assert_eq!((a.layer, a.head, a.rows, a.cols), (i / v.heads, i % v.heads, t, t));
        for r in 0..t {
            let row = &a.probs[r * t..(r + 1) * t];
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-4, "each row is a distribution");
            for c in r + 1..t {
                assert_eq!(row[c], 0.0, "the future is exactly 0 (layer {} head {}, row {r}, col {c})", a.layer, a.head);
                assert!(a.masked[r * t + c] && a.scores[r * t + c] == f32::NEG_INFINITY);
            }
            assert!(a.scores[r * t..r * t + r + 1].iter().all(|x| x.is_finite()));
        }
    }
    for a in &v.cross_attn {
        assert_eq!((a.rows, a.cols), (t, s), "target rows by source columns");
        assert!(a.masked.iter().all(|m| !m) && a.probs.iter().all(|&p| p > 0.0), "every source token is visible");
    }
}

#[test]
fn numbers_from_scratch_then_four_five_seven_step_by_step() {
    let urls = TranslateData::Urls { train: "datasets/numbers/train.jsonl".into(), test: "datasets/numbers/test.jsonl".into() };
    let setup = TranslateSetup { steps: 500, eval_every: 100, ..TranslateSetup::defaults("numbers", urls) };
    let mut run = TranslateSession::new(&numbers("train.jsonl"), Some(&numbers("test.jsonl")), &setup).unwrap();
    assert_eq!((run.train_pairs(), run.eval_pairs()), (900, 30));
    let s0 = run.score().unwrap();
    assert!(s0.held_out && s0.exact_match < 0.1 && s0.examples.len() == 5, "{s0:?}");
    let t0 = std::time::Instant::now();
    let (mut points, mut scores) = (vec![], vec![]);
    while !run.finished() {
        let (p, s) = run.step().unwrap();
        points.push(p);
        scores.extend(s);
    }
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(scores.iter().map(|s| s.step).collect::<Vec<_>>(), [100, 200, 300, 400, 500]);
    assert_eq!(points.iter().filter(|p| p.exact_match.is_some()).count(), 5);
    let last = scores.last().unwrap();
    eprintln!(
        "numbers: 500 steps in {secs:.1} s, loss {} -> {}, exact match {:?}",
        points[0].loss,
        points[499].loss,
        scores.iter().map(|s| s.exact_match).collect::<Vec<_>>()
    );
    assert!(points[499].loss < points[0].loss / 4.0);
    assert!(last.exact_match >= 0.9, "held-out exact match {}", last.exact_match);

    // greedy, one step at a time: the same tokens as generate's greedy, the mask in every view
    let m = &run.trainer.model;
    let want = greedy(m, "4 5 7", 23, 1).unwrap();
    assert_eq!(want.text, "four hundred fifty seven");
    // what the tab's Save offers (the folder `bertscope train` writes) loads back to the same decoder
    let saved = Seq2Seq::from_files(&m.to_files().unwrap()).unwrap();
    assert!(bertscope::seq2seq::is_encoder_decoder(&saved.to_files().unwrap().config_json));
    assert_eq!(greedy(&saved, "4 5 7", 23, 1).unwrap(), want);
    let req = DecodeRequest { source: "4 5 7".into(), method: Method::Greedy };
    let v0 = run.decode(&req, DecodeAction::Restart).unwrap();
    assert_eq!((v0.step, v0.prefix.clone(), v0.generated.len(), v0.done), (0, vec!["[CLS]".to_string()], 0, false));
    assert_eq!(v0.source, ["[CLS]", "4", "5", "7", "[SEP]"]);
    assert_eq!(v0.next[0].token, "four", "the first guess is shown before any step");
    let mut views = vec![];
    while !run.decode_done() {
        let v = run.decode(&req, DecodeAction::Step).unwrap();
        check_attention(&v);
        assert_eq!(v.chosen.as_ref().map(|c| c.token.clone()), Some(v.next[0].token.clone()), "greedy takes the most probable");
        assert_eq!(v.prefix.len(), v.step, "step n read n tokens");
        views.push(v);
    }
    let end = views.last().unwrap();
    assert_eq!((end.text.as_str(), end.done), ("four hundred fifty seven", true));
    assert_eq!(end.generated.last().map(String::as_str), Some("[SEP]"));
    assert!(end.stop.contains("[SEP]"), "{}", end.stop);
    assert_eq!(views.len(), want.ids.len());
    assert_eq!(run.decode(&req, DecodeAction::Step).unwrap(), *end, "a step after the end changes nothing");

    // beam search: the tree, and the same answer as generate's beam
    let b = beam(&run.trainer.model, "4 5 7", 23, 3, 1.0).unwrap();
    let req = DecodeRequest { source: "4 5 7".into(), method: Method::Beam { k: 3, length_penalty: 1.0 } };
    let v = run.decode(&req, DecodeAction::RunToEnd).unwrap();
    assert_eq!((v.text.clone(), v.done), (b.text.clone(), true));
    let tree = v.beams.as_ref().unwrap();
    assert_eq!(tree.start, "[CLS]");
    assert!(tree.steps.iter().all(|l| l.iter().filter(|n| !n.finished).count() <= 3));
    assert_eq!(tree.steps.iter().filter(|l| l.iter().any(|n| n.on_path)).count(), b.ids.len(), "the path to the answer");

    // sampling: seeded, so the same seed gives the same text; another source restarts
    let sample = |seed| DecodeRequest { source: "4 5 7".into(), method: Method::Sample { temperature: 0.7, top_k: 5, seed } };
    let a = run.decode(&sample(3), DecodeAction::RunToEnd).unwrap();
    assert_eq!(run.decode(&sample(3), DecodeAction::Restart).unwrap().step, 0);
    assert_eq!(run.decode(&sample(3), DecodeAction::RunToEnd).unwrap().text, a.text);
    assert!(a.next.len() <= 5 && (a.next.iter().map(|c| c.prob).sum::<f32>() - 1.0).abs() < 1e-4, "top-5, renormalised");
    let other = run.decode(&DecodeRequest { source: "1 0".into(), method: Method::Greedy }, DecodeAction::Step).unwrap();
    assert_eq!((other.step, other.text.as_str()), (1, "ten"));

    // an empty source is refused with a message; decoding goes on afterwards
    let e = run.decode(&DecodeRequest { source: "  ".into(), method: Method::Greedy }, DecodeAction::Step).unwrap_err();
    assert!(e.to_string().contains("source is empty"), "{e}");
    let e = run.decode(&DecodeRequest { source: "1".into(), method: Method::Beam { k: 20, length_penalty: 1.0 } }, DecodeAction::Step);
    assert!(e.unwrap_err().to_string().contains("1 to 8 beams"));
    assert_eq!(run.decode(&req, DecodeAction::RunToEnd).unwrap().text, b.text);
}

#[test]
fn pasted_pairs_hold_out_a_tenth_and_bad_lines_are_named() {
    let text: String = numbers("train.jsonl").lines().take(40).map(|l| format!("{l}\n")).collect();
    let setup = TranslateSetup { steps: 3, batch: 4, ..TranslateSetup::defaults("custom", TranslateData::Text(text.clone())) };
    let mut run = TranslateSession::new(&text, None, &setup).unwrap();
    assert_eq!((run.train_pairs(), run.eval_pairs()), (36, 4));
    let (p, s) = run.step().unwrap();
    assert!(p.step == 1 && p.loss.is_finite() && s.is_none());
    run.step().unwrap();
    let (_, s) = run.step().unwrap();
    assert!(s.is_some_and(|s| s.step == 3 && s.held_out), "scored at the end");
    assert!(run.step().unwrap_err().to_string().contains("complete"));

    // a hostile source (far too long, emoji, right-to-left, control characters) is cut to the
    // positions and decoded; the view's shapes hold
    let long = format!("{} 😀 שלום \u{7} {}", "1 2 3 ".repeat(200), "\t\n");
    let req = DecodeRequest { source: long, method: Method::Beam { k: 2, length_penalty: 1.0 } };
    let v = run.decode(&req, DecodeAction::RunToEnd).unwrap();
    assert!(v.done && v.source.len() <= setup.max_len && v.cross_attn.iter().all(|a| a.cols == v.source.len()));

    let few = "{\"source\": \"1\", \"target\": \"one\"}\n{\"source\": \"2\", \"target\": \"two\"}\n";
    let run = TranslateSession::new(few, None, &TranslateSetup { data: TranslateData::Text(few.into()), ..setup.clone() }).unwrap();
    assert!(!run.score().unwrap().held_out, "too few to hold out: scored on the training pairs");

    for (bad, want) in [
        (format!("{few}{{\"source\": \"3\"}}\n"), "the pasted data, line 3"),
        (format!("{few}not json\n"), "line 3"),
        (
            "{\"source\": \"1\", \"target\": \"\"}\n{\"source\": \"2\", \"target\": \"two\"}\n".to_string(),
            "line 1: an empty source or target",
        ),
    ] {
        let s = TranslateSetup { data: TranslateData::Text(bad.clone()), ..setup.clone() };
        let e = TranslateSession::new(&bad, None, &s).err().expect("refused");
        assert!(e.to_string().contains(want), "{e} (wanted {want})");
    }
    let s = TranslateSetup { data: TranslateData::Text("one line".into()), ..setup };
    assert!(TranslateSession::new("one line", None, &s).err().unwrap().to_string().contains("at least two"));
}
