//! A loaded model: config, parameters, tokenizer, from a Hugging Face folder (`config.json`,
//! `model.safetensors`, `tokenizer.json` or `vocab.txt` [+ `tokenizer_config.json`]) or from the
//! same files as bytes (the page).

use crate::checkpoint::{load_params, save_params_as, NameMap, SaveDtype};
use crate::config::BertConfig;
use crate::error::{BertError, Result};
use crate::model::BertParams;
use crate::tokenize::BertTokenizer;

/// The files of a model folder, as read from disk or fetched by the page.
#[derive(Clone, Debug, Default)]
pub struct ModelFiles {
    pub config_json: String,
    pub weights: Vec<u8>,
    pub tokenizer_json: Option<Vec<u8>>,
    pub vocab_txt: Option<String>,
    /// RoBERTa's tokenizer without a tokenizer.json: vocab.json + merges.txt.
    pub vocab_json: Option<String>,
    pub merges_txt: Option<String>,
    pub tokenizer_config_json: Option<String>,
}

#[derive(Clone)]
pub struct Bert {
    pub cfg: BertConfig,
    pub params: BertParams<f32>,
    pub names: NameMap,
    pub tokenizer: BertTokenizer,
}

impl Bert {
    pub fn from_files(f: &ModelFiles) -> Result<Self> {
        let cfg = BertConfig::from_json(&f.config_json)?;
        let tok_cfg: serde_json::Value = match &f.tokenizer_config_json {
            Some(t) => serde_json::from_str(t).map_err(|e| BertError::Tokenizer(format!("tokenizer_config.json is not JSON: {e}")))?,
            None => serde_json::Value::Null,
        };
        let mut max_len = cfg.max_tokens();
        if let Some(m) = tok_cfg.get("model_max_length").and_then(|v| v.as_u64()) {
            max_len = max_len.min(m.max(2) as usize);
        }
        let tokenizer = match (&f.tokenizer_json, &f.vocab_txt, (&f.vocab_json, &f.merges_txt)) {
            (Some(j), _, _) => BertTokenizer::from_tokenizer_json(j, max_len)?,
            (None, Some(v), _) => {
                let lower = tok_cfg.get("do_lower_case").and_then(|v| v.as_bool()).unwrap_or(true);
                BertTokenizer::from_vocab_txt(v, lower, max_len)?
            }
            (None, None, (Some(v), Some(m))) => BertTokenizer::from_vocab_merges(v, m, max_len)?,
            _ => return Err(BertError::Tokenizer("no tokenizer.json, vocab.txt or vocab.json + merges.txt".into())),
        };
        if tokenizer.vocab_size() > cfg.vocab_size {
            return Err(BertError::Tokenizer(format!(
                "the tokenizer has {} tokens but config.json vocab_size is {}",
                tokenizer.vocab_size(),
                cfg.vocab_size
            )));
        }
        let (params, names) = load_params(&cfg, &f.weights)?;
        Ok(Bert { cfg, params, names, tokenizer })
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_dir(dir: &std::path::Path) -> Result<Self> {
        Self::from_files(&ModelFiles::read_dir(dir)?)
    }

    /// A new model with BERT's initialisation around `tokenizer` (vocab_size taken from it).
    pub fn from_scratch(mut cfg: BertConfig, tokenizer: BertTokenizer, heads: crate::config::Heads, seed: u64) -> Result<Self> {
        cfg.vocab_size = tokenizer.vocab_size();
        cfg.validate()?;
        let params = BertParams::init(&cfg, heads, seed);
        Ok(Bert { cfg, params, names: NameMap::default(), tokenizer })
    }

    /// This model with a new task head, as HF's `AutoModelFor...from_pretrained` builds it from a
    /// pre-trained checkpoint: the embeddings and encoder kept, the MLM and NSP heads dropped, the
    /// pooler kept (or initialised, for a sequence classifier that needs one), the head initialised
    /// N(0, 0.02) with zero bias. config.json then names the class and the labels.
    pub fn with_task_head(&self, kind: crate::config::TaskKind, labels: &[String], seed: u64) -> Result<Self> {
        use crate::config::{Heads, TaskKind};
        let outputs = if kind == TaskKind::QuestionAnswering { 2 } else { labels.len() };
        if outputs == 0 {
            return Err(BertError::Input("a classifier needs at least one label".into()));
        }
        let fresh = BertParams::<f32>::init(&self.cfg, Heads::for_task(kind, outputs), seed);
        let mut params = self.params.clone();
        params.mlm = None;
        params.nsp = None;
        params.pooler = match kind {
            TaskKind::SequenceClassification => params.pooler.or(fresh.pooler),
            _ => None,
        };
        params.task = fresh.task;
        let mut cfg = self.cfg.clone();
        cfg.extra.insert("architectures".into(), serde_json::json!([self.cfg.family.architecture(kind)]));
        if kind != TaskKind::QuestionAnswering {
            let id2label: serde_json::Map<String, serde_json::Value> =
                labels.iter().enumerate().map(|(i, l)| (i.to_string(), serde_json::Value::from(l.clone()))).collect();
            let label2id: serde_json::Map<String, serde_json::Value> =
                labels.iter().enumerate().map(|(i, l)| (l.clone(), serde_json::Value::from(i))).collect();
            cfg.extra.insert("id2label".into(), id2label.into());
            cfg.extra.insert("label2id".into(), label2id.into());
        }
        cfg.extra.remove("num_labels");
        Ok(Bert { cfg, params, names: NameMap::default(), tokenizer: self.tokenizer.clone() })
    }

    /// This model as a `BertForMaskedLM` with a new masked-LM head, as HF's
    /// `BertForMaskedLM.from_pretrained` builds it from an encoder that has none: the embeddings
    /// and encoder kept, the pooler and any other head dropped, the head's transform N(0, 0.02)
    /// with zero bias, its LayerNorm 1 / 0, its output bias 0 and its decoder tied to the word
    /// embeddings (as BERT's is).
    pub fn with_mlm_head(&self, seed: u64) -> Result<Self> {
        use crate::config::Heads;
        let mut cfg = self.cfg.clone();
        cfg.tie_word_embeddings = true;
        let fresh = BertParams::<f32>::init(&cfg, Heads::MASKED_LM, seed);
        let mut params = self.params.clone();
        params.pooler = None;
        params.nsp = None;
        params.task = None;
        params.mlm = fresh.mlm;
        cfg.extra.insert("architectures".into(), serde_json::json!([self.cfg.family.base_architecture(true, false)]));
        for k in ["id2label", "label2id", "num_labels"] {
            cfg.extra.remove(k);
        }
        Ok(Bert { cfg, params, names: NameMap::default(), tokenizer: self.tokenizer.clone() })
    }

    /// The model folder as files: config.json, model.safetensors (f32, HF names), tokenizer.json.
    pub fn to_files(&self) -> Result<ModelFiles> {
        self.to_files_as(SaveDtype::F32)
    }

    /// As `to_files`, with the weights in `dtype`.
    pub fn to_files_as(&self, dtype: SaveDtype) -> Result<ModelFiles> {
        Ok(ModelFiles {
            config_json: self.cfg.to_json(),
            weights: save_params_as(&self.params, self.cfg.family, dtype)?,
            tokenizer_json: Some(self.tokenizer.to_json()?.into_bytes()),
            tokenizer_config_json: None,
            ..Default::default()
        })
    }

    /// Writes config.json, model.safetensors (f32) and tokenizer.json into `dir`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn save_dir(&self, dir: &std::path::Path) -> Result<()> {
        self.save_dir_as(dir, SaveDtype::F32)
    }

