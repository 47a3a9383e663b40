//! `config.json` of a Hugging Face BERT (`transformers.BertConfig`), DistilBERT or RoBERTa (their
//! keys mapped to BERT's: `family`), plus our optional `position_encoding`, validation, presets
//! (the parameter counter in `count.rs`, the heads in `heads.rs`, the families in `family.rs`).
//!
//! Over 400 lines (tests included): the keys read from three families' config.json and the keys
//! written back are kept side by side, so a key read is a key saved (the tests round-trip each).

use crate::error::{BertError, Result};
pub use count::{count_params, ParamCount};
pub use family::Family;
pub use heads::{Heads, TaskHead, TaskKind};

pub mod count;
pub mod family;
pub mod heads;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    /// Exact erf GELU, as BERT (`hidden_act: "gelu"`).
    Gelu,
    /// tanh approximation (`gelu_new`, `gelu_pytorch_tanh`).
    GeluNew,
    Relu,
}

impl Activation {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "gelu" | "gelu_python" => Ok(Activation::Gelu),
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Ok(Activation::GeluNew),
            "relu" => Ok(Activation::Relu),
            other => Err(BertError::Config(format!("hidden_act `{other}` is not supported (use gelu, gelu_new or relu)"))),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PositionEncoding {
    /// A trained (P, H) table, as BERT.
    #[default]
    Learned,
    /// Fixed sin/cos of Attention Is All You Need: PE[p, 2k] = sin(p w_k), PE[p, 2k+1] = cos(p w_k),
    /// w_k = 1 / 10000^(2k / H). No parameters.
    Sinusoidal,
}

fn d_eps() -> f64 {
    1e-12
}
fn d_true() -> bool {
    true
}
fn d_act() -> String {
    "gelu".into()
}
fn d_drop() -> f64 {
    0.1
}
fn d_type_vocab() -> usize {
    2
}
fn d_abs() -> String {
    "absolute".into()
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "d_act")]
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    #[serde(default = "d_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "d_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "d_true")]
    pub tie_word_embeddings: bool,
    #[serde(default = "d_drop")]
    pub hidden_dropout_prob: f64,
    #[serde(default = "d_drop")]
    pub attention_probs_dropout_prob: f64,
    #[serde(default = "d_abs")]
    pub position_embedding_type: String,
    #[serde(default)]
    pub position_encoding: PositionEncoding,
    /// Which encoder family the file is (`model_type`); the keys above are BERT's whatever the family.
    #[serde(skip)]
    pub family: Family,
    /// A decoder (`BertLMHeadModel`): self-attention sees only earlier positions.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_decoder: bool,
    /// Each layer also attends to an encoder's output (an encoder-decoder's decoder).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub add_cross_attention: bool,
    /// The file wrote `is_decoder` / `add_cross_attention` (HF's files do, false or not): a saved
    /// config writes them back, so it keeps every key it was read with.
    #[serde(skip)]
    decoder_keys: bool,
    /// Every other field of the file, kept so a saved config round-trips.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Upper bound on the elements of any one tensor a config may ask for (4 G floats = 16 GiB; on
/// 32-bit targets such as wasm32, 256 M floats = 1 GiB), so a hostile config fails with a message
/// instead of an allocation abort.
const MAX_ELEMS: u64 = if usize::BITS >= 64 { 1 << 32 } else { 1 << 28 };

impl BertConfig {
    pub fn from_json(text: &str) -> Result<Self> {
        let mut v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| BertError::Config(format!("config.json is not JSON: {e}")))?;
        let obj = v.as_object_mut().ok_or_else(|| BertError::Config("config.json is not a JSON object".into()))?;
        let model_type = obj.get("model_type").and_then(|t| t.as_str()).map(str::to_string);
        let family = Family::from_model_type(model_type.as_deref()).ok_or_else(|| {
            BertError::Config(format!(
                "model_type `{}` is not supported (bert, distilbert or roberta)",
                model_type.as_deref().unwrap_or_default()
            ))
        })?;
        let decoder_keys = obj.contains_key("is_decoder") || obj.contains_key("add_cross_attention");
        if family == Family::DistilBert {
            distil_keys_in(obj);
        }
        let mut cfg: BertConfig =
            serde_json::from_value(v).map_err(|e| BertError::Config(format!("config.json is not a {} config: {e}", family.display())))?;
        cfg.family = family;
        cfg.decoder_keys = decoder_keys;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn to_json(&self) -> String {
        let mut v = serde_json::to_value(self).expect("config serialises");
        if self.decoder_keys {
            v["is_decoder"] = self.is_decoder.into();
            v["add_cross_attention"] = self.add_cross_attention.into();
        }
        if self.family == Family::DistilBert {
            distil_keys_out(v.as_object_mut().expect("an object"));
        }
        serde_json::to_string_pretty(&v).expect("config serialises")
    }

