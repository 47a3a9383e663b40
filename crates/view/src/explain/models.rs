//! The models shipped with the page: which folder each is in, what the page calls it, the one line
//! that says what it is, and which one opens when the URL names none. `?model=` takes a bundled
//! model's key (`?model=minilm`) or a same-origin folder.

/// A model shipped in `www/models/`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bundled {
    /// What `?model=` calls it.
    pub key: &'static str,
    /// Its folder, relative to the page.
    pub folder: &'static str,
    /// What the page calls it.
    pub name: &'static str,
    /// Its size, beside the name in the picker.
    pub shape: &'static str,
    /// What it is, in one line (its card says more: `card()`).
    pub about: &'static str,
}

impl Bundled {
    /// Its model card, relative to the page.
    pub fn card(&self) -> String {
        format!("{}MODEL_CARD.md", self.folder)
    }
}

pub const MINILM: Bundled = Bundled {
    key: "minilm",
    folder: "models/minilm-l6-mlm/",
    name: "MiniLM-L6",
    shape: "6 layers × 12 heads, 22.7 M parameters",
    about: "all-MiniLM-L6-v2, a pre-trained sentence-embedding encoder (22.7 M parameters), given back a masked-LM head by \
            bertscope's own trainer on Wikipedia leads and books. Not BERT-base: smaller, and trained differently.",
};

pub const TINY: Bundled = Bundled {
    key: "tiny",
    folder: "models/bert-tiny/",
    name: "bert-tiny",
    shape: "2 layers × 2 heads, 4.4 M parameters",
    about: "Google's bert-tiny (4.4 M parameters), further pre-trained by bertscope on Brown, WordNet and ten books: \
            fast, and small enough to see every head at once, but it guesses poorly.",
};

/// Every bundled model, in the picker's order.
pub const BUNDLED: [Bundled; 2] = [MINILM, TINY];

/// The model the page opens with when the URL names none (chosen by measurement:
/// docs/performance.md, "The larger model"). `www/index.html` starts downloading the same folder.
pub const DEFAULT: Bundled = MINILM;

/// The bundled model in `folder` (a folder path, or a key as `?model=` takes it).
pub fn bundled(folder_or_key: &str) -> Option<Bundled> {
    let f = folder_or_key.trim();
    BUNDLED.into_iter().find(|b| b.key == f || b.folder == f || b.folder.trim_end_matches('/') == f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_folders_name_one_model_each() {
        for b in BUNDLED {
            assert_eq!(bundled(b.key), Some(b));
            assert_eq!(bundled(b.folder), Some(b));
            assert_eq!(bundled(b.folder.trim_end_matches('/')), Some(b));
            assert!(b.folder.starts_with("models/") && b.folder.ends_with('/'));
        }
        assert_eq!(bundled("models/other/"), None);
    }

    #[test]
    fn each_bundled_folder_is_in_www_with_its_card() {
        for b in BUNDLED {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www").join(b.folder);
            for f in ["config.json", "model.safetensors", "tokenizer.json", "MODEL_CARD.md"] {
                assert!(dir.join(f).is_file(), "{} has no {f}", dir.display());
            }
        }
    }

    #[test]
    fn the_page_starts_downloading_the_default_model() {
        let html = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/index.html")).unwrap();
        assert!(
            html.contains(&format!("new URL(\"{}\", location.href)", DEFAULT.folder)),
            "www/index.html must fetch {} early",
            DEFAULT.folder
        );
    }
}
