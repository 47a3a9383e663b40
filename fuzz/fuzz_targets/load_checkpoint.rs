//! Checkpoint loading must return an error, never panic or abort, whatever the bytes: the
//! safetensors file, config.json, or tokenizer files of a model folder.
#![no_main]

use bertscope::bundle::{Bert, ModelFiles};
use bertscope::checkpoint::load_params;
use bertscope::BertConfig;
use libfuzzer_sys::fuzz_target;

const CONFIG: &str = include_str!("../../tests/fixtures/models/relu_tiny/config.json");
const WEIGHTS: &[u8] = include_bytes!("../../tests/fixtures/models/relu_tiny/model.safetensors");
const VOCAB: &str = include_str!("../../tests/fixtures/models/relu_tiny/vocab.txt");

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    match mode % 4 {
        // arbitrary weights under a fixed config
        0 => {
            let cfg = BertConfig::from_json(CONFIG).expect("fixture config");
            if let Ok((p, _)) = load_params(&cfg, rest) {
                assert!(p.tensors().iter().all(|(_, t)| t.iter().all(|v| v.is_finite())));
            }
        }
        // arbitrary config.json against the fixed weights (only configs small enough to allocate)
        1 => {
            let text = String::from_utf8_lossy(rest);
            if let Ok(cfg) = BertConfig::from_json(&text) {
                let n = bertscope::config::count_params(&cfg, bertscope::config::Heads::PRETRAINING).total;
                if n < 5_000_000 {
                    let _ = load_params(&cfg, WEIGHTS);
                }
            }
        }
        // arbitrary vocab.txt / tokenizer_config.json with the fixed model
        2 => {
            let text = String::from_utf8_lossy(rest).to_string();
            let (vocab, tok_cfg) = match text.split_once('\u{1}') {
                Some((v, c)) => (v.to_string(), Some(c.to_string())),
                None => (text, None),
            };
            let files = ModelFiles {
                config_json: CONFIG.into(),
                weights: WEIGHTS.to_vec(),
                tokenizer_json: None,
                vocab_txt: Some(vocab),
                tokenizer_config_json: tok_cfg,
            };
            if let Ok(b) = Bert::from_files(&files) {
                let _ = bertscope::backend::block_on(bertscope::infer::fill(&mut bertscope::backend::Backend::cpu(), &b, "the [MASK] sat", None, 3, None));
            }
        }
        // arbitrary tokenizer.json
        _ => {
            let files = ModelFiles {
                config_json: CONFIG.into(),
                weights: WEIGHTS.to_vec(),
                tokenizer_json: Some(rest.to_vec()),
                vocab_txt: Some(VOCAB.into()),
                tokenizer_config_json: None,
            };
            if let Ok(b) = Bert::from_files(&files) {
                let _ = bertscope::backend::block_on(bertscope::infer::fill(&mut bertscope::backend::Backend::cpu(), &b, "the [MASK] sat", None, 3, None));
            }
        }
    }
});
