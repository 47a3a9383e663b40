//! The anatomy tab's two tables: the seed's comparison of layer types (Vaswani et al. 2017,
//! "Attention Is All You Need", Table 1) with the live n and d filled in, and BERT beside its
//! two best-known relatives (Sanh et al. 2019, DistilBERT; Liu et al. 2019, RoBERTa) and the
//! loaded model, each difference with the reason the papers give.

use super::anatomy::{anatomy, base_heads, Preset};
use crate::config::{BertConfig, Family, Heads, PositionEncoding};
use serde::Serialize;

/// The convolution kernel width of the table when the page does not pick one.
pub const DEFAULT_KERNEL: usize = 3;

/// One row of Table 1: per-layer cost, how many steps must run one after another, and the longest
/// path a signal takes between two positions.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ComplexityRow {
    /// "self-attention", "recurrent", "convolutional (k = 3)".
    pub layer: String,
    /// The three columns as the paper writes them.
    pub complexity: String,
    pub sequential: String,
    pub path: String,
    /// The same with the live n, d, k filled in (constant factors dropped, as in the paper).
    pub complexity_value: u64,
    pub sequential_value: u64,
    /// f32: exact through the worker's JSON.
    pub path_value: f32,
}

/// Table 1 for a sentence of `n` tokens, width `d` and kernel `k` (at least 2; 1 is taken as 2).
/// The convolution's path is the paper's O(log_k n), for dilated convolutions (contiguous kernels
/// need O(n / k) layers).
pub fn complexity_table(n: usize, d: usize, k: usize) -> Vec<ComplexityRow> {
    let (n64, d64, k) = (n as u64, d as u64, k.max(2));
    let row = |layer: String, c: &str, s: &str, p: &str, cv: u64, sv: u64, pv: f64| ComplexityRow {
        layer,
        complexity: c.into(),
        sequential: s.into(),
        path: p.into(),
        complexity_value: cv,
        sequential_value: sv,
        path_value: pv as f32,
    };
    vec![
        row("self-attention".into(), "O(n^2 d)", "O(1)", "O(1)", n64 * n64 * d64, 1, 1.0),
        row("recurrent".into(), "O(n d^2)", "O(n)", "O(n)", n64 * d64 * d64, n64, n as f64),
        row(
            format!("convolutional (k = {k})"),
            "O(k n d^2)",
            "O(1)",
            "O(log_k n)",
            k as u64 * n64 * d64 * d64,
            1,
            (n.max(1) as f64).ln() / (k as f64).ln(),
        ),
    ]
}

/// One aspect of the models, a cell per column, and why the families differ there.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct FamilyRow {
    pub aspect: String,
    /// One per `FamilyTable::columns`.
    pub cells: Vec<String>,
    /// Why they differ, in one sentence.
    pub why: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct FamilyTable {
    /// BERT-base, DistilBERT-base, RoBERTa-base, then the loaded model ("loaded (RoBERTa)").
    pub columns: Vec<String>,
    pub rows: Vec<FamilyRow>,
}

/// The rows: aspect and why, in the order `column` fills its cells.
const ROWS: [(&str, &str); 9] = [
    ("embeddings", "The tables are V x H whatever the depth: DistilBERT keeps BERT's, and RoBERTa's 50K-token vocabulary adds about 15 million parameters."),
    ("layers x hidden x heads", "DistilBERT halves the depth, not the width, because its authors found the number of layers matters more for speed than the hidden size, and taking every other layer of BERT-base gives the student a ready initialisation."),
    ("positions", "RoBERTa numbers positions from pad_token_id + 1 (pads keep pad_token_id), a fairseq convention, so its table needs two extra rows to hold 512 positions."),
    ("segment embeddings", "Segments told NSP's two sentences apart: DistilBERT drops the table, and RoBERTa, trained without NSP, keeps a single row every token shares."),
    ("tokenizer", "Byte-level BPE (from GPT-2) builds every string from 256 byte symbols, so no text is ever [UNK] and no language-specific pre-processing is needed."),
    ("pre-training objective", "RoBERTa found that dropping NSP matched or improved downstream results and that a fresh mask each time does at least as well as fixed ones; DistilBERT's student learns from the teacher's whole output distribution, which says more than the one true word."),
    ("training data", "RoBERTa showed BERT was undertrained: ten times the text, bigger batches and longer training alone gave large gains."),
    ("pooler / NSP", "The pooler was trained only through NSP, so without NSP there is no trained pooler: DistilBERT leaves it out and RoBERTa's classifier brings its own dense + tanh."),
    ("parameters", "DistilBERT is about 40% smaller and 60% faster than BERT-base and keeps about 97% of its GLUE score; RoBERTa's extra 15 million parameters are all in the bigger vocabulary."),
];

