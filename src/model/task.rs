//! The fine-tuning heads on the CPU path, forward and backward, as `modeling_bert.py` computes them:
//! `BertForSequenceClassification` (pooled [CLS] -> dropout -> `classifier`; cross-entropy, or MSE
//! when it has one output), `BertForTokenClassification` (every token -> dropout -> `classifier`;
//! cross-entropy, -100 ignored) and `BertForQuestionAnswering` (every token -> `qa_outputs`, start
//! and end logits; the mean of their cross-entropies over positions, positions clamped to [0, T] and
//! T ignored). Shapes: B sequences of T tokens, N = B*T rows, H hidden, L outputs.

use super::params::{Linear, TaskParams};
use super::trace::PoolTrace;
pub use super::trace::TaskTrace;
use crate::config::{BertConfig, TaskKind};
use crate::cpu::activation::pooler_act_backward;
use crate::cpu::cross_entropy::{cross_entropy_forward_backward, IGNORE};
use crate::cpu::dropout::dropout_mask;
use crate::cpu::linear::{linear_backward, linear_forward};
use crate::cpu::mse::mse_forward_backward;
use crate::cpu::real::Real;
use crate::error::{BertError, Result};
use crate::rng::Rng;
use ndarray::{Array2, ArrayView2, ArrayViewMut2};

/// The labels of a task head (`labels`, or `start_positions` / `end_positions`, as HF's forward).
#[derive(Clone, Debug, PartialEq)]
pub enum TaskLabels {
    /// (B) class ids; -100 ignored.
    Classes(Vec<i64>),
    /// (B) targets of a one-output (regression) head: MSE.
    Scores(Vec<f64>),
    /// (B*T) a tag id per token; -100 ignored.
    Tags(Vec<i64>),
    /// (B) start and end token positions of the answer.
    Spans { start: Vec<i64>, end: Vec<i64> },
}

impl TaskLabels {
    /// Checks the labels against the head and the batch; the message names what is wrong.
    pub fn validate(&self, kind: TaskKind, outputs: usize, b: usize, t: usize) -> Result<()> {
        let bad = |m: String| Err(BertError::Input(m));
        let class_ok = |v: &[i64], what: &str| -> Result<()> {
            match v.iter().find(|&&c| c != IGNORE && (c < 0 || c as usize >= outputs)) {
                Some(c) => bad(format!("{what} {c} is neither -100 nor a label id below num_labels {outputs}")),
                None => Ok(()),
            }
        };
        match (self, kind) {
            (TaskLabels::Classes(v), TaskKind::SequenceClassification) if outputs > 1 => {
                if v.len() != b {
                    return bad(format!("labels must hold one class per sequence (B = {b}), got {}", v.len()));
                }
                class_ok(v, "label")
            }
            (TaskLabels::Scores(v), TaskKind::SequenceClassification) if outputs == 1 => {
                if v.len() != b {
                    return bad(format!("labels must hold one score per sequence (B = {b}), got {}", v.len()));
                }
                match v.iter().find(|x| !x.is_finite()) {
                    Some(x) => bad(format!("label {x} is not a finite number")),
                    None => Ok(()),
                }
            }
            (TaskLabels::Tags(v), TaskKind::TokenClassification) => {
                if v.len() != b * t {
                    return bad(format!("labels must hold a tag per token (B x T = {b} x {t}), got {}", v.len()));
                }
                class_ok(v, "tag")
            }
            (TaskLabels::Spans { start, end }, TaskKind::QuestionAnswering) => {
                if start.len() != b || end.len() != b {
                    return bad(format!("start_positions and end_positions must hold one position per sequence (B = {b})"));
                }
                Ok(())
            }
            (l, k) => bad(format!("{} do not fit a {} head with {outputs} outputs", l.describe(), k.architecture())),
        }
    }

    fn describe(&self) -> &'static str {
        match self {
            TaskLabels::Classes(_) => "class labels (one per sequence)",
            TaskLabels::Scores(_) => "scores (one float per sequence)",
            TaskLabels::Tags(_) => "tags (one per token)",
            TaskLabels::Spans { .. } => "answer spans",
        }
    }
}

fn dropout_of<T: Real>(x: &mut Array2<T>, p: f64, rng: &mut Option<Rng>) -> Option<Array2<T>> {
    let rng = rng.as_mut().filter(|_| p > 0.0)?;
    let m: Array2<T> = dropout_mask(x.raw_dim(), p, rng);
    *x *= &m;
    Some(m)
}

/// The head's dropout: HF's `classifier_dropout`, else `hidden_dropout_prob`; none before
/// `qa_outputs`.
pub fn head_dropout(cfg: &BertConfig, kind: TaskKind) -> f64 {
    match kind {
        TaskKind::QuestionAnswering => 0.0,
        _ => cfg.extra.get("classifier_dropout").and_then(|v| v.as_f64()).unwrap_or(cfg.hidden_dropout_prob),
    }
}

/// The head's logits from the last hidden state (N, H) and, for a sequence classifier, the pooler.
pub fn task_forward<T: Real>(
    head: &TaskParams<T>,
    cfg: &BertConfig,
    last: ArrayView2<T>,
    pool: Option<&PoolTrace<T>>,
    rng: &mut Option<Rng>,
) -> Result<TaskTrace<T>> {
    let (mut input, p) = match head.kind {
        TaskKind::SequenceClassification => {
            let pool = pool.ok_or_else(|| BertError::Config("a sequence classifier needs the pooler (bert.pooler.dense)".into()))?;
            (pool.pooled.clone(), head_dropout(cfg, head.kind))
        }
        TaskKind::TokenClassification | TaskKind::QuestionAnswering => (last.to_owned(), head_dropout(cfg, head.kind)),
    };
    let drop = dropout_of(&mut input, p, rng);
    let logits = linear_forward(input.view(), head.linear.weight.view(), Some(head.linear.bias.view()));
    Ok(TaskTrace { kind: head.kind, input, drop, logits })
}

