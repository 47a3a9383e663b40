//! `bertscope heads`: what each head does over a text, one sentence a line (`app::head_survey`).

use super::{backend, load, Device};
use anyhow::{Context, Result};
use bertscope::app::head_survey::HeadSurvey;
use bertscope::backend::block_on;
use bertscope::infer::KEY;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(crate) struct HeadsArgs {
    #[arg(long)]
    pub(crate) model: PathBuf,
    /// One sentence a line; empty lines are skipped
    #[arg(long)]
    pub(crate) text_file: PathBuf,
    /// The most peaked sentences kept per head
    #[arg(long, default_value_t = 3)]
    pub(crate) examples: usize,
    #[arg(long, value_enum, default_value = "cpu")]
    pub(crate) device: Device,
}

pub(crate) fn heads(a: HeadsArgs) -> Result<()> {
    let bert = load(&a.model)?;
    let text = std::fs::read_to_string(&a.text_file).with_context(|| format!("cannot read {}", a.text_file.display()))?;
    let mut survey = HeadSurvey::new(&bert, &text, a.examples).with_context(|| format!("{}", a.text_file.display()))?;
    let mut b = backend(a.device, "surveying")?;
    let (_, total) = survey.progress();
    while !survey.finished() {
        block_on(survey.run(&mut b, &bert, KEY, 100))?;
        let (done, _) = survey.progress();
        if total >= 500 {
            eprintln!("{done} / {total} sentences");
        }
    }
    let report = survey.report();
    if report.truncated > 0 {
        eprintln!("note: {} lines were longer than the model's {} tokens and were cut", report.truncated, bert.tokenizer.max_len);
    }
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}
