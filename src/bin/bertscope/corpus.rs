//! `bertscope search` and `bertscope qk`: views over a corpus (`app::corpus_views`).

use super::{backend, load, Device};
use anyhow::{Context, Result};
use bertscope::app::corpus_views::{queries_and_keys, search, Space};
use bertscope::backend::block_on;
use bertscope::infer::KEY;
use std::path::PathBuf;

/// What both commands read: a model and a corpus, and where they run.
#[derive(clap::Args)]
pub(crate) struct CorpusInput {
    #[arg(long)]
    pub(crate) model: PathBuf,
    /// One sentence a line
    #[arg(long)]
    pub(crate) corpus: PathBuf,
    #[arg(long, value_enum, default_value = "cpu")]
    pub(crate) device: Device,
}

#[derive(clap::Args)]
pub(crate) struct SearchArgs {
    #[command(flatten)]
    pub(crate) input: CorpusInput,
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
}

#[derive(clap::Args)]
pub(crate) struct QkArgs {
    #[command(flatten)]
    pub(crate) input: CorpusInput,
    /// The layer, 1..L
    #[arg(long)]
    pub(crate) layer: usize,
    #[arg(long)]
    pub(crate) head: usize,
}

impl CorpusInput {
    /// The model, the corpus's text and the backend (`doing`: for the GPU's note).
    fn open(&self, doing: &str) -> Result<(bertscope::bundle::Bert, String, bertscope::backend::Backend)> {
        let bert = load(&self.model)?;
        let corpus = std::fs::read_to_string(&self.corpus).with_context(|| format!("cannot read {}", self.corpus.display()))?;
        Ok((bert, corpus, backend(self.device, doing)?))
    }
}

pub(crate) fn search_cmd(a: SearchArgs) -> Result<()> {
    let (bert, corpus, mut b) = a.input.open("searching")?;
    let space = Space::of(&bert, a.layer, a.head)?;
    let r = block_on(search(&mut b, &bert, KEY, &corpus, &a.text, a.position, space, a.top_k))?;
    println!("{}", serde_json::to_string(&r)?);
    Ok(())
}

pub(crate) fn qk_cmd(a: QkArgs) -> Result<()> {
    let (bert, corpus, mut b) = a.input.open("projecting")?;
    let r = block_on(queries_and_keys(&mut b, &bert, KEY, &corpus, a.layer, a.head))
        .with_context(|| format!("{}", a.input.corpus.display()))?;
    println!("{}", serde_json::to_string(&r)?);
    Ok(())
}
