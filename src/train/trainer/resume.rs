//! A training run saved and resumed. A run's folder holds the model as it stands (an HF folder,
//! f32), AdamW's step and moments (`optimizer.safetensors`) and `run.json` (the step reached, the
//! options and a hash of the corpus). Resuming replays the data stream up to the step reached
//! (batches and masking come from the seeded generator; dropout's seed is a function of the step),
//! so a run stopped and resumed gives the same weights as one never stopped.

use super::{TrainOptions, Trainer};
use crate::bundle::Bert;
use crate::error::{BertError, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// `run.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunState {
    pub step: usize,
    pub options: TrainOptions,
    /// FNV-1a of the corpus text, as hex: a resumed run must read the same text.
    pub corpus_fnv: String,
    /// Wall-clock seconds of training so far, over every session of the run.
    #[serde(default)]
    pub seconds: f64,
}

const RUN_JSON: &str = "run.json";
const OPTIMIZER: &str = "optimizer.safetensors";

/// FNV-1a (64 bits) of `text`: stable across platforms and versions, unlike std's hasher.
pub fn corpus_fnv(text: &str) -> String {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    format!("{h:016x}")
}

/// Whether `dir` holds a saved run (its `run.json`).
pub fn has_run(dir: &Path) -> bool {
    dir.join(RUN_JSON).is_file()
}

/// The step a saved run reached.
pub fn saved_step(dir: &Path) -> Result<usize> {
    Ok(read_state(dir)?.step)
}

fn read_state(dir: &Path) -> Result<RunState> {
    let p = dir.join(RUN_JSON);
    let text = std::fs::read_to_string(&p).map_err(|e| BertError::io(&p, e))?;
    serde_json::from_str(&text).map_err(|e| BertError::Checkpoint(format!("{}: {e}", p.display())))
}

impl Trainer {
    /// Saves the run into `dir`. It is written into `<dir>.partial` and then renamed over `dir`,
    /// so a process stopped while saving leaves the previous save whole. The CPU path.
    pub async fn save_run(&mut self, dir: &Path, corpus_text: &str) -> Result<()> {
        self.sync().await?;
        let tmp = dir.with_extension("partial");
        let old = dir.with_extension("old");
        let io = |p: &Path, e| BertError::io(p, e);
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(|e| io(&tmp, e))?;
        }
        self.bert.save_dir(&tmp)?;
        let opt = self.opt.save_state()?;
        std::fs::write(tmp.join(OPTIMIZER), opt).map_err(|e| io(&tmp, e))?;
        let state = RunState { step: self.step, options: self.opts.clone(), corpus_fnv: corpus_fnv(corpus_text), seconds: self.seconds };
        let json = serde_json::to_string_pretty(&state).expect("plain data");
        std::fs::write(tmp.join(RUN_JSON), json).map_err(|e| io(&tmp, e))?;
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(|e| io(&old, e))?;
        }
        if dir.exists() {
            std::fs::rename(dir, &old).map_err(|e| io(dir, e))?;
        }
        std::fs::rename(&tmp, dir).map_err(|e| io(&tmp, e))?;
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(|e| io(&old, e))?;
        }
        Ok(())
    }

    /// The run saved in `dir`, continued on `corpus_text` with `opts` (which must be the options
    /// it was started with, and the text the one it read): the weights, AdamW's moments and the
    /// step as saved, and the data stream advanced past the batches already trained on.
    pub fn resume(dir: &Path, corpus_text: &str, opts: TrainOptions) -> Result<Self> {
        let state = read_state(dir)?;
        let (was, now) = (serde_json::to_value(&state.options).ok(), serde_json::to_value(&opts).ok());
        if was != now {
            return Err(BertError::Input(format!(
                "the run in {} was started with other options: {} (now {})",
                dir.display(),
                serde_json::to_string(&state.options).unwrap_or_default(),
                serde_json::to_string(&opts).unwrap_or_default()
            )));
        }
        if state.corpus_fnv != corpus_fnv(corpus_text) {
            return Err(BertError::Input(format!("the run in {} was trained on another corpus text", dir.display())));
        }
        if state.step > opts.run.steps {
            return Err(BertError::Input(format!(
                "the run in {} is at step {}, past its {} steps",
                dir.display(),
                state.step,
                opts.run.steps
            )));
        }
        let bert = Bert::from_dir(dir)?;
        let mut t = Trainer::new(bert, corpus_text, opts)?;
        let p = dir.join(OPTIMIZER);
        let bytes = std::fs::read(&p).map_err(|e| BertError::io(&p, e))?;
        t.opt.load_state(&bytes)?;
        for _ in 0..state.step {
            t.next_batch();
        }
        t.step = state.step;
        t.seconds = state.seconds;
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::block_on;
    use crate::config::{BertConfig, Heads};
    use crate::tokenize::BertTokenizer;
    use crate::train::options::RunOptions;

    fn corpus() -> String {
        let s = ["the cat sat on the mat.", "a dog ran in the park.", "birds sing in the morning.", "the sun is warm today."];
        (0..30).map(|d| format!("{}\n{}\n", s[d % 4], s[(d + 1) % 4])).collect::<Vec<_>>().join("\n")
    }

    fn model(text: &str) -> Bert {
        let tok = BertTokenizer::train_wordpiece(text, 60, 32).unwrap();
        Bert::from_scratch(BertConfig::new(60, 8, 2, 2, 16, 32), tok, Heads::MASKED_LM, 3).unwrap()
    }

    fn opts() -> TrainOptions {
        let run = RunOptions { steps: 6, batch: 4, seq: 16, lr: 1e-2, warmup: Some(2), seed: 5, ..Default::default() };
        TrainOptions { run, freeze_word_embeddings: true, ..Default::default() }
    }

    #[test]
    fn a_run_stopped_and_resumed_ends_with_the_same_weights() {
        let text = corpus();
        // one model for the three runs (a WordPiece vocabulary trained twice can number its
        // pieces differently)
        let start = model(&text);
        let mut whole = Trainer::new(start.clone(), &text, opts()).unwrap();
        for _ in 0..6 {
            block_on(whole.step()).unwrap();
        }
        let dir = std::env::temp_dir().join(format!("bertscope-resume-{}", std::process::id()));
        let mut first = Trainer::new(start.clone(), &text, opts()).unwrap();
        for _ in 0..2 {
            block_on(first.step()).unwrap();
        }
        block_on(first.save_run(&dir, &text)).unwrap();
        block_on(first.save_run(&dir, &text)).unwrap(); // over an earlier save
        assert_eq!(saved_step(&dir).unwrap(), 2);
        let mut second = Trainer::resume(&dir, &text, opts()).unwrap();
        for _ in 0..4 {
            block_on(second.step()).unwrap();
        }
        for ((n, a), (_, b)) in whole.bert.params.tensors().into_iter().zip(second.bert.params.tensors()) {
            assert_eq!(a, b, "{n} differs after resuming");
        }
        // frozen: the word embeddings did not move
        assert_eq!(whole.bert.params.emb.word, start.params.emb.word);
        assert_ne!(whole.bert.params.layers[0].query.weight, start.params.layers[0].query.weight);
        // other options or another text are refused, naming the folder
        let mut other = opts();
        other.run.lr = 2e-2;
        let e = Trainer::resume(&dir, &text, other).err().unwrap().to_string();
        assert!(e.contains("other options"), "{e}");
        let e = Trainer::resume(&dir, &format!("{text}\nmore."), opts()).err().unwrap().to_string();
        assert!(e.contains("another corpus"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
