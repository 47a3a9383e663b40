//! Decoding one step at a time: greedy, seeded sampling and beam search (HF's scoring and
//! stopping), paused after every token, keeping the forward of the step (every attention) and,
//! for beam search, each step's kept beams with their parents (the beam tree). The page steps it;
//! `generate.rs` runs it to the end (checked against HF's `generate` in tests/seq2seq_reference.rs).

use super::forward::source_batch;
use super::forward::{forward, Seq2SeqBatch, Seq2SeqTrace};
use super::Seq2Seq;
use crate::error::{BertError, Result};
use crate::model::forward::{Batch, MlmRows};
use crate::rng::Rng;
pub use bertscope_view::explain::decode::Method;
use serde::{Deserialize, Serialize};

/// A hypothesis: decoder ids (decoder_start first) and the sum of its tokens' log-probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct Hyp {
    pub ids: Vec<u32>,
    pub sum: f64,
}

/// One beam kept at a step of beam search: a child of beam `parent` of the step before (the
/// running beams of that step, in order; 0 at the first step, whose parent is decoder_start).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BeamNode {
    pub parent: usize,
    pub id: u32,
    /// The sum of the log-probabilities from the start to this token.
    pub sum: f64,
    /// The token was eos: this hypothesis finished here, with `score` (sum / tokens ^ length_penalty).
    pub finished: bool,
    pub score: Option<f64>,
}

/// What one step looked at: the forward of the prefix that chose the token (for beam search, of
/// the best running beam), its next-token logits, and the token chosen (None: a look without a step).
pub struct Look {
    pub prefix: Vec<u32>,
    pub trace: Seq2SeqTrace<f32>,
    pub logits: Vec<f32>,
    pub chosen: Option<u32>,
}

/// Decoding in progress.
pub struct Stepper {
    pub method: Method,
    src: Batch,
    eos: u32,
    max_steps: usize,
    rng: Rng,
    /// The running hypotheses, best first (one for greedy and sampling).
    pub running: Vec<Hyp>,
    /// Beam search: finished hypotheses (ids after decoder_start, eos included) and their scores.
    pub finished: Vec<(Vec<u32>, f64)>,
    /// Beam search: the beams kept at every step (the tree).
    pub tree: Vec<Vec<BeamNode>>,
    /// Tokens generated (steps taken).
    pub steps: usize,
    pub done: bool,
}

/// log softmax of a row, in f64.
fn log_softmax(logits: &[f32]) -> Vec<f64> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let lse = max + logits.iter().map(|&x| (x as f64 - max).exp()).sum::<f64>().ln();
    logits.iter().map(|&x| x as f64 - lse).collect()
}

/// The sampling distribution: softmax(logits / temperature) over the `top_k` most probable (0:
/// all), renormalised; (id, probability), most probable first. Temperature 1 and top_k 0 is the
/// model's own softmax.
pub fn distribution(logits: &[f32], temperature: f32, top_k: usize) -> Vec<(u32, f32)> {
    let scaled: Vec<f32> = logits.iter().map(|&x| x / temperature).collect();
    let v = scaled.len();
    let top = crate::model::top_k::top_k(&scaled, if top_k == 0 { v } else { top_k.min(v) });
    let total: f64 = top.iter().map(|t| t.1 as f64).sum();
    top.into_iter().map(|(i, p)| (i, (p as f64 / total) as f32)).collect()
}

impl Stepper {
    /// Decoding of `text` begins: nothing generated yet. At most `max_new` tokens (and what the
    /// decoder's positions allow).
    pub fn new(m: &Seq2Seq, text: &str, method: Method, max_new: usize) -> Result<Self> {
        method.check().map_err(BertError::Input)?;
        if text.trim().is_empty() {
            return Err(BertError::Input("type a sentence to translate: the source is empty".into()));
        }
        let seed = match method {
            Method::Sample { seed, .. } => seed,
            _ => 0,
        };
        Ok(Stepper {
            src: source_batch(m, text)?,
            eos: m.cfg.eos,
            max_steps: max_new.min(m.cfg.decoder.max_tokens().saturating_sub(1)),
            rng: Rng::new(seed),
            running: vec![Hyp { ids: vec![m.cfg.decoder_start], sum: 0.0 }],
            finished: vec![],
            tree: vec![],
            steps: 0,
            done: false,
            method,
        })
    }

    /// The source's ids, [CLS] .. [SEP].
    pub fn source_ids(&self) -> Vec<u32> {
        self.src.input_ids.iter().map(|&i| i as u32).collect()
    }

    /// The forward of `prefix` (decoder ids) and its last row's logits.
    fn run(&self, m: &Seq2Seq, prefix: &[u32]) -> Result<(Seq2SeqTrace<f32>, Vec<f32>)> {
        let t = prefix.len();
        let tgt = Batch::single(prefix.iter().map(|&i| i as usize).collect(), vec![0; t]);
        let tr = forward(&m.params, &m.cfg, &Seq2SeqBatch { src: self.src.clone(), tgt }, MlmRows::Rows(vec![t - 1]))?;
        let logits = tr.decoder.mlm.as_ref().expect("the decoder's head ran").logits.row(0).to_vec();
        Ok((tr, logits))
    }

