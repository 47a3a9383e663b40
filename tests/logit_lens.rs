//! The logit lens (`infer::lens`, `bertscope fill --layers`) against HF: every layer's top-5 at
//! every mask of three models, probabilities within 1e-4 (scripts/logit_lens_reference.py).

use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::infer::{fill, lens::fill_layers};
use serde_json::Value;
use std::path::Path;

#[test]
fn every_layer_s_guesses_match_hf_on_three_models() {
    let r: Value = serde_json::from_str(&std::fs::read_to_string("tests/fixtures/logit_lens_hf.json").unwrap()).unwrap();
    for (name, m) in r["models"].as_object().unwrap() {
        let bert = Bert::from_dir(Path::new(m["model"].as_str().unwrap())).unwrap();
        for input in m["inputs"].as_array().unwrap() {
            let (text, pair) = (input["text"].as_str().unwrap(), input["pair"].as_str());
            let got = block_on(fill_layers(&mut Backend::cpu(), &bert, text, pair, 5)).unwrap();
            let plain = block_on(fill(&mut Backend::cpu(), &bert, text, pair, 5, None)).unwrap();
            let want = input["masks"].as_array().unwrap();
            assert_eq!(got.masks.len(), want.len(), "{name}: {text}");
            for ((g, w), p) in got.masks.iter().zip(want).zip(&plain.masks) {
                assert_eq!(g.position as u64, w["position"].as_u64().unwrap());
                let layers = g.layers.as_ref().unwrap();
                assert_eq!(layers.len(), bert.cfg.num_hidden_layers + 1, "the embeddings and each layer");
                for (gl, wl) in layers.iter().zip(w["layers"].as_array().unwrap()) {
                    let at = format!("{name} {text:?} mask {} layer {}", g.position, gl.layer);
                    let (ids, probs) = (wl["ids"].as_array().unwrap(), wl["probs"].as_array().unwrap());
                    for (k, pr) in gl.predictions.iter().enumerate() {
                        let hf = probs[k].as_f64().unwrap();
                        assert!((pr.prob as f64 - hf).abs() <= 1e-4, "{at} #{k}: {} vs HF {hf}", pr.prob);
                        // the same token, unless HF's neighbours are tied
                        let tied = [k.wrapping_sub(1), k + 1].iter().any(|&j| j < 5 && (probs[j].as_f64().unwrap() - hf).abs() < 1e-6);
                        assert!(tied || pr.id as u64 == ids[k].as_u64().unwrap(), "{at} #{k}: id {} vs HF {}", pr.id, ids[k]);
                    }
                    let hf = wl["answer_prob"].as_f64().unwrap();
                    assert!((gl.answer_prob as f64 - hf).abs() <= 1e-4, "{at}: answer prob {} vs HF {hf}", gl.answer_prob);
                }
                // the last layer's guesses are the model's own
                let last = layers.last().unwrap();
                assert_eq!(
                    last.predictions.iter().map(|x| x.id).collect::<Vec<_>>(),
                    p.predictions.iter().map(|x| x.id).collect::<Vec<_>>()
                );
                assert!((last.answer_prob - p.predictions[0].prob).abs() < 1e-6);
            }
        }
    }
}

#[test]
fn a_model_without_a_masked_lm_head_is_a_clear_error() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_bertscope"))
        .args(["fill", "--model", "tests/fixtures/models/base_model", "--text", "the [MASK] sat", "--layers"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("no MLM head") && !err.contains("panicked"), "{err}");
}
