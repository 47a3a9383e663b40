//! Hugging Face checkpoints: `model.safetensors` of `BertModel`, `BertForMaskedLM`,
//! `BertForPreTraining`, `BertForSequenceClassification`, `BertForTokenClassification` or
//! `BertForQuestionAnswering`, LayerNorm as `weight/bias` or `gamma/beta`, tied or untied decoder.
//! Loading maps every file name to its canonical name and remembers the mapping, so gradients can
//! be written back under the names the user's file uses.

use crate::config::{BertConfig, Family, Heads, TaskHead, TaskKind};
use crate::error::{BertError, Result};
use crate::model::BertParams;
use crate::tensorfile::{self, Tensor};
use std::collections::{BTreeMap, HashMap};

/// canonical name -> name in the loaded file.
#[derive(Clone, Debug, Default)]
pub struct NameMap(pub BTreeMap<String, String>);

impl NameMap {
    /// The file's name for `canonical`, or `canonical` itself when the file did not hold it.
    pub fn file_name<'a>(&'a self, canonical: &'a str) -> &'a str {
        self.0.get(canonical).map(String::as_str).unwrap_or(canonical)
    }
}

/// The canonical (`BertForPreTraining`, `LayerNorm.weight`) name of a BERT file's tensor, or None
/// for tensors we do not use (e.g. the `position_ids` buffer). Other families: `Family::canonical_name`.
pub fn canonical_name(name: &str) -> Option<String> {
    crate::config::family::Family::Bert.canonical_name(name)
}

/// Which heads the file holds. A `classifier` is a sequence classifier or a token tagger as
/// `config.json`'s `architectures` says (without it: a sequence classifier when there is a pooler);
/// its outputs are the config's `num_labels`, so a file that disagrees fails on that tensor's shape.
fn detect_heads(cfg: &BertConfig, present: &HashMap<String, String>) -> Result<Heads> {
    let pooler = present.contains_key("bert.pooler.dense.weight");
    let task = if present.contains_key("qa_outputs.weight") {
        Some(TaskHead { kind: TaskKind::QuestionAnswering, outputs: 2 })
    } else if present.contains_key("classifier.weight") {
        let kind = match cfg.task() {
            Some(TaskKind::TokenClassification) => TaskKind::TokenClassification,
            Some(TaskKind::SequenceClassification) => TaskKind::SequenceClassification,
            _ if pooler => TaskKind::SequenceClassification,
            _ => TaskKind::TokenClassification,
        };
        Some(TaskHead { kind, outputs: cfg.num_labels() })
    } else {
        None
    };
    if task.is_some_and(|t| t.kind == TaskKind::SequenceClassification) && !pooler {
        return Err(BertError::Checkpoint("the file has a sequence classifier but no pooler (bert.pooler.dense)".into()));
    }
    let heads = Heads {
        pooler,
        mlm: present.contains_key("cls.predictions.transform.dense.weight"),
        nsp: present.contains_key("cls.seq_relationship.weight"),
        task,
    };
    if heads.nsp && !heads.pooler {
        return Err(BertError::Checkpoint("the file has an NSP head (cls.seq_relationship) but no pooler".into()));
    }
    Ok(heads)
}

/// Parses `bytes` (a safetensors file) into parameters shaped by `cfg`.
pub fn load_params(cfg: &BertConfig, bytes: &[u8]) -> Result<(BertParams<f32>, NameMap)> {
    let st = tensorfile::parse(bytes)?;
    load_params_under(cfg, &st, "")
}

