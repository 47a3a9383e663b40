//! "Load your own model" from files the user picked (a folder, or several files): which of them
//! make a Hugging Face BERT folder, and a message naming what is missing. Pure Rust, tested
//! natively; the worker turns the result into a `Bert` (and keeps the old model when that fails).

use crate::bundle::ModelFiles;
use serde::{Deserialize, Serialize};

/// One picked file: its name (the last part of its path) and its bytes.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct PickedFile {
    pub name: String,
    #[serde(with = "as_bytes")]
    pub bytes: Vec<u8>,
}

/// `Vec<u8>` as one byte string: bincode (the worker's codec) then copies it whole instead of
/// coding a model's millions of bytes one at a time as a sequence.
mod as_bytes {
    use serde::{de, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }

    struct Bytes;

    impl<'de> de::Visitor<'de> for Bytes {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("bytes")
        }
        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }
        fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(b) = seq.next_element()? {
                out.push(b);
            }
            Ok(out)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_byte_buf(Bytes)
    }
}

impl std::fmt::Debug for PickedFile {
    // the bytes would flood a log
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PickedFile({}, {} bytes)", self.name, self.bytes.len())
    }
}

/// The names the loader reads; any other picked file is ignored.
pub const WANTED: [&str; 7] =
    ["config.json", "model.safetensors", "tokenizer.json", "vocab.txt", "vocab.json", "merges.txt", "tokenizer_config.json"];

/// Whether the page should read this picked file at all (so a folder with a 400 MB
/// `pytorch_model.bin` beside the safetensors is not read into memory for nothing).
pub fn wanted(name: &str) -> bool {
    WANTED.contains(&base_name(name))
}

/// `some/folder/config.json` -> `config.json`.
pub fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

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

/// What to call a model loaded from files: the folder's name when the files came from one, else
/// the weights file's size.
pub fn label(paths: &[String]) -> String {
    let folder = paths.iter().find_map(|p| {
        let mut parts = p.rsplit(['/', '\\']);
        parts.next();
        parts.next().filter(|d| !d.is_empty())
    });
    match folder {
        Some(d) => format!("{d} (your files)"),
        None => "your files".to_string(),
    }
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
