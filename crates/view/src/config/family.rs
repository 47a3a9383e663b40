//! The encoder families bertscope loads: BERT, DistilBERT and RoBERTa. All three are the same
//! post-LayerNorm Transformer encoder; inside, every model uses BERT's canonical tensor names
//! (`bert.encoder.layer.0.attention.self.query.weight`), and this file maps each family's names
//! and config keys to and from them, so a hub folder loads as it is and what we save loads in HF.
//!
//! What differs (`modeling_distilbert.py`, `modeling_roberta.py`):
//! - DistilBERT: no segment (token type) embeddings, no pooler, no NSP; its own config keys
//!   (`dim`, `n_layers`, `n_heads`, `hidden_dim`, `activation`, `dropout`, `attention_dropout`),
//!   LayerNorm eps 1e-12 everywhere; a sequence classifier is `pre_classifier` + ReLU +
//!   `classifier` on the first token (our pooler slot, with ReLU instead of tanh).
//! - RoBERTa: BERT's config and layers under `roberta.*`; positions start at `pad_token_id + 1`
//!   and skip pads (`create_position_ids_from_input_ids`); one segment; the MLM head `lm_head`
//!   (always exact GELU); a sequence classifier is `classifier.dense` + tanh + `classifier.out_proj`
//!   on `<s>` (our pooler slot and classifier).

use super::heads::{Heads, TaskKind};
use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    #[default]
    Bert,
    DistilBert,
    Roberta,
}

impl Family {
    pub const ALL: [Family; 3] = [Family::Bert, Family::DistilBert, Family::Roberta];

    /// From `config.json`'s `model_type` (absent: BERT, as older BERT files have none).
    pub fn from_model_type(t: Option<&str>) -> Option<Family> {
        match t {
            None | Some("bert") => Some(Family::Bert),
            Some("distilbert") => Some(Family::DistilBert),
            Some("roberta") => Some(Family::Roberta),
            Some(_) => None,
        }
    }

    pub fn model_type(self) -> &'static str {
        match self {
            Family::Bert => "bert",
            Family::DistilBert => "distilbert",
            Family::Roberta => "roberta",
        }
    }

    /// The name people use.
    pub fn display(self) -> &'static str {
        match self {
            Family::Bert => "BERT",
            Family::DistilBert => "DistilBERT",
            Family::Roberta => "RoBERTa",
        }
    }

    /// The class-name prefix of `architectures` (`BertForMaskedLM`, `DistilBertFor...`, `RobertaFor...`).
    fn class_prefix(self) -> &'static str {
        match self {
            Family::Bert => "Bert",
            Family::DistilBert => "DistilBert",
            Family::Roberta => "Roberta",
        }
    }

    /// HF's class for a task head of this family.
    pub fn architecture(self, kind: TaskKind) -> String {
        let suffix = match kind {
            TaskKind::SequenceClassification => "ForSequenceClassification",
            TaskKind::TokenClassification => "ForTokenClassification",
            TaskKind::QuestionAnswering => "ForQuestionAnswering",
        };
        format!("{}{suffix}", self.class_prefix())
    }

    /// HF's class for the pre-training heads we hold: MLM (+ NSP for BERT), or the bare encoder.
    pub fn base_architecture(self, mlm: bool, nsp: bool) -> String {
        let suffix = match (mlm, nsp) {
            (true, true) => "ForPreTraining",
            (true, false) => "ForMaskedLM",
            _ => "Model",
        };
        format!("{}{suffix}", self.class_prefix())
    }

    /// Whether the model has segment (token type) embeddings.
    pub fn has_segments(self) -> bool {
        self != Family::DistilBert
    }

    /// The first position id of a sequence: RoBERTa counts from `pad_token_id + 1`.
    pub fn positions_start(self, pad: Option<usize>) -> usize {
        match (self, pad) {
            (Family::Roberta, Some(p)) => p + 1,
            _ => 0,
        }
    }

    /// The canonical name of a tensor in this family's file, or None for tensors the forward does
    /// not use (buffers such as `position_ids`).
    pub fn canonical_name(self, name: &str) -> Option<String> {
        match self {
            Family::Bert => bert_canonical(name),
            Family::DistilBert => distil_canonical(name),
            Family::Roberta => roberta_canonical(name),
        }
    }

    /// The name this family's HF class for `heads` saves `canonical` under: the headless model
    /// (`BertModel`, `DistilBertModel`, `RobertaModel`) without the `bert.` / `distilbert.` /
    /// `roberta.` prefix; RoBERTa's sequence classifier with its own head names.
    pub fn file_name(self, canonical: &str, heads: Heads) -> String {
        let bare = !(heads.mlm || heads.nsp || heads.task.is_some());
        let seqcls = heads.task.is_some_and(|t| t.kind == TaskKind::SequenceClassification);
        match self {
            Family::Bert => match bare {
                true => canonical.strip_prefix("bert.").unwrap_or(canonical).to_string(),
                false => canonical.to_string(),
            },
            Family::DistilBert => distil_file_name(canonical, bare),
            Family::Roberta => roberta_file_name(canonical, bare, seqcls),
        }
    }
}

