//! DistilBERT and RoBERTa against HF transformers (PyTorch): random models in hub layout and their
//! references made by `scripts/make_family_fixtures.py` (DistilBertForMaskedLM with learned
//! positions; DistilBertForSequenceClassification with sinusoidal positions and ReLU;
//! RobertaForMaskedLM, ...SequenceClassification on pairs, ...TokenClassification, all with the
//! script's own byte-level BPE; a right-padded batch of two each). Tolerances as tests/reference.rs:
//! hidden states and logits 1e-4 absolute, attention 1e-5, loss 1e-5 relative, gradients
//! max|ours - ref| <= 1e-3 * max|ref| + 1e-6 per tensor, every parameter compared.

use bertscope::bundle::{Bert, ModelFiles};
use bertscope::config::{Family, TaskKind};
use bertscope::model::backward::{loss_and_grads, Targets};
use bertscope::model::forward::{forward, ForwardOptions, MlmRows};
use bertscope::model::task::TaskLabels;

mod common;
use common::{close, load_fixture, root};

/// Forward (every hidden state, attention and the logits), loss and every gradient of one case.
fn run(name: &str, family: Family, task: Option<TaskKind>) -> usize {
    let c = load_fixture(name);
    let bert = Bert::from_dir(&root().join(&c.meta["model"])).unwrap();
    assert_eq!(bert.cfg.family, family, "{name}: the family from config.json");
    assert_eq!(bert.params.heads().task.map(|t| t.kind), task, "{name}: the head from the file");
    let batch = c.batch();
    let (b, t) = (batch.b, batch.t);
    let want_pos: Vec<usize> = c.i64s["position_ids"].iter().map(|&v| v as usize).collect();
    assert_eq!(batch.position_ids(&bert.cfg), want_pos, "{name}: position ids as HF computes them");
    let tr = forward(&bert.params, &bert.cfg, &batch, &ForwardOptions { mlm_rows: MlmRows::All, ..Default::default() }).unwrap();
    let mut checks = c.compare_hidden(name, "", &tr.hidden, (b, t));
    for (i, l) in tr.layers.iter().enumerate() {
        close(&format!("{name} attentions.{i}"), l.attn.probs.view().into_dyn(), c.f32s[&format!("attentions.{i}")].view(), 1e-5);
        checks += 1;
    }
    let labels = &c.i64s["labels"];
    let targets = match task {
        None => {
            let v = bert.cfg.vocab_size;
            let ours = tr.mlm.as_ref().unwrap().logits.view().into_shape_with_order((b, t, v)).unwrap().into_dyn();
            close(&format!("{name} logits"), ours, c.f32s["logits"].view(), 1e-4);
            Targets { mlm_labels: Some(labels.iter().copied().collect()), nsp_labels: None, task: None }
        }
        Some(kind) => {
            let logits = &tr.task.as_ref().expect("the head ran").logits;
            let want = &c.f32s["logits"];
            close(&format!("{name} logits"), logits.view().into_shape_with_order(want.shape()).unwrap(), want.view(), 1e-4);
            let l: Vec<i64> = labels.iter().copied().collect();
            let labels = match kind {
                TaskKind::SequenceClassification => TaskLabels::Classes(l),
                _ => TaskLabels::Tags(l),
            };
            Targets { mlm_labels: None, nsp_labels: None, task: Some(labels) }
        }
    };
    checks += 1;
    let (loss, grads, _) = loss_and_grads(&bert.params, &bert.cfg, &batch, &targets, None).unwrap();
    let want = c.f32s["loss"][[0]];
    assert!((loss.loss - want).abs() <= 1e-5 * want.abs().max(1.0), "{name} loss {} vs {want}", loss.loss);
    let graded = c.compare_grads(name, grads.tensors(), |hf| family.canonical_name(hf));
    checks + graded + 1
}

#[test]
fn distilbert_mlm_matches_hf() {
    assert!(run("fam_distil_mlm", Family::DistilBert, None) > 40);
}

#[test]
fn distilbert_classifier_with_sinusoidal_positions_matches_hf() {
    run("fam_distil_seqcls", Family::DistilBert, Some(TaskKind::SequenceClassification));
}

#[test]
fn roberta_mlm_matches_hf() {
    assert!(run("fam_roberta_mlm", Family::Roberta, None) > 40);
}

#[test]
fn roberta_pair_classifier_matches_hf() {
    run("fam_roberta_seqcls", Family::Roberta, Some(TaskKind::SequenceClassification));
}