    /// The activation of the MLM head's transform: RoBERTa's `lm_head` is always exact GELU.
    pub fn mlm_activation(&self) -> Activation {
        match self.family {
            Family::Roberta => Activation::Gelu,
            _ => self.activation(),
        }
    }

    /// The activation after the pooler slot's dense layer: tanh (BERT's pooler, RoBERTa's
    /// classifier.dense), ReLU (DistilBERT's pre_classifier).
    pub fn pooler_activation(&self) -> PoolerActivation {
        match self.family {
            Family::DistilBert => PoolerActivation::Relu,
            _ => PoolerActivation::Tanh,
        }
    }

    /// Position ids of one sequence of `ids` (as HF: RoBERTa counts non-pad tokens from
    /// pad_token_id + 1 and gives pads pad_token_id; the others 0..T).
    pub fn position_ids(&self, ids: &[usize]) -> Vec<usize> {
        match (self.family, self.pad_token_id()) {
            (Family::Roberta, Some(pad)) => {
                let mut n = 0;
                ids.iter()
                    .map(|&i| {
                        if i == pad {
                            pad
                        } else {
                            n += 1;
                            pad + n
                        }
                    })
                    .collect()
            }
            _ => (0..ids.len()).collect(),
        }
    }

    /// The longest input the position table allows (RoBERTa's first positions are reserved).
    pub fn max_tokens(&self) -> usize {
        self.max_position_embeddings.saturating_sub(self.family.positions_start(self.pad_token_id()))
    }

    pub fn activation(&self) -> Activation {
        Activation::parse(&self.hidden_act).unwrap_or(Activation::Gelu)
    }

    pub fn head_dim(&self) -> usize {
        self.hidden_size / self.num_attention_heads
    }

    /// `pad_token_id` (HF's default 0; null in the file: none).
    pub fn pad_token_id(&self) -> Option<usize> {
        match self.extra.get("pad_token_id") {
            None => Some(0),
            Some(v) => v.as_u64().map(|v| v as usize),
        }
    }

    /// The fine-tuning head `architectures` names, if any.
    pub fn task(&self) -> Option<TaskKind> {
        let archs = self.extra.get("architectures")?.as_array()?;
        archs.iter().filter_map(|a| a.as_str()).find_map(|a| TaskKind::ALL.into_iter().find(|k| self.family.architecture(*k) == a))
    }

