//! The encoder-decoder's commands: `train` on pairs, `generate`, `inspect --target`.

use super::train::TrainArgs;
use super::{write, Device, Input};
use anyhow::{bail, Context, Result};

/// `train` of an encoder-decoder on JSON lines of {"source", "target"}: from a folder, or from
/// scratch with `--config seq2seq-tiny` (2 layers of 64 each side) / `seq2seq-small` (128).
pub(crate) fn train_seq2seq(a: &TrainArgs, text: &str, init: Option<bertscope::seq2seq::Seq2Seq>) -> Result<()> {
    use bertscope::train::seq2seq::{from_scratch, read_pairs, Seq2SeqOptions, Seq2SeqTrainer};
    let pairs = read_pairs(text).with_context(|| format!("{}", a.corpus.display()))?;
    let model = match (init, a.config.as_deref()) {
        (Some(m), _) => m,
        (None, Some("seq2seq-tiny")) => from_scratch(&pairs, 64, 2, 2, a.run.seq, a.vocab_size, a.run.seed)?,
        (None, Some("seq2seq-small")) => from_scratch(&pairs, 128, 2, 4, a.run.seq, a.vocab_size, a.run.seed)?,
        (None, other) => bail!("unknown encoder-decoder preset {other:?} (seq2seq-tiny, seq2seq-small)"),
    };
    let eval = match &a.eval {
        Some(p) => read_pairs(&std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?)?,
        None => vec![],
    };
    let opts = Seq2SeqOptions { steps: a.steps, batch: a.run.batch, lr: a.run.lr, warmup: a.warmup, seed: a.run.seed };
    let mut t = Seq2SeqTrainer::new(model, &pairs, opts)?;
    eprintln!("{} pairs; {} steps of {}; vocabulary {}", pairs.len(), a.steps, a.run.batch, t.model.tokenizer.vocab_size());
    let started = std::time::Instant::now();
    for _ in 0..a.steps {
        let log = t.step()?;
        let last = log.step == a.steps;
        let eval_now = !eval.is_empty() && ((a.run.eval_every > 0 && log.step % a.run.eval_every == 0) || last);
        if log.step % a.run.log_every.max(1) == 0 || last || eval_now {
            let mut j = serde_json::json!({"step": log.step, "loss": log.loss, "acc": log.acc, "lr": log.lr, "seconds": started.elapsed().as_secs_f64()});
            if eval_now {
                j["eval_exact_match"] = t.exact_match(&eval)?.into();
            }
            println!("{j}");
        }
    }
    let files = t.model.to_files()?;
    std::fs::create_dir_all(&a.run.out).with_context(|| format!("cannot create {}", a.run.out.display()))?;
    write(&a.run.out.join("config.json"), files.config_json.into_bytes())?;
    write(&a.run.out.join("model.safetensors"), files.weights)?;
    write(&a.run.out.join("tokenizer.json"), files.tokenizer_json.unwrap_or_default())?;
    eprintln!("saved the trained encoder-decoder to {}", a.run.out.display());
    Ok(())
}

/// An encoder-decoder folder, or None for any other model.
pub(crate) fn load_seq2seq(dir: &std::path::Path) -> Result<Option<bertscope::seq2seq::Seq2Seq>> {
    let config = std::fs::read_to_string(dir.join("config.json")).unwrap_or_default();
    if !bertscope::seq2seq::is_encoder_decoder(&config) {
        return Ok(None);
    }
    Ok(Some(bertscope::seq2seq::Seq2Seq::from_dir(dir).with_context(|| format!("cannot load the encoder-decoder in {}", dir.display()))?))
}

/// `inspect` of an encoder-decoder (None: the model is not one, and --target must be absent).
pub(crate) fn inspect_seq2seq(
    input: &Input,
    target: Option<&str>,
    device: Device,
) -> Result<Option<Vec<(String, bertscope::tensorfile::Tensor)>>> {
    let Some(m) = load_seq2seq(&input.model)? else {
        if target.is_some() {
            bail!("--target is for an encoder-decoder; {} is an encoder", input.model.display());
        }
        return Ok(None);
    };
    let target = target.context("an encoder-decoder needs --target (the text its decoder reads, teacher-forced)")?;
    let mut b = super::backend(device, "running")?;
    Ok(Some(bertscope::backend::block_on(bertscope::infer::seq2seq::inspect(&mut b, &m, &input.text, target))?))
}

/// `generate`: greedy, beam search or sampling; the steps as JSON.
pub(crate) fn generate(
    dir: &std::path::Path,
    text: &str,
    max_new: usize,
    beams: usize,
    temperature: Option<f32>,
    top_k: usize,
    seed: u64,
) -> Result<()> {
    use bertscope::seq2seq::generate::{beam, greedy, sample, steps_of};
    let m = load_seq2seq(dir)?.with_context(|| format!("{} is not an encoder-decoder (config.json's model_type)", dir.display()))?;
    let g = match (temperature, beams) {
        (Some(t), _) => sample(&m, text, max_new, t, top_k, seed)?,
        (None, 0 | 1) => greedy(&m, text, max_new, 5)?,
        (None, k) => {
            let b = beam(&m, text, max_new, k, 1.0)?;
            let steps = steps_of(&m, text, &b.ids, 5)?;
            bertscope::seq2seq::generate::Generated { ids: b.ids, tokens: b.tokens, text: b.text, steps }
        }
    };
    let steps: Vec<serde_json::Value> = g
        .steps
        .iter()
        .map(|s| serde_json::json!({"token": s.token, "id": s.id, "prob": s.prob, "top": s.top.iter().map(|t| serde_json::json!({"token": t.1, "id": t.0, "prob": t.2})).collect::<Vec<_>>()}))
        .collect();
    println!("{}", serde_json::json!({"ids": g.ids, "tokens": g.tokens, "text": g.text, "steps": steps}));
    Ok(())
}
