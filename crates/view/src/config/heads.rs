//! Which optional parts a model has: pooler, masked-LM and NSP heads, a fine-tuning head.

use serde::{Deserialize, Serialize};

/// Which optional parts a model has (decided by the tensors in its file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Heads {
    pub pooler: bool,
    pub mlm: bool,
    pub nsp: bool,
    /// A fine-tuning head (`classifier` or `qa_outputs`).
    pub task: Option<TaskHead>,
}

impl Heads {
    pub const BASE_MODEL: Heads = Heads { pooler: true, mlm: false, nsp: false, task: None };
    pub const MASKED_LM: Heads = Heads { pooler: false, mlm: true, nsp: false, task: None };
    pub const PRETRAINING: Heads = Heads { pooler: true, mlm: true, nsp: true, task: None };

    /// A fine-tuned model as HF builds it: a sequence classifier on the pooled [CLS] (so with the
    /// pooler); a token tagger or a span finder on every token (`add_pooling_layer=False`).
    pub fn for_task(kind: TaskKind, outputs: usize) -> Heads {
        let pooler = kind == TaskKind::SequenceClassification;
        Heads { pooler, mlm: false, nsp: false, task: Some(TaskHead { kind, outputs }) }
    }
}

/// The fine-tuning heads of `modeling_bert.py`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskKind {
    /// `BertForSequenceClassification`: pooler -> dropout -> `classifier` (num_labels, H).
    SequenceClassification,
    /// `BertForTokenClassification`: dropout -> `classifier` on every token.
    TokenClassification,
    /// `BertForQuestionAnswering`: `qa_outputs` (2, H) on every token: start and end logits.
    QuestionAnswering,
}

impl TaskKind {
    pub const ALL: [TaskKind; 3] = [TaskKind::SequenceClassification, TaskKind::TokenClassification, TaskKind::QuestionAnswering];

    /// The class name in `config.json`'s `architectures`.
    pub fn architecture(self) -> &'static str {
        match self {
            TaskKind::SequenceClassification => "BertForSequenceClassification",
            TaskKind::TokenClassification => "BertForTokenClassification",
            TaskKind::QuestionAnswering => "BertForQuestionAnswering",
        }
    }

    /// The head's tensors: `{prefix}.weight`, `{prefix}.bias`.
    pub fn prefix(self) -> &'static str {
        match self {
            TaskKind::QuestionAnswering => "qa_outputs",
            _ => "classifier",
        }
    }
}

/// A task head and its number of outputs (labels; 2 for question answering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TaskHead {
    pub kind: TaskKind,
    pub outputs: usize,
}
