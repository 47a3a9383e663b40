//! The head survey as a long job: every line of a text through the model (a tab splits a line into
//! a sentence pair), one forward each (no padding, so only the sentence's own tokens count), its attention added to `explain::head_stats`.
//! It runs in slices of a few sentences (`run`), so a caller can answer between them, stop calling
//! to pause, or drop it to cancel; `report` is ready at any point.

use crate::app::corpus_index::CorpusIndex;
use crate::backend::{Backend, WeightsKey};
use crate::bundle::Bert;
use crate::error::{BertError, Result};
pub use crate::explain::head_stats::SurveyReport;
use crate::explain::head_stats::{Kind, Survey, PUNCTUATION};
use crate::infer::batch_of;
use crate::model::forward::ForwardOptions;
use crate::tokenize::Encoded;
use ndarray::Axis;

pub struct HeadSurvey {
    /// (line in the text from 0, the line) of the non-empty lines.
    lines: Vec<(usize, String)>,
    /// The search index the same scan fills (`with_index`).
    index: Option<CorpusIndex>,
    next: usize,
    survey: Survey,
    truncated: usize,
}

/// What each token of `enc` is for the statistics: [CLS] at 0, the [SEP]s, other specials,
/// punctuation, words.
pub fn kinds(bert: &Bert, enc: &Encoded) -> Vec<Kind> {
    let tok = &bert.tokenizer;
    let specials = tok.special_ids();
    (0..enc.input_ids.len())
        .map(|i| {
            let id = enc.input_ids[i];
            if i == 0 && id == tok.cls_id {
                Kind::Cls
            } else if id == tok.sep_id {
                Kind::Sep
            } else if enc.special[i] == 1 || specials.contains(&id) {
                Kind::Special
            } else if PUNCTUATION.contains(&tok.readable(&enc.tokens[i]).trim()) {
                Kind::Punct
            } else {
                Kind::Word
            }
        })
        .collect()
}

impl HeadSurvey {
    /// A survey of `text`'s non-empty lines, keeping `examples` sentences per head.
    pub fn new(bert: &Bert, text: &str, examples: usize) -> Result<Self> {
        let lines: Vec<(usize, String)> =
            text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i, l.to_string())).collect();
        if lines.is_empty() {
            return Err(BertError::Input("the text has no sentences: give one per line".into()));
        }
        let (l, nh) = (bert.cfg.num_hidden_layers, bert.cfg.num_attention_heads);
        Ok(HeadSurvey { lines, index: None, next: 0, survey: Survey::new(l, nh, examples), truncated: 0 })
    }

    /// Also fill a corpus search index from the same forwards (`take_index` once finished).
    pub fn with_index(mut self, bert: &Bert) -> Self {
        let c = &bert.cfg;
        self.index = Some(CorpusIndex::new(c.num_hidden_layers, c.num_attention_heads, c.hidden_size));
        self
    }

    /// The index, once (None without `with_index`).
    pub fn take_index(&mut self) -> Option<CorpusIndex> {
        self.index.take()
    }

    /// Sentences surveyed and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.lines.len())
    }

    pub fn finished(&self) -> bool {
        self.next == self.lines.len()
    }

    /// Surveys up to `n` more sentences on `backend`; returns how many it did.
    pub async fn run(&mut self, backend: &mut Backend, bert: &Bert, key: WeightsKey, n: usize) -> Result<usize> {
        let mut done = 0;
        while done < n && !self.finished() {
            let (line, text) = &self.lines[self.next];
            let (first, pair) = match text.split_once('\t') {
                Some((a, b)) => (a, Some(b)),
                None => (text.as_str(), None),
            };
            let enc = bert.tokenizer.encode(first, pair).map_err(|e| BertError::Input(format!("line {}: {e}", line + 1)))?;
            let trace = backend.forward(bert, key, &batch_of(&enc), &ForwardOptions::default()).await?;
            let t = enc.input_ids.len();
            // (NH, T, T) of each layer, contiguous: head h's (T*T) is one slice
            let probs: Vec<_> = trace.layers.iter().map(|l| l.attn.probs.index_axis(Axis(0), 0).to_owned()).collect();
            let heads = bert.cfg.num_attention_heads;
            let flat: Vec<&[f32]> = probs.iter().map(|p| p.as_slice().expect("contiguous")).collect();
            self.survey.add(*line, &kinds(bert, &enc), |l, h| {
                debug_assert!(h < heads);
                &flat[l][h * t * t..(h + 1) * t * t]
            });
            if let Some(index) = &mut self.index {
                let pieces = enc.tokens.iter().map(|p| bert.tokenizer.readable(p)).collect();
                index.add(*line, &enc, pieces, &trace);
            }
            self.truncated += usize::from(enc.truncated);
            self.next += 1;
            done += 1;
        }
        Ok(done)
    }

    /// The statistics of the sentences surveyed so far.
    pub fn report(&self) -> SurveyReport {
        let mut heads = self.survey.stats();
        for e in heads.iter_mut().flat_map(|h| h.examples.iter_mut()) {
            if let Ok(i) = self.lines.binary_search_by_key(&e.line, |(line, _)| *line) {
                e.text = self.lines[i].1.clone();
            }
        }
        SurveyReport { sentences: self.survey.sentences(), queries: self.survey.queries(), truncated: self.truncated, heads }
    }
}
