//! A fine-tuned model's answer as you type: the classes as bars (most probable first), a
//! regression score, a tag under every token, or the answer span highlighted in the second sentence
//! with every token's start and end logits. The numbers are the snapshot's (`explain::TaskOutput`).

use crate::components::{fmt_prob, SnapRef};
use crate::explain::snapshot::TaskOutput;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
}

#[component]
pub fn TaskPanel(p: &Props) -> Html {
    let s = &p.snapshot;
    let Some(task) = &s.task else { return html! {} };
    match task {
        TaskOutput::Classes(labels) => {
            let rows = labels.iter().map(|l| {
                let width = format!("width: {:.1}%", (l.prob * 100.0).clamp(0.0, 100.0));
                html! {
                    <li key={l.id} data-label={l.label.clone()} data-prob={l.prob.to_string()} data-id={l.id.to_string()}>
                        <span class="word">{ l.label.clone() }</span>
                        <span class="bar"><span class="fill" style={width} /></span>
                        <span class="prob">{ fmt_prob(l.prob) }</span>
                    </li>
                }
            });
            html! {
                <div class="task predictions">
                    <p class="hint">{ "A sequence classifier: softmax of classifier(tanh(pooler([CLS]))), every label most probable first." }</p>
                    <div class="mask-group"><ol data-testid="task-output" data-kind="classes">{ for rows }</ol></div>
                </div>
            }
        }
        TaskOutput::Score(x) => html! {
            <div class="task">
                <p class="hint">{ "A regression head (one output, trained with mean squared error): its value for this input." }</p>
                <p class="score" data-testid="task-output" data-kind="score" data-value={x.to_string()}>{ format!("{x:.4}") }</p>
            </div>
        },
        TaskOutput::Tags(tags) => {
            let chips = tags.iter().zip(&s.tokens).enumerate().map(|(i, (t, tok))| {
                let cls = if t.label == "O" || tok.special { "chip muted" } else { "chip" };
                html! {
                    <span key={i} class="tag-cell">
                        <span class="piece">{ tok.text.clone() }</span>
                        <span class={cls} data-testid="tag-chip" data-label={t.label.clone()} data-prob={t.prob.to_string()}
                              title={format!("{} with probability {}", t.label, fmt_prob(t.prob))}>{ t.label.clone() }</span>
                    </span>
                }
            });
            html! {
                <div class="task">
                    <p class="hint">{ "A token classifier: the most probable tag of every token (a word's tag is on its first piece)." }</p>
                    <div class="tags" data-testid="task-output" data-kind="tags">{ for chips }</div>
                </div>
            }
        }
        TaskOutput::Answer { spans, start_logits, end_logits } => {
            let best = spans.first();
            let pieces = s.tokens.iter().enumerate().filter(|(_, t)| t.segment == 1 && !t.special).map(|(i, t)| {
                let inside = best.is_some_and(|b| i >= b.start && i <= b.end);
                html! {
                    <span key={i} class={if inside { "piece answer" } else { "piece" }}
                          title={format!("start logit {:.3}, end logit {:.3}", start_logits[i], end_logits[i])}
                          data-start-logit={start_logits[i].to_string()} data-end-logit={end_logits[i].to_string()}>{ t.text.clone() }</span>
                }
            });
            let head = match best {
                Some(b) => html! {
                    <p data-testid="answer-span" data-start={b.start.to_string()} data-end={b.end.to_string()} data-score={b.score.to_string()}>
                        { "Answer: " }<strong>{ b.text.clone() }</strong>
                        { format!(" (tokens {} to {}; start + end logit = {:.3})", b.start, b.end, b.score) }
                    </p>
                },
                None => html! { <p class="hint">{ "Type the context as the second sentence: the answer is a span of it." }</p> },
            };
            html! {
                <div class="task">
                    <p class="hint">{ "Question answering: every token gets a start and an end logit; the answer is the span with the largest start + end inside the context (at most 30 tokens)." }</p>
                    { head }
                    <div class="context" data-testid="task-output" data-kind="answer">{ for pieces }</div>
                </div>
            }
        }
    }
}
