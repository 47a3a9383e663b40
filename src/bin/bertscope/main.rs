//! `bertscope`: the command-line face of the engine (tokenize, fill, classify, tag, answer,
//! heads, coref, search, qk, attribute, inspect, generate, grad, train, finetune, cloze, convert, params).
//! Each command's work is a short function that calls the library; `train.rs`, `finetune.rs` and
//! `seq2seq.rs` hold the longer ones with their arguments.

// Large activations are allocated every forward; mimalloc reuses them instead of faulting in
// fresh pages from the OS each time (about a fifth of a bert-tiny forward with glibc malloc).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` (`mi_option_purge_delay` in mimalloc.h; libmimalloc-sys names no
/// constant for it). -1: freed pages are never handed back to the OS, so the next step's activations
/// reuse them instead of faulting in zeroed pages (a tenth of a fine-tuning step otherwise).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

use anyhow::{bail, Context, Result};
use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::config::{count_params, BertConfig, Heads};
use bertscope::infer::{self, BatchJson};
use bertscope::tensorfile::write_tensors;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

mod coref;
mod corpus;
mod finetune;
mod heads;
mod seq2seq;
mod train;
use coref::{coref, CorefArgs};
use corpus::{qk_cmd, search_cmd, QkArgs, SearchArgs};
use finetune::{finetune, FinetuneArgs};
use heads::{heads, HeadsArgs};
use seq2seq::{generate, inspect_seq2seq, load_seq2seq};
use train::{train, TrainArgs};

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
    /// Tokens (WordPiece, or byte-level BPE for RoBERTa) and ids as JSON
    Tokenize {
        #[command(flatten)]
        input: Input,
    },
    /// What each head does over a text (one sentence a line): attention to [CLS], [SEP], the
    /// previous and next token, itself, punctuation; entropy; a role and example lines, as JSON
    Heads(HeadsArgs),
    /// Which head links a pronoun to its antecedent: every head's share of sentences where the
    /// pronoun attends more to the antecedent than to the other noun, the best head (picked on
    /// --dev, scored on --test) and the nearest-noun baseline, as JSON
    Coref(CorefArgs),
    /// The corpus tokens closest (cosine) to one token of a sentence, by its hidden state after a
    /// layer or by one head's part of a layer's attention output, as JSON
    Search(SearchArgs),
    /// One head's queries and keys of every corpus token in one 2D PCA (keys shifted to the
    /// queries' mean), with the share of variance each axis explains, as JSON
    Qk(QkArgs),
    /// Top-k predictions at every [MASK], as JSON
    Fill {
        #[command(flatten)]
        input: Input,
        #[arg(long, default_value_t = 5)]
        top_k: usize,
        /// Also the guesses after each layer (the logit lens: the MLM head on each hidden state)
        #[arg(long)]
        layers: bool,
        #[arg(long, value_enum, default_value = "cpu")]
        device: Device,
    },
    /// Every label of a sequence classifier with its probability, most probable first (a
    /// regression head: its score), as JSON
    Classify {
        #[command(flatten)]
        input: Input,
        #[arg(long, value_enum, default_value = "cpu")]
        device: Device,
    },
    /// The most probable tag of every token from a token classifier, as JSON
    Tag {
        #[command(flatten)]
        input: Input,
        #[arg(long, value_enum, default_value = "cpu")]
        device: Device,
    },
    /// The best answer spans of a question in a context from a question-answering model, as JSON
    Answer {
        /// Model folder
        #[arg(long)]
        model: PathBuf,
        #[arg(long)]
        question: String,
        #[arg(long)]
        context: String,
        #[arg(long, default_value_t = 3)]
        top_k: usize,
        #[arg(long, value_enum, default_value = "cpu")]
        device: Device,
    },
    /// Which tokens an output depended on: gradient attributions of its log-probability, one
    /// score per token, as JSON
    Attribute {
        #[command(flatten)]
        input: Input,
        /// mask:POS:TOKEN (a word or an id), class:LABEL, tag:POS:LABEL, start:POS or end:POS
        #[arg(long)]
        target: String,
        /// grad (||df/dx||), grad-x-input (df/dx . x) or ig (integrated gradients from the [PAD] row)
        #[arg(long, default_value = "grad")]
        method: String,
        /// Integrated-gradient steps
        #[arg(long, default_value_t = 32)]
        steps: usize,
        /// Where the gradients run (f itself on the CPU path)
        #[arg(long, value_enum, default_value = "cpu")]
        device: Device,
    },
    /// Write hidden states, attentions and logits to a safetensors file (an encoder-decoder: the
    /// source's and, teacher-forced, the --target's)
    Inspect {
        #[command(flatten)]
        input: Input,
        /// An encoder-decoder's target text: the decoder reads [decoder_start] + its tokens
        #[arg(long)]
        target: Option<String>,
        #[arg(long, value_enum, default_value = "cpu")]
        device: Device,
        #[arg(long)]
        out: PathBuf,
    },
    /// An encoder-decoder's output for a source text, one token at a time, as JSON: greedy, beam
    /// search (--beams K) or sampling (--temperature / --top-k / --seed)
    Generate {
        /// An encoder-decoder folder (config.json with model_type "encoder-decoder")
        #[arg(long)]
        model: PathBuf,
        #[arg(long)]
        text: String,
        /// The most tokens to add
        #[arg(long, default_value_t = 20)]
        max_new: usize,
        /// Beam search with this many beams (1: greedy)
        #[arg(long, default_value_t = 1)]
        beams: usize,
        /// Sample at this temperature instead of taking the most probable token
        #[arg(long)]
        temperature: Option<f32>,
        /// Sample among the K most probable tokens (0: all)
        #[arg(long, default_value_t = 0)]
        top_k: usize,
        #[arg(long, default_value_t = 0)]
        seed: u64,
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
    /// Masked-LM (+ NSP) training on a text corpus; one JSON line per log step
    Train(TrainArgs),
    /// Fine-tune a task head (added when the model has none) on labelled JSON lines; one JSON line
    /// per log step; saves an HF folder
    Finetune(FinetuneArgs),
    /// Top-1 / top-5 accuracy on a cloze set (JSON lines of {"text", "answers"})
    Cloze {
        #[arg(long)]
        model: PathBuf,
        #[arg(long, default_value = "benches/cloze.jsonl")]
        set: PathBuf,
    },
    /// Rewrite a model folder with its weights in another float type (f16: half the download)
    Convert {
        #[arg(long)]
        model: PathBuf,
        #[arg(long, value_enum)]
        dtype: SaveDtypeArg,
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

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SaveDtypeArg {
    F16,
    F32,
}

fn load(dir: &std::path::Path) -> Result<Bert> {
    Bert::from_dir(dir).with_context(|| format!("cannot load the model in {}", dir.display()))
}

/// Where the command runs the model: the CPU reference, or the same math on the GPU.
fn backend(device: Device, doing: &str) -> Result<Backend> {
    Ok(match device {
        Device::Cpu => Backend::cpu(),
        Device::Gpu => {
            let b = block_on(Backend::open_gpu()).context("--device gpu: no usable GPU adapter")?;
            if let Some(ctx) = b.context() {
                eprintln!("{doing} on the GPU: {} ({})", ctx.info.name, ctx.info.backend);
            }
            b
        }
    })
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
        Cmd::Fill { input, top_k, layers, device } => {
            let bert = load(&input.model)?;
            let (b, pair) = (&mut backend(device, "running")?, input.pair.as_deref());
            let r = match layers {
                true => block_on(infer::lens::fill_layers(b, &bert, &input.text, pair, top_k))?,
                false => block_on(infer::fill(b, &bert, &input.text, pair, top_k, None))?,
            };
            if r.masks.is_empty() {
                eprintln!("note: the text has no [MASK] token, so there is nothing to predict");
            }
            println!("{}", serde_json::to_string(&r)?);
        }
        Cmd::Classify { input, device } => {
            let bert = load(&input.model)?;
            let r = block_on(infer::task::classify(&mut backend(device, "running")?, &bert, &input.text, input.pair.as_deref()))?;
            println!("{}", serde_json::to_string(&r)?);
        }
        Cmd::Tag { input, device } => {
            let bert = load(&input.model)?;
            let r = block_on(infer::task::tag(&mut backend(device, "running")?, &bert, &input.text, input.pair.as_deref()))?;
            println!("{}", serde_json::to_string(&r)?);
        }
        Cmd::Answer { model, question, context, top_k, device } => {
            let bert = load(&model)?;
            let r = block_on(infer::task::answer(&mut backend(device, "running")?, &bert, &question, &context, top_k))?;
            println!("{}", serde_json::to_string(&r)?);
        }
        Cmd::Attribute { input, target, method, steps, device } => {
            let bert = load(&input.model)?;
            let method = infer::attribute::Method::parse(&method)?;
            let mut b = backend(device, "attributing")?;
            let r =
                block_on(infer::attribute::attribute(&mut b, &bert, (0, 0), (&input.text, input.pair.as_deref()), &target, method, steps))?;
            println!("{}", serde_json::to_string(&r)?);
        }
        Cmd::Inspect { input, target, device, out } => {
            if let Some(tensors) = inspect_seq2seq(&input, target.as_deref(), device)? {
                write(&out, write_tensors(&tensors, None)?)?;
                eprintln!("wrote {} tensors to {}", tensors.len(), out.display());
                return Ok(());
            }
            let bert = load(&input.model)?;
            let (enc, tensors) = block_on(infer::inspect(&mut backend(device, "running")?, &bert, &input.text, input.pair.as_deref()))?;
            write(&out, write_tensors(&tensors, None)?)?;
            eprintln!("wrote {} tensors for {} tokens to {}", tensors.len(), enc.tokens.len(), out.display());
        }
        Cmd::Generate { model, text, max_new, beams, temperature, top_k, seed } => {
            generate(&model, &text, max_new, beams, temperature, top_k, seed)?
        }
        Cmd::Grad { model, batch, device, out } => {
            let text = std::fs::read_to_string(&batch).with_context(|| format!("cannot read {}", batch.display()))?;
            let bj = BatchJson::parse(&text)?;
            let tensors = match load_seq2seq(&model)? {
                Some(m) => block_on(bertscope::infer::seq2seq::grad(&mut backend(device, "running")?, &m, &bj))?,
                None => block_on(infer::grad(&mut backend(device, "running")?, &load(&model)?, &bj))?,
            };
            write(&out, write_tensors(&tensors, None)?)?;
            if let Some((_, bertscope::tensorfile::Tensor::F32(l))) = tensors.first() {
                eprintln!("loss {:.6}; wrote {} gradients to {}", l[[0]], tensors.len() - 1, out.display());
            }
        }
        Cmd::Heads(a) => heads(a)?,
        Cmd::Coref(a) => coref(a)?,
        Cmd::Search(a) => search_cmd(a)?,
        Cmd::Qk(a) => qk_cmd(a)?,
        Cmd::Train(a) => train(a)?,
        Cmd::Finetune(a) => finetune(a)?,
        Cmd::Cloze { model, set } => {
            let bert = load(&model)?;
            let text = std::fs::read_to_string(&set).with_context(|| format!("cannot read {}", set.display()))?;
            let score = block_on(infer::cloze(&mut Backend::cpu(), &bert, &infer::parse_cloze(&text)?))?;
            println!("{}", serde_json::to_string(&score)?);
        }
        Cmd::Convert { model, dtype, out } => {
            let bert = load(&model)?;
            let dtype = match dtype {
                SaveDtypeArg::F16 => bertscope::checkpoint::SaveDtype::F16,
                SaveDtypeArg::F32 => bertscope::checkpoint::SaveDtype::F32,
            };
            bert.save_dir_as(&out, dtype)?;
            let tok_cfg = model.join("tokenizer_config.json");
            if tok_cfg.is_file() {
                std::fs::copy(&tok_cfg, out.join("tokenizer_config.json"))?;
            }
            // what the rounding did: the largest change of any weight, read back from the new file
            let back = load(&out)?;
            let (mut abs, mut rel) = (0f32, 0f32);
            for ((_, a), (_, b)) in bert.params.tensors().into_iter().zip(back.params.tensors()) {
                for (x, y) in a.iter().zip(b.iter()) {
                    abs = abs.max((x - y).abs());
                    if x.abs() > 1e-4 {
                        rel = rel.max((x - y).abs() / x.abs());
                    }
                }
            }
            let bytes = std::fs::metadata(out.join("model.safetensors"))?.len();
            println!("{}", serde_json::json!({ "out": out, "bytes": bytes, "max_abs_change": abs, "max_rel_change": rel }));
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
    // SAFETY: sets one of mimalloc's options before any thread starts; it takes effect on the next purge.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    if let Err(e) = run(Cli::parse()) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