    /// The forward of the best running hypothesis, without a step.
    pub fn look(&self, m: &Seq2Seq) -> Result<Look> {
        let prefix = self.best_running().to_vec();
        if prefix.is_empty() {
            return Err(BertError::Input("decoding is done: restart it to look again".into()));
        }
        let (trace, logits) = self.run(m, &prefix)?;
        Ok(Look { prefix, trace, logits, chosen: None })
    }

    /// The best running hypothesis's ids (decoder_start first); the last one when none runs.
    fn best_running(&self) -> &[u32] {
        self.running.first().map(|h| h.ids.as_slice()).unwrap_or(&[])
    }

    /// The output so far, after decoder_start: the best finished hypothesis once done (beam
    /// search), else the best running one.
    pub fn output(&self) -> Vec<u32> {
        match (self.done, self.finished.first(), self.running.first()) {
            (true, Some(f), _) => f.0.clone(),
            (_, _, Some(h)) => h.ids[1..].to_vec(),
            (_, Some(f), None) => f.0.clone(),
            _ => vec![],
        }
    }

    /// One step: one token for greedy and sampling, every running beam extended once for beam
    /// search. Returns what it looked at (None when decoding was already done).
    pub fn step(&mut self, m: &Seq2Seq) -> Result<Option<Look>> {
        if self.done {
            return Ok(None);
        }
        if self.steps >= self.max_steps || self.running.is_empty() {
            self.finish();
            return Ok(None);
        }
        let look = match self.method.clone() {
            Method::Greedy => self.step_one(m, None)?,
            Method::Sample { temperature, top_k, .. } => self.step_one(m, Some((temperature, top_k)))?,
            Method::Beam { k, length_penalty } => self.step_beam(m, k, length_penalty)?,
        };
        self.steps += 1;
        if self.steps >= self.max_steps {
            self.finish();
        }
        Ok(Some(look))
    }

    fn step_one(&mut self, m: &Seq2Seq, sample: Option<(f32, usize)>) -> Result<Look> {
        let prefix = self.best_running().to_vec();
        let (trace, logits) = self.run(m, &prefix)?;
        let id = match sample {
            None => crate::model::top_k::top_k(&logits, 1)[0].0,
            Some((temperature, top_k)) => {
                // inverse transform of one uniform draw over the renormalised top-k
                let top = distribution(&logits, temperature, top_k);
                let mut u = self.rng.uniform();
                top.iter()
                    .find(|t| {
                        u -= t.1 as f64;
                        u <= 0.0
                    })
                    .unwrap_or(&top[top.len() - 1])
                    .0
            }
        };
        let h = &mut self.running[0];
        h.ids.push(id);
        if id == self.eos {
            self.done = true;
        }
        Ok(Look { prefix, trace, logits, chosen: Some(id) })
    }

    /// Every running beam by every token, the 2k best sums; an eos among the
    /// k best finishes a hypothesis; stop when no running beam can beat the worst of k finished.
    fn step_beam(&mut self, m: &Seq2Seq, k: usize, length_penalty: f64) -> Result<Look> {
        let norm = |sum: f64, n: usize| sum / (n as f64).powf(length_penalty);
        let mut cand: Vec<(f64, usize, u32)> = Vec::new();
        let mut first = None;
        for (bi, h) in self.running.iter().enumerate() {
            let (trace, logits) = self.run(m, &h.ids)?;
            let lp = log_softmax(&logits);
            cand.extend(lp.iter().enumerate().map(|(v, &l)| (h.sum + l, bi, v as u32)));
            if bi == 0 {
                first = Some((trace, logits));
            }
        }
        cand.sort_by(|a, b| b.0.total_cmp(&a.0));
        cand.truncate(2 * k);
        let (mut next, mut kept) = (Vec::with_capacity(k), vec![]);
        for (rank, &(sum, bi, v)) in cand.iter().enumerate() {
            if v == self.eos {
                if rank < k {
                    let ids: Vec<u32> = self.running[bi].ids[1..].iter().copied().chain([v]).collect();
                    let score = norm(sum, self.steps + 1);
                    self.finished.push((ids, score));
                    kept.push(BeamNode { parent: bi, id: v, sum, finished: true, score: Some(score) });
                }
            } else {
                next.push(Hyp { ids: self.running[bi].ids.iter().copied().chain([v]).collect(), sum });
                kept.push(BeamNode { parent: bi, id: v, sum, finished: false, score: None });
            }
            if next.len() == k {
                break;
            }
        }
        self.keep_best(k);
        let prefix = self.running[0].ids.clone();
        let chosen = next.first().map(|h| *h.ids.last().expect("a token")).or(kept.first().map(|n| n.id));
        self.running = next;
        self.tree.push(kept);
        let worst = self.finished.last().map(|f| f.1).unwrap_or(f64::NEG_INFINITY);
        if self.running.is_empty()
            || (self.finished.len() == k && self.running.first().is_none_or(|r| norm(r.sum, self.steps + 1) <= worst))
        {
            self.running.clear();
            self.done = true;
        }
        let (trace, logits) = first.expect("at least one running beam");
        Ok(Look { prefix, trace, logits, chosen })
    }