/// The start (column 0) or end (column 1) logits of every sequence as (B, T).
pub fn span_logits<T: Real>(logits: ArrayView2<T>, b: usize, t: usize, col: usize) -> Array2<T> {
    Array2::from_shape_fn((b, t), |(bi, j)| logits[[bi * t + j, col]])
}

/// The loss and d(logits) of the head (the same shape as its logits).
pub fn task_loss<T: Real>(tt: &TaskTrace<T>, labels: &TaskLabels, b: usize, t: usize) -> (T, Array2<T>) {
    match labels {
        TaskLabels::Classes(c) | TaskLabels::Tags(c) => cross_entropy_forward_backward(tt.logits.view(), c),
        TaskLabels::Scores(y) => mse_forward_backward(tt.logits.view(), y),
        TaskLabels::Spans { start, end } => {
            // positions clamped to [0, T]; T (outside the sequence) is ignored
            let clamp =
                |v: &[i64]| -> Vec<i64> { v.iter().map(|&p| if p.clamp(0, t as i64) == t as i64 { IGNORE } else { p.max(0) }).collect() };
            let mut d = Array2::zeros(tt.logits.dim());
            let mut loss = T::zero();
            let half = T::c(0.5);
            for (col, pos) in [(0, clamp(start)), (1, clamp(end))] {
                let (l, dl) = cross_entropy_forward_backward(span_logits(tt.logits.view(), b, t, col).view(), &pos);
                loss += half * l;
                for bi in 0..b {
                    for j in 0..t {
                        d[[bi * t + j, col]] = half * dl[[bi, j]];
                    }
                }
            }
            (loss, d)
        }
    }
}

/// Backward of the head from d(logits): the head's gradients (+=), and d(last hidden) (N, H) added
/// into `dx`: at the [CLS] rows through the pooler for a sequence classifier, at every row otherwise.
#[allow(clippy::too_many_arguments)]
pub fn task_backward<T: Real>(
    head: &TaskParams<T>,
    g: &mut TaskParams<T>,
    tt: &TaskTrace<T>,
    dlogits: ArrayView2<T>,
    pooler: Option<(&Linear<T>, &mut Linear<T>, &PoolTrace<T>)>,
    last: ArrayView2<T>,
    t: usize,
    mut dx: ArrayViewMut2<T>,
) -> Result<()> {
    let mut din =
        linear_backward(dlogits, tt.input.view(), head.linear.weight.view(), g.linear.weight.view_mut(), Some(g.linear.bias.view_mut()));
    if let Some(m) = &tt.drop {
        din *= m;
    }
    match tt.kind {
        TaskKind::SequenceClassification => {
            let (pl, gp, pt) = pooler.ok_or_else(|| BertError::Config("a sequence classifier needs the pooler".into()))?;
            let dpre = pooler_act_backward(pt.act, din.view(), pt.pooled.view());
            let b = pt.pooled.nrows();
            let h = last.ncols();
            let cls = Array2::from_shape_fn((b, h), |(bi, j)| last[[bi * t, j]]);
            let dcls = linear_backward(dpre.view(), cls.view(), pl.weight.view(), gp.weight.view_mut(), Some(gp.bias.view_mut()));
            for bi in 0..b {
                let mut row = dx.row_mut(bi * t);
                row += &dcls.row(bi);
            }
        }
        TaskKind::TokenClassification | TaskKind::QuestionAnswering => dx += &din,
    }
    Ok(())
}

fn argmax<T: Real>(row: impl Iterator<Item = T>) -> usize {
    row.enumerate()
        .fold((0, None::<T>), |(bi, bv), (i, v)| match bv {
            Some(b) if b >= v => (bi, Some(b)),
            _ => (i, Some(v)),
        })
        .0
}

/// How many labelled items the head gets right, of how many: classes and tags by arg-max; a span
/// when both its start and its end are the arg-max (ignored positions as in the loss); a
/// regression head has no accuracy (0 of 0).
pub fn task_accuracy<T: Real>(tt: &TaskTrace<T>, labels: &TaskLabels, b: usize, t: usize) -> (usize, usize) {
    let (mut hits, mut n) = (0, 0);
    match labels {
        TaskLabels::Classes(c) | TaskLabels::Tags(c) => {
            for (r, &want) in c.iter().enumerate().filter(|(_, &w)| w != IGNORE) {
                hits += (argmax(tt.logits.row(r).iter().copied()) as i64 == want) as usize;
                n += 1;
            }
        }
        TaskLabels::Scores(_) => {}
        TaskLabels::Spans { start, end } => {
            for bi in 0..b {
                let (s, e) = (start[bi].max(0), end[bi].max(0));
                if s >= t as i64 || e >= t as i64 {
                    continue;
                }
                let col = |c: usize| (0..t).map(move |j| tt.logits[[bi * t + j, c]]);
                hits += (argmax(col(0)) as i64 == s && argmax(col(1)) as i64 == e) as usize;
                n += 1;
            }
        }
    }
    (hits, n)
}
