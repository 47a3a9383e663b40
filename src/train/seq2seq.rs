//! Training an encoder-decoder on a parallel corpus (JSON lines of {"source", "target"}):
//! teacher forcing (the decoder reads [decoder_start] + the target, learns the target + eos),
//! AdamW with warmup + linear decay and clipping at 1.0, as the masked-LM trainer; held-out loss
//! and exact match of greedy decoding. A model from scratch gets a WordPiece vocabulary trained on
//! both sides of the corpus.

use super::schedule::LinearSchedule;
use crate::config::BertConfig;
use crate::error::{BertError, Result};
use crate::model::adamw::{adamw_step, AdamWConfig};
use crate::model::forward::Batch;
use crate::rng::Rng;
use crate::seq2seq::forward::{loss_and_grads, Seq2SeqBatch};
use crate::seq2seq::generate::greedy;
use crate::seq2seq::{Seq2Seq, Seq2SeqConfig, Seq2SeqParams};
use crate::tokenize::BertTokenizer;
use bertscope_view::explain::translate::TranslatePoint;
use serde::Deserialize;

/// One source sentence and its translation.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Pair {
    pub source: String,
    pub target: String,
}

/// JSON lines of pairs; a bad line is an error naming its number.
pub fn read_pairs(text: &str) -> Result<Vec<Pair>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let p: Pair = serde_json::from_str(line)
            .map_err(|e| BertError::Input(format!("line {}: not a {{\"source\", \"target\"}} pair: {e}", i + 1)))?;
        if p.source.trim().is_empty() || p.target.trim().is_empty() {
            return Err(BertError::Input(format!("line {}: an empty source or target", i + 1)));
        }
        out.push(p);
    }
    if out.is_empty() {
        return Err(BertError::Input("no pairs: give JSON lines of {\"source\": .., \"target\": ..}".into()));
    }
    Ok(out)
}

/// A new encoder-decoder of BERT halves with `hidden` width, `layers` each, `heads` heads, around a
/// WordPiece vocabulary of about `vocab_size` trained on both sides of `pairs`.
pub fn from_scratch(
    pairs: &[Pair],
    hidden: usize,
    layers: usize,
    heads: usize,
    max_len: usize,
    vocab_size: usize,
    seed: u64,
) -> Result<Seq2Seq> {
    let text: String = pairs.iter().flat_map(|p| [p.source.as_str(), "\n", p.target.as_str(), "\n"]).collect();
    let tokenizer = BertTokenizer::train_wordpiece(&text, vocab_size, max_len)?;
    let v = tokenizer.vocab_size();
    let encoder = BertConfig::new(v, hidden, layers, heads, 4 * hidden, max_len);
    let mut decoder = encoder.clone();
    decoder.is_decoder = true;
    decoder.add_cross_attention = true;
    let id = |s: &str| tokenizer.token_to_id(s).ok_or_else(|| BertError::Tokenizer(format!("the vocabulary has no {s}")));
    let (start, pad, eos) = (id("[CLS]")?, id("[PAD]")?, id("[SEP]")?);
    let raw = serde_json::json!({
        "architectures": ["EncoderDecoderModel"], "model_type": "encoder-decoder", "is_encoder_decoder": true,
        "decoder_start_token_id": start, "pad_token_id": pad, "eos_token_id": eos, "vocab_size": v,
        "encoder": serde_json::from_str::<serde_json::Value>(&encoder.to_json()).expect("json"),
        "decoder": serde_json::from_str::<serde_json::Value>(&decoder.to_json()).expect("json"),
    });
    let cfg = Seq2SeqConfig::from_json(&raw.to_string())?;
    use crate::config::Heads;
    let params = Seq2SeqParams {
        // with the pooler HF's BertModel has (unused here: no gradient reaches it)
        encoder: crate::model::BertParams::init(&cfg.encoder, Heads::BASE_MODEL, seed),
        decoder: crate::model::BertParams::init(&cfg.decoder, Heads::MASKED_LM, seed ^ 0x5eed),
        proj: None,
    };
    Ok(Seq2Seq { cfg, params, tokenizer })
}

#[derive(Clone, Debug)]
pub struct Seq2SeqOptions {
    pub steps: usize,
    pub batch: usize,
    pub lr: f64,
    /// None: 10% of the steps.
    pub warmup: Option<usize>,
    pub seed: u64,
}

pub struct Seq2SeqTrainer {
    pub model: Seq2Seq,
    /// (source ids with [CLS] and [SEP], target ids without special tokens)
    examples: Vec<(Vec<u32>, Vec<u32>)>,
    m: Seq2SeqParams<f32>,
    v: Seq2SeqParams<f32>,
    step: usize,
    schedule: LinearSchedule,
    opts: Seq2SeqOptions,
    rng: Rng,
}

impl Seq2SeqTrainer {
    pub fn new(model: Seq2Seq, pairs: &[Pair], opts: Seq2SeqOptions) -> Result<Self> {
        if opts.batch == 0 || opts.steps == 0 || !(opts.lr > 0.0 && opts.lr < 1.0) {
            return Err(BertError::Input(format!(
                "steps and batch must be positive and lr in (0, 1) (got {}, {}, {})",
                opts.steps, opts.batch, opts.lr
            )));
        }
        let examples = pairs.iter().map(|p| encode_pair(&model, p)).collect::<Result<Vec<_>>>()?;
        let schedule = LinearSchedule { base_lr: opts.lr, warmup: opts.warmup.unwrap_or(opts.steps / 10), total: opts.steps };
        let (m, v) = (model.params.zeros_like(), model.params.zeros_like());
        Ok(Seq2SeqTrainer { model, examples, m, v, step: 0, schedule, rng: Rng::new(opts.seed), opts })
    }