/// BERT files: `bert.` optional (a `BertModel` has none), LayerNorm as gamma/beta or weight/bias,
/// the decoder's bias under either name.
fn bert_canonical(name: &str) -> Option<String> {
    let rest = name.strip_prefix("bert.").unwrap_or(name);
    let mut out = if rest.starts_with("embeddings.") || rest.starts_with("encoder.") || rest.starts_with("pooler.") {
        format!("bert.{rest}")
    } else if rest.starts_with("cls.") || rest.starts_with("classifier.") || rest.starts_with("qa_outputs.") {
        rest.to_string()
    } else {
        return None;
    };
    if out.contains("LayerNorm.") {
        if let Some(base) = out.strip_suffix(".gamma") {
            out = format!("{base}.weight");
        } else if let Some(base) = out.strip_suffix(".beta") {
            out = format!("{base}.bias");
        }
    }
    if out == "cls.predictions.decoder.bias" {
        out = "cls.predictions.bias".into();
    }
    if out.ends_with("position_ids") || out.ends_with("token_type_ids") {
        return None;
    }
    Some(out)
}

/// DistilBERT's layer names against BERT's (the part after `layer.N.`).
const DISTIL_LAYER: [(&str, &str); 8] = [
    ("attention.q_lin", "attention.self.query"),
    ("attention.k_lin", "attention.self.key"),
    ("attention.v_lin", "attention.self.value"),
    ("attention.out_lin", "attention.output.dense"),
    ("sa_layer_norm", "attention.output.LayerNorm"),
    ("ffn.lin1", "intermediate.dense"),
    ("ffn.lin2", "output.dense"),
    ("output_layer_norm", "output.LayerNorm"),
];

/// DistilBERT's heads against BERT's (whole prefixes).
const DISTIL_HEADS: [(&str, &str); 4] = [
    ("vocab_transform", "cls.predictions.transform.dense"),
    ("vocab_layer_norm", "cls.predictions.transform.LayerNorm"),
    ("pre_classifier", "bert.pooler.dense"),
    ("classifier", "classifier"),
];

/// Splits `w.x.y.weight` into (`w.x.y`, `weight`).
fn split_param(name: &str) -> Option<(&str, &str)> {
    name.rsplit_once('.')
}

fn distil_canonical(name: &str) -> Option<String> {
    let rest = name.strip_prefix("distilbert.").unwrap_or(name);
    if let Some(e) = rest.strip_prefix("embeddings.") {
        return match e {
            "position_ids" => None,
            _ => Some(format!("bert.embeddings.{e}")),
        };
    }
    if let Some(l) = rest.strip_prefix("transformer.layer.") {
        let (idx, part) = l.split_once('.')?;
        let (module, param) = split_param(part)?;
        let (_, ours) = DISTIL_LAYER.iter().find(|(d, _)| *d == module)?;
        return Some(format!("bert.encoder.layer.{idx}.{ours}.{param}"));
    }
    match rest {
        "vocab_projector.weight" => return Some("cls.predictions.decoder.weight".into()),
        "vocab_projector.bias" => return Some("cls.predictions.bias".into()),
        _ => {}
    }
    let (module, param) = split_param(rest)?;
    if module == "qa_outputs" {
        return Some(rest.to_string());
    }
    let (_, ours) = DISTIL_HEADS.iter().find(|(d, _)| *d == module)?;
    Some(format!("{ours}.{param}"))
}

fn distil_file_name(canonical: &str, bare: bool) -> String {
    let body = |s: String| if bare { s } else { format!("distilbert.{s}") };
    if let Some(e) = canonical.strip_prefix("bert.embeddings.") {
        return body(format!("embeddings.{e}"));
    }
    if let Some(l) = canonical.strip_prefix("bert.encoder.layer.") {
        if let Some((idx, part)) = l.split_once('.') {
            if let Some((module, param)) = split_param(part) {
                if let Some((d, _)) = DISTIL_LAYER.iter().find(|(_, o)| *o == module) {
                    return body(format!("transformer.layer.{idx}.{d}.{param}"));
                }
            }
        }
    }
    match canonical {
        "cls.predictions.decoder.weight" => return "vocab_projector.weight".into(),
        "cls.predictions.bias" => return "vocab_projector.bias".into(),
        _ => {}
    }
    if let Some((module, param)) = split_param(canonical) {
        if let Some((d, _)) = DISTIL_HEADS.iter().find(|(_, o)| *o == module) {
            return format!("{d}.{param}");
        }
    }
    canonical.to_string()
}

