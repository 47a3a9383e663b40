//! Where each parameter lies in the model's buffer, resolved once when the weights go up: one field
//! per tensor, in the shape of `model::params` (HF names below), so the forward and the backward name
//! tensors by field and a missing tensor is an error at upload, naming it, never a panic mid-record.
//! A slot views any buffer of the layout: the weights, their gradients, AdamW's moments.

use super::layout::ParamLayout;
use super::recorder::View;
use crate::config::{PositionEncoding, TaskKind};
use crate::error::{BertError, Result};
use crate::model::BertParams;

/// One tensor's place in the layout, in f32 elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub off: usize,
    pub len: usize,
}

impl Slot {
    /// This tensor in `buf` (the weights, or a gradient / moment buffer of the same layout).
    pub fn of(self, buf: &wgpu::Buffer) -> View<'_> {
        View { buf, off: self.off, len: self.len }
    }
}

/// `{name}.weight` (OUT, IN) and `{name}.bias` (OUT).
#[derive(Clone, Copy, Debug)]
pub struct LinearSlots {
    pub weight: Slot,
    pub bias: Slot,
}

/// A LayerNorm's `weight` (gamma) and `bias` (beta), (H) each.
#[derive(Clone, Copy, Debug)]
pub struct NormSlots {
    pub gamma: Slot,
    pub beta: Slot,
}

/// `bert.encoder.layer.{l}.*`
#[derive(Clone, Copy, Debug)]
pub struct LayerSlots {
    pub query: LinearSlots,
    pub key: LinearSlots,
    pub value: LinearSlots,
    pub attn_out: LinearSlots,
    pub attn_ln: NormSlots,
    pub intermediate: LinearSlots,
    pub output: LinearSlots,
    pub out_ln: NormSlots,
    /// A decoder layer's `crossattention` (None in an encoder).
    pub cross: Option<CrossSlots>,
}

/// `bert.encoder.layer.{l}.crossattention.*`: Q from the decoder, K and V from the encoder.
#[derive(Clone, Copy, Debug)]
pub struct CrossSlots {
    pub query: LinearSlots,
    pub key: LinearSlots,
    pub value: LinearSlots,
    /// `crossattention.output.dense`
    pub out: LinearSlots,
    /// `crossattention.output.LayerNorm`
    pub ln: NormSlots,
}

/// `cls.predictions.*`
#[derive(Clone, Copy, Debug)]
pub struct MlmSlots {
    pub transform: LinearSlots,
    pub ln: NormSlots,
    /// (V, H): the head's own decoder, or the word embeddings it is tied to.
    pub decoder: Slot,
    pub bias: Slot,
}

#[derive(Clone, Debug)]
pub struct Slots {
    pub word: Slot,
    /// Learned positions (None: sinusoidal, made on the CPU and uploaded per forward).
    pub position: Option<Slot>,
    pub token_type: Option<Slot>, // None without segments (DistilBERT)
    pub emb_ln: NormSlots,
    pub layers: Vec<LayerSlots>,
    pub pooler: Option<LinearSlots>,
    pub mlm: Option<MlmSlots>,
    /// `cls.seq_relationship` (read only with a pooler: it classifies the pooled [CLS]).
    pub nsp: Option<LinearSlots>,
    /// A fine-tuning head: `classifier` or `qa_outputs`.
    pub task: Option<(TaskKind, LinearSlots)>,
}

