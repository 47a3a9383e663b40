//! Tokenisation through the `tokenizers` crate: a `tokenizer.json` (BERT's and DistilBERT's
//! WordPiece, RoBERTa's byte-level BPE), the BERT pipeline (BertNormalizer, BertPreTokenizer,
//! WordPiece, [CLS] A [SEP] B [SEP]) built from a `vocab.txt`, or RoBERTa's (ByteLevel, BPE,
//! <s> A </s></s> B </s>) built from `vocab.json` + `merges.txt`.
//!
//! Over 400 lines (tests included): three ways in (tokenizer.json, vocab.txt, vocab.json +
//! merges.txt) must give one `BertTokenizer` with its special tokens found by role, so they stay
//! together, with the tests that hold them to the same encodings.

use crate::error::{BertError, Result};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokenizers::decoders::wordpiece::WordPiece as WordPieceDecoder;
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::normalizers::bert::BertNormalizer;
use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
use tokenizers::processors::bert::BertProcessing;
use tokenizers::{
    AddedToken, DecoderWrapper, EncodeInput, NormalizerWrapper, PaddingParams, PostProcessorWrapper, PreTokenizerWrapper, Tokenizer,
    TruncationDirection, TruncationParams, TruncationStrategy,
};

/// One encoded input, all vectors of length T.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Encoded {
    pub tokens: Vec<String>,
    pub input_ids: Vec<u32>,
    pub token_type_ids: Vec<u32>,
    pub attention_mask: Vec<u32>,
    /// 1 for [CLS], [SEP] and other special tokens.
    pub special: Vec<u32>,
    /// Byte range of each token in its own text (the pair's tokens point into the pair); (0, 0) for specials.
    pub offsets: Vec<(usize, usize)>,
    /// Which text each token came from: Some(0) the first, Some(1) the pair, None a special token.
    pub sequence: Vec<Option<usize>>,
    /// True when the input was cut to the maximum length.
    pub truncated: bool,
}

/// How a tokenizer splits words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Scheme {
    /// BERT's and DistilBERT's: `##` continues a word.
    WordPiece,
    /// RoBERTa's and GPT-2's: merges over bytes; `Ġ` is a space before the piece.
    ByteLevelBpe,
    /// Anything else `tokenizer.json` holds.
    Other,
}

impl Scheme {
    pub fn display(self) -> &'static str {
        match self {
            Scheme::WordPiece => "WordPiece",
            Scheme::ByteLevelBpe => "byte-level BPE",
            Scheme::Other => "a tokenizer.json model",
        }
    }
}

#[derive(Clone)]
pub struct BertTokenizer {
    inner: Tokenizer,
    pub max_len: usize,
    pub mask_id: u32,
    pub cls_id: u32,
    pub sep_id: u32,
    pub pad_id: u32,
    /// The mask token as typed (`[MASK]`, RoBERTa's `<mask>`); "[MASK]" in a text means it too.
    pub mask_token: String,
    pub scheme: Scheme,
}

const SPECIALS: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
/// RoBERTa's names for the same roles.
const BPE_SPECIALS: [&str; 5] = ["<pad>", "<unk>", "<s>", "</s>", "<mask>"];

impl BertTokenizer {
    /// From the bytes of a `tokenizer.json`.
    pub fn from_tokenizer_json(bytes: &[u8], max_len: usize) -> Result<Self> {
        // The tokenizers crate `expect`s on some malformed input (found by fuzzing): check that the
        // file is JSON first, and natively also catch a panic, so a bad file is an error.
        serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
            .map_err(|e| BertError::Tokenizer(format!("tokenizer.json is not valid JSON: {e}")))?;
        if let Some(inner) = wordpiece_json(bytes)? {
            return Self::wrap(inner, max_len);
        }
        let parsed = std::panic::catch_unwind(|| Tokenizer::from_bytes(bytes))
            .map_err(|_| BertError::Tokenizer("tokenizer.json is malformed".into()))?;
        let inner = parsed.map_err(|e| BertError::Tokenizer(format!("tokenizer.json cannot be read: {e}")))?;
        Self::wrap(inner, max_len)
    }