#[test]
fn roberta_token_tagger_matches_hf() {
    run("fam_roberta_tokcls", Family::Roberta, Some(TaskKind::TokenClassification));
}

/// What we save loads back with every tensor and the config in the family's own names.
#[test]
fn saved_folders_keep_the_family_layout() {
    for dir in ["distil_mlm", "distil_seqcls", "roberta_mlm", "roberta_seqcls", "roberta_tokcls"] {
        let src = root().join("tests/fixtures/models").join(dir);
        let bert = Bert::from_dir(&src).unwrap();
        let files = bert.to_files().unwrap();
        let cfg: serde_json::Value = serde_json::from_str(&files.config_json).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(src.join("config.json")).unwrap()).unwrap();
        for key in theirs.as_object().unwrap().keys() {
            assert_eq!(cfg.get(key), theirs.get(key), "{dir}: config.json key {key}");
        }
        let names = |bytes: &[u8]| {
            let mut n: Vec<String> = bertscope::tensorfile::parse(bytes).unwrap().names().into_iter().map(str::to_string).collect();
            n.sort();
            n
        };
        let original = std::fs::read(src.join("model.safetensors")).unwrap();
        assert_eq!(names(&files.weights), names(&original), "{dir}: tensor names");
        let back = Bert::from_files(&ModelFiles { weights: files.weights.clone(), ..files.clone() }).unwrap();
        for ((n, a), (_, b)) in bert.params.tensors().into_iter().zip(back.params.tensors()) {
            assert_eq!(a, b, "{dir}: {n}");
        }
    }
}

/// A truncated file, a family's config with another family's weights, and a config of an
/// unknown family are errors that say what is wrong, not panics.
#[test]
fn truncated_and_mismatched_folders_are_clear_errors() {
    let dir = |d: &str| root().join("tests/fixtures/models").join(d);
    let roberta = ModelFiles::read_dir(&dir("roberta_mlm")).unwrap();
    let distil = ModelFiles::read_dir(&dir("distil_mlm")).unwrap();
    let cut = ModelFiles { weights: roberta.weights[..roberta.weights.len() / 2].to_vec(), ..roberta.clone() };
    let e = Bert::from_files(&cut).err().expect("a truncated file fails").to_string();
    assert!(e.contains("safetensors"), "{e}");
    // RoBERTa's config with DistilBERT's weights: the first tensor it looks for is named
    let mixed = ModelFiles { weights: distil.weights.clone(), ..roberta.clone() };
    let e = Bert::from_files(&mixed).err().expect("the wrong family's weights fail").to_string();
    assert!(e.contains("no RoBERTa tensors") && e.contains("roberta.embeddings.word_embeddings.weight"), "{e}");
    // DistilBERT's config with RoBERTa's weights
    let mixed = ModelFiles { weights: roberta.weights.clone(), ..distil.clone() };
    let e = Bert::from_files(&mixed).err().expect("the wrong family's weights fail").to_string();
    assert!(e.contains("DistilBERT") && e.contains("distilbert.embeddings.word_embeddings.weight"), "{e}");
    // a family bertscope does not know
    let mut cfg: serde_json::Value = serde_json::from_str(&roberta.config_json).unwrap();
    cfg["model_type"] = "gpt2".into();
    let e = Bert::from_files(&ModelFiles { config_json: cfg.to_string(), ..roberta.clone() }).err().unwrap().to_string();
    assert!(e.contains("model_type `gpt2` is not supported"), "{e}");
    // a DistilBERT config that claims segment embeddings
    let mut cfg: serde_json::Value = serde_json::from_str(&distil.config_json).unwrap();
    cfg["type_vocab_size"] = 2.into();
    let e = Bert::from_files(&ModelFiles { config_json: cfg.to_string(), ..distil.clone() }).err();
    assert!(e.is_none(), "DistilBERT's config keys are mapped: its type_vocab_size is not read ({e:?})");
    // a RoBERTa whose weights hold one layer fewer than config.json says
    let mut cfg: serde_json::Value = serde_json::from_str(&roberta.config_json).unwrap();
    cfg["num_hidden_layers"] = 3.into();
    let e = Bert::from_files(&ModelFiles { config_json: cfg.to_string(), ..roberta }).err().unwrap().to_string();
    assert!(e.contains("roberta.encoder.layer.2."), "{e}");
}