/// `n` with a comma every three digits: 109,482,240.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// A column's cells, in `ROWS` order: numbers from `cfg`, facts from its family's paper; for the
/// loaded model (`heads` Some) what the file holds instead of how the published model was trained.
fn column(cfg: &BertConfig, heads: Option<Heads>) -> Vec<String> {
    let f = cfg.family;
    let (v, h, l, p, s) = (cfg.vocab_size, cfg.hidden_size, cfg.num_hidden_layers, cfg.max_position_embeddings, cfg.type_vocab_size);
    let base = anatomy(cfg, base_heads(f));
    let class = f.base_architecture(false, false);
    let preset = heads.is_none();
    let mut layers = format!("{l} x {h} x {} (FFN {})", cfg.num_attention_heads, thousands(cfg.intermediate_size));
    if preset && f == Family::DistilBert {
        layers += "; initialised from every other layer of BERT-base";
    }
    let start = f.positions_start(cfg.pad_token_id());
    let positions = match (cfg.position_encoding, start) {
        (PositionEncoding::Sinusoidal, _) => format!("sinusoidal (fixed), up to {p}"),
        (PositionEncoding::Learned, 0) => format!("learned, {p} rows"),
        (PositionEncoding::Learned, _) => format!("learned, {p} rows; ids start at pad + 1 = {start}, so {} usable", cfg.max_tokens()),
    };
    let segments = match s {
        0 => "none".to_string(),
        1 => "1 row, shared by every token".to_string(),
        2 => "2 rows: sentence A and sentence B".to_string(),
        n => format!("{n} rows"),
    };
    let tokenizer = match f {
        Family::Roberta => format!("byte-level BPE, {} tokens", thousands(v)),
        _ => format!("WordPiece, {} tokens", thousands(v)),
    };
    let (objective, data, pooler) = match (heads, f) {
        (Some(hd), _) => {
            let task = hd.task.map_or("none".to_string(), |t| format!("{} ({} outputs)", t.kind.prefix(), t.outputs));
            (
                format!("not recorded; heads in the file: MLM {}, NSP {}, task {task}", yes(hd.mlm), yes(hd.nsp)),
                "not recorded in the file".to_string(),
                format!("pooler: {}, NSP head: {}", yes(hd.pooler), yes(hd.nsp)),
            )
        }
        (None, Family::Bert) => (
            "masked LM (15% of tokens, masks fixed in preprocessing) + next sentence prediction".into(),
            "BooksCorpus + English Wikipedia (16 GB); 1M steps of 256 sequences".into(),
            "pooler (dense + tanh on [CLS]), trained by the NSP head".into(),
        ),
        (None, Family::DistilBert) => (
            "distillation from BERT-base: soft-target loss on the teacher's outputs + masked LM + cosine loss between hidden states; dynamic masking, no NSP".into(),
            "BERT's corpus (BooksCorpus + English Wikipedia); batches of up to 4K examples".into(),
            "neither (a classifier adds pre_classifier + ReLU on [CLS])".into(),
        ),
        (None, Family::Roberta) => (
            "masked LM with dynamic masking (a new mask each time a sequence is seen); no NSP".into(),
            "160 GB (BooksCorpus, Wikipedia, CC-News, OpenWebText, Stories); 500K steps of 8K sequences".into(),
            "no NSP head; its MLM and classifier classes build no pooler (the classifier brings its own dense + tanh)".into(),
        ),
    };
    let mut params = format!("{} ({class})", thousands(base.total));
    match heads {
        Some(hd) => params += &format!("; {} with the file's heads", thousands(anatomy(cfg, hd).total)),
        None if f == Family::DistilBert => {
            let bert = Preset::BertBase.params() as f64;
            params += &format!(": {:.0}% fewer than BERT-base", 100.0 * (1.0 - base.total as f64 / bert));
        }
        None => {}
    }
    let embeddings = format!("{} parameters ({:.0}% of the base model)", thousands(base.embeddings), 100.0 * base.embeddings_share);
    vec![embeddings, layers, positions, segments, tokenizer, objective, data, pooler, params]
}