    /// Steps taken.
    pub fn step_count(&self) -> usize {
        self.step
    }

    /// One AdamW step on a random batch: the point the page's charts plot (`acc`: target tokens,
    /// eos included, whose most probable token was right, teacher-forced; the held-out exact
    /// match left for an evaluation to fill).
    pub fn step(&mut self) -> Result<TranslatePoint> {
        let picks: Vec<usize> = (0..self.opts.batch).map(|_| self.rng.below(self.examples.len())).collect();
        let chosen: Vec<&(Vec<u32>, Vec<u32>)> = picks.iter().map(|&i| &self.examples[i]).collect();
        let (batch, labels) = make_batch(&self.model, &chosen);
        let out = loss_and_grads(&self.model.params, &self.model.cfg, &batch, &labels)?;
        let (loss, mut g) = (out.loss, out.grads);
        if !loss.is_finite() {
            return Err(BertError::Input(format!("the loss is {loss} at step {}: lower the learning rate", self.step + 1)));
        }
        clip(&mut g, 1.0);
        let lr = self.schedule.lr(self.step);
        self.step += 1;
        let p = &mut self.model.params;
        adamw_step(&AdamWConfig::default(), self.step as u64, p.tensors_mut(), g.tensors(), self.m.tensors_mut(), self.v.tensors_mut(), lr);
        Ok(TranslatePoint { step: self.step, loss, acc: out.correct as f32 / out.labelled.max(1) as f32, lr, exact_match: None })
    }

    /// Held-out exact match: greedy decoding of each source against its target (whitespace-normalised).
    pub fn exact_match(&self, pairs: &[Pair]) -> Result<f32> {
        let mut hits = 0;
        for p in pairs {
            let max_new = self.model.tokenizer.ids(&p.target)?.len() + 2;
            let g = greedy(&self.model, &p.source, max_new, 1)?;
            let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            hits += usize::from(norm(&g.text) == norm(&self.model.tokenizer.decode(&self.model.tokenizer.ids(&p.target)?)?));
        }
        Ok(hits as f32 / pairs.len().max(1) as f32)
    }
}

/// The source's ids ([CLS] .. [SEP]) and the target's without special tokens, both cut to fit.
fn encode_pair(m: &Seq2Seq, p: &Pair) -> Result<(Vec<u32>, Vec<u32>)> {
    let src = m.tokenizer.encode(&p.source, None)?.input_ids;
    let mut tgt = m.tokenizer.ids(&p.target)?;
    tgt.truncate(m.cfg.decoder.max_tokens().saturating_sub(1));
    Ok((src, tgt))
}

/// A padded batch: sources (B, S); decoder inputs [start] + target (B, T); labels target + eos,
/// -100 on padding.
fn make_batch(m: &Seq2Seq, ex: &[&(Vec<u32>, Vec<u32>)]) -> (Seq2SeqBatch, Vec<i64>) {
    let b = ex.len();
    let s = ex.iter().map(|e| e.0.len()).max().unwrap_or(1);
    let t = ex.iter().map(|e| e.1.len() + 1).max().unwrap_or(1);
    let pad = m.cfg.pad as usize;
    let (mut src, mut smask) = (vec![pad; b * s], vec![0u8; b * s]);
    let (mut tgt, mut tmask, mut labels) = (vec![pad; b * t], vec![0u8; b * t], vec![-100i64; b * t]);
    for (i, (sids, tids)) in ex.iter().map(|e| (&e.0, &e.1)).enumerate() {
        for (j, &id) in sids.iter().enumerate() {
            (src[i * s + j], smask[i * s + j]) = (id as usize, 1);
        }
        let dec_in = std::iter::once(m.cfg.decoder_start).chain(tids.iter().copied());
        let lab = tids.iter().copied().chain(std::iter::once(m.cfg.eos));
        for (j, (d, l)) in dec_in.zip(lab).enumerate() {
            (tgt[i * t + j], tmask[i * t + j], labels[i * t + j]) = (d as usize, 1, l as i64);
        }
    }
    let batch = |b, t, ids, mask| Batch { b, t, input_ids: ids, token_type_ids: vec![0; b * t], attention_mask: mask };
    (Seq2SeqBatch { src: batch(b, s, src, smask), tgt: batch(b, t, tgt, tmask) }, labels)
}

/// Scales the gradients to a global L2 norm of at most `max_norm`.
fn clip(g: &mut Seq2SeqParams<f32>, max_norm: f64) {
    let sq: f64 = g.tensors().iter().map(|(_, t)| t.iter().map(|&v| (v as f64).powi(2)).sum::<f64>()).sum();
    let coef = (max_norm / (sq.sqrt() + 1e-6)).min(1.0) as f32;
    if coef < 1.0 {
        for (_, mut t) in g.tensors_mut() {
            t.mapv_inplace(|v| v * coef);
        }
    }
}
