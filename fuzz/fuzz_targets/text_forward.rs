//! Any text (and pair) through the default tokenizer and a forward pass: no panic, finite
//! outputs, attention rows that sum to 1, predictions that are probabilities.
#![no_main]

use bertscope::bundle::{Bert, ModelFiles};
use bertscope::config::{BertConfig, Heads};
use bertscope::model::BertParams;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const TOKENIZER: &[u8] = include_bytes!("../../www/models/bert-tiny-base/tokenizer.json");

fn model() -> &'static Bert {
    static M: OnceLock<Bert> = OnceLock::new();
    M.get_or_init(|| {
        // The default vocabulary and positions, a narrow random encoder so each run is fast.
        let cfg = BertConfig::new(30522, 16, 2, 2, 24, 512);
        let params = BertParams::<f32>::init(&cfg, Heads::PRETRAINING, 1);
        let files = ModelFiles {
            config_json: cfg.to_json(),
            weights: bertscope::checkpoint::save_params(&params).expect("save"),
            tokenizer_json: Some(TOKENIZER.to_vec()),
            ..Default::default()
        };
        Bert::from_files(&files).expect("model")
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (a, b) = match text.split_once('|') {
        Some((a, b)) => (a.to_string(), Some(b.to_string())),
        None => (text.to_string(), None),
    };
    let bert = model();
    let r = bertscope::backend::block_on(bertscope::infer::fill(&mut bertscope::backend::Backend::cpu(), bert, &a, b.as_deref(), 3, None)).expect("fill never fails on text");
    for m in &r.masks {
        assert!(m.predictions.iter().all(|p| p.prob.is_finite() && (0.0..=1.0).contains(&p.prob)));
    }
    let (_, tensors) = bertscope::backend::block_on(bertscope::infer::inspect(&mut bertscope::backend::Backend::cpu(), bert, &a, b.as_deref())).expect("inspect never fails on text");
    for (name, t) in tensors {
        if let bertscope::tensorfile::Tensor::F32(x) = t {
            assert!(x.iter().all(|v| v.is_finite()), "{name}");
            if name.starts_with("attentions") {
                for row in x.rows() {
                    assert!((row.sum() - 1.0).abs() < 1e-4, "{name} row sums to {}", row.sum());
                }
            }
        }
    }
});
