//! The other half of the Transformer: Hugging Face's `EncoderDecoderModel` with BERT on both sides
//! (a `BertModel` encoder; a `BertLMHeadModel` decoder whose layers attend causally to themselves and
//! to the encoder's output). Both halves are `BertParams` run by the one forward and backward
//! (`model::forward` / `model::backward`: `is_decoder` makes self-attention causal,
//! `add_cross_attention` adds each layer's `crossattention`); this module holds the pair, its config
//! and file names, the loss of teacher-forced targets (`forward.rs`) and decoding (`generate.rs`;
//! one step at a time, for the page, in `stepper.rs`).

pub mod forward;
pub mod generate;
pub mod stepper;

use crate::bundle::ModelFiles;
use crate::checkpoint::load_params_under;
use crate::config::{BertConfig, Family, Heads};
use crate::cpu::real::Real;
use crate::error::{BertError, Result};
use crate::model::params::{BertParams, Linear};
use crate::tokenize::BertTokenizer;
use ndarray::{ArrayViewD, ArrayViewMutD};

/// `config.json` of an `EncoderDecoderModel`: the two BERT configs and the ids decoding needs.
#[derive(Clone, Debug)]
pub struct Seq2SeqConfig {
    pub encoder: BertConfig,
    pub decoder: BertConfig,
    /// The first token of every decoder input (`decoder_start_token_id`).
    pub decoder_start: u32,
    pub pad: u32,
    /// Where generation stops (`eos_token_id`).
    pub eos: u32,
    /// The file as read, so a saved config keeps every key.
    raw: serde_json::Map<String, serde_json::Value>,
}

/// Whether a `config.json` is an encoder-decoder's.
pub fn is_encoder_decoder(config_json: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(config_json)
        .ok()
        .and_then(|v| v.get("model_type").and_then(|t| t.as_str()).map(|t| t == "encoder-decoder"))
        .unwrap_or(false)
}

impl Seq2SeqConfig {
    pub fn from_json(text: &str) -> Result<Self> {
        let bad = |m: String| BertError::Config(m);
        let raw: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|e| bad(format!("config.json is not a JSON object: {e}")))?;
        if raw.get("model_type").and_then(|t| t.as_str()) != Some("encoder-decoder") {
            return Err(bad("config.json is not an encoder-decoder's (model_type \"encoder-decoder\")".into()));
        }
        let sub = |k: &str| -> Result<BertConfig> {
            let v = raw.get(k).ok_or_else(|| bad(format!("config.json has no `{k}` config")))?;
            let c = BertConfig::from_json(&v.to_string()).map_err(|e| bad(format!("the {k}: {e}")))?;
            if c.family != Family::Bert {
                return Err(bad(format!("the {k} is a {}: only BERT encoders and decoders are supported", c.family.display())));
            }
            Ok(c)
        };
        let (encoder, decoder) = (sub("encoder")?, sub("decoder")?);
        if !decoder.is_decoder || !decoder.add_cross_attention {
            return Err(bad("the decoder's config must set is_decoder and add_cross_attention".into()));
        }
        if encoder.vocab_size != decoder.vocab_size {
            return Err(bad(format!(
                "the encoder's vocabulary ({}) and the decoder's ({}) differ: one tokenizer serves both",
                encoder.vocab_size, decoder.vocab_size
            )));
        }
        // the ids: top level, else the decoder's config
        let id = |k: &str| -> Result<u32> {
            raw.get(k)
                .and_then(|v| v.as_u64())
                .or_else(|| decoder.extra.get(k).and_then(|v| v.as_u64()))
                .map(|v| v as u32)
                .filter(|&v| (v as usize) < decoder.vocab_size)
                .ok_or_else(|| bad(format!("config.json needs `{k}`, a token id below {}", decoder.vocab_size)))
        };
        Ok(Seq2SeqConfig {
            decoder_start: id("decoder_start_token_id")?,
            pad: id("pad_token_id")?,
            eos: id("eos_token_id")?,
            encoder,
            decoder,
            raw,
        })
    }

    pub fn to_json(&self) -> String {
        let mut raw = self.raw.clone();
        for (k, c) in [("encoder", &self.encoder), ("decoder", &self.decoder)] {
            raw.insert(k.into(), serde_json::from_str(&c.to_json()).expect("a config serialises"));
        }
        serde_json::to_string_pretty(&raw).expect("config serialises")
    }
}

/// The parameters of both halves, and `enc_to_dec_proj` when their widths differ.
#[derive(Clone, Debug)]
pub struct Seq2SeqParams<T> {
    pub encoder: BertParams<T>,
    pub decoder: BertParams<T>,
    /// (H_dec, H_enc): the encoder's states to the decoder's width.
    pub proj: Option<Linear<T>>,
}

/// The file name of an encoder or decoder tensor (`encoder.` + a `BertModel` name; `decoder.` +
/// a `BertLMHeadModel` name, which keeps `bert.` and `cls.`).
fn file_name(half: &str, canonical: &str, heads: Heads) -> String {
    format!("{half}.{}", Family::Bert.file_name(canonical, heads))
}