/// The tensors of `st` whose names start with `prefix` (an encoder-decoder's `encoder.` and
/// `decoder.`), as parameters shaped by `cfg`; the name map keeps the full file names.
pub fn load_params_under(cfg: &BertConfig, st: &safetensors::SafeTensors<'_>, prefix: &str) -> Result<(BertParams<f32>, NameMap)> {
    cfg.validate()?;
    let family = cfg.family;
    let all = st.names();
    let under: Vec<(&str, &str)> = all.iter().filter_map(|n| n.strip_prefix(prefix).map(|rest| (&n[..], rest))).collect();
    // a RoBERTa sequence classifier's `classifier.dense` fills the pooler slot: a file that also
    // keeps `roberta.pooler` (unused by that class) must not mix the two
    let roberta_cls = family == Family::Roberta && under.iter().any(|(_, n)| *n == "classifier.dense.weight");
    let mut present: HashMap<String, String> = HashMap::new(); // canonical -> file name
    for &(full, name) in &under {
        if roberta_cls && (name.starts_with("roberta.pooler.") || name.starts_with("pooler.")) {
            continue;
        }
        if let Some(c) = family.canonical_name(name) {
            // When both exist (an untied head in transformers 5), the forward uses
            // `cls.predictions.decoder.bias`; otherwise the two are one tied tensor.
            if present.contains_key(&c) && !name.ends_with("decoder.bias") {
                continue;
            }
            present.insert(c, full.to_string());
        }
    }
    if !present.contains_key("bert.embeddings.word_embeddings.weight") {
        return Err(BertError::Checkpoint(format!(
            "no {} tensors found (expected e.g. {prefix}{}); the file holds {} tensors{}",
            family.display(),
            family.file_name("bert.embeddings.word_embeddings.weight", Heads::MASKED_LM),
            all.len(),
            all.first().map(|n| format!(", such as `{n}`")).unwrap_or_default()
        )));
    }
    let heads = detect_heads(cfg, &present)?;
    let mut params = BertParams::<f32>::zeros(cfg, heads);
    let mut names = NameMap::default();
    for (canonical, mut dest) in params.tensors_mut() {
        let file_name = present.get(&canonical).ok_or_else(|| {
            let hint = if canonical == "cls.predictions.decoder.weight" {
                " (config.json says tie_word_embeddings = false, so the decoder must be in the file)"
            } else {
                ""
            };
            BertError::tensor(format!("{prefix}{}", family.file_name(&canonical, heads)), format!("missing from the checkpoint{hint}"))
        })?;
        let view = st.tensor(file_name).map_err(|e| BertError::tensor(file_name, e.to_string()))?;
        if view.shape() != dest.shape() {
            return Err(BertError::tensor(
                file_name,
                format!("shape {:?} in the file, but config.json implies {:?}", view.shape(), dest.shape()),
            ));
        }
        let dest = dest.as_slice_mut().ok_or_else(|| BertError::tensor(&canonical, "parameters are not contiguous"))?;
        tensorfile::read_f32_into(file_name, &view, dest)?;
        names.0.insert(canonical, file_name.clone());
    }
    Ok((params, names))
}

/// The float type a checkpoint is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveDtype {
    F32,
    /// Half the bytes; every weight rounded to the nearest f16 (relative error <= 2^-11).
    F16,
}

/// f32 safetensors in HF layout: BERT's names (`BertModel` without the `bert.` prefix).
pub fn save_params(params: &BertParams<f32>) -> Result<Vec<u8>> {
    save_params_as(params, Family::Bert, SaveDtype::F32)
}

