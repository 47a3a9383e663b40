//! Tokenisation against HF tokenizers (fixture `tests/fixtures/tokenize.json`, made by
//! `scripts/make_fixtures.py`): tokens, ids, segments, byte offsets and truncation, from the
//! default model's tokenizer.json and from its vocab.txt alone.

use bertscope::tokenize::BertTokenizer;
use serde::Deserialize;
use std::path::PathBuf;

/// What HF's fast tokenizer gave for one text (and pair), in both fixtures.
#[derive(Deserialize)]
struct Expected {
    text: String,
    pair: Option<String>,
    tokens: Vec<String>,
    input_ids: Vec<u32>,
    token_type_ids: Vec<u32>,
    offsets_bytes: Vec<(usize, usize)>,
    truncated: bool,
}

impl Expected {
    /// Our encoding of the same text equals HF's; `model` names the tokenizer in a failure.
    fn check(&self, tok: &BertTokenizer, model: &str) -> bertscope::tokenize::Encoded {
        let e = tok.encode(&self.text, self.pair.as_deref()).unwrap();
        let what = format!("{model} {:?} / {:?}", self.text.chars().take(40).collect::<String>(), self.pair);
        assert_eq!(e.tokens, self.tokens, "{what}");
        assert_eq!(e.input_ids, self.input_ids, "{what}");
        assert_eq!(e.token_type_ids, self.token_type_ids, "{what}");
        assert_eq!(e.offsets, self.offsets_bytes, "{what}");
        assert_eq!(e.truncated, self.truncated, "{what}");
        e
    }
}

#[derive(Deserialize)]
struct Case {
    #[serde(flatten)]
    hf: Expected,
    /// HF's slow (pure-Python) tokenizer's pieces, for the vocab.txt pipeline.
    slow_tokens: Vec<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> Vec<Case> {
    serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/tokenize.json")).unwrap()).unwrap()
}

#[test]
fn tokenizer_json_matches_hf_fast_tokenizer() {
    check_tokenizer_json("www/models/bert-tiny-base/tokenizer.json");
}

#[test]
fn the_shipped_models_rewritten_tokenizer_json_still_matches() {
    // www/models/bert-tiny/tokenizer.json was written back by `bertscope train` (BertTokenizer::to_json)
    check_tokenizer_json("www/models/bert-tiny/tokenizer.json");
}

fn check_tokenizer_json(path: &str) {
    let bytes = std::fs::read(root().join(path)).unwrap();
    let tok = BertTokenizer::from_tokenizer_json(&bytes, 512).unwrap();
    let cases = cases();
    assert!(cases.len() >= 20);
    assert!(cases.iter().any(|c| c.hf.truncated));
    for c in &cases {
        let e = c.hf.check(&tok, path);
        assert!(e.attention_mask.iter().all(|&m| m == 1));
    }
}

#[test]
fn vocab_txt_pipeline_matches_hf_slow_tokenizer() {
    let vocab = std::fs::read_to_string(root().join("tests/fixtures/models/tiny_vocab/vocab.txt")).unwrap();
    let tok = BertTokenizer::from_vocab_txt(&vocab, true, 512).unwrap();
    for c in cases() {
        let e = tok.encode(&c.hf.text, c.hf.pair.as_deref()).unwrap();
        assert_eq!(e.tokens, c.slow_tokens, "{:?}", c.hf.text.chars().take(40).collect::<String>());
    }
}

#[derive(Deserialize)]
struct FamilyCase {
    model: String,
    #[serde(flatten)]
    hf: Expected,
    special_tokens_mask: Vec<u32>,
}

/// RoBERTa's byte-level BPE and DistilBERT's WordPiece, from each hub folder's tokenizer.json and
/// from its vocabulary files alone (vocab.json + merges.txt; vocab.txt), against HF's fast
/// tokenizers (`tests/fixtures/fam_tokenize.json`, made by `scripts/make_family_fixtures.py`).
#[test]
fn family_tokenizers_match_hf_from_tokenizer_json_and_from_vocabulary_files() {
    use bertscope::bundle::{Bert, ModelFiles};
    let cases: Vec<FamilyCase> =
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/fam_tokenize.json")).unwrap()).unwrap();
    assert!(cases.len() >= 30 && cases.iter().any(|c| c.hf.truncated));
    let mut compared = 0;
    for model in ["tests/fixtures/models/roberta_mlm", "tests/fixtures/models/distil_mlm"] {
        let files = ModelFiles::read_dir(&root().join(model)).unwrap();
        let from_json = Bert::from_files(&files).unwrap().tokenizer;
        let from_vocab = Bert::from_files(&ModelFiles { tokenizer_json: None, ..files }).unwrap().tokenizer;
        for tok in [from_json, from_vocab] {
            for c in cases.iter().filter(|c| c.model == model) {
                // "[MASK]" is the model's mask token in bertscope (RoBERTa's <mask>); HF reads it
                // as text, so those cases are checked against "<mask>" below instead
                let (text, pair) = (&c.hf.text, c.hf.pair.as_deref());
                if tok.mask_token != "[MASK]" && (text.contains("[MASK]") || pair.is_some_and(|p| p.contains("[MASK]"))) {
                    continue;
                }
                let e = c.hf.check(&tok, model);
                assert_eq!(e.special, c.special_tokens_mask, "{model} {text:?} / {pair:?}");
                compared += 1;
            }
            if tok.mask_token == "<mask>" {
                let want = &cases.iter().find(|c| c.model == model && c.hf.text == "the <mask> sat").unwrap().hf;
                assert_eq!(tok.encode("the [MASK] sat", None).unwrap().input_ids, want.input_ids, "[MASK] means <mask>");
                assert_eq!(tok.readable("\u{120}world"), "␣world");
                assert_eq!(tok.readable("caf\u{c3}\u{a9}"), "café");
                assert_eq!(tok.readable("<mask>"), "<mask>");
                assert_eq!(tok.readable("\u{120}caf\u{c3}"), "␣caf<C3>", "half a character: its bytes");
                for piece in ["\u{120}world", "caf\u{c3}\u{a9}", "Hello"] {
                    if let Some(id) = tok.token_to_id(piece) {
                        assert_eq!(tok.piece_id(&tok.readable(piece)), Some(id), "{piece}");
                    }
                }
                assert!(tok.piece_id("\u{120}world").is_some() && tok.piece_id("␣world") == tok.piece_id("\u{120}world"));
            }
        }
    }
    assert!(compared >= 60, "{compared}");
}
