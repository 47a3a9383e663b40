//! `bertscope search` and `bertscope qk`: views over a corpus (`app::corpus_views`).

use super::{backend, load, Device};
use anyhow::{Context, Result};
use bertscope::app::corpus_views::{queries_and_keys, search, Space};
use bertscope::backend::block_on;
use bertscope::infer::KEY;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct SearchArgs {
    #[arg(long)]
    pub(crate) model: PathBuf,
    /// One sentence a line
    #[arg(long)]
    pub(crate) corpus: PathBuf,
    /// The sentence holding the token to look for
    #[arg(long)]
    pub(crate) text: String,
    /// The token's position in the text's pieces ([CLS] is 0)
    #[arg(long)]
    pub(crate) position: usize,
    /// 0: the embeddings' output; l: after layer l (1..L)
    #[arg(long)]
    pub(crate) layer: usize,
    /// Compare head H's part of layer L's attention output instead (L from 1)
    #[arg(long)]
    pub(crate) head: Option<usize>,
    #[arg(long, default_value_t = 10)]
    pub(crate) top_k: usize,
    #[arg(long, value_enum, default_value = "cpu")]
    pub(crate) device: Device,
}

#[derive(clap::Args)]
pub(crate) struct QkArgs {
    #[arg(long)]
    pub(crate) model: PathBuf,
    /// One sentence a line
    #[arg(long)]
    pub(crate) corpus: PathBuf,
    /// The layer, 1..L
    #[arg(long)]
    pub(crate) layer: usize,
    #[arg(long)]
    pub(crate) head: usize,
    #[arg(long, value_enum, default_value = "cpu")]
    pub(crate) device: Device,
}

fn read(path: &PathBuf) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

pub(crate) fn search_cmd(a: SearchArgs) -> Result<()> {
    let bert = load(&a.model)?;
    let corpus = read(&a.corpus)?;
    let space = Space::of(&bert, a.layer, a.head)?;
    let r = block_on(search(&mut backend(a.device, "searching")?, &bert, KEY, &corpus, &a.text, a.position, space, a.top_k))?;
    println!("{}", serde_json::to_string(&r)?);
    Ok(())
}

pub(crate) fn qk_cmd(a: QkArgs) -> Result<()> {
    let bert = load(&a.model)?;
    let corpus = read(&a.corpus)?;
    let r = block_on(queries_and_keys(&mut backend(a.device, "projecting")?, &bert, KEY, &corpus, a.layer, a.head))
        .with_context(|| format!("{}", a.corpus.display()))?;
    println!("{}", serde_json::to_string(&r)?);
    Ok(())
}