    /// `id2label` as a list by id (empty when the file has none).
    fn id2label(&self) -> Vec<(usize, String)> {
        let Some(m) = self.extra.get("id2label").and_then(|v| v.as_object()) else { return vec![] };
        let mut v: Vec<(usize, String)> = m
            .iter()
            .filter_map(|(k, v)| Some((k.parse().ok()?, v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))))
            .collect();
        v.sort();
        v
    }

    /// HF's `num_labels`: the size of `id2label` (2 when the file has none).
    pub fn num_labels(&self) -> usize {
        match self.id2label().len() {
            0 => self.extra.get("num_labels").and_then(|v| v.as_u64()).map_or(2, |n| n as usize),
            n => n,
        }
    }

    /// The name of label `id` (`id2label`, or HF's default `LABEL_{id}`).
    pub fn label_name(&self, id: usize) -> String {
        self.id2label().into_iter().find(|(i, _)| *i == id).map(|(_, n)| n).unwrap_or_else(|| format!("LABEL_{id}"))
    }

    /// The id of a label name (`label2id`, else `id2label`, else `LABEL_{id}`).
    pub fn label_id(&self, name: &str) -> Option<usize> {
        if let Some(id) = self.extra.get("label2id").and_then(|m| m.get(name)).and_then(|v| v.as_u64()) {
            return Some(id as usize);
        }
        (0..self.num_labels()).find(|&i| self.label_name(i) == name)
    }

    /// A sequence classifier with one output, or `problem_type` "regression": the loss is MSE.
    pub fn is_regression(&self) -> bool {
        self.extra.get("problem_type").and_then(|v| v.as_str()) == Some("regression")
            || (self.num_labels() == 1 && self.task() == Some(TaskKind::SequenceClassification))
    }

    /// The task head this config asks for (its outputs: the labels; 2 for question answering).
    pub fn task_head(&self) -> Option<TaskHead> {
        let kind = self.task()?;
        let outputs = if kind == TaskKind::QuestionAnswering { 2 } else { self.num_labels() };
        Some(TaskHead { kind, outputs })
    }

    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(BertError::Config(m));
        for (name, v) in [
            ("vocab_size", self.vocab_size),
            ("hidden_size", self.hidden_size),
            ("num_attention_heads", self.num_attention_heads),
            ("intermediate_size", self.intermediate_size),
            ("max_position_embeddings", self.max_position_embeddings),
        ] {
            if v == 0 {
                return bad(format!("{name} must be positive"));
            }
        }
        match (self.family.has_segments(), self.type_vocab_size) {
            (true, 0) => return bad("type_vocab_size must be positive".into()),
            (false, n) if n > 0 => return bad(format!("a {} has no segment embeddings (type_vocab_size {n})", self.family.display())),
            _ => {}
        }
        if self.family == Family::Roberta && self.pad_token_id().is_none_or(|p| p + 2 >= self.max_position_embeddings) {
            return bad(format!(
                "RoBERTa's positions start at pad_token_id + 1: pad_token_id {:?} does not fit max_position_embeddings {}",
                self.pad_token_id(),
                self.max_position_embeddings
            ));
        }
        if self.num_hidden_layers > 256 {
            return bad(format!("num_hidden_layers {} is implausibly large", self.num_hidden_layers));
        }
        if !self.hidden_size.is_multiple_of(self.num_attention_heads) {
            return bad(format!("hidden_size {} is not a multiple of num_attention_heads {}", self.hidden_size, self.num_attention_heads));
        }
        for (name, a, b) in [
            ("vocab_size x hidden_size", self.vocab_size, self.hidden_size),
            ("intermediate_size x hidden_size", self.intermediate_size, self.hidden_size),
            ("max_position_embeddings x hidden_size", self.max_position_embeddings, self.hidden_size),
            ("type_vocab_size x hidden_size", self.type_vocab_size, self.hidden_size),
        ] {
            if a.checked_mul(b).is_none_or(|n| n as u64 > MAX_ELEMS) {
                return bad(format!("{name} = {a} x {b} is too large"));
            }
        }
        Activation::parse(&self.hidden_act)?;
        if self.position_embedding_type != "absolute" {
            return bad(format!("position_embedding_type `{}` is not supported (only `absolute`)", self.position_embedding_type));
        }
        if !(self.layer_norm_eps > 0.0 && self.layer_norm_eps < 1.0) {
            return bad(format!("layer_norm_eps {} must be in (0, 1)", self.layer_norm_eps));
        }
        for (name, p) in
            [("hidden_dropout_prob", self.hidden_dropout_prob), ("attention_probs_dropout_prob", self.attention_probs_dropout_prob)]
        {
            if !(0.0..1.0).contains(&p) {
                return bad(format!("{name} {p} must be in [0, 1)"));
            }
        }
        Ok(())
    }

    /// A config by name: `bert-base` (uncased BERT-base), `bert-tiny` (2 x 128, 2 heads), ...,
    /// `scratch-tiny` (2 x 64, 2 heads, 128 positions: trains in the page in a minute).
    pub fn preset(name: &str) -> Result<Self> {
        if name == "scratch-tiny" {
            return Ok(Self::new(30522, 64, 2, 2, 256, 128));
        }
        let (h, l, nh) = match name {
            "bert-base" => (768, 12, 12),
            "bert-tiny" => (128, 2, 2),
            "bert-mini" => (256, 4, 4),
            "bert-small" => (512, 4, 8),
            other => {
                return Err(BertError::Config(format!(
                    "unknown preset `{other}` (bert-base, bert-tiny, bert-mini, bert-small, scratch-tiny)"
                )))
            }
        };
        Ok(Self::new(30522, h, l, nh, 4 * h, 512))
    }

    pub fn new(vocab: usize, hidden: usize, layers: usize, heads: usize, inter: usize, max_pos: usize) -> Self {
        BertConfig {
            vocab_size: vocab,
            hidden_size: hidden,
            num_hidden_layers: layers,
            num_attention_heads: heads,
            intermediate_size: inter,
            hidden_act: "gelu".into(),
            max_position_embeddings: max_pos,
            type_vocab_size: 2,
            layer_norm_eps: 1e-12,
            tie_word_embeddings: true,
            hidden_dropout_prob: 0.1,
            attention_probs_dropout_prob: 0.1,
            position_embedding_type: "absolute".into(),
            position_encoding: PositionEncoding::Learned,
            family: Family::Bert,
            is_decoder: false,
            add_cross_attention: false,
            decoder_keys: false,
            extra: serde_json::Map::new(),
        }
    }
}

