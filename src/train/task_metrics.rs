//! Held-out scores of a fine-tuned head from its answers and the true labels: accuracy and the
//! confusion matrix (classes), accuracy per tag (tagging), exact match and F1 (question answering,
//! SQuAD's measures over the answer's pieces rather than its words).

use crate::config::TaskKind;
use crate::cpu::cross_entropy::IGNORE;
use crate::cpu::softmax::softmax_row;
use crate::infer::task::MAX_ANSWER_TOKENS;
use crate::model::task::TaskTrace;
use crate::train::task_data::{Feature, FeatureLabel};
pub use bertscope_view::explain::finetune::{TagScore, TaskMetrics};

/// What the head answered for one example.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// The arg-max class and its probability.
    Class(usize, f32),
    /// The arg-max tag of every position (IGNORE where the example has no label).
    Tags(Vec<i64>),
    /// The best span (start <= end, inside the context), inclusive token positions.
    Span(usize, usize),
}

fn argmax(v: impl Iterator<Item = f32>) -> usize {
    v.enumerate().fold((0, f32::NEG_INFINITY), |b, (i, x)| if x > b.1 { (i, x) } else { b }).0
}

/// The head's answer for each of `items`, from the logits of their batch (padded to `t`): the
/// arg-max class, the arg-max tag at every position, or the best span of the context (its pieces:
/// segment 1 but the last [SEP]) with `start <= end < start + MAX_ANSWER_TOKENS`, as `infer::task`.
pub fn answers(tt: &TaskTrace<f32>, items: &[&Feature], t: usize) -> Vec<Answer> {
    let l = &tt.logits;
    items
        .iter()
        .enumerate()
        .map(|(i, f)| match &f.label {
            FeatureLabel::Class(_) => {
                let mut p = l.row(i).to_vec();
                softmax_row(&mut p);
                let best = argmax(p.iter().copied());
                Answer::Class(best, p[best])
            }
            FeatureLabel::Tags(_) => {
                Answer::Tags((0..f.input_ids.len()).map(|j| argmax(l.row(i * t + j).iter().copied()) as i64).collect())
            }
            FeatureLabel::Span(..) => {
                let n = f.input_ids.len();
                let ctx: Vec<usize> = (0..n.saturating_sub(1)).filter(|&j| f.token_type_ids[j] == 1).collect();
                let mut best = (0, 0, f32::NEG_INFINITY);
                for &s in &ctx {
                    for &e in ctx.iter().filter(|&&e| e >= s && e < s + MAX_ANSWER_TOKENS) {
                        let v = l[[i * t + s, 0]] + l[[i * t + e, 1]];
                        if v > best.2 {
                            best = (s, e, v);
                        }
                    }
                }
                Answer::Span(best.0, best.1)
            }
        })
        .collect()
}

/// The F1 of two inclusive spans' positions (0 when they do not overlap).
pub fn span_f1(pred: (usize, usize), gold: (usize, usize)) -> f32 {
    let lo = pred.0.max(gold.0);
    let hi = pred.1.min(gold.1);
    if hi < lo {
        return 0.0;
    }
    let common = (hi - lo + 1) as f32;
    let (p, g) = ((pred.1 - pred.0 + 1) as f32, (gold.1 - gold.0 + 1) as f32);
    let (precision, recall) = (common / p, common / g);
    2.0 * precision * recall / (precision + recall)
}

