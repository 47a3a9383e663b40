//! The shipped MiniLM masked LM (www/models/minilm-l6-mlm): its files load as a 6 x 12 BERT in f16
//! within the page's budget, it answers as Hugging Face's BertForMaskedLM does on the same folder
//! (top-5 tokens and probabilities; the fixture is written by scripts/check_hf_mlm.py), and its
//! card's cloze scores are what the engine computes.

use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::infer::{cloze, fill, parse_cloze};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn model() -> Bert {
    Bert::from_dir(&root().join("www/models/minilm-l6-mlm")).expect("the shipped model loads")
}

#[test]
fn files_are_a_6_by_12_bert_in_f16_within_50_mb() {
    let dir = root().join("www/models/minilm-l6-mlm");
    let bytes = std::fs::metadata(dir.join("model.safetensors")).unwrap().len();
    assert!(bytes <= 50_000_000, "model.safetensors is {bytes} bytes");
    let raw = std::fs::read(dir.join("model.safetensors")).unwrap();
    let st = safetensors::SafeTensors::deserialize(&raw).unwrap();
    assert!(st.tensors().iter().all(|(_, v)| v.dtype() == safetensors::Dtype::F16), "every tensor is f16");
    let b = model();
    assert_eq!((b.cfg.num_hidden_layers, b.cfg.num_attention_heads, b.cfg.hidden_size), (6, 12, 384));
    assert!(b.params.mlm.is_some() && b.params.mlm.as_ref().unwrap().decoder.is_none(), "an MLM head tied to the word embeddings");
    for f in ["LICENSE", "NOTICE", "MODEL_CARD.md", "tokenizer.json"] {
        assert!(dir.join(f).is_file(), "{f} is shipped beside the weights");
    }
}

#[test]
fn answers_as_hugging_face_does() {
    let fx: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/shipped_minilm_hf.json")).unwrap()).unwrap();
    let tol = fx["prob_tol"].as_f64().unwrap();
    let b = model();
    let mut be = Backend::cpu();
    let cases = fx["cases"].as_array().unwrap();
    assert!(cases.len() >= 20);
    for c in cases {
        let text = c["text"].as_str().unwrap();
        let r = block_on(fill(&mut be, &b, text, None, 5, None)).unwrap();
        let want = c["masks"].as_array().unwrap();
        assert_eq!(r.masks.len(), want.len(), "{text}");
        for (m, w) in r.masks.iter().zip(want) {
            assert_eq!(m.position as u64, w["position"].as_u64().unwrap(), "{text}");
            let ids: Vec<u64> = m.predictions.iter().map(|p| p.id as u64).collect();
            let want_ids: Vec<u64> = w["ids"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
            for (k, p) in m.predictions.iter().enumerate() {
                let hp = w["probs"][k].as_f64().unwrap();
                assert!((p.prob as f64 - hp).abs() <= tol, "{text}: guess {k} prob {} vs HF {hp}", p.prob);
            }
            // guesses whose probabilities are within the tolerance may come in either order
            let (mut a, mut z) = (ids.clone(), want_ids.clone());
            a.sort();
            z.sort();
            assert!(ids == want_ids || a == z, "{text}: top-5 {ids:?} vs HF {want_ids:?}");
        }
    }
}

#[test]
fn card_scores_are_reproduced() {
    let card = std::fs::read_to_string(root().join("www/models/minilm-l6-mlm/MODEL_CARD.md")).unwrap();
    let line = card.lines().find(|l| l.starts_with(": shipped (f16):")).expect("a `: shipped (f16):` line in the card");
    let want: serde_json::Value = serde_json::from_str(line.split('`').nth(1).expect("score in backticks")).unwrap();
    let items = parse_cloze(&std::fs::read_to_string(root().join("benches/cloze.jsonl")).unwrap()).unwrap();
    let s = block_on(cloze(&mut Backend::cpu(), &model(), &items)).unwrap();
    assert_eq!(s.n as u64, want["n"].as_u64().unwrap());
    assert!((s.top1 - want["top1"].as_f64().unwrap()).abs() < 1e-9, "top-1 {} vs the card's {}", s.top1, want["top1"]);
    assert!((s.top5 - want["top5"].as_f64().unwrap()).abs() < 1e-9, "top-5 {} vs the card's {}", s.top5, want["top5"]);
}

/// On the GPU (natively: lavapipe in CI, WebGPU's code path) the shipped model gives the CPU
/// path's top-1 at every [MASK] of the fixture's sentences, with probabilities within 1e-3.
#[test]
fn the_gpu_gives_the_cpu_paths_top_1() {
    let fx: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/shipped_minilm_hf.json")).unwrap()).unwrap();
    let b = model();
    let mut cpu = Backend::cpu();
    let mut gpu = block_on(Backend::open_gpu()).expect("a GPU adapter is required (CI: apt-get install mesa-vulkan-drivers for lavapipe)");
    for c in fx["cases"].as_array().unwrap() {
        let text = c["text"].as_str().unwrap();
        let on_cpu = block_on(fill(&mut cpu, &b, text, None, 5, None)).unwrap();
        let on_gpu = block_on(fill(&mut gpu, &b, text, None, 5, None)).unwrap();
        for (x, y) in on_cpu.masks.iter().zip(&on_gpu.masks) {
            assert_eq!(
                x.predictions[0].id, y.predictions[0].id,
                "{text}: top-1 {} on the CPU, {} on the GPU",
                x.predictions[0].token, y.predictions[0].token
            );
            assert!(
                (x.predictions[0].prob - y.predictions[0].prob).abs() < 1e-3,
                "{text}: {} vs {}",
                x.predictions[0].prob,
                y.predictions[0].prob
            );
        }
    }
}
