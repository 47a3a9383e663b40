//! `bertscope train`: masked-LM pre-training of an encoder (from a folder or from scratch), or an
//! encoder-decoder on pairs (`seq2seq.rs`); the options `train` and `finetune` share.

use super::seq2seq::{load_seq2seq, train_seq2seq};
use super::{backend, load, Device};
use anyhow::{bail, Context, Result};
use bertscope::backend::block_on;
use bertscope::bundle::Bert;
use bertscope::config::{BertConfig, Heads};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct TrainArgs {
    /// Plain text: documents separated by blank lines
    #[arg(long)]
    pub(crate) corpus: PathBuf,
    /// Continue training this model folder
    #[arg(long, conflicts_with = "config")]
    pub(crate) init: Option<PathBuf>,
    /// Or start from scratch with a preset (scratch-tiny, bert-tiny, ...) and a WordPiece
    /// vocabulary trained on the corpus
    #[arg(long)]
    pub(crate) config: Option<String>,
    /// Vocabulary size when training from scratch
    #[arg(long, default_value_t = 4000)]
    pub(crate) vocab_size: usize,
    #[arg(long, default_value_t = 1000)]
    pub(crate) steps: usize,
    /// Warmup steps (default: 10% of the steps)
    #[arg(long)]
    pub(crate) warmup: Option<usize>,
    /// Switch dropout off
    #[arg(long)]
    pub(crate) no_dropout: bool,
    /// Share of tokens masked (BERT: 0.15)
    #[arg(long, default_value_t = 0.15)]
    pub(crate) mask_prob: f64,
    /// Leave the word embeddings, and the decoder tied to them, as they are (CPU path)
    #[arg(long)]
    pub(crate) freeze_word_embeddings: bool,
    /// Save the run (weights, AdamW's moments, the step) into this folder every --save-every
    /// steps; when it already holds a run, resume it (same options and corpus)
    #[arg(long)]
    pub(crate) run_dir: Option<PathBuf>,
    #[arg(long, default_value_t = 500)]
    pub(crate) save_every: usize,
    #[command(flatten)]
    pub(crate) run: RunArgs,
    /// An encoder-decoder's held-out pairs (JSON lines): exact match of greedy decoding at each eval
    #[arg(long)]
    pub(crate) eval: Option<PathBuf>,
}

#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// Examples (or sequences) per step
    #[arg(long, default_value_t = 32)]
    pub(crate) batch: usize,
    /// Longest input in tokens: longer ones are cut
    #[arg(long, default_value_t = 64)]
    pub(crate) seq: usize,
    /// Peak learning rate, after the warmup, then decayed linearly to 0
    #[arg(long, default_value_t = 1e-4)]
    pub(crate) lr: f64,
    /// Seeds the initialisation, the data order, the masking and dropout
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// A JSON log line every N steps
    #[arg(long, default_value_t = 10)]
    pub(crate) log_every: usize,
    /// Held-out evaluation every N steps (0: only at the end)
    #[arg(long, default_value_t = 100)]
    pub(crate) eval_every: usize,
    #[arg(long, value_enum, default_value = "cpu")]
    pub(crate) device: Device,
    /// Where the trained model (HF layout) is written
    #[arg(long)]
    pub(crate) out: PathBuf,
}

pub(crate) fn t_len(text: &str) -> usize {
    text.lines().filter(|l| !l.trim().is_empty()).count()
}

