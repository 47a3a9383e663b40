//! The k most probable entries of a row of logits.

use crate::cpu::softmax::softmax_row;

/// Top-k of softmax(row) as (id, prob), most probable first.
pub fn top_k(logits: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut p = logits.to_vec();
    softmax_row(&mut p);
    let mut idx: Vec<u32> = (0..p.len() as u32).collect();
    let k = k.min(p.len());
    if k == 0 {
        return vec![];
    }
    idx.select_nth_unstable_by(k - 1, |&a, &b| p[b as usize].total_cmp(&p[a as usize]));
    idx.truncate(k);
    idx.sort_by(|&a, &b| p[b as usize].total_cmp(&p[a as usize]));
    idx.into_iter().map(|i| (i, p[i as usize])).collect()
}
