//! How a BERT's parameters lie in one GPU buffer: every tensor at an offset aligned for binding,
//! weight-decayed tensors first so AdamW runs as two ranges.

use crate::model::adamw::decays;
use crate::model::BertParams;
use std::collections::HashMap;

#[derive(Clone, Debug)]
pub struct ParamEntry {
    pub name: String,
    pub off: usize,
    pub len: usize,
    pub shape: Vec<usize>,
    pub decay: bool,
}

#[derive(Clone, Debug)]
pub struct ParamLayout {
    pub entries: Vec<ParamEntry>,
    by_name: HashMap<String, usize>,
    /// Elements in the buffer (with alignment gaps).
    pub total: usize,
    /// Decayed tensors lie in [0, decay_end), the rest in [decay_end, total).
    pub decay_end: usize,
}

impl ParamLayout {
    pub fn new(params: &BertParams<f32>, align: usize) -> Self {
        let mut list: Vec<(String, Vec<usize>, usize)> =
            params.tensors().into_iter().map(|(n, t)| (n, t.shape().to_vec(), t.len())).collect();
        list.sort_by_key(|(n, _, _)| !decays(n)); // stable: decayed first, each group in HF order
        let mut entries = Vec::with_capacity(list.len());
        let mut off = 0;
        let mut decay_end = 0;
        for (name, shape, len) in list {
            let decay = decays(&name);
            if !decay && decay_end == 0 {
                decay_end = off;
            }
            entries.push(ParamEntry { name, off, len, shape, decay });
            off = (off + len).div_ceil(align) * align;
        }
        if entries.iter().all(|e| e.decay) {
            decay_end = off;
        }
        let by_name = entries.iter().enumerate().map(|(i, e)| (e.name.clone(), i)).collect();
        ParamLayout { entries, by_name, total: off, decay_end }
    }

    pub fn get(&self, name: &str) -> Option<&ParamEntry> {
        self.by_name.get(name).map(|&i| &self.entries[i])
    }

    /// Flattens `params` into this layout (gaps are zero).
    pub fn flatten(&self, params: &BertParams<f32>) -> Vec<f32> {
        let mut flat = vec![0.0f32; self.total];
        for (name, t) in params.tensors() {
            let e = self.get(&name).expect("layout built from the same structure");
            for (d, &s) in flat[e.off..e.off + e.len].iter_mut().zip(t.iter()) {
                *d = s;
            }
        }
        flat
    }

    /// Writes a flat buffer back into `params` (same structure).
    pub fn unflatten(&self, flat: &[f32], params: &mut BertParams<f32>) {
        for (name, mut t) in params.tensors_mut() {
            let e = self.get(&name).expect("layout built from the same structure");
            for (d, &s) in t.iter_mut().zip(&flat[e.off..e.off + e.len]) {
                *d = s;
            }
        }
    }
}
