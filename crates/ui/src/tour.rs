//! The guided tour: thirteen steps from tokens to a trained and fine-tuned model and the decoder beside it, following the seed narrative (why
//! attention, Q/K/V, multi-head, positions, BERT's inputs, MLM 80/10/10, NSP), each pointing at the
//! live view it talks about. Pure data and a cursor (tested natively); `components/tour.rs` shows it.

/// The tab a step needs (and the tab on screen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Explain,
    Train,
    Tune,
    Translate,
}

impl Tab {
    /// The tab a link opens: `?view=train`, `tune` or `translate` (anything else: the explainer).
    pub fn from_query(search: &str) -> Self {
        let view = search.trim_start_matches('?').split('&').find_map(|kv| kv.strip_prefix("view="));
        match view {
            Some("train") => Tab::Train,
            Some("tune") => Tab::Tune,
            Some("translate") => Tab::Translate,
            _ => Tab::Explain,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TourStep {
    pub title: &'static str,
    pub body: &'static str,
    pub tab: Tab,
    /// CSS selector of the view the step points at.
    pub target: &'static str,
}

pub const STEPS: [TourStep; 13] = [
    TourStep {
        title: "1. Text becomes tokens",
        body: "BERT never sees letters: WordPiece cuts the text into pieces of a fixed vocabulary (## marks a piece that continues a word) and each piece becomes an id. [CLS] opens the input, [SEP] closes each sentence.",
        tab: Tab::Explain,
        target: "section:has([data-testid=tokens])",
    },
    TourStep {
        title: "2. BERT's inputs: token + segment + position",
        body: "Each id looks up a vector (the token embedding). Added to it: a segment embedding (sentence A or B) and a position embedding, because attention by itself ignores word order. This section shows the three, their sum and its LayerNorm, one row per token; hover a cell for its numbers.",
        tab: Tab::Explain,
        target: "section:has([data-testid=embeddings])",
    },
    TourStep {
        title: "3. Why attention",
        body: "A word's meaning depends on its neighbours (a river bank, a bank account). Attention rebuilds every token's vector as a weighted mix of all the tokens' vectors, with weights the model computes from the text itself.",
        tab: Tab::Explain,
        target: "section:has([data-testid=attention-grid])",
    },
    TourStep {
        title: "4. Queries, keys, values",
        body: "Each token's vector is projected three ways: a query (what am I looking for), a key (what do I offer) and a value (what I pass on). Score = q·k / √d_k, softmax over the keys (each row of a heatmap sums to 1), then the weighted sum of the values. Click a heatmap to enlarge it and hover a cell.",
        tab: Tab::Explain,
        target: "section:has([data-testid=attention-grid])",
    },
    TourStep {
        title: "5. Many heads",
        body: "Each layer runs several heads side by side, each with its own Q, K, V, so each can look for something different; their outputs are concatenated and mixed by W_O. Switch heads off here and watch the predictions change.",
        tab: Tab::Explain,
        target: "section:has([data-testid=head-toggle])",
    },
    TourStep {
        title: "6. What heads learn",
        body: "Over many sentences, heads take on jobs: some look at the previous or the next word, many park on [CLS] or [SEP] when they have nothing to add. Open the head map and press Survey to see every head's job; then ask which head links \u{201c}he\u{201d} to the noun it means, as in \u{201c}shivas was hit by a bus because he crossed the street\u{201d}.",
        tab: Tab::Explain,
        target: "section:has([data-testid=fold-head-map])",
    },
    TourStep {
        title: "7. Guessing the hidden word",
        body: "On top of the last layer, the masked-LM head turns the vector at each [MASK] into a probability for every word of the vocabulary, reading the words on both sides. Click any token above to hide it.",
        tab: Tab::Explain,
        target: "section:has([data-testid=predictions])",
    },
    TourStep {
        title: "8. Training: mask 15%, then 80 / 10 / 10",
        body: "BERT learns by filling gaps: 15% of the tokens are chosen; of those 80% become [MASK], 10% a random word and 10% stay, so the model cannot trust any input blindly. Only the chosen positions carry loss. Press Start above, then look at the batch here.",
        tab: Tab::Train,
        target: "section:has([data-testid=masking-view])",
    },
    TourStep {
        title: "9. Next-sentence prediction",
        body: "Pre-training also gives pairs: half the time sentence B really follows A (IsNext), half the time it comes from another document (NotNext). The [CLS] vector learns to tell them apart.",
        tab: Tab::Train,
        target: "section:has([data-testid=masking-view])",
    },
    TourStep {
        title: "10. Watch it learn",
        body: "The loss falls as guesses improve; the held-out loss (text the model never trains on) tells learning from memorising. In the filmstrip, drag the sliders: heads that start uniform begin to specialise.",
        tab: Tab::Train,
        target: "section:has([data-testid=filmstrip])",
    },
    TourStep {
        title: "11. Your model",
        body: "Save the trained model (config.json, model.safetensors, tokenizer.json: the Hugging Face layout) or tick \"use the trained model\" and go back to the first tab: every view now shows your BERT, with the loaded model's guesses beside it.",
        tab: Tab::Train,
        target: ".train-panel .controls.after",
    },
    TourStep {
        title: "12. Fine-tune it for a task",
        body: "BERT's second half: keep the pre-trained encoder, add a small head (a classifier on [CLS], a tag per token, or a start and an end vector for an answer) and train a little on labelled examples. Press Fine-tune; tick the comparison to see how far random weights get in the same steps.",
        tab: Tab::Tune,
        target: "section:has([data-testid=finetune-start])",
    },
    TourStep {
        title: "13. The other half: a decoder",
        body: "BERT is only the Transformer's encoder: it cannot write. Add a decoder that sees only its own earlier tokens (the causal mask) and the whole source (cross-attention), and the model can translate one token at a time. Train one here in seconds, then press Step to watch it write.",
        tab: Tab::Translate,
        target: "section:has([data-testid=translate-start])",
    },
];

/// Where the tour is: None = closed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tour {
    pub at: Option<usize>,
}

/// What a key does to the tour.
pub fn on_key(t: Tour, key: &str) -> Tour {
    let Some(i) = t.at else { return t };
    match key {
        "ArrowRight" | "Enter" | "PageDown" => Tour { at: Some((i + 1).min(STEPS.len() - 1)) },
        "ArrowLeft" | "PageUp" => Tour { at: Some(i.saturating_sub(1)) },
        "Home" => Tour { at: Some(0) },
        "End" => Tour { at: Some(STEPS.len() - 1) },
        "Escape" => Tour { at: None },
        _ => t,
    }
}

impl Tour {
    pub fn step(&self) -> Option<&'static TourStep> {
        self.at.map(|i| &STEPS[i.min(STEPS.len() - 1)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_move_within_the_steps_and_escape_closes() {
        let mut t = Tour { at: Some(0) };
        t = on_key(t, "ArrowLeft");
        assert_eq!(t.at, Some(0), "no step before the first");
        for _ in 0..20 {
            t = on_key(t, "ArrowRight");
        }
        assert_eq!(t.at, Some(STEPS.len() - 1), "no step after the last");
        assert_eq!(on_key(t, "Home").at, Some(0));
        assert_eq!(on_key(t, "x"), t);
        assert_eq!(on_key(t, "Escape").at, None);
        assert_eq!(on_key(Tour::default(), "ArrowRight"), Tour::default(), "keys do nothing while closed");
        assert_eq!(Tour { at: Some(7) }.step().unwrap().tab, Tab::Train);
        assert!(Tour { at: Some(5) }.step().unwrap().target.contains("fold-head-map"), "step 6: the head map");
    }

    #[test]
    fn a_link_opens_its_tab() {
        assert_eq!(Tab::from_query("?view=translate"), Tab::Translate);
        assert_eq!(Tab::from_query("?text=a&view=tune"), Tab::Tune);
        assert_eq!(Tab::from_query("view=train"), Tab::Train);
        assert_eq!(Tab::from_query("?view=trains"), Tab::Explain);
        assert_eq!(Tab::from_query(""), Tab::Explain);
    }

    #[test]
    fn the_steps_follow_the_narrative_and_point_at_views() {
        assert_eq!(STEPS.len(), 13);
        let text: String = STEPS.iter().map(|s| format!("{} {}", s.title, s.body)).collect();
        for topic in ["attention", "query", "heads", "position", "segment", "80%", "IsNext", "loss", "[MASK]", "causal", "cross-attention"]
        {
            assert!(text.contains(topic), "the tour mentions {topic}");
        }
        assert!(STEPS.iter().all(|s| !s.target.is_empty() && s.body.len() > 80));
        let tabs: Vec<Tab> = STEPS.iter().map(|s| s.tab).collect();
        let mut order = tabs.clone();
        order.dedup();
        assert_eq!(order, [Tab::Explain, Tab::Train, Tab::Tune, Tab::Translate], "explain, train, fine-tune, then translate");
    }
}