/// BERT-base, DistilBERT-base and RoBERTa-base (the presets) beside the loaded model with `heads`.
pub fn family_table(loaded: &BertConfig, heads: Heads) -> FamilyTable {
    let presets = [Preset::BertBase, Preset::DistilBertBase, Preset::RobertaBase];
    let mut cols: Vec<Vec<String>> = presets.iter().map(|p| column(&p.config(), None)).collect();
    cols.push(column(loaded, Some(heads)));
    let mut columns: Vec<String> = ["BERT-base", "DistilBERT-base", "RoBERTa-base"].map(String::from).to_vec();
    columns.push(format!("loaded ({})", loaded.family.display()));
    let rows = ROWS
        .iter()
        .enumerate()
        .map(|(r, (aspect, why))| FamilyRow {
            aspect: aspect.to_string(),
            cells: cols.iter().map(|c| c[r].clone()).collect(),
            why: why.to_string(),
        })
        .collect();
    FamilyTable { columns, rows }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TaskKind;

    #[test]
    fn complexity_numbers_for_a_known_sentence() {
        let t = complexity_table(10, 768, DEFAULT_KERNEL);
        let vals: Vec<_> = t.iter().map(|r| (r.complexity_value, r.sequential_value)).collect();
        assert_eq!(vals, [(76_800, 1), (5_898_240, 10), (17_694_720, 1)]);
        assert_eq!(t.iter().map(|r| r.path_value).collect::<Vec<_>>()[..2], [1.0, 10.0]);
        assert!((t[2].path_value - 2.095_903_3).abs() < 1e-6, "{}", t[2].path_value);
        assert_eq!((t[0].complexity.as_str(), t[1].sequential.as_str(), t[2].path.as_str()), ("O(n^2 d)", "O(n)", "O(log_k n)"));
        assert_eq!(t[2].layer, "convolutional (k = 3)");
        // Self-attention is cheaper than recurrence exactly while n < d.
        let at = |n| complexity_table(n, 64, 3);
        assert!(at(63)[0].complexity_value < at(63)[1].complexity_value && at(65)[0].complexity_value > at(65)[1].complexity_value);
    }

    #[test]
    fn family_table_fills_every_cell_from_the_presets_and_the_loaded_model() {
        let heads = Heads::for_task(TaskKind::SequenceClassification, 3);
        let t = family_table(&Preset::RobertaBase.config(), heads);
        assert_eq!(t.columns, ["BERT-base", "DistilBERT-base", "RoBERTa-base", "loaded (RoBERTa)"]);
        assert_eq!(t.rows.len(), ROWS.len());
        assert!(t.rows.iter().all(|r| r.cells.len() == 4 && r.cells.iter().all(|c| !c.is_empty()) && r.why.ends_with('.')));
        let row = |a: &str| &t.rows.iter().find(|r| r.aspect == a).unwrap().cells;
        let params = row("parameters");
        assert!(params[0].starts_with("109,482,240 (BertModel)"), "{}", params[0]);
        assert!(params[1].starts_with("66,362,880 (DistilBertModel): 39% fewer"), "{}", params[1]);
        assert!(params[2].starts_with("124,645,632 (RobertaModel)"), "{}", params[2]);
        assert_eq!(params[3], format!("124,645,632 (RobertaModel); {} with the file's heads", thousands(124_645_632 + 3 * 768 + 3)));
        assert_eq!(row("segment embeddings")[1], "none");
        assert_eq!(
            row("tokenizer")[..],
            ["WordPiece, 30,522 tokens", "WordPiece, 30,522 tokens", "byte-level BPE, 50,265 tokens", "byte-level BPE, 50,265 tokens"]
        );
        assert_eq!(row("positions")[2], "learned, 514 rows; ids start at pad + 1 = 2, so 512 usable");
        assert_eq!(row("positions")[3], row("positions")[2]);
        assert_eq!(row("layers x hidden x heads")[0], "12 x 768 x 12 (FFN 3,072)");
        assert!(row("pooler / NSP")[3] == "pooler: yes, NSP head: no");
        assert!(row("embeddings")[2].starts_with("39,000,576 parameters (31%"), "{}", row("embeddings")[2]);
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!([0, 999, 1000, 66_362_880].map(thousands), ["0", "999", "1,000", "66,362,880"]);
    }
}
