//! A task head's loss and backward on the GPU, as `model::task` on the CPU: the cross-entropy of
//! classes or tags on the head's logits (in place: logits -> dlogits); for question answering the
//! start and end logits are taken out of the (N, 2) logits as two (B, T) matrices by products with
//! [1, 0] and [0, 1], each gets its cross-entropy over positions, and the two halves go back into
//! (N, 2); then the head's linear backward, its dropout, and for a sequence classifier the pooler's.
//! A regression head's loss is the mean squared error (`mse` in cross_entropy.wgsl).

use super::forward::{GpuPoolTrace, GpuTaskTrace};
use super::kernels::cross_entropy::{cross_entropy, mse};
use super::kernels::elementwise::{act_backward, add_into, dropout};
use super::kernels::embedding::scatter_add;
use super::kernels::matmul::{linear_backward, matmul, Kernel, Operand, Shape};
use super::kernels::reduce::colsum;
use super::recorder::{ReadHandle, Readback, Recorder, View};
use super::slots::LinearSlots;
use crate::config::TaskKind;
use crate::cpu::cross_entropy::IGNORE;
use crate::error::{BertError, Result};
use crate::model::task::TaskLabels;

/// Where the head's loss statistics will be: one (rows, targets) per cross-entropy (two for spans).
pub struct TaskReads {
    parts: Vec<(ReadHandle, Vec<i64>)>,
    /// A regression head: its parts' stats are squared errors and it has no accuracy.
    regression: bool,
}

/// The head's loss (mean of its parts) and how many labelled items its arg-max gets right.
pub struct TaskLoss {
    pub loss: f32,
    pub hits: usize,
    pub labelled: usize,
}

impl TaskReads {
    /// Each part's mean cross-entropy over its labelled rows, averaged over the parts (start and
    /// end for spans); hits by arg-max: a class or tag per labelled row, a span when both of its
    /// ends are right (rows with an ignored end are not counted), as `model::task::task_accuracy`.
    pub fn loss(&self, rb: &Readback) -> TaskLoss {
        let parts = self.parts.len().max(1) as f64;
        let mut loss = 0f64;
        for (h, targets) in &self.parts {
            let st = rb.get(*h);
            let (mut sum, mut n) = (0f64, 0usize);
            for (i, _) in targets.iter().enumerate().filter(|(_, &t)| t != IGNORE) {
                sum += st[2 * i] as f64;
                n += 1;
            }
            loss += if n == 0 { 0.0 } else { sum / n as f64 } / parts;
        }
        if self.regression {
            return TaskLoss { loss: loss as f32, hits: 0, labelled: 0 };
        }
        let right = |part: usize, i: usize| {
            let (h, targets) = &self.parts[part];
            rb.get(*h)[2 * i + 1] as i64 == targets[i]
        };
        let rows = self.parts.first().map_or(0, |p| p.1.len());
        let counted: Vec<usize> = (0..rows).filter(|&i| self.parts.iter().all(|p| p.1[i] != IGNORE)).collect();
        let hits = counted.iter().filter(|&&i| (0..self.parts.len()).all(|part| right(part, i))).count();
        TaskLoss { loss: loss as f32, hits, labelled: counted.len() }
    }
}

/// A task head's weights and where their gradients go, and the pooler's for a head on [CLS].
pub struct HeadGrads<'a> {
    /// (slots, weight, d weight, d bias)
    pub head: (LinearSlots, View<'a>, View<'a>, View<'a>),
    /// (weight, d weight, d bias, the pooler's trace)
    pub pooler: Option<(View<'a>, View<'a>, View<'a>, &'a GpuPoolTrace)>,
}