    fn keep_best(&mut self, k: usize) {
        self.finished.sort_by(|a, b| b.1.total_cmp(&a.1));
        self.finished.truncate(k);
    }

    /// Out of steps: beam search finishes its running beams as they are.
    fn finish(&mut self) {
        self.done = true;
        if let Method::Beam { k, length_penalty } = self.method {
            for h in std::mem::take(&mut self.running) {
                let n = h.ids.len() - 1;
                self.finished.push((h.ids[1..].to_vec(), h.sum / (n.max(1) as f64).powf(length_penalty)));
            }
            self.keep_best(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::seq2seq::{from_scratch, Pair};

    fn model() -> Seq2Seq {
        let pairs: Vec<Pair> = ["1 2 3|one two three", "4 5|four five", "6|six", "7 8 9|seven eight nine"]
            .iter()
            .map(|l| {
                let (s, t) = l.split_once('|').unwrap();
                Pair { source: s.into(), target: t.into() }
            })
            .collect();
        from_scratch(&pairs, 16, 2, 2, 12, 60, 7).unwrap()
    }

    fn run(m: &Seq2Seq, method: Method) -> Stepper {
        let mut s = Stepper::new(m, "4 5 7", method, 8).unwrap();
        let mut n = 0;
        while s.step(m).unwrap().is_some() {
            n += 1;
            assert!(n <= 8);
        }
        assert!(s.done && s.step(m).unwrap().is_none());
        s
    }

    #[test]
    fn greedy_takes_the_most_probable_token_and_sampling_follows_its_seed() {
        use crate::seq2seq::generate::{next_logits, source_batch};
        let m = model();
        // greedy, written out: the argmax of each prefix's logits until eos
        let src = source_batch(&m, "4 5 7").unwrap();
        let mut prefix = vec![m.cfg.decoder_start];
        for _ in 0..8 {
            let id = crate::model::top_k::top_k(&next_logits(&m, &src, &prefix).unwrap(), 1)[0].0;
            prefix.push(id);
            if id == m.cfg.eos {
                break;
            }
        }
        assert_eq!(run(&m, Method::Greedy).output(), prefix[1..]);
        for seed in [1, 2, 3] {
            let method = Method::Sample { temperature: 1.5, top_k: 5, seed };
            assert_eq!(run(&m, method.clone()).output(), run(&m, method).output(), "seed {seed}: the same draw");
        }
    }

    #[test]
    fn beam_search_scores_its_output_and_keeps_its_tree() {
        use crate::seq2seq::generate::steps_of;
        let m = model();
        for k in [1, 2, 3] {
            let s = run(&m, Method::Beam { k, length_penalty: 1.0 });
            let out = s.output();
            // the score is the mean log-probability of the output's tokens
            let lp: f64 = steps_of(&m, "4 5 7", &out, 1).unwrap().iter().map(|st| (st.prob as f64).ln()).sum();
            assert!((s.finished[0].1 - lp / out.len() as f64).abs() < 1e-4, "k = {k}: {} vs {}", s.finished[0].1, lp / out.len() as f64);
            for (i, level) in s.tree.iter().enumerate() {
                assert!(!level.is_empty() && level.iter().filter(|n| !n.finished).count() <= k);
                let parents = if i == 0 { 1 } else { s.tree[i - 1].iter().filter(|n| !n.finished).count() };
                assert!(level.iter().all(|n| n.parent < parents), "step {i}: parents index the running beams before");
            }
        }
        // one beam is greedy
        assert_eq!(run(&m, Method::Beam { k: 1, length_penalty: 1.0 }).output(), run(&m, Method::Greedy).output());
    }

    #[test]
    fn a_look_is_the_forward_of_the_prefix_and_bad_settings_are_refused() {
        let m = model();
        let mut s = Stepper::new(&m, "1 2", Method::Greedy, 4).unwrap();
        let l = s.look(&m).unwrap();
        let st = s.step(&m).unwrap().unwrap();
        assert_eq!((l.prefix.clone(), l.logits.clone()), (st.prefix.clone(), st.logits.clone()));
        assert_eq!(st.trace.decoder.layers[0].attn.probs.shape(), &[1, 2, 1, 1]);
        assert!(Stepper::new(&m, "  ", Method::Greedy, 4).is_err());
        assert!(Stepper::new(&m, "1", Method::Sample { temperature: 0.0, top_k: 0, seed: 0 }, 4).is_err());
        assert!(Stepper::new(&m, "1", Method::Beam { k: 0, length_penalty: 1.0 }, 4).is_err());
        let d = distribution(&[1.0, 3.0, 2.0], 1.0, 2);
        assert_eq!(d.iter().map(|x| x.0).collect::<Vec<_>>(), [1, 2]);
        assert!((d.iter().map(|x| x.1).sum::<f32>() - 1.0).abs() < 1e-6);
    }
}
