//! The shipped model's cloze scores are what its model card says (recomputed here), and the base
//! model's are what the card says they were before training.

use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::infer::{cloze, parse_cloze};
use std::path::PathBuf;

fn card_score(card: &str, label: &str) -> serde_json::Value {
    let line = card.lines().find(|l| l.starts_with(&format!(": {label}:"))).unwrap_or_else(|| panic!("no `{label}` line"));
    let json = line.split('`').nth(1).expect("score in backticks");
    serde_json::from_str(json).unwrap()
}

#[test]
fn model_card_scores_are_reproduced() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let items = parse_cloze(&std::fs::read_to_string(root.join("benches/cloze.jsonl")).unwrap()).unwrap();
    assert!(items.len() >= 100);
    let card = std::fs::read_to_string(root.join("www/models/bert-tiny/MODEL_CARD.md")).unwrap();
    for (dir, label) in [("www/models/bert-tiny", "after"), ("www/models/bert-tiny-base", "before")] {
        let s = block_on(cloze(&mut Backend::cpu(), &Bert::from_dir(&root.join(dir)).unwrap(), &items)).unwrap();
        let want = card_score(&card, label);
        assert_eq!(s.n as u64, want["n"].as_u64().unwrap());
        for k in ["top1", "top5"] {
            let got = if k == "top1" { s.top1 } else { s.top5 };
            assert!((got - want[k].as_f64().unwrap()).abs() < 1e-9, "{dir} {k}: {got} vs card {}", want[k]);
        }
        if label == "after" {
            // the shipped model's target: >= 30% top-1, >= 55% top-5
            assert!(s.top1 >= 0.30 && s.top5 >= 0.55, "the shipped model scores top-1 {} / top-5 {}", s.top1, s.top5);
        }
    }
}
