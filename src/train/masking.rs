//! BERT's masked-LM corruption: choose 15% of the non-special tokens (at least one); of those,
//! 80% become [MASK], 10% a random token, 10% stay; labels only at chosen positions.

use crate::rng::Rng;
use serde::Serialize;

pub use bertscope_view::explain::training::MaskAction;

#[derive(Clone, Debug, Serialize)]
pub struct MaskedSeq {
    pub input_ids: Vec<u32>,
    /// The original id at chosen positions, -100 elsewhere.
    pub labels: Vec<i64>,
    pub actions: Vec<MaskAction>,
}

#[derive(Clone, Debug)]
pub struct MaskingConfig {
    pub prob: f64,
    pub mask_id: u32,
    pub vocab_size: usize,
    /// Ids never chosen and never drawn as the random replacement.
    pub special_ids: Vec<u32>,
}

/// Corrupts `ids` (special positions are never chosen).
pub fn mask_sequence(ids: &[u32], cfg: &MaskingConfig, rng: &mut Rng) -> MaskedSeq {
    let mut cand: Vec<usize> = (0..ids.len()).filter(|&i| !cfg.special_ids.contains(&ids[i])).collect();
    let n = if cand.is_empty() { 0 } else { ((cand.len() as f64 * cfg.prob).round() as usize).max(1) };
    // partial Fisher-Yates: the first n of a shuffle
    for i in 0..n {
        let j = i + rng.below(cand.len() - i);
        cand.swap(i, j);
    }
    let mut out = MaskedSeq { input_ids: ids.to_vec(), labels: vec![-100; ids.len()], actions: vec![MaskAction::None; ids.len()] };
    for &pos in &cand[..n] {
        out.labels[pos] = ids[pos] as i64;
        let r = rng.uniform();
        out.actions[pos] = if r < 0.8 {
            out.input_ids[pos] = cfg.mask_id;
            MaskAction::Masked
        } else if r < 0.9 {
            out.input_ids[pos] = random_token(cfg, rng);
            MaskAction::Random
        } else {
            MaskAction::Unchanged
        };
    }
    out
}

fn random_token(cfg: &MaskingConfig, rng: &mut Rng) -> u32 {
    loop {
        let id = rng.below(cfg.vocab_size) as u32;
        if !cfg.special_ids.contains(&id) {
            return id;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifteen_percent_split_80_10_10() {
        let cfg = MaskingConfig { prob: 0.15, mask_id: 4, vocab_size: 1000, special_ids: vec![0, 1, 2, 3, 4] };
        let mut rng = Rng::new(5);
        let mut counts = [0usize; 4];
        let mut chosen = 0;
        let mut total = 0;
        for _ in 0..2000 {
            let ids: Vec<u32> = std::iter::once(2).chain((0..38).map(|k| 10 + k)).chain(std::iter::once(3)).collect();
            let m = mask_sequence(&ids, &cfg, &mut rng);
            assert_eq!(m.actions[0], MaskAction::None);
            assert_eq!(m.actions[39], MaskAction::None);
            total += 38;
            for (i, a) in m.actions.iter().enumerate() {
                let k = match a {
                    MaskAction::None => {
                        assert_eq!(m.labels[i], -100);
                        assert_eq!(m.input_ids[i], ids[i]);
                        continue;
                    }
                    MaskAction::Masked => 0,
                    MaskAction::Random => 1,
                    MaskAction::Unchanged => 2,
                };
                assert_eq!(m.labels[i], ids[i] as i64);
                if *a == MaskAction::Masked {
                    assert_eq!(m.input_ids[i], 4);
                }
                if *a == MaskAction::Random {
                    assert!(m.input_ids[i] > 4);
                }
                counts[k] += 1;
                chosen += 1;
            }
        }
        let frac = chosen as f64 / total as f64;
        assert!((frac - 6.0 / 38.0).abs() < 1e-9, "round(38 * 0.15) = 6 per sequence: {frac}");
        let c = chosen as f64;
        assert!((counts[0] as f64 / c - 0.8).abs() < 0.02 && (counts[1] as f64 / c - 0.1).abs() < 0.015);
        // deterministic from the seed
        let ids = [2u32, 10, 11, 12, 13, 14, 15, 3];
        let a = mask_sequence(&ids, &cfg, &mut Rng::new(9));
        let b = mask_sequence(&ids, &cfg, &mut Rng::new(9));
        assert_eq!((a.input_ids, a.labels), (b.input_ids, b.labels));
        // a sequence of only specials gets no labels
        assert!(mask_sequence(&[2, 3], &cfg, &mut rng).labels.iter().all(|&l| l == -100));
    }
}