    /// From a `vocab.txt` (one token a line, id = line number) and the lower-casing flag of
    /// `tokenizer_config.json` (`do_lower_case`, true when absent).
    pub fn from_vocab_txt(vocab: &str, lowercase: bool, max_len: usize) -> Result<Self> {
        let mut map = ahash::AHashMap::new();
        for (i, line) in vocab.lines().enumerate() {
            let tok = line.trim_end_matches('\r');
            if tok.is_empty() {
                continue;
            }
            map.entry(tok.to_string()).or_insert(i as u32);
        }
        for s in ["[UNK]", "[CLS]", "[SEP]"] {
            if !map.contains_key(s) {
                return Err(BertError::Tokenizer(format!("vocab.txt has no {s} token")));
            }
        }
        let id = |s: &str| map[s];
        let (cls, sep) = (id("[CLS]"), id("[SEP]"));
        let wp = WordPiece::builder()
            .vocab(map.clone())
            .unk_token("[UNK]".into())
            .continuing_subword_prefix("##".into())
            .max_input_chars_per_word(100)
            .build()
            .map_err(|e| BertError::Tokenizer(format!("vocab.txt: {e}")))?;
        let mut inner = Tokenizer::new(wp);
        inner
            .with_normalizer(Some(BertNormalizer::new(true, true, None, lowercase)))
            .with_pre_tokenizer(Some(BertPreTokenizer))
            .with_post_processor(Some(BertProcessing::new(("[SEP]".into(), sep), ("[CLS]".into(), cls))))
            .with_decoder(Some(WordPieceDecoder::new("##".into(), true)));
        let specials: Vec<AddedToken> =
            SPECIALS.iter().filter(|s| map.contains_key(**s)).map(|s| AddedToken::from(s.to_string(), true)).collect();
        inner.add_special_tokens(&specials);
        Self::wrap(inner, max_len)
    }

