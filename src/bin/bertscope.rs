//! `bertscope`: the command-line face of the engine (tokenize, fill, inspect, grad, params).

// Large activations are allocated every forward; mimalloc reuses them instead of faulting in
// fresh pages from the OS each time (about a fifth of a bert-tiny forward with glibc malloc).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use anyhow::{bail, Context, Result};
use bertscope::bundle::Bert;
use bertscope::config::{count_params, BertConfig, Heads};
use bertscope::infer::{self, BatchJson};
use bertscope::tensorfile::write_tensors;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "bertscope", version, about = "A BERT whose every number you can see: tokens, attention, predictions, gradients")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum Device {
    Cpu,
    Gpu,
}

#[derive(clap::Args)]
struct Input {
    /// Model folder: config.json, model.safetensors, tokenizer.json or vocab.txt
    #[arg(long)]
    model: PathBuf,
    /// The text (use [MASK] for words to predict)
    #[arg(long)]
    text: String,
    /// A second sentence (segment B)
    #[arg(long)]
    pair: Option<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// WordPiece tokens and ids as JSON
    Tokenize {
        #[command(flatten)]
        input: Input,
    },
    /// Top-k predictions at every [MASK], as JSON
    Fill {
        #[command(flatten)]
        input: Input,
        #[arg(long, default_value_t = 5)]
        top_k: usize,
        #[arg(long, value_enum, default_value = "cpu")]
        device: Device,
    },
    /// Write hidden states, attentions and logits to a safetensors file
    Inspect {
        #[command(flatten)]
        input: Input,
        #[arg(long, value_enum, default_value = "cpu")]
        device: Device,
        #[arg(long)]
        out: PathBuf,
    },
    /// Loss and every parameter's gradient for a labelled batch (JSON), to a safetensors file
    Grad {
        #[arg(long)]
        model: PathBuf,
        #[arg(long)]
        batch: PathBuf,
        #[arg(long, value_enum, default_value = "cpu")]
        device: Device,
        #[arg(long)]
        out: PathBuf,
    },
    /// Parameter counts by group
    Params {
        #[arg(long, conflicts_with = "preset")]
        model: Option<PathBuf>,
        /// bert-base, bert-tiny, bert-mini, bert-small
        #[arg(long)]
        preset: Option<String>,
    },
}

fn load(dir: &PathBuf) -> Result<Bert> {
    Bert::from_dir(dir).with_context(|| format!("cannot load the model in {}", dir.display()))
}

fn need_cpu(device: Device) -> Result<()> {
    if device == Device::Gpu {
        bail!("--device gpu: the WebGPU backend is not built yet; use --device cpu");
    }
    Ok(())
}

fn write(path: &PathBuf, bytes: Vec<u8>) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Tokenize { input } => {
            let bert = load(&input.model)?;
            let e = bert.tokenizer.encode(&input.text, input.pair.as_deref())?;
            if e.truncated {
                eprintln!("note: the input was truncated to {} tokens", bert.tokenizer.max_len);
            }
            let j = serde_json::json!({
                "tokens": e.tokens, "input_ids": e.input_ids, "token_type_ids": e.token_type_ids,
                "attention_mask": e.attention_mask, "truncated": e.truncated,
            });
            println!("{j}");
        }
        Cmd::Fill { input, top_k, device } => {
            need_cpu(device)?;
            let bert = load(&input.model)?;
            let r = infer::fill(&bert, &input.text, input.pair.as_deref(), top_k, None)?;
            if r.masks.is_empty() {
                eprintln!("note: the text has no [MASK] token, so there is nothing to predict");
            }
            println!("{}", serde_json::to_string(&r)?);
        }
        Cmd::Inspect { input, device, out } => {
            need_cpu(device)?;
            let bert = load(&input.model)?;
            let (enc, tensors) = infer::inspect(&bert, &input.text, input.pair.as_deref())?;
            write(&out, write_tensors(&tensors, None)?)?;
            eprintln!("wrote {} tensors for {} tokens to {}", tensors.len(), enc.tokens.len(), out.display());
        }
        Cmd::Grad { model, batch, device, out } => {
            need_cpu(device)?;
            let bert = load(&model)?;
            let text = std::fs::read_to_string(&batch).with_context(|| format!("cannot read {}", batch.display()))?;
            let tensors = infer::grad(&bert, &BatchJson::parse(&text)?)?;
            write(&out, write_tensors(&tensors, None)?)?;
            if let Some((_, bertscope::tensorfile::Tensor::F32(l))) = tensors.first() {
                eprintln!("loss {:.6}; wrote {} gradients to {}", l[[0]], tensors.len() - 1, out.display());
            }
        }
        Cmd::Params { model, preset } => {
            let (cfg, heads) = match (model, preset) {
                (Some(dir), None) => {
                    let bert = load(&dir)?;
                    let heads = bert.params.heads();
                    (bert.cfg, heads)
                }
                (None, Some(p)) => (BertConfig::preset(&p)?, Heads::BASE_MODEL),
                _ => bail!("give --model DIR or --preset NAME"),
            };
            println!("{}", serde_json::to_string_pretty(&serde_json::json!({"heads": heads, "counts": count_params(&cfg, heads)}))?);
        }
    }
    Ok(())
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
