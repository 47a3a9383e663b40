//! The Translate tab's views (`bertscope_view::explain::translate`), and the description of a
//! trained encoder-decoder.

pub use bertscope_view::explain::translate::*;

/// The page's description of an encoder-decoder.
pub fn seq2seq_info(m: &crate::seq2seq::Seq2Seq) -> Seq2SeqInfo {
    let d = &m.cfg.decoder;
    Seq2SeqInfo {
        layers: d.num_hidden_layers,
        heads: d.num_attention_heads,
        hidden: d.hidden_size,
        vocab: d.vocab_size,
        max_len: d.max_tokens(),
        params: m.params.num_params(),
    }
}
