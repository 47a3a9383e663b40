//! What the PyTorch reference tests share: the repository's root and a fixture file read into its
//! metadata, float tensors (f32, whatever their stored type) and integer tensors.
#![allow(dead_code)] // each test binary uses its part

use bertscope::tensorfile::{parse, read_f32, read_i64};
use ndarray::ArrayD;
use std::collections::HashMap;
use std::path::PathBuf;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub struct Fixture {
    pub meta: HashMap<String, String>,
    pub f32s: HashMap<String, ArrayD<f32>>,
    pub i64s: HashMap<String, ArrayD<i64>>,
}

/// tests/fixtures/ref/`name`.safetensors.
pub fn load_fixture(name: &str) -> Fixture {
    let path = root().join("tests/fixtures/ref").join(format!("{name}.safetensors"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    let meta = meta.metadata().clone().unwrap_or_default();
    let st = parse(&bytes).unwrap();
    let (mut f32s, mut i64s) = (HashMap::new(), HashMap::new());
    for (n, v) in st.tensors() {
        if v.dtype() == safetensors::Dtype::I64 {
            i64s.insert(n.clone(), read_i64(&n, &v).unwrap());
        } else {
            f32s.insert(n.clone(), read_f32(&n, &v).unwrap());
        }
    }
    Fixture { meta, f32s, i64s }
}