fn roberta_canonical(name: &str) -> Option<String> {
    let rest = name.strip_prefix("roberta.").unwrap_or(name);
    if rest.starts_with("embeddings.") || rest.starts_with("encoder.") || rest.starts_with("pooler.") {
        if rest.ends_with("position_ids") || rest.ends_with("token_type_ids") {
            return None;
        }
        return Some(format!("bert.{rest}"));
    }
    let head = [
        ("lm_head.dense.", "cls.predictions.transform.dense."),
        ("lm_head.layer_norm.", "cls.predictions.transform.LayerNorm."),
        ("lm_head.decoder.weight", "cls.predictions.decoder.weight"),
        ("lm_head.decoder.bias", "cls.predictions.bias"),
        ("lm_head.bias", "cls.predictions.bias"),
        // a sequence classifier's head; a token tagger's is a plain `classifier`
        ("classifier.dense.", "bert.pooler.dense."),
        ("classifier.out_proj.", "classifier."),
        ("classifier.", "classifier."),
        ("qa_outputs.", "qa_outputs."),
    ];
    head.iter().find_map(|(theirs, ours)| rest.strip_prefix(theirs).map(|p| format!("{ours}{p}")))
}

/// In a sequence classifier the pooler slot and classifier are `classifier.dense` / `out_proj`.
fn roberta_file_name(canonical: &str, bare: bool, seqcls: bool) -> String {
    if seqcls {
        if let Some(p) = canonical.strip_prefix("bert.pooler.dense.") {
            return format!("classifier.dense.{p}");
        }
        if let Some(p) = canonical.strip_prefix("classifier.") {
            return format!("classifier.out_proj.{p}");
        }
    }
    if let Some(b) = canonical.strip_prefix("bert.") {
        return if bare { b.to_string() } else { format!("roberta.{b}") };
    }
    let head = [
        ("cls.predictions.transform.dense.", "lm_head.dense."),
        ("cls.predictions.transform.LayerNorm.", "lm_head.layer_norm."),
        ("cls.predictions.decoder.weight", "lm_head.decoder.weight"),
        ("cls.predictions.bias", "lm_head.bias"),
    ];
    head.iter()
        .find_map(|(ours, theirs)| canonical.strip_prefix(ours).map(|p| format!("{theirs}{p}")))
        .unwrap_or_else(|| canonical.to_string())
}

/// DistilBERT's config keys against BERT's.
pub const DISTIL_KEYS: [(&str, &str); 7] = [
    ("dim", "hidden_size"),
    ("n_layers", "num_hidden_layers"),
    ("n_heads", "num_attention_heads"),
    ("hidden_dim", "intermediate_size"),
    ("activation", "hidden_act"),
    ("dropout", "hidden_dropout_prob"),
    ("attention_dropout", "attention_probs_dropout_prob"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::heads::TaskHead;

    #[test]
    fn names_round_trip_for_every_family() {
        let canon = [
            "bert.embeddings.word_embeddings.weight",
            "bert.embeddings.position_embeddings.weight",
            "bert.embeddings.LayerNorm.weight",
            "bert.encoder.layer.3.attention.self.query.weight",
            "bert.encoder.layer.0.attention.output.LayerNorm.bias",
            "bert.encoder.layer.1.intermediate.dense.weight",
            "bert.encoder.layer.1.output.dense.bias",
            "bert.encoder.layer.1.output.LayerNorm.weight",
            "cls.predictions.transform.dense.weight",
            "cls.predictions.transform.LayerNorm.bias",
            "cls.predictions.decoder.weight",
            "cls.predictions.bias",
            "bert.pooler.dense.weight",
            "classifier.bias",
            "qa_outputs.weight",
        ];
        let seqcls = Heads::for_task(TaskKind::SequenceClassification, 3);
        let tagger = Heads { task: Some(TaskHead { kind: TaskKind::TokenClassification, outputs: 5 }), ..Heads::MASKED_LM };
        for f in Family::ALL {
            for heads in [Heads::BASE_MODEL, Heads::PRETRAINING, seqcls, tagger] {
                for c in canon {
                    let file = f.file_name(c, heads);
                    assert_eq!(f.canonical_name(&file).as_deref(), Some(c), "{f:?} {c} -> {file}");
                }
            }
        }
        assert_eq!(
            Family::DistilBert.file_name("bert.encoder.layer.2.attention.self.key.bias", Heads::MASKED_LM),
            "distilbert.transformer.layer.2.attention.k_lin.bias"
        );
        assert_eq!(Family::DistilBert.file_name("bert.pooler.dense.weight", seqcls), "pre_classifier.weight");
        assert_eq!(Family::Roberta.file_name("bert.pooler.dense.weight", seqcls), "classifier.dense.weight");
        assert_eq!(Family::Roberta.file_name("classifier.bias", seqcls), "classifier.out_proj.bias");
        assert_eq!(Family::Roberta.file_name("classifier.bias", tagger), "classifier.bias");
        assert_eq!(Family::Roberta.file_name("cls.predictions.transform.LayerNorm.weight", Heads::MASKED_LM), "lm_head.layer_norm.weight");
        assert_eq!(Family::Roberta.canonical_name("classifier.out_proj.weight").unwrap(), "classifier.weight");
        assert_eq!(Family::Roberta.canonical_name("classifier.dense.bias").unwrap(), "bert.pooler.dense.bias");
        assert!(Family::Roberta.canonical_name("roberta.embeddings.position_ids").is_none());
        assert!(Family::DistilBert.canonical_name("distilbert.transformer.layer.0.attention.zz.weight").is_none());
    }
}