/// The scores of `answers` against `gold` (same order), with the held-out `loss`.
pub fn score(kind: TaskKind, labels: &[String], gold: &[&FeatureLabel], answers: &[Answer], loss: f32) -> TaskMetrics {
    let n = labels.len();
    let mut m = TaskMetrics {
        kind,
        examples: gold.len(),
        loss,
        accuracy: 0.0,
        labels: labels.to_vec(),
        confusion: vec![],
        per_tag: vec![],
        f1: None,
    };
    let (mut right, mut total) = (0usize, 0usize);
    match kind {
        TaskKind::SequenceClassification => {
            m.confusion = vec![vec![0; n]; n];
            for (g, a) in gold.iter().zip(answers) {
                if let (FeatureLabel::Class(c), Answer::Class(p, _)) = (g, a) {
                    let c = *c as usize;
                    if c < n && *p < n {
                        m.confusion[c][*p] += 1;
                    }
                    right += (c == *p) as usize;
                    total += 1;
                }
            }
        }
        TaskKind::TokenClassification => {
            let mut per = vec![(0usize, 0usize); n];
            for (g, a) in gold.iter().zip(answers) {
                if let (FeatureLabel::Tags(t), Answer::Tags(p)) = (g, a) {
                    for (&tg, &pr) in t.iter().zip(p) {
                        if tg == IGNORE || tg < 0 || tg as usize >= n {
                            continue;
                        }
                        per[tg as usize].1 += 1;
                        if tg == pr {
                            per[tg as usize].0 += 1;
                            right += 1;
                        }
                        total += 1;
                    }
                }
            }
            m.per_tag = per
                .into_iter()
                .enumerate()
                .filter(|(_, (_, t))| *t > 0)
                .map(|(i, (right, total))| TagScore { label: labels[i].clone(), right, total })
                .collect();
        }
        TaskKind::QuestionAnswering => {
            let mut f1 = 0.0;
            for (g, a) in gold.iter().zip(answers) {
                if let (FeatureLabel::Span(s, e), Answer::Span(ps, pe)) = (g, a) {
                    let gold = (*s as usize, *e as usize);
                    right += (gold == (*ps, *pe)) as usize;
                    f1 += span_f1((*ps, *pe), gold);
                    total += 1;
                }
            }
            m.f1 = Some(if total > 0 { f1 / total as f32 } else { 0.0 });
        }
    }
    m.accuracy = if total > 0 { right as f32 / total as f32 } else { 0.0 };
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn classes_fill_the_confusion_matrix() {
        let gold = [FeatureLabel::Class(0), FeatureLabel::Class(1), FeatureLabel::Class(1), FeatureLabel::Class(2)];
        let ans = [Answer::Class(0, 0.9), Answer::Class(0, 0.6), Answer::Class(1, 0.7), Answer::Class(1, 0.5)];
        let m = score(TaskKind::SequenceClassification, &names(&["a", "b", "c"]), &gold.iter().collect::<Vec<_>>(), &ans, 0.5);
        assert_eq!(m.confusion, vec![vec![1, 0, 0], vec![1, 1, 0], vec![0, 1, 0]]);
        assert_eq!((m.accuracy, m.examples, m.f1), (0.5, 4, None));
    }

    #[test]
    fn tags_are_scored_per_tag_and_ignored_positions_skipped() {
        let gold = [FeatureLabel::Tags(vec![IGNORE, 0, 1, 2, IGNORE]), FeatureLabel::Tags(vec![IGNORE, 0, 0, IGNORE])];
        let ans = [Answer::Tags(vec![1, 0, 1, 1, 2]), Answer::Tags(vec![2, 0, 2, 2])];
        let m =
            score(TaskKind::TokenClassification, &names(&["O", "B-PER", "I-PER", "B-LOC"]), &gold.iter().collect::<Vec<_>>(), &ans, 1.0);
        assert_eq!(m.accuracy, 3.0 / 5.0);
        let per: Vec<(&str, usize, usize)> = m.per_tag.iter().map(|t| (t.label.as_str(), t.right, t.total)).collect();
        assert_eq!(per, [("O", 2, 3), ("B-PER", 1, 1), ("I-PER", 0, 1)], "B-LOC never occurs: not listed");
    }

    #[test]
    fn spans_give_exact_match_and_overlap_f1() {
        assert_eq!(span_f1((3, 5), (3, 5)), 1.0);
        assert_eq!(span_f1((1, 2), (3, 5)), 0.0);
        // pred 3..=4 (2 pieces), gold 4..=7 (4): 1 common -> p 1/2, r 1/4, F1 = 1/3
        assert!((span_f1((3, 4), (4, 7)) - 1.0 / 3.0).abs() < 1e-6);
        let gold = [FeatureLabel::Span(3, 5), FeatureLabel::Span(4, 7)];
        let ans = [Answer::Span(3, 5), Answer::Span(3, 4)];
        let m = score(TaskKind::QuestionAnswering, &[], &gold.iter().collect::<Vec<_>>(), &ans, 2.0);
        assert_eq!(m.accuracy, 0.5);
        assert!((m.f1.unwrap() - (1.0 + 1.0 / 3.0) / 2.0).abs() < 1e-6);
    }
}
