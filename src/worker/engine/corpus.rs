//! The views over the surveyed sentences (issue: exBERT's search, AttentionViz's scatter), both
//! answered from the index the survey's scan filled (`app::corpus_index`) and the explainer's
//! forward of the current sentence (no new forward when it is cached).

use super::{pick, Worker};
use crate::app::corpus_index::CorpusIndex;
use crate::app::corpus_views::Space;
use crate::app::qk_projection::QkProjection;
use crate::backend::WeightsKey;
use crate::bundle::Bert;
use crate::explain::corpus_search::{SearchRequest, SearchView};
use crate::explain::qk_scatter::{QkRequest, QkToken, QkView};
use crate::model::forward::ForwardTrace;
use crate::worker::fetch::now_ms;

type Answer<T> = std::result::Result<Box<T>, String>;

impl Worker {
    /// The loaded model, its index, and the explainer's forward of `req`'s sentence with its pieces.
    async fn with_index(
        &mut self,
        req: &crate::explain::Request,
    ) -> std::result::Result<(&Bert, &CorpusIndex, std::rc::Rc<ForwardTrace<f32>>, Vec<String>), String> {
        let Some((bert, key)) = pick(&self.bert, &self.train, &self.tune, self.using) else {
            return Err("The model is not loaded yet.".into());
        };
        let index = match &self.index {
            Some((k, index)) if *k == key => index,
            _ => return Err("Survey the sentences first (above): this view looks through what the survey read, for this model.".into()),
        };
        let key: WeightsKey = key;
        let answer = self.explainer.explain(None, bert, key, req, &now_ms).await.map_err(|e| e.to_string())?;
        let tokens = answer.snapshot.tokens.iter().map(|t| t.text.clone()).collect();
        let trace = self.explainer.last_trace().ok_or("no forward")?;
        Ok((bert, index, trace, tokens))
    }

    /// The surveyed sentences' tokens closest to one of the current sentence's (`app::corpus_index`).
    pub(super) async fn search(&mut self, sr: SearchRequest) -> Answer<SearchView> {
        let t0 = now_ms();
        let (bert, index, trace, tokens) = self.with_index(&sr.req).await?;
        let space = Space::of(bert, sr.layer, sr.head).map_err(|e| e.to_string())?;
        let Some(token) = tokens.get(sr.position).cloned() else {
            return Err(format!("position {} is outside the sentence's {} tokens", sr.position, tokens.len()));
        };
        let hd = bert.cfg.hidden_size / bert.cfg.num_attention_heads;
        let query: Vec<f32> = match space {
            Space::Hidden { layer } => trace.hidden[layer].row(sr.position).to_vec(),
            Space::Head { layer, head } => {
                trace.layers[layer - 1].context.row(sr.position).iter().skip(head * hd).take(hd).copied().collect()
            }
        };
        let matches = index.search(&query, space, sr.k.clamp(1, 100));
        let (same_word, common) = SearchView::summarise(&token, &matches);
        Ok(Box::new(SearchView {
            token,
            position: sr.position,
            layer: sr.layer,
            head: sr.head,
            matches,
            same_word,
            common,
            ms: now_ms() - t0,
        }))
    }

    /// One head's queries and keys of the surveyed sentences (from the index's hidden states) and
    /// of the current sentence (from its forward), in one projection.
    pub(super) async fn queries_and_keys(&mut self, qr: QkRequest) -> Answer<QkView> {
        let t0 = now_ms();
        let (bert, index, trace, pieces) = self.with_index(&qr.req).await?;
        let tokens = pieces.len();
        Space::of(bert, qr.layer, Some(qr.head)).map_err(|e| e.to_string())?;
        if index.len() < 2 {
            return Err("The survey read fewer than two tokens: nothing to project.".into());
        }
        let (qs, ks) = index.queries_and_keys(&bert.params, qr.layer, qr.head);
        let fit = QkProjection::fit(qs.view(), ks.view());
        let row = |a: &ndarray::Array2<f32>, i: usize| a.row(i).to_vec();
        let queries = (0..qs.nrows()).map(|i| fit.query(&row(&qs, i))).collect();
        let keys = (0..ks.nrows()).map(|i| fit.key(&row(&ks, i))).collect();
        let lt = &trace.layers[qr.layer - 1];
        if lt.q.nrows() != tokens || lt.attn.probs.dim().2 != tokens {
            return Err("the sentence's forward kept too few rows for this view".into());
        }
        let hd = bert.cfg.hidden_size / bert.cfg.num_attention_heads;
        let cols = qr.head * hd..(qr.head + 1) * hd;
        let sentence = pieces
            .into_iter()
            .enumerate()
            .map(|(i, text)| QkToken {
                text,
                query: fit.query(&lt.q.row(i).as_slice().expect("row")[cols.clone()]),
                key: fit.key(&lt.k.row(i).as_slice().expect("row")[cols.clone()]),
            })
            .collect();
        let probs = &lt.attn.probs;
        let attention = (0..tokens).map(|i| (0..tokens).map(|j| probs[[0, qr.head, i, j]]).collect()).collect();
        Ok(Box::new(QkView {
            layer: qr.layer,
            head: qr.head,
            explained: fit.explained,
            queries,
            keys,
            tokens: index.tokens().to_vec(),
            lines: index.lines().to_vec(),
            sentence,
            attention,
            ms: now_ms() - t0,
        }))
    }
}