    /// As `save_dir`, with the weights in `dtype`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn save_dir_as(&self, dir: &std::path::Path, dtype: SaveDtype) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| BertError::io(dir, e))?;
        let f = self.to_files_as(dtype)?;
        let write = |name: &str, bytes: &[u8]| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).map_err(|e| BertError::io(&p, e))
        };
        write("model.safetensors", &f.weights)?;
        write("config.json", f.config_json.as_bytes())?;
        write("tokenizer.json", f.tokenizer_json.as_deref().unwrap_or_default())
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl ModelFiles {
    pub fn read_dir(dir: &std::path::Path) -> Result<Self> {
        if !dir.is_dir() {
            return Err(BertError::Checkpoint(format!("{} is not a model folder", dir.display())));
        }
        let read = |name: &str| -> Result<Option<Vec<u8>>> {
            let p = dir.join(name);
            match std::fs::read(&p) {
                Ok(b) => Ok(Some(b)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(BertError::io(&p, e)),
            }
        };
        let text = |name: &str| -> Result<Option<String>> {
            read(name)?.map(|b| String::from_utf8(b).map_err(|_| BertError::Checkpoint(format!("{name} is not UTF-8 text")))).transpose()
        };
        let config_json = text("config.json")?.ok_or_else(|| BertError::Checkpoint(format!("{} has no config.json", dir.display())))?;
        let weights = read("model.safetensors")?.ok_or_else(|| {
            BertError::Checkpoint(format!(
                "{} has no model.safetensors (pytorch_model.bin is not read: convert it with safetensors)",
                dir.display()
            ))
        })?;
        Ok(ModelFiles {
            config_json,
            weights,
            tokenizer_json: read("tokenizer.json")?,
            vocab_txt: text("vocab.txt")?,
            vocab_json: text("vocab.json")?,
            merges_txt: text("merges.txt")?,
            tokenizer_config_json: text("tokenizer_config.json")?,
        })
    }
}