impl<T: Real> Seq2SeqParams<T> {
    /// Every tensor under its name in the HF file.
    pub fn tensors(&self) -> Vec<(String, ArrayViewD<'_, T>)> {
        let (he, hd) = (self.encoder.heads(), self.decoder.heads());
        let mut out: Vec<(String, ArrayViewD<'_, T>)> =
            self.encoder.tensors().into_iter().map(|(n, t)| (file_name("encoder", &n, he), t)).collect();
        out.extend(self.decoder.tensors().into_iter().map(|(n, t)| (file_name("decoder", &n, hd), t)));
        if let Some(p) = &self.proj {
            out.push(("enc_to_dec_proj.weight".into(), p.weight.view().into_dyn()));
            out.push(("enc_to_dec_proj.bias".into(), p.bias.view().into_dyn()));
        }
        out
    }

    pub fn tensors_mut(&mut self) -> Vec<(String, ArrayViewMutD<'_, T>)> {
        let (he, hd) = (self.encoder.heads(), self.decoder.heads());
        let mut out: Vec<(String, ArrayViewMutD<'_, T>)> =
            self.encoder.tensors_mut().into_iter().map(|(n, t)| (file_name("encoder", &n, he), t)).collect();
        out.extend(self.decoder.tensors_mut().into_iter().map(|(n, t)| (file_name("decoder", &n, hd), t)));
        if let Some(p) = &mut self.proj {
            out.push(("enc_to_dec_proj.weight".into(), p.weight.view_mut().into_dyn()));
            out.push(("enc_to_dec_proj.bias".into(), p.bias.view_mut().into_dyn()));
        }
        out
    }

    pub fn zeros_like(&self) -> Self {
        Seq2SeqParams {
            encoder: self.encoder.zeros_like(),
            decoder: self.decoder.zeros_like(),
            proj: self.proj.as_ref().map(|p| Linear { weight: p.weight.mapv(|_| T::zero()), bias: p.bias.mapv(|_| T::zero()) }),
        }
    }

    pub fn num_params(&self) -> usize {
        self.tensors().iter().map(|(_, t)| t.len()).sum()
    }
}

/// A loaded encoder-decoder: config, parameters, the tokenizer both halves share.
#[derive(Clone)]
pub struct Seq2Seq {
    pub cfg: Seq2SeqConfig,
    pub params: Seq2SeqParams<f32>,
    pub tokenizer: BertTokenizer,
}

impl Seq2Seq {
    pub fn from_files(f: &ModelFiles) -> Result<Self> {
        let cfg = Seq2SeqConfig::from_json(&f.config_json)?;
        let max_len = cfg.encoder.max_tokens().min(cfg.decoder.max_tokens());
        let tokenizer = match (&f.tokenizer_json, &f.vocab_txt) {
            (Some(j), _) => BertTokenizer::from_tokenizer_json(j, max_len)?,
            (None, Some(v)) => BertTokenizer::from_vocab_txt(v, true, max_len)?,
            _ => return Err(BertError::Tokenizer("no tokenizer.json or vocab.txt".into())),
        };
        let st = crate::tensorfile::parse(&f.weights)?;
        let (encoder, _) = load_params_under(&cfg.encoder, &st, "encoder.")?;
        let (decoder, _) = load_params_under(&cfg.decoder, &st, "decoder.")?;
        if decoder.mlm.is_none() {
            return Err(BertError::Checkpoint("the decoder has no LM head (decoder.cls.predictions)".into()));
        }
        let (he, hd) = (cfg.encoder.hidden_size, cfg.decoder.hidden_size);
        let proj = if he != hd {
            let read = |name: &str, shape: &[usize]| -> Result<ndarray::ArrayD<f32>> {
                let v = st
                    .tensor(name)
                    .map_err(|_| BertError::tensor(name, format!("missing: the encoder's width {he} is not the decoder's {hd}")))?;
                let a = crate::tensorfile::read_f32(name, &v)?;
                if a.shape() != shape {
                    return Err(BertError::tensor(name, format!("shape {:?} in the file, but the config implies {shape:?}", a.shape())));
                }
                Ok(a)
            };
            let w = read("enc_to_dec_proj.weight", &[hd, he])?.into_dimensionality().expect("2-d");
            let b = read("enc_to_dec_proj.bias", &[hd])?.into_dimensionality().expect("1-d");
            Some(Linear { weight: w, bias: b })
        } else {
            None
        };
        Ok(Seq2Seq { cfg, params: Seq2SeqParams { encoder, decoder, proj }, tokenizer })
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_dir(dir: &std::path::Path) -> Result<Self> {
        Self::from_files(&ModelFiles::read_dir(dir)?)
    }

    /// config.json, model.safetensors (f32, HF names) and tokenizer.json.
    pub fn to_files(&self) -> Result<ModelFiles> {
        let tensors: Vec<(String, crate::tensorfile::Tensor)> =
            self.params.tensors().into_iter().map(|(n, t)| (n, crate::tensorfile::Tensor::F32(t.to_owned()))).collect();
        let meta = std::collections::HashMap::from([("format".to_string(), "pt".to_string())]);
        Ok(ModelFiles {
            config_json: self.cfg.to_json(),
            weights: crate::tensorfile::write_tensors(&tensors, Some(meta))?,
            tokenizer_json: Some(self.tokenizer.to_json()?.into_bytes()),
            ..Default::default()
        })
    }
}
