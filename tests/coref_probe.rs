//! The coreference probe (`app::coref_probe`, `bertscope coref`) against HF: every head's shares on
//! the bundled dev and test sentences (scripts/coref_reference.py), and its bad input.

use bertscope::app::coref_probe::{parse_items, probe};
use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::infer::KEY;
use serde_json::Value;
use std::path::Path;

fn read(p: &str) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn every_head_s_shares_match_hf() {
    let r: Value = serde_json::from_str(&read("tests/fixtures/coref_hf.json")).unwrap();
    let (dev, test) =
        (parse_items(&read("www/datasets/coref/dev.jsonl")).unwrap(), parse_items(&read("www/datasets/coref/test.jsonl")).unwrap());
    assert!(dev.len() + test.len() >= 150);
    for (name, m) in r["models"].as_object().unwrap() {
        let bert = Bert::from_dir(Path::new(m["model"].as_str().unwrap())).unwrap();
        let rep = block_on(probe(&mut Backend::cpu(), &bert, KEY, &dev, &test)).unwrap();
        // one sentence may flip where HF's two attentions are within float32 rounding of each other
        let slack = if m["min_margin"].as_f64().unwrap() < 1e-5 { 1.0 } else { 0.0 };
        for h in &rep.heads {
            for (split, got, n) in [("dev", h.dev, dev.len()), ("test", h.test, test.len())] {
                let want = m[split][h.layer][h.head].as_f64().unwrap();
                let off = ((got as f64 - want) * n as f64).abs();
                assert!(off <= slack + 1e-3, "{name} layer {} head {} {split}: {got} vs HF {want}", h.layer, h.head);
            }
        }
        let best_dev = rep.heads.iter().map(|h| h.dev).fold(0f32, f32::max);
        assert_eq!(rep.best.dev, best_dev);
        assert_eq!((rep.nearest_noun.dev, rep.nearest_noun.test), (0.5, 0.5), "the antecedent is first or second equally often");
    }
}

#[test]
fn bad_sets_name_the_line() {
    assert!(parse_items("").err().unwrap().to_string().contains("no sentences"));
    let e = parse_items("{\"text\": \"a\", \"pronoun\": [0, 1], \"antecedent\": [0, 1], \"distractor\": [0, 1]}\n{\"text\": 3}\n")
        .err()
        .unwrap();
    assert!(e.to_string().contains("line 2"), "{e}");
    let bert = Bert::from_dir(Path::new("www/models/bert-tiny")).unwrap();
    let beyond = parse_items("{\"text\": \"he ran.\", \"pronoun\": [0, 2], \"antecedent\": [40, 43], \"distractor\": [3, 6]}").unwrap();
    let e = block_on(probe(&mut Backend::cpu(), &bert, KEY, &beyond, &beyond)).err().unwrap();
    assert!(e.to_string().contains("no token at character 40"), "{e}");
}
