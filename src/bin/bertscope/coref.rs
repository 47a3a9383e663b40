//! `bertscope coref`: which head links a pronoun to its antecedent (`app::coref_probe`).

use super::{backend, load, Device};
use anyhow::{Context, Result};
use bertscope::app::coref_probe::{parse_items, probe};
use bertscope::backend::block_on;
use bertscope::infer::KEY;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub(crate) struct CorefArgs {
    #[arg(long)]
    pub(crate) model: PathBuf,
    /// Sentences that pick the best head (JSON lines of {text, pronoun, antecedent, distractor})
    #[arg(long, default_value = "www/datasets/coref/dev.jsonl")]
    pub(crate) dev: PathBuf,
    /// Held-out sentences the best head is scored on
    #[arg(long, default_value = "www/datasets/coref/test.jsonl")]
    pub(crate) test: PathBuf,
    #[arg(long, value_enum, default_value = "cpu")]
    pub(crate) device: Device,
}

fn items(path: &Path) -> Result<Vec<bertscope::app::coref_probe::CorefItem>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_items(&text).with_context(|| format!("{}", path.display()))
}

pub(crate) fn coref(a: CorefArgs) -> Result<()> {
    let bert = load(&a.model)?;
    let (dev, test) = (items(&a.dev)?, items(&a.test)?);
    let report = block_on(probe(&mut backend(a.device, "probing")?, &bert, KEY, &dev, &test))?;
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}
