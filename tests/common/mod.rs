//! What the PyTorch reference tests share: the repository's root and a fixture file read into its
//! metadata, float tensors (f32, whatever their stored type) and integer tensors.
#![allow(dead_code)] // each test binary uses its part

use bertscope::model::forward::Batch;
use bertscope::tensorfile::{parse, read_f32, read_i64};
use ndarray::{ArrayD, ArrayViewD};
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

impl Fixture {
    /// Every `grad.<file name>` of the fixture against `ours` ((name, gradient) of every parameter),
    /// found by `name_of` (the file name to ours); each must match (`close_grad`) and every one of
    /// ours must have a reference. Returns how many were compared.
    pub fn compare_grads(&self, case: &str, ours: Vec<(String, ArrayViewD<'_, f32>)>, name_of: impl Fn(&str) -> Option<String>) -> usize {
        let n = ours.len();
        let ours: std::collections::HashMap<String, ArrayViewD<'_, f32>> = ours.into_iter().collect();
        let mut graded = 0;
        for (key, g) in self.f32s.iter().filter(|(k, _)| k.starts_with("grad.")) {
            let file = &key["grad.".len()..];
            let name = name_of(file).unwrap_or_else(|| panic!("{case}: HF parameter {file} has no name of ours"));
            let mine = ours.get(&name).unwrap_or_else(|| panic!("{case}: no gradient for {name} ({file})"));
            close_grad(&format!("{case} grad {file}"), mine.view(), g.view());
            graded += 1;
        }
        assert_eq!(graded, n, "{case}: every parameter has an HF gradient to compare with");
        graded
    }

    /// Each of `hidden` ((B*T, H) per layer, the embeddings' first) against the fixture's
    /// `{prefix}hidden_states.{i}` (B, T, H) within 1e-4. Returns how many were compared.
    #[allow(dead_code)] // not every reference test has hidden states
    pub fn compare_hidden(&self, case: &str, prefix: &str, hidden: &[ndarray::Array2<f32>], (b, t): (usize, usize)) -> usize {
        for (i, hs) in hidden.iter().enumerate() {
            let ours = hs.view().into_shape_with_order((b, t, hs.ncols())).unwrap().into_dyn();
            let key = format!("{prefix}hidden_states.{i}");
            close(&format!("{case} {key}"), ours, self.f32s[&key].view(), 1e-4);
        }
        hidden.len()
    }

    /// The batch a fixture was computed on: `input_ids` (B, T), `token_type_ids` (zeros when the
    /// file has none) and `attention_mask`.
    pub fn batch(&self) -> Batch {
        let ids = &self.i64s["input_ids"];
        let (b, t) = (ids.shape()[0], ids.shape()[1]);
        let flat = |k: &str| self.i64s.get(k).map_or(vec![0; b * t], |a| a.iter().map(|&v| v as usize).collect());
        let attention_mask = self.i64s["attention_mask"].iter().map(|&v| v as u8).collect();
        Batch { b, t, input_ids: flat("input_ids"), token_type_ids: flat("token_type_ids"), attention_mask }
    }
}

/// Same shape and max |ours - theirs| <= tol.
pub fn close(what: &str, ours: ArrayViewD<f32>, theirs: ArrayViewD<f32>, tol: f32) {
    assert_eq!(ours.shape(), theirs.shape(), "{what}: shape");
    let d = ours.iter().zip(theirs.iter()).fold(0f32, |m, (a, b)| m.max((a - b).abs()));
    assert!(d <= tol, "{what}: max |diff| {d:e} > {tol:e}");
}

/// A gradient against the reference: max |diff| <= 1e-3 * max |reference| + 1e-6 (the floor is for
/// attention key biases, whose true gradient is 0, so both sides hold only rounding noise).
pub fn close_grad(what: &str, ours: ArrayViewD<f32>, theirs: ArrayViewD<f32>) {
    let scale = theirs.iter().fold(0f32, |m, v| m.max(v.abs()));
    close(what, ours, theirs, 1e-3 * scale + 1e-6);
}
