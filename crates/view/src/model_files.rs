//! "Load your own model" from files the user picked (a folder, or several files): which of them
//! make a Hugging Face BERT folder, and a message naming what is missing. Pure Rust, tested
//! natively; the worker turns the result into a `Bert` (and keeps the old model when that fails).

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