    fn wrap(mut inner: Tokenizer, max_len: usize) -> Result<Self> {
        inner.with_padding(None);
        inner
            .with_truncation(Some(TruncationParams {
                max_length: max_len,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| BertError::Tokenizer(format!("cannot truncate to {max_len}: {e}")))?;
        // each role by BERT's name, else RoBERTa's
        let role = |i: usize| [SPECIALS[i], BPE_SPECIALS[i]].into_iter().find_map(|s| inner.token_to_id(s).map(|id| (id, s)));
        let need = |i: usize| {
            role(i).ok_or_else(|| BertError::Tokenizer(format!("the vocabulary has no {} (or {}) token", SPECIALS[i], BPE_SPECIALS[i])))
        };
        let (cls_id, sep_id) = (need(2)?.0, need(3)?.0);
        let (mask_id, mask_token) = need(4)?;
        let pad_id = role(0).map_or(0, |r| r.0);
        let scheme = match inner.get_model() {
            tokenizers::ModelWrapper::WordPiece(_) => Scheme::WordPiece,
            tokenizers::ModelWrapper::BPE(_) if matches!(inner.get_pre_tokenizer(), Some(PreTokenizerWrapper::ByteLevel(_))) => {
                Scheme::ByteLevelBpe
            }
            _ => Scheme::Other,
        };
        Ok(BertTokenizer { inner, max_len, mask_id, cls_id, sep_id, pad_id, mask_token: mask_token.to_string(), scheme })
    }

    /// RoBERTa's tokenizer from a `vocab.json` (piece -> id) and `merges.txt` (one merge a line,
    /// after a `#version` header), as `RobertaTokenizerFast` builds it: byte-level pre-tokenizer
    /// without a prefix space, BPE, `<s> A </s></s> B </s>`, `<mask>` taking the space before it.
    pub fn from_vocab_merges(vocab_json: &str, merges: &str, max_len: usize) -> Result<Self> {
        use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
        use tokenizers::models::bpe::BPE;
        use tokenizers::pre_tokenizers::byte_level::ByteLevel;
        use tokenizers::processors::roberta::RobertaProcessing;
        let vocab: ahash::AHashMap<String, u32> =
            serde_json::from_str(vocab_json).map_err(|e| BertError::Tokenizer(format!("vocab.json is not a piece -> id map: {e}")))?;
        let mut pairs = Vec::new();
        for (i, line) in merges.lines().enumerate() {
            if line.starts_with("#version") || line.trim().is_empty() {
                continue;
            }
            let (a, b) = line
                .split_once(' ')
                .ok_or_else(|| BertError::Tokenizer(format!("merges.txt line {}: `{line}` is not two pieces", i + 1)))?;
            pairs.push((a.to_string(), b.to_string()));
        }
        let id = |s: &str| vocab.get(s).copied().ok_or_else(|| BertError::Tokenizer(format!("vocab.json has no {s} token")));
        let (cls, sep) = (id("<s>")?, id("</s>")?);
        let bpe = BPE::builder()
            .vocab_and_merges(vocab.clone(), pairs)
            .unk_token("<unk>".into())
            .build()
            .map_err(|e| BertError::Tokenizer(format!("vocab.json / merges.txt: {e}")))?;
        let mut inner = Tokenizer::new(bpe);
        inner
            .with_pre_tokenizer(Some(ByteLevel::new(false, true, true)))
            .with_post_processor(Some(RobertaProcessing::new(("</s>".into(), sep), ("<s>".into(), cls)).add_prefix_space(false)))
            .with_decoder(Some(ByteLevelDecoder::default()));
        let specials: Vec<AddedToken> = BPE_SPECIALS
            .iter()
            .filter(|s| vocab.contains_key(**s))
            .map(|s| AddedToken::from(s.to_string(), true).lstrip(*s == "<mask>"))
            .collect();
        inner.add_special_tokens(&specials);
        Self::wrap(inner, max_len)
    }

    /// A piece as a reader should see it: byte-level BPE pieces decoded from their byte alphabet
    /// (`Ġ`, a space before the piece, shown as `␣`; `Ã©` shown as `é`); others unchanged.
    pub fn readable(&self, piece: &str) -> String {
        if self.scheme != Scheme::ByteLevelBpe || self.inner.token_to_id(piece).is_some_and(|id| self.special_ids().contains(&id)) {
            return piece.to_string();
        }
        let bytes: Option<Vec<u8>> = piece.chars().map(byte_of_char).collect();
        match bytes.map(String::from_utf8) {
            Some(Ok(s)) => s.replace(' ', "␣").replace('\n', "↵"),
            // part of a character (a multi-byte letter split across pieces): its bytes in hex
            Some(Err(e)) => e
                .into_bytes()
                .iter()
                .map(|&b| match b {
                    b' ' => "␣".to_string(),
                    b if b.is_ascii_graphic() => (b as char).to_string(),
                    b => format!("<{b:02X}>"),
                })
                .collect(),
            None => piece.to_string(),
        }
    }

    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    pub fn id_to_token(&self, id: u32) -> String {
        self.inner.id_to_token(id).unwrap_or_else(|| format!("[id {id}]"))
    }

    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    /// The text of `ids`, special tokens left out.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        self.inner.decode(ids, true).map_err(|e| BertError::Tokenizer(format!("cannot decode: {e}")))
    }

    /// The id of a piece written as the vocabulary holds it or as `readable` shows it.
    pub fn piece_id(&self, text: &str) -> Option<u32> {
        self.inner.token_to_id(text).or_else(|| {
            let raw = text.replace('␣', " ").replace('↵', "\n");
            let piece: String = raw.bytes().map(char_of_byte).collect();
            (self.scheme == Scheme::ByteLevelBpe).then(|| self.inner.token_to_id(&piece)).flatten()
        })
    }

    /// WordPiece ids of `text` without special tokens and without truncation (training data).
    pub fn ids(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self.inner.encode_fast(text, false).map_err(|e| BertError::Tokenizer(format!("cannot encode: {e}")))?;
        Ok(enc.get_ids().to_vec())
    }

    /// Ids of the special tokens ([PAD], [UNK], [CLS], [SEP], [MASK]) this vocabulary has.
    pub fn special_ids(&self) -> Vec<u32> {
        SPECIALS.iter().chain(&BPE_SPECIALS).filter_map(|s| self.inner.token_to_id(s)).collect()
    }

    /// The tokenizer as `tokenizer.json`.
    pub fn to_json(&self) -> Result<String> {
        let mut t = self.inner.clone();
        t.with_truncation(None).map_err(|e| BertError::Tokenizer(e.to_string()))?;
        t.to_string(true).map_err(|e| BertError::Tokenizer(format!("cannot serialise: {e}")))
    }

    /// Trains a WordPiece vocabulary of about `vocab_size` on `text` (one sequence a line) and
    /// returns the BERT pipeline around it (lower-casing, [CLS] A [SEP] B [SEP]).
    pub fn train_wordpiece(text: &str, vocab_size: usize, max_len: usize) -> Result<Self> {
        use tokenizers::models::wordpiece::WordPieceTrainer;
        use tokenizers::models::TrainerWrapper;
        let specials: Vec<AddedToken> = SPECIALS.iter().map(|s| AddedToken::from(s.to_string(), true)).collect();
        let trainer = WordPieceTrainer::builder()
            .vocab_size(vocab_size)
            .min_frequency(2)
            .show_progress(false)
            .special_tokens(specials.clone())
            .continuing_subword_prefix("##".into())
            .build();
        let mut trainer: TrainerWrapper = trainer.into();
        let mut inner = Tokenizer::new(
            WordPiece::builder()
                .unk_token("[UNK]".into())
                .continuing_subword_prefix("##".into())
                .build()
                .map_err(|e| BertError::Tokenizer(e.to_string()))?,
        );
        inner.with_normalizer(Some(BertNormalizer::new(true, true, None, true))).with_pre_tokenizer(Some(BertPreTokenizer));
        // Serially: the parallel trainer merges its threads' word counts in the order they finish,
        // which breaks ties between equally frequent merges differently from run to run (a test
        // training two vocabularies at once saw two different ones). Restored afterwards.
        let parallel = tokenizers::utils::parallelism::get_parallelism();
        tokenizers::utils::parallelism::set_parallelism(false);
        let trained = inner.train(&mut trainer, text.lines().filter(|l| !l.trim().is_empty()));
        tokenizers::utils::parallelism::set_parallelism(parallel);
        trained.map_err(|e| BertError::Tokenizer(format!("cannot train a vocabulary: {e}")))?;
        // The trainer's ids depend on hash-map order; fix them: specials first, then the rest
        // sorted, so the same corpus always gives the same vocabulary and ids.
        let mut tokens: Vec<String> = inner.get_vocab(false).into_keys().filter(|t| !SPECIALS.contains(&t.as_str())).collect();
        tokens.sort();
        let vocab: String = SPECIALS.iter().map(|s| s.to_string()).chain(tokens).map(|t| t + "\n").collect();
        Self::from_vocab_txt(&vocab, true, max_len)
    }

    /// `[CLS] text [SEP]`, or `[CLS] text [SEP] pair [SEP]` with segment ids 0 / 1.
    pub fn encode(&self, text: &str, pair: Option<&str>) -> Result<Encoded> {
        // "[MASK]" means the model's mask token (the same length, so offsets stay right)
        let own = |t: &str| if self.mask_token != "[MASK]" { t.replace("[MASK]", &self.mask_token) } else { t.to_string() };
        let (text, pair) = (own(text), pair.map(own));
        let input: EncodeInput = match pair.as_deref() {
            Some(p) => (text.as_str(), p).into(),
            None => text.as_str().into(),
        };
        let enc = self.inner.encode(input, true).map_err(|e| BertError::Tokenizer(format!("cannot encode: {e}")))?;
        Ok(Encoded {
            // a special token as its vocabulary entry: tokenizers keeps the space an lstrip token
            // (RoBERTa's <mask>) took in the piece's text, where HF shows the token
            tokens: {
                let specials = self.special_ids();
                enc.get_tokens()
                    .iter()
                    .zip(enc.get_ids())
                    .map(|(t, id)| match specials.contains(id) {
                        true => self.inner.id_to_token(*id).unwrap_or_else(|| t.clone()),
                        false => t.clone(),
                    })
                    .collect()
            },
            input_ids: enc.get_ids().to_vec(),
            token_type_ids: enc.get_type_ids().to_vec(),
            attention_mask: enc.get_attention_mask().to_vec(),
            special: enc.get_special_tokens_mask().to_vec(),
            offsets: enc.get_offsets().to_vec(),
            sequence: enc.get_sequence_ids(),
            truncated: !enc.get_overflowing().is_empty(),
        })
    }
}

/// The parts of a `tokenizer.json` that `Tokenizer::from_bytes` reads, with the model kept as raw
/// text for `wordpiece_json`.
/// The byte a byte-level BPE character stands for (GPT-2's `bytes_to_unicode`: printable bytes
/// are themselves; the other 68 are U+0100.. in byte order).
fn byte_of_char(c: char) -> Option<u8> {
    let printable = |b: u32| (0x21..=0x7e).contains(&b) || (0xa1..=0xac).contains(&b) || (0xae..=0xff).contains(&b);
    let u = c as u32;
    if u < 0x100 && printable(u) {
        return Some(u as u8);
    }
    let k = u.checked_sub(0x100)? as usize;
    (0u32..=255).filter(|&b| !printable(b)).nth(k).map(|b| b as u8)
}

/// The inverse of `byte_of_char`.
fn char_of_byte(b: u8) -> char {
    (0x100u32..0x200)
        .map(|u| char::from_u32(u).expect("a char"))
        .chain((0u8..=255).map(char::from))
        .find(|&c| byte_of_char(c) == Some(b))
        .expect("every byte has a char")
}

#[derive(Deserialize)]
struct TokenizerJson<'a> {
    version: Option<String>,
    #[serde(borrow)]
    model: &'a RawValue,
    #[serde(default)]
    added_tokens: Vec<AddedTokenJson>,
    normalizer: Option<NormalizerWrapper>,
    pre_tokenizer: Option<PreTokenizerWrapper>,
    post_processor: Option<PostProcessorWrapper>,
    decoder: Option<DecoderWrapper>,
    truncation: Option<TruncationParams>,
    padding: Option<PaddingParams>,
}