impl Slots {
    /// Every tensor `params` has, found in `layout` (built from the same parameters).
    pub fn resolve(layout: &ParamLayout, params: &BertParams<f32>, positions: PositionEncoding) -> Result<Self> {
        let get = |name: &str| -> Result<Slot> {
            let e = layout.get(name).ok_or_else(|| BertError::Gpu(format!("the weights on the GPU have no tensor `{name}`")))?;
            Ok(Slot { off: e.off, len: e.len })
        };
        let lin = |name: &str| -> Result<LinearSlots> {
            Ok(LinearSlots { weight: get(&format!("{name}.weight"))?, bias: get(&format!("{name}.bias"))? })
        };
        let norm = |name: &str| -> Result<NormSlots> {
            Ok(NormSlots { gamma: get(&format!("{name}.weight"))?, beta: get(&format!("{name}.bias"))? })
        };
        let word = get("bert.embeddings.word_embeddings.weight")?;
        let layers = (0..params.layers.len())
            .map(|l| {
                let pre = format!("bert.encoder.layer.{l}");
                let cross = match &params.layers[l].cross {
                    Some(_) => {
                        let c = format!("{pre}.crossattention");
                        Some(CrossSlots {
                            query: lin(&format!("{c}.self.query"))?,
                            key: lin(&format!("{c}.self.key"))?,
                            value: lin(&format!("{c}.self.value"))?,
                            out: lin(&format!("{c}.output.dense"))?,
                            ln: norm(&format!("{c}.output.LayerNorm"))?,
                        })
                    }
                    None => None,
                };
                Ok(LayerSlots {
                    query: lin(&format!("{pre}.attention.self.query"))?,
                    key: lin(&format!("{pre}.attention.self.key"))?,
                    value: lin(&format!("{pre}.attention.self.value"))?,
                    attn_out: lin(&format!("{pre}.attention.output.dense"))?,
                    attn_ln: norm(&format!("{pre}.attention.output.LayerNorm"))?,
                    intermediate: lin(&format!("{pre}.intermediate.dense"))?,
                    output: lin(&format!("{pre}.output.dense"))?,
                    out_ln: norm(&format!("{pre}.output.LayerNorm"))?,
                    cross,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mlm = match &params.mlm {
            Some(h) => Some(MlmSlots {
                transform: lin("cls.predictions.transform.dense")?,
                ln: norm("cls.predictions.transform.LayerNorm")?,
                decoder: if h.decoder.is_some() { get("cls.predictions.decoder.weight")? } else { word },
                bias: get("cls.predictions.bias")?,
            }),
            None => None,
        };
        let learned = params.emb.position.is_some() && positions == PositionEncoding::Learned;
        Ok(Slots {
            word,
            position: if learned { Some(get("bert.embeddings.position_embeddings.weight")?) } else { None },
            token_type: params.emb.token_type.as_ref().map(|_| get("bert.embeddings.token_type_embeddings.weight")).transpose()?,
            emb_ln: norm("bert.embeddings.LayerNorm")?,
            layers,
            pooler: params.pooler.as_ref().map(|_| lin("bert.pooler.dense")).transpose()?,
            mlm,
            nsp: params.nsp.as_ref().map(|_| lin("cls.seq_relationship")).transpose()?,
            task: params.task.as_ref().map(|t| lin(t.kind.prefix()).map(|l| (t.kind, l))).transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BertConfig, Heads};

    #[test]
    fn every_tensor_gets_its_slot_and_a_missing_one_is_named() {
        let cfg = BertConfig::new(30, 8, 2, 2, 12, 16);
        let p = BertParams::<f32>::init(&cfg, Heads::PRETRAINING, 1);
        let layout = ParamLayout::new(&p, 64);
        let s = Slots::resolve(&layout, &p, PositionEncoding::Learned).unwrap();
        let q = layout.get("bert.encoder.layer.1.attention.self.query.weight").unwrap();
        assert_eq!(s.layers[1].query.weight, Slot { off: q.off, len: 64 });
        assert!(s.pooler.is_some() && s.nsp.is_some() && s.position.is_some());
        let tied = s.mlm.unwrap().decoder;
        assert_eq!(tied, s.word, "a tied head decodes with the word embeddings");
        assert!(Slots::resolve(&layout, &p, PositionEncoding::Sinusoidal).unwrap().position.is_none());
        // a layout that lacks a tensor the parameters have: an error naming it
        let mut fewer = p.clone();
        fewer.layers.pop();
        let short = ParamLayout::new(&fewer, 64);
        let e = Slots::resolve(&short, &p, PositionEncoding::Learned).unwrap_err().to_string();
        assert!(e.contains("bert.encoder.layer.1.attention.self.query.weight"), "{e}");
        assert!(s.layers.iter().all(|l| l.cross.is_none()), "an encoder has no cross-attention");
    }

    #[test]
    fn a_decoder_layer_gets_its_cross_attention_slots() {
        let mut cfg = BertConfig::new(30, 8, 2, 2, 12, 16);
        cfg.is_decoder = true;
        cfg.add_cross_attention = true;
        let p = BertParams::<f32>::init(&cfg, Heads::MASKED_LM, 1);
        let layout = ParamLayout::new(&p, 64);
        let s = Slots::resolve(&layout, &p, PositionEncoding::Learned).unwrap();
        let c = s.layers[1].cross.expect("a decoder layer's crossattention");
        let k = layout.get("bert.encoder.layer.1.crossattention.self.key.weight").unwrap();
        assert_eq!(c.key.weight, Slot { off: k.off, len: 64 });
        let ln = layout.get("bert.encoder.layer.1.crossattention.output.LayerNorm.bias").unwrap();
        assert_eq!(c.ln.beta, Slot { off: ln.off, len: 8 });
        // parameters with cross-attention, a layout without: the missing tensor is named
        let mut enc_cfg = cfg.clone();
        enc_cfg.add_cross_attention = false;
        let short = ParamLayout::new(&BertParams::<f32>::init(&enc_cfg, Heads::MASKED_LM, 1), 64);
        let e = Slots::resolve(&short, &p, PositionEncoding::Learned).unwrap_err().to_string();
        assert!(e.contains("bert.encoder.layer.0.crossattention.self.query.weight"), "{e}");
    }
}
