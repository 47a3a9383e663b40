//! A model picked from the user's disk, read into the engine (`bertscope_view::model_files` holds
//! the picked files and which names are read).

use crate::bundle::ModelFiles;
pub use bertscope_view::model_files::*;

/// The picked files as a model folder, and their total size in bytes. Errors say what is missing
/// or unreadable, in words a user can act on.
pub fn model_files(picked: Vec<PickedFile>) -> Result<(ModelFiles, u64), String> {
    let total = picked.iter().map(|f| f.bytes.len() as u64).sum();
    let mut files = ModelFiles::default();
    let (mut config, mut weights) = (None, None);
    let has_bin = picked.iter().any(|f| base_name(&f.name) == "pytorch_model.bin");
    let text = |b: Vec<u8>, name: &str| String::from_utf8(b).map_err(|_| format!("{name} is not UTF-8 text"));
    for f in picked {
        match base_name(&f.name) {
            "config.json" => config = Some(text(f.bytes, "config.json")?),
            "model.safetensors" => weights = Some(f.bytes),
            "tokenizer.json" => files.tokenizer_json = Some(f.bytes),
            "vocab.txt" => files.vocab_txt = Some(text(f.bytes, "vocab.txt")?),
            "vocab.json" => files.vocab_json = Some(text(f.bytes, "vocab.json")?),
            "merges.txt" => files.merges_txt = Some(text(f.bytes, "merges.txt")?),
            "tokenizer_config.json" => files.tokenizer_config_json = Some(text(f.bytes, "tokenizer_config.json")?),
            _ => {}
        }
    }
    let mut missing = Vec::new();
    if config.is_none() {
        missing.push("config.json");
    }
    if weights.is_none() {
        missing.push("model.safetensors");
    }
    if files.tokenizer_json.is_none() && files.vocab_txt.is_none() && (files.vocab_json.is_none() || files.merges_txt.is_none()) {
        missing.push("tokenizer.json (or vocab.txt, or vocab.json + merges.txt)");
    }
    if !missing.is_empty() {
        let bin = if has_bin && weights.is_none() {
            " (pytorch_model.bin is not read: convert it to model.safetensors with the safetensors package)"
        } else {
            ""
        };
        return Err(format!(
            "The chosen files are not a model folder: {} missing{bin}. A BERT, DistilBERT or RoBERTa folder is config.json + model.safetensors + tokenizer.json (or vocab.txt, or vocab.json + merges.txt) (+ tokenizer_config.json).",
            missing.join(", ")
        ));
    }
    files.config_json = config.unwrap_or_default();
    files.weights = weights.unwrap_or_default();
    Ok((files, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picked_files_cross_to_the_worker_as_one_byte_string() {
        let f = PickedFile { name: "model.safetensors".into(), bytes: (0..=255).collect() };
        // bincode, the worker's codec: name (8 + 17 bytes), then length + the raw bytes
        let coded = bincode::serialize(&f).unwrap();
        assert_eq!(coded.len(), 8 + 17 + 8 + 256);
        assert_eq!(&coded[coded.len() - 256..], &f.bytes[..]);
        assert_eq!(bincode::deserialize::<PickedFile>(&coded).unwrap(), f);
        let back: PickedFile = serde_json::from_str(&serde_json::to_string(&f).unwrap()).unwrap();
        assert_eq!(back, f);
    }

    fn f(name: &str, bytes: &[u8]) -> PickedFile {
        PickedFile { name: name.into(), bytes: bytes.to_vec() }
    }

    #[test]
    fn a_folder_becomes_model_files_and_other_files_are_ignored() {
        let picked = vec![
            f("my-bert/config.json", b"{}"),
            f("my-bert/model.safetensors", &[1, 2, 3]),
            f("my-bert/vocab.txt", b"[PAD]\n"),
            f("my-bert/README.md", b"hello"),
        ];
        let (files, total) = model_files(picked).unwrap();
        assert_eq!(files.config_json, "{}");
        assert_eq!(files.weights, vec![1, 2, 3]);
        assert_eq!(files.vocab_txt.as_deref(), Some("[PAD]\n"));
        assert!(files.tokenizer_json.is_none() && files.tokenizer_config_json.is_none());
        assert_eq!(total, 2 + 3 + 6 + 5);
        assert!(wanted("a/b/model.safetensors") && !wanted("a/pytorch_model.bin"));
    }

    #[test]
    fn missing_files_are_named() {
        let e = model_files(vec![f("config.json", b"{}")]).unwrap_err();
        assert!(e.contains("model.safetensors") && e.contains("tokenizer.json (or vocab.txt"), "{e}");
        let e = model_files(vec![f("config.json", b"{}"), f("pytorch_model.bin", b"x"), f("vocab.txt", b"a")]).unwrap_err();
        assert!(e.contains("pytorch_model.bin is not read"), "{e}");
        assert!(e.contains(": model.safetensors missing ("), "only what is missing is listed: {e}");
        let e = model_files(vec![f("config.json", &[0xff, 0xfe]), f("model.safetensors", b"x"), f("vocab.txt", b"a")]).unwrap_err();
        assert!(e.contains("config.json is not UTF-8"), "{e}");
    }

    #[test]
    fn labels_name_the_folder() {
        assert_eq!(label(&["bert-mini/config.json".into(), "bert-mini/model.safetensors".into()]), "bert-mini (your files)");
        assert_eq!(label(&["config.json".into()]), "your files");
    }
}
