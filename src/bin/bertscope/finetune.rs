//! `bertscope finetune`: a classification, tagging or question-answering head trained on JSON lines.

use super::train::{t_len, RunArgs};
use super::{backend, load};
use anyhow::{Context, Result};
use bertscope::backend::block_on;
use clap::ValueEnum;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum TaskArg {
    /// BertForSequenceClassification: {"text", "pair"?, "label"}
    Classify,
    /// BertForTokenClassification: {"tokens": [words], "tags": [labels]}
    Tag,
    /// BertForQuestionAnswering: {"question", "context", "answer": {"text", "start"}}
    Answer,
}

#[derive(clap::Args)]
pub(crate) struct FinetuneArgs {
    /// Model folder (pre-trained, or already fine-tuned for this task)
    #[arg(long)]
    pub(crate) model: PathBuf,
    #[arg(long, value_enum)]
    pub(crate) task: TaskArg,
    /// Training data, JSON lines
    #[arg(long)]
    pub(crate) data: PathBuf,
    /// Held-out data, JSON lines: loss and accuracy every --eval-every steps and at the end
    #[arg(long)]
    pub(crate) eval: Option<PathBuf>,
    /// Optimiser steps (AdamW)
    #[arg(long, default_value_t = 500)]
    pub(crate) steps: usize,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

pub(crate) fn finetune(a: FinetuneArgs) -> Result<()> {
    use bertscope::config::TaskKind;
    use bertscope::train::finetune::{features, head_for, FineTuneOptions, FineTuner};
    let kind = match a.task {
        TaskArg::Classify => TaskKind::SequenceClassification,
        TaskArg::Tag => TaskKind::TokenClassification,
        TaskArg::Answer => TaskKind::QuestionAnswering,
    };
    let read = |p: &PathBuf| std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()));
    let name = |p: &PathBuf| p.display().to_string();
    let train_text = read(&a.data)?;
    let base = load(&a.model)?;
    let (bert, added) = head_for(&base, kind, &name(&a.data), &train_text, a.run.seed)?;
    if added {
        eprintln!(
            "fine-tuning {} with a new {} head ({} outputs); {} itself is not changed",
            a.model.display(),
            kind.architecture(),
            bert.params.task.as_ref().map_or(0, |t| t.linear.bias.len()),
            a.model.display()
        );
    }
    let seq = a.run.seq.min(bert.cfg.max_tokens());
    let train_set = features(&bert, kind, &name(&a.data), &train_text, seq)?;
    let eval_set = match &a.eval {
        Some(p) => Some(features(&bert, kind, &name(p), &read(p)?, seq)?),
        None => None,
    };
    let opts = FineTuneOptions { steps: a.steps, batch: a.run.batch, seq, lr: a.run.lr, seed: a.run.seed, ..Default::default() };
    let mut t = FineTuner::new(bert, train_set, opts, &backend(a.run.device, "fine-tuning")?)?;
    eprintln!(
        "{} training examples{}; {} steps of {}",
        t_len(&train_text),
        eval_set.as_ref().map(|e| format!(", {} held out", e.len())).unwrap_or_default(),
        a.steps,
        a.run.batch
    );
    let mut window = (std::time::Instant::now(), 0usize);
    for _ in 0..a.steps {
        let log = block_on(t.step())?;
        window.1 += log.tokens;
        let last = log.step == a.steps;
        let eval = eval_set.is_some() && ((a.run.eval_every > 0 && log.step % a.run.eval_every == 0) || last);
        if log.step % a.run.log_every.max(1) == 0 || last || eval {
            let secs = window.0.elapsed().as_secs_f64();
            let mut j = serde_json::json!({
                "step": log.step, "loss": log.loss, "acc": log.acc, "lr": log.lr,
                "tokens_per_s": (window.1 as f64 / secs.max(1e-9)).round(),
            });
            if let (true, Some(e)) = (eval, &eval_set) {
                let (l, acc) = block_on(t.evaluate(e))?;
                j["eval_loss"] = l.into();
                j["eval_acc"] = acc.into();
            }
            println!("{j}");
            window = (std::time::Instant::now(), 0);
        }
    }
    block_on(t.sync())?;
    t.bert.save_dir(&a.run.out)?;
    eprintln!("saved the fine-tuned model to {}", a.run.out.display());
    Ok(())
}