#[derive(Deserialize)]
struct AddedTokenJson {
    #[allow(dead_code)] // the id follows from the vocabulary, as in tokenizers
    id: u32,
    #[serde(flatten)]
    token: AddedToken,
}

/// A WordPiece `model` section; anything else (BPE, ...) goes the general way.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WordPieceJson {
    #[serde(rename = "type")]
    kind: Option<String>,
    unk_token: String,
    continuing_subword_prefix: String,
    max_input_chars_per_word: usize,
    vocab: std::collections::HashMap<String, u32, ahash::RandomState>,
}

/// A `tokenizer.json` with a WordPiece model, read in one pass: the 30k-entry vocabulary goes
/// straight into the map WordPiece keeps. `Tokenizer::from_bytes` gives the same tokenizer but
/// buffers the model section twice first (untagged content, then a `serde_json::Value`): about 60%
/// of a page's model load in wasm. Builds the tokenizer as its `from_bytes` does (model, the other
/// parts, then the added tokens in file order). None when the model is not WordPiece. `bytes`
/// must be valid JSON (tokenizers' readers of the other parts panic on some invalid JSON).
fn wordpiece_json(bytes: &[u8]) -> Result<Option<Tokenizer>> {
    let file: TokenizerJson<'_> =
        serde_json::from_slice(bytes).map_err(|e| BertError::Tokenizer(format!("tokenizer.json is not valid JSON: {e}")))?;
    if let Some(v) = &file.version {
        if v != "1.0" {
            return Err(BertError::Tokenizer(format!("tokenizer.json: unknown tokenizer version '{v}'")));
        }
    }
    let Ok(wp) = serde_json::from_str::<WordPieceJson>(file.model.get()) else { return Ok(None) };
    if wp.kind.as_deref().is_some_and(|k| k != "WordPiece") {
        return Ok(None);
    }
    let model = WordPiece::builder()
        .vocab(ahash::AHashMap::from(wp.vocab))
        .unk_token(wp.unk_token)
        .continuing_subword_prefix(wp.continuing_subword_prefix)
        .max_input_chars_per_word(wp.max_input_chars_per_word)
        .build()
        .map_err(|e| BertError::Tokenizer(format!("tokenizer.json: {e}")))?;
    let mut inner = Tokenizer::new(model);
    inner
        .with_normalizer(file.normalizer)
        .with_pre_tokenizer(file.pre_tokenizer)
        .with_post_processor(file.post_processor)
        .with_decoder(file.decoder)
        .with_padding(file.padding)
        .with_truncation(file.truncation)
        .map_err(|e| BertError::Tokenizer(format!("tokenizer.json: {e}")))?;
    let added: Vec<AddedToken> = file.added_tokens.into_iter().map(|a| a.token).collect();
    inner.add_tokens(&added);
    Ok(Some(inner))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass reader and tokenizers' own give the same tokenizer: the same file back, the
    /// same encodings.
    #[test]
    fn wordpiece_reader_matches_tokenizers_own() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for dir in ["www/models/bert-tiny", "www/models/bert-tiny-base"] {
            let bytes = std::fs::read(root.join(dir).join("tokenizer.json")).unwrap();
            let fast = wordpiece_json(&bytes).unwrap().expect("a WordPiece model");
            let own = Tokenizer::from_bytes(&bytes).unwrap();
            assert_eq!(fast.to_string(false).unwrap(), own.to_string(false).unwrap(), "{dir}");
            for text in ["The cats [MASK] playing, naïvely: 東京 [SEP] x", "unaffable ##s [UNK] [PAD]"] {
                let (a, b) = (fast.encode((text, "a pair"), true).unwrap(), own.encode((text, "a pair"), true).unwrap());
                assert_eq!((a.get_ids(), a.get_tokens(), a.get_offsets()), (b.get_ids(), b.get_tokens(), b.get_offsets()));
            }
        }
        // not WordPiece: left to tokenizers
        let bpe = br#"{"version":"1.0","model":{"type":"BPE","vocab":{},"merges":[]}}"#;
        assert!(wordpiece_json(bpe).unwrap().is_none());
        let err = wordpiece_json(br#"{"version":"2.0","model":{}}"#).err().unwrap().to_string();
        assert!(err.contains("version"), "{err}");
    }

    const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n##s\non\nmat\n.\nplay\n##ing\n";

    #[test]
    fn vocab_txt_pipeline_splits_wordpieces_and_keeps_mask_whole() {
        let t = BertTokenizer::from_vocab_txt(VOCAB, true, 512).unwrap();
        let e = t.encode("The cats [MASK] playing.", None).unwrap();
        assert_eq!(e.tokens, ["[CLS]", "the", "cat", "##s", "[MASK]", "play", "##ing", ".", "[SEP]"]);
        assert_eq!(e.input_ids, [2, 5, 6, 8, 4, 12, 13, 11, 3]);
        assert_eq!(e.offsets[2], (4, 7));
        assert_eq!(e.special, [1, 0, 0, 0, 0, 0, 0, 0, 1]);
        let p = t.encode("the cat", Some("sat on the mat")).unwrap();
        assert_eq!(p.token_type_ids, [0, 0, 0, 0, 1, 1, 1, 1, 1]);
        assert_eq!(p.sequence[5], Some(1));
        assert!(!p.truncated);
    }

    #[test]
    fn truncation_is_reported() {
        let t = BertTokenizer::from_vocab_txt(VOCAB, true, 6).unwrap();
        let e = t.encode("the cat sat on the mat", None).unwrap();
        assert_eq!(e.tokens.len(), 6);
        assert_eq!(e.tokens.last().unwrap(), "[SEP]");
        assert!(e.truncated);
    }

    #[test]
    fn trained_vocabulary_tokenises_its_corpus() {
        let text = "the cat sat on the mat.\nthe dogs ran in the park.\n".repeat(20);
        let t = BertTokenizer::train_wordpiece(&text, 200, 64).unwrap();
        let e = t.encode("the cat ran [MASK].", None).unwrap();
        assert_eq!(e.tokens, ["[CLS]", "the", "cat", "ran", "[MASK]", ".", "[SEP]"]);
        assert_eq!(t.special_ids().len(), 5);
        let back = BertTokenizer::from_tokenizer_json(t.to_json().unwrap().as_bytes(), 64).unwrap();
        assert_eq!(back.encode("the cat ran [MASK].", None).unwrap(), e);
        assert_eq!(t.ids("the cat").unwrap().len(), 2);
    }

    #[test]
    fn malformed_tokenizer_json_is_an_error() {
        // a control character inside a string of the decoder section made tokenizers panic
        let bad = b"{\"version\": \"1.0\", \"decoder\": {\"type\": \"\x02[PAD]\"}}";
        let err = BertTokenizer::from_tokenizer_json(bad, 512).err().unwrap().to_string();
        assert!(err.contains("not valid JSON"), "{err}");
        let err = BertTokenizer::from_tokenizer_json(b"{\"model\": 3}", 512).err().unwrap().to_string();
        assert!(err.contains("tokenizer"), "{err}");
    }

    #[test]
    fn missing_specials_are_an_error() {
        let err = BertTokenizer::from_vocab_txt("a\nb\n", true, 512).err().unwrap();
        assert!(err.to_string().contains("[UNK]"));
    }
}