/// Records the head's loss and backward; the gradient of the last hidden state is added into `dx`
/// (N, H): at the [CLS] rows through the pooler for a sequence classifier, everywhere otherwise.
pub fn record_task_backward(
    rec: &mut Recorder<'_>,
    tt: &GpuTaskTrace,
    labels: &TaskLabels,
    hg: HeadGrads<'_>,
    drop: Option<(u32, f32)>,
    (b, t, h): (usize, usize, usize),
    dx: View<'_>,
) -> Result<TaskReads> {
    let ctx = rec.ctx();
    let HeadGrads { head: (slots, w, dw, db), pooler } = hg;
    let outs = slots.bias.len;
    let rows = tt.rows;
    let logits = View::whole(&tt.logits);
    let mut parts = Vec::new();
    match (labels, tt.kind) {
        (TaskLabels::Classes(c), TaskKind::SequenceClassification) | (TaskLabels::Tags(c), TaskKind::TokenClassification) => {
            let stats = ctx.buffer("task_stats", 2 * rows)?;
            cross_entropy(rec, logits, c, outs, View::whole(&stats))?; // logits -> dlogits
            parts.push((rec.read(View::whole(&stats)), c.clone()));
        }
        (TaskLabels::Spans { start, end }, TaskKind::QuestionAnswering) => {
            // positions clamped to [0, T]; T is ignored (as HF and model::task)
            let clamp =
                |v: &[i64]| -> Vec<i64> { v.iter().map(|&p| if p.clamp(0, t as i64) == t as i64 { IGNORE } else { p.max(0) }).collect() };
            let n = b * t;
            let mut halves = Vec::new();
            for (col, pos) in [(0usize, clamp(start)), (1, clamp(end))] {
                let mut e = [0f32; 2];
                e[col] = 1.0;
                let ev = ctx.upload("qa_pick", &e)?;
                let side = ctx.buffer("qa_side", n)?; // (B, T) start or end logits
                                                      // side (N, 1) = logits (N, 2) . e (2, 1)
                matmul(
                    rec,
                    Operand::rows(logits, 2),
                    Operand::rows(View::whole(&ev), 1),
                    None,
                    Operand::rows(View::whole(&side), 1),
                    Shape::new(n, 1, 2),
                    Kernel::Auto,
                )?;
                let stats = ctx.buffer("qa_stats", 2 * b)?;
                cross_entropy(rec, View::whole(&side), &pos, t, View::whole(&stats))?; // side -> d side
                parts.push((rec.read(View::whole(&stats)), pos));
                halves.push((side, col));
            }
            // dlogits (N, 2) = d start (N, 1) . [0.5, 0] + d end (N, 1) . [0, 0.5]
            rec.clear(logits);
            for (side, col) in &halves {
                let mut e = [0f32; 2];
                e[*col] = 0.5;
                let ev = ctx.upload("qa_put", &e)?;
                let s = Shape { accumulate: true, ..Shape::new(n, 2, 1) };
                matmul(
                    rec,
                    Operand::rows(View::whole(side), 1),
                    Operand::rows(View::whole(&ev), 2),
                    None,
                    Operand::rows(logits, 2),
                    s,
                    Kernel::Auto,
                )?;
            }
        }
        (TaskLabels::Scores(y), TaskKind::SequenceClassification) if outs == 1 => {
            let stats = ctx.buffer("task_stats", 2 * rows)?;
            let yf: Vec<f32> = y.iter().map(|&v| v as f32).collect();
            mse(rec, logits, &yf, View::whole(&stats))?; // logits -> d logits
            parts.push((rec.read(View::whole(&stats)), vec![0; rows]));
        }
        (l, k) => return Err(BertError::Input(format!("{l:?} do not fit a {} head", k.architecture()))),
    }
    // the head: logits = input W^T + b
    let din = ctx.buffer("task_d_input", rows * h)?;
    linear_backward(rec, logits, View::whole(&tt.input), w, Some((View::whole(&din), false)), dw, (rows, h, outs))?;
    colsum(rec, logits, rows, outs, db)?;
    if let Some((seed, p)) = drop {
        dropout(rec, View::whole(&din), rows * h, p, seed)?;
    }
    match tt.kind {
        TaskKind::SequenceClassification => {
            let (pw, pdw, pdb, pt) = pooler.ok_or_else(|| BertError::Config("a sequence classifier needs the pooler".into()))?;
            let dpre = ctx.buffer("task_d_pool_pre", b * h)?;
            act_backward(rec, pt.act, View::whole(&pt.pooled), View::whole(&din), View::whole(&dpre), b * h)?;
            let dcls = ctx.buffer("task_d_cls", b * h)?;
            linear_backward(rec, View::whole(&dpre), View::whole(&pt.cls), pw, Some((View::whole(&dcls), false)), pdw, (b, h, h))?;
            colsum(rec, View::whole(&dpre), b, h, pdb)?;
            let cls_rows: Vec<usize> = (0..b).map(|bi| bi * t).collect();
            scatter_add(rec, View::whole(&dcls), &cls_rows, h, dx)?;
        }
        _ => add_into(rec, View::whole(&din), dx, rows * h)?,
    }
    Ok(TaskReads { parts, regression: matches!(labels, TaskLabels::Scores(_)) })
}