pub(crate) fn train(a: TrainArgs) -> Result<()> {
    use bertscope::train::options::RunOptions;
    use bertscope::train::trainer::{TrainOptions, Trainer};
    let text = std::fs::read_to_string(&a.corpus).with_context(|| format!("cannot read {}", a.corpus.display()))?;
    let seq2seq_init = match &a.init {
        Some(dir) => load_seq2seq(dir)?,
        None => None,
    };
    if seq2seq_init.is_some() || a.config.as_deref().is_some_and(|c| c.starts_with("seq2seq")) {
        if a.run.device == Device::Gpu {
            bail!("an encoder-decoder trains on the CPU path (--device cpu); `grad` and `inspect` run it on the GPU");
        }
        return train_seq2seq(&a, &text, seq2seq_init);
    }
    let bert = match (&a.init, &a.config) {
        (Some(dir), None) => {
            let b = load(dir)?;
            if b.params.mlm.is_some() {
                b
            } else {
                eprintln!("{} has no masked-LM head: added one (decoder tied to the word embeddings)", dir.display());
                b.with_mlm_head(a.run.seed)?
            }
        }
        (None, Some(preset)) => {
            let mut cfg = BertConfig::preset(preset)?;
            cfg.max_position_embeddings = cfg.max_position_embeddings.max(a.run.seq);
            let tok = bertscope::tokenize::BertTokenizer::train_wordpiece(&text, a.vocab_size, cfg.max_position_embeddings)?;
            eprintln!("trained a WordPiece vocabulary of {} tokens", tok.vocab_size());
            Bert::from_scratch(cfg, tok, Heads::PRETRAINING, a.run.seed)?
        }
        _ => bail!("give --init DIR (continue a model) or --config PRESET (from scratch)"),
    };
    let run = RunOptions {
        steps: a.steps,
        batch: a.run.batch,
        seq: a.run.seq,
        lr: a.run.lr,
        warmup: a.warmup,
        seed: a.run.seed,
        dropout: !a.no_dropout,
        ..Default::default()
    };
    let opts = TrainOptions { run, mask_prob: a.mask_prob, freeze_word_embeddings: a.freeze_word_embeddings, ..Default::default() };
    use bertscope::train::trainer::resume::has_run;
    if a.run_dir.is_some() && a.run.device == Device::Gpu {
        bail!("a run saved with --run-dir trains on the CPU path (--device cpu)");
    }
    let mut t = match &a.run_dir {
        Some(dir) if has_run(dir) => {
            let t = Trainer::resume(dir, &text, opts)?;
            eprintln!("resumed the run in {} at step {}", dir.display(), t.step);
            t
        }
        _ => Trainer::new(bert, &text, opts)?,
    };
    if a.run.device == Device::Gpu {
        // the trainer starts on the CPU path; this moves the weights and fresh moments to the GPU
        block_on(t.use_backend(&backend(a.run.device, "training")?))?;
    }
    eprintln!("{} training tokens; {} steps of {} x {}", t.train_tokens(), a.steps, a.run.batch, a.run.seq);
    let mut window = (std::time::Instant::now(), 0usize);
    while t.step < a.steps {
        let started = std::time::Instant::now();
        let stepped = block_on(t.step());
        t.seconds += started.elapsed().as_secs_f64();
        let log = match stepped {
            Ok(l) => l.point,
            Err(e) => {
                block_on(t.sync())?;
                t.bert.save_dir(&a.run.out)?;
                bail!("{e}; the last good weights are in {}", a.run.out.display());
            }
        };
        window.1 += log.tokens;
        let last = log.step == a.steps;
        let eval = (a.run.eval_every > 0 && log.step % a.run.eval_every == 0) || last;
        if log.step % a.run.log_every.max(1) == 0 || last || eval {
            let secs = window.0.elapsed().as_secs_f64();
            let mut j = serde_json::json!({
                "step": log.step, "loss": log.loss, "mlm_loss": log.mlm_loss, "mlm_acc": log.mlm_acc, "lr": log.lr,
                "tokens_per_s": (window.1 as f64 / secs.max(1e-9)).round(), "seconds": t.seconds.round(),
            });
            if let Some(n) = log.nsp_loss {
                j["nsp_loss"] = n.into();
            }
            if eval {
                let e = block_on(t.evaluate())?;
                j["eval_loss"] = e.loss.into();
                j["eval_mlm_acc"] = e.mlm_acc.into();
            }
            println!("{j}");
            window = (std::time::Instant::now(), 0);
        }
        if let Some(dir) = a.run_dir.as_ref().filter(|_| log.step % a.save_every.max(1) == 0 || last) {
            block_on(t.save_run(dir, &text))?;
        }
        if let Some(dir) = a.run_dir.as_ref().filter(|_| log.step % a.save_every.max(1) == 0 || last) {
            block_on(t.save_run(dir, &text))?;
        }
    }
    block_on(t.sync())?;
    t.bert.save_dir(&a.run.out)?;
    eprintln!("saved the trained model to {}", a.run.out.display());
    Ok(())
}