/// The activation of the pooler slot (see `BertConfig::pooler_activation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolerActivation {
    Tanh,
    Relu,
}

/// DistilBERT's keys to BERT's (in place): `dim` -> `hidden_size`, ...; no segments; LayerNorm
/// eps 1e-12 (fixed in `modeling_distilbert.py`). With `sinusoidal_pos_embds` the file still holds
/// the table (the sinusoids, a trainable parameter in transformers 5): it loads as a learned one.
fn distil_keys_in(obj: &mut serde_json::Map<String, serde_json::Value>) {
    for (theirs, ours) in family::DISTIL_KEYS {
        if let Some(v) = obj.remove(theirs) {
            obj.insert(ours.into(), v);
        }
    }
    obj.insert("type_vocab_size".into(), 0.into());
    obj.insert("layer_norm_eps".into(), 1e-12.into());
}

/// The inverse of `distil_keys_in`, for a config HF loads as a `DistilBertConfig`.
fn distil_keys_out(obj: &mut serde_json::Map<String, serde_json::Value>) {
    for (theirs, ours) in family::DISTIL_KEYS {
        if let Some(v) = obj.remove(ours) {
            obj.insert(theirs.into(), v);
        }
    }
    for k in ["type_vocab_size", "layer_norm_eps", "position_embedding_type", "position_encoding"] {
        obj.remove(k);
    }
    obj.insert("model_type".into(), "distilbert".into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bert_base_has_the_published_parameter_count() {
        let cfg = BertConfig::preset("bert-base").unwrap();
        assert_eq!(count_params(&cfg, Heads::BASE_MODEL).total, 109_482_240);
    }

    #[test]
    fn bad_configs_are_refused_with_the_field_named() {
        let mut cfg = BertConfig::preset("bert-tiny").unwrap();
        cfg.num_attention_heads = 3;
        assert!(cfg.validate().unwrap_err().to_string().contains("num_attention_heads"));
        let mut cfg = BertConfig::preset("bert-tiny").unwrap();
        cfg.vocab_size = usize::MAX / 2;
        assert!(cfg.validate().unwrap_err().to_string().contains("too large"));
        let err = BertConfig::from_json(r#"{"vocab_size": 10}"#).unwrap_err();
        assert!(err.to_string().contains("hidden_size"), "{err}");
        let cfg = BertConfig::preset("bert-tiny").unwrap();
        let mut j: serde_json::Value = serde_json::from_str(&cfg.to_json()).unwrap();
        j["hidden_act"] = "swish".into();
        assert!(BertConfig::from_json(&j.to_string()).unwrap_err().to_string().contains("swish"));
    }

    #[test]
    fn unknown_fields_round_trip() {
        let cfg = BertConfig::preset("bert-tiny").unwrap();
        let mut j: serde_json::Value = serde_json::from_str(&cfg.to_json()).unwrap();
        j["architectures"] = serde_json::json!(["BertForMaskedLM"]);
        let back = BertConfig::from_json(&j.to_string()).unwrap();
        assert_eq!(back.extra["architectures"][0], "BertForMaskedLM");
        assert!(back.to_json().contains("BertForMaskedLM"));
    }
}