/// As `save_params`, with `family`'s names (the names its HF class loads), in `dtype`. A weight
/// outside f16's range (|w| > 65504) is an error naming its tensor, not an infinity in the file.
pub fn save_params_as(params: &BertParams<f32>, family: Family, dtype: SaveDtype) -> Result<Vec<u8>> {
    let heads = params.heads();
    let mut tensors: Vec<(String, Tensor)> = Vec::new();
    for (n, t) in params.tensors() {
        let name = family.file_name(&n, heads);
        let tensor = match dtype {
            SaveDtype::F32 => Tensor::F32(t.to_owned()),
            SaveDtype::F16 => {
                if let Some(v) = t.iter().find(|v| v.abs() > half::f16::MAX.to_f32()) {
                    return Err(BertError::tensor(&name, format!("value {v} does not fit in f16 (|w| <= 65504)")));
                }
                Tensor::F16(t.mapv(half::f16::from_f32))
            }
        };
        tensors.push((name, tensor));
    }
    let meta = HashMap::from([("format".to_string(), "pt".to_string())]);
    tensorfile::write_tensors(&tensors, Some(meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> BertConfig {
        BertConfig::new(30, 8, 2, 2, 12, 16)
    }

    #[test]
    fn canonical_names() {
        assert_eq!(canonical_name("bert.embeddings.LayerNorm.gamma").unwrap(), "bert.embeddings.LayerNorm.weight");
        assert_eq!(canonical_name("encoder.layer.1.output.LayerNorm.beta").unwrap(), "bert.encoder.layer.1.output.LayerNorm.bias");
        assert_eq!(canonical_name("cls.predictions.decoder.bias").unwrap(), "cls.predictions.bias");
        assert!(canonical_name("bert.embeddings.position_ids").is_none());
        assert_eq!(canonical_name("classifier.weight").unwrap(), "classifier.weight");
        assert_eq!(canonical_name("qa_outputs.bias").unwrap(), "qa_outputs.bias");
        assert!(canonical_name("lm_head.dense.weight").is_none());
    }

    #[test]
    fn save_then_load_round_trips_every_head_layout() {
        for heads in [Heads::BASE_MODEL, Heads::MASKED_LM, Heads::PRETRAINING] {
            let p = BertParams::<f32>::init(&cfg(), heads, 3);
            let bytes = save_params(&p).unwrap();
            let (q, names) = load_params(&cfg(), &bytes).unwrap();
            assert_eq!(q.heads(), heads);
            for ((n, a), (_, b)) in p.tensors().into_iter().zip(q.tensors()) {
                assert_eq!(a, b, "{n}");
            }
            let expect = if heads.mlm { "bert.embeddings.word_embeddings.weight" } else { "embeddings.word_embeddings.weight" };
            assert_eq!(names.file_name("bert.embeddings.word_embeddings.weight"), expect);
        }
    }

    #[test]
    fn task_heads_round_trip_and_a_label_count_that_disagrees_names_the_tensor() {
        use crate::config::TaskKind;
        for kind in TaskKind::ALL {
            let mut c = cfg();
            c.extra.insert("architectures".into(), serde_json::json!([kind.architecture()]));
            c.extra.insert("id2label".into(), serde_json::json!({"0": "O", "1": "B-PER", "2": "I-PER"}));
            let heads = c.task_head().map(|t| Heads::for_task(t.kind, t.outputs)).unwrap();
            let p = BertParams::<f32>::init(&c, heads, 3);
            let bytes = save_params(&p).unwrap();
            let (q, names) = load_params(&c, &bytes).unwrap();
            assert_eq!(q.heads(), heads, "{kind:?}");
            assert_eq!(names.file_name("bert.embeddings.word_embeddings.weight"), "bert.embeddings.word_embeddings.weight");
            for ((n, a), (_, b)) in p.tensors().into_iter().zip(q.tensors()) {
                assert_eq!(a, b, "{n}");
            }
            if kind != TaskKind::QuestionAnswering {
                // config.json with two labels, the file with three
                c.extra.insert("id2label".into(), serde_json::json!({"0": "neg", "1": "pos"}));
                let e = load_params(&c, &bytes).unwrap_err().to_string();
                assert!(e.contains("classifier.weight") && e.contains("[3, 8]"), "{e}");
            }
        }
    }

    #[test]
    fn f16_files_load_within_half_precision_and_out_of_range_is_an_error() {
        let p = BertParams::<f32>::init(&cfg(), Heads::MASKED_LM, 3);
        let f32_bytes = save_params(&p).unwrap();
        let f16_bytes = save_params_as(&p, Family::Bert, SaveDtype::F16).unwrap();
        assert!(f16_bytes.len() < f32_bytes.len() * 3 / 4, "{} vs {}", f16_bytes.len(), f32_bytes.len());
        let (q, _) = load_params(&cfg(), &f16_bytes).unwrap();
        for ((n, a), (_, b)) in p.tensors().into_iter().zip(q.tensors()) {
            for (x, y) in a.iter().zip(b.iter()) {
                assert!((x - y).abs() <= x.abs() * 4.9e-4 + 6e-8, "{n}: {x} vs {y}");
            }
        }
        let word = |p: &BertParams<f32>| p.tensors()[0].1.to_owned();
        assert_ne!(word(&p), word(&q), "rounding to f16 changes random weights");
        let mut big = p.clone();
        for (n, mut t) in big.tensors_mut() {
            if n.ends_with("intermediate.dense.bias") {
                t[[0]] = 1e5;
            }
        }
        let err = save_params_as(&big, Family::Bert, SaveDtype::F16).unwrap_err().to_string();
        assert!(err.contains("intermediate.dense.bias") && err.contains("f16"), "{err}");
    }

    #[test]
    fn wrong_shape_and_missing_tensor_name_the_tensor() {
        let p = BertParams::<f32>::init(&cfg(), Heads::MASKED_LM, 3);
        let bytes = save_params(&p).unwrap();
        let mut other = cfg();
        other.intermediate_size = 13;
        let err = load_params(&other, &bytes).unwrap_err().to_string();
        assert!(err.contains("bert.encoder.layer.0.intermediate.dense.weight") && err.contains("[13, 8]"), "{err}");
        let mut untied = cfg();
        untied.tie_word_embeddings = false;
        let err = load_params(&untied, &bytes).unwrap_err().to_string();
        assert!(err.contains("cls.predictions.decoder.weight") && err.contains("tie_word_embeddings"), "{err}");
        let mut deeper = cfg();
        deeper.num_hidden_layers = 3;
        let err = load_params(&deeper, &bytes).unwrap_err().to_string();
        assert!(err.contains("bert.encoder.layer.2."), "{err}");
    }

    #[test]
    fn hostile_bytes_are_errors_not_panics() {
        let p = BertParams::<f32>::init(&cfg(), Heads::MASKED_LM, 3);
        let good = save_params(&p).unwrap();
        let mut huge = good.clone();
        huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        let mut cut = good.clone();
        cut.truncate(good.len() / 2);
        for bad in [vec![], vec![1, 2, 3], huge, cut, b"{\"a\":1}".to_vec()] {
            let err = load_params(&cfg(), &bad).unwrap_err();
            assert!(err.to_string().contains("safetensors"), "{err}");
        }
    }
}
