//! Which input tokens an output depended on: gradient attributions of f = the log-softmax
//! probability of one output (a [MASK] guess, a class, a token's tag, an answer's start or end)
//! with respect to x_t, the word-embedding row of token t (positions and segments unchanged, dropout
//! off):
//! - `grad`: s_t = ||df/dx_t||;
//! - `grad-x-input`: s_t = df/dx_t . x_t;
//! - `ig` (integrated gradients): s_t = (x_t - x'_t) . mean over k = 1..N of df/dx_t at
//!   x' + (k/N)(x - x'), the baseline x' the [PAD] row at every position; the completeness gap
//!   |sum_t s_t - (f(x) - f(x'))| says how far N steps are from the integral.
//!
//! df/dx comes from the exact backward: the target as a one-item loss (cross-entropy = -f), its
//! gradient with respect to the embeddings' sum. The N integrated-gradient points run as batches.

use crate::backend::{Backend, WeightsKey};
use crate::bundle::Bert;
use crate::config::TaskKind;
use crate::cpu::cross_entropy::IGNORE;
use crate::cpu::real::Real;
use crate::error::{BertError, Result};
use crate::model::backward::Targets;
use crate::model::forward::{forward, Batch, ForwardOptions, ForwardTrace, MlmRows};
use crate::model::task::{span_logits, TaskLabels};
use crate::tokenize::Encoded;
use ndarray::{s, Array2, ArrayView1};
use serde::{Deserialize, Serialize};

pub use bertscope_view::explain::attribution::Method;

/// The output to explain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    /// The guess `token` at position `pos` (a masked-LM head).
    Mask {
        pos: usize,
        token: u32,
    },
    /// A sequence classifier's class.
    Class(usize),
    /// A token classifier's tag at `pos`.
    Tag {
        pos: usize,
        label: usize,
    },
    /// An answer's start or end at `pos`.
    Start(usize),
    End(usize),
}

/// What `bertscope attribute` prints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attribution {
    pub tokens: Vec<String>,
    /// The target as a spec (`mask:POS:TOKEN`, `class:LABEL`, `tag:POS:LABEL`, `start:POS`, `end:POS`).
    pub target: String,
    pub method: Method,
    /// f(x): the log-probability of the target.
    pub value: f32,
    /// One score per token.
    pub scores: Vec<f32>,
    /// Integrated gradients: |sum of scores - (f(x) - f(baseline))|.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completeness_gap: Option<f32>,
}

impl Target {
    /// Parses a spec against the model and a `t`-token input: `mask:POS:TOKEN` (a word of the
    /// vocabulary or an id), `class:LABEL`, `tag:POS:LABEL` (label names or ids), `start:POS`,
    /// `end:POS`. Positions are token positions (0 = [CLS]).
    pub fn parse(spec: &str, bert: &Bert, t: usize) -> Result<Self> {
        let bad = |m: String| BertError::Input(format!("target `{spec}`: {m}"));
        let pos = |v: &str| -> Result<usize> {
            let p: usize = v.parse().map_err(|_| bad(format!("`{v}` is not a token position")))?;
            if p >= t {
                return Err(bad(format!("position {p} is outside the {t} tokens")));
            }
            Ok(p)
        };
        let label = |v: &str| -> Result<usize> {
            let n = bert.cfg.num_labels();
            bert.cfg.label_id(v).or_else(|| v.parse().ok().filter(|&i: &usize| i < n)).ok_or_else(|| {
                bad(format!("no label `{v}` (the model's: {})", (0..n).map(|i| bert.cfg.label_name(i)).collect::<Vec<_>>().join(", ")))
            })
        };
        let kind = bert.params.heads().task.map(|h| h.kind);
        let need = |k: TaskKind| -> Result<()> {
            (kind == Some(k)).then_some(()).ok_or_else(|| bad(format!("the model is not a {}", bert.cfg.family.architecture(k))))
        };
        // the last field may hold ':' itself (a token or label name)
        let (kind_s, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let parts: Vec<&str> = match kind_s {
            "mask" | "tag" => match rest.split_once(':') {
                Some((a, b)) => vec![kind_s, a, b],
                None => vec![kind_s, rest],
            },
            _ => vec![kind_s, rest],
        };
        match parts.as_slice() {
            ["mask", p, tok] => {
                if bert.params.mlm.is_none() {
                    return Err(bad("the model has no masked-LM head".into()));
                }
                let token = match bert.tokenizer.piece_id(tok) {
                    Some(id) => id,
                    None => tok
                        .parse::<u32>()
                        .ok()
                        .filter(|&i| (i as usize) < bert.cfg.vocab_size)
                        .ok_or_else(|| bad(format!("`{tok}` is neither a word of the vocabulary nor a token id")))?,
                };
                Ok(Target::Mask { pos: pos(p)?, token })
            }
            ["class", l] => {
                need(TaskKind::SequenceClassification)?;
                if bert.cfg.is_regression() {
                    return Err(bad("a regression head has no classes".into()));
                }
                Ok(Target::Class(label(l)?))
            }
            ["tag", p, l] => {
                need(TaskKind::TokenClassification)?;
                Ok(Target::Tag { pos: pos(p)?, label: label(l)? })
            }
            ["start", p] => {
                need(TaskKind::QuestionAnswering)?;
                Ok(Target::Start(pos(p)?))
            }
            ["end", p] => {
                need(TaskKind::QuestionAnswering)?;
                Ok(Target::End(pos(p)?))
            }
            _ => Err(bad("expected mask:POS:TOKEN, class:LABEL, tag:POS:LABEL, start:POS or end:POS".into())),
        }
    }

    pub fn spec(&self, bert: &Bert) -> String {
        match *self {
            Target::Mask { pos, token } => format!("mask:{pos}:{}", bert.tokenizer.id_to_token(token)),
            Target::Class(l) => format!("class:{}", bert.cfg.label_name(l)),
            Target::Tag { pos, label } => format!("tag:{pos}:{}", bert.cfg.label_name(label)),
            Target::Start(p) => format!("start:{p}"),
            Target::End(p) => format!("end:{p}"),
        }
    }

    /// The one-item loss of each of `k` copies of a `t`-token input: cross-entropy at the target,
    /// which is -f (a span's loss is half its start's plus half its end's: the other is ignored).
    fn labels(&self, k: usize, t: usize) -> Targets {
        let none = Targets { mlm_labels: None, nsp_labels: None, task: None };
        let per_token = |pos: usize, v: i64| {
            let mut l = vec![IGNORE; k * t];
            for i in 0..k {
                l[i * t + pos] = v;
            }
            l
        };
        match *self {
            Target::Mask { pos, token } => Targets { mlm_labels: Some(per_token(pos, token as i64)), ..none },
            Target::Class(c) => Targets { task: Some(TaskLabels::Classes(vec![c as i64; k])), ..none },
            Target::Tag { pos, label } => Targets { task: Some(TaskLabels::Tags(per_token(pos, label as i64))), ..none },
            // T is outside the sequence: ignored, as HF clamps and ignores it
            Target::Start(p) => Targets { task: Some(TaskLabels::Spans { start: vec![p as i64; k], end: vec![t as i64; k] }), ..none },
            Target::End(p) => Targets { task: Some(TaskLabels::Spans { start: vec![t as i64; k], end: vec![p as i64; k] }), ..none },
        }
    }

    /// d(loss)/df for one of the k items: the loss is the mean over the items of -f (times 1/2
    /// for a span's start or end).
    fn loss_per_f(&self, k: usize) -> f64 {
        let half = matches!(self, Target::Start(_) | Target::End(_));
        -(if half { 0.5 } else { 1.0 }) / k as f64
    }

    /// f of item `i` from its trace: the log-softmax of the target's logits.
    fn value(&self, tr: &ForwardTrace<f32>, i: usize, t: usize) -> f32 {
        let log_softmax_at = |row: ArrayView1<f32>, at: usize| {
            let m = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
            let s: f64 = row.iter().map(|&v| (v - m).exp_fast() as f64).sum();
            ((row[at] - m) as f64 - s.ln()) as f32
        };
        match *self {
            Target::Mask { token, .. } => {
                let mlm = tr.mlm.as_ref().expect("MLM logits at the target rows");
                match mlm.label_logp.get(i) {
                    Some(&v) => v, // after a backward: its cross-entropy's (the logits are gone)
                    None => log_softmax_at(mlm.logits.row(i), token as usize),
                }
            }
            Target::Class(c) => log_softmax_at(tr.task.as_ref().expect("a task head").logits.row(i), c),
            Target::Tag { pos, label } => log_softmax_at(tr.task.as_ref().expect("a task head").logits.row(i * t + pos), label),
            Target::Start(p) | Target::End(p) => {
                let col = matches!(self, Target::End(_)) as usize;
                let l = span_logits(tr.task.as_ref().expect("a task head").logits.view(), tr.b, t, col);
                log_softmax_at(l.row(i), p)
            }
        }
    }
}

/// Integrated-gradient points per forward + backward: the default N = 32 in one batch (each batch
/// packs the masked-LM decoder's whole vocabulary matrix once, whatever its size).
const IG_CHUNK: usize = 64;

/// One input to explain: its ids, segments and pieces, and the heads switched off ((L, NH) 0/1).
#[derive(Clone, Debug)]
pub struct Input {
    pub ids: Vec<u32>,
    pub segments: Vec<u32>,
    pub tokens: Vec<String>,
    pub head_mask: Option<Array2<f32>>,
}

impl Input {
    pub fn of(enc: &Encoded) -> Self {
        Input { ids: enc.input_ids.clone(), segments: enc.token_type_ids.clone(), tokens: enc.tokens.clone(), head_mask: None }
    }
}

/// Copies of the input, one per point, with each point's word rows, the target's labels and the
/// options of its forward: (batch, targets, options).
fn point_batch(input: &Input, target: &Target, chunk: &[Array2<f32>]) -> (Batch, Targets, ForwardOptions<f32>) {
    let (k, t) = (chunk.len(), input.ids.len());
    let h = chunk.first().map_or(0, |p| p.ncols());
    let batch = Batch {
        b: k,
        t,
        input_ids: (0..k).flat_map(|_| input.ids.iter().map(|&i| i as usize)).collect(),
        token_type_ids: (0..k).flat_map(|_| input.segments.iter().map(|&i| i as usize)).collect(),
        attention_mask: vec![1; k * t],
    };
    let mut rows = Array2::zeros((k * t, h));
    for (i, p) in chunk.iter().enumerate() {
        rows.slice_mut(s![i * t..(i + 1) * t, ..]).assign(p);
    }
    let targets = target.labels(k, t);
    let mlm_rows = match target {
        Target::Mask { .. } => MlmRows::Rows(targets.labelled_rows()),
        _ => MlmRows::None,
    };
    // the rows the loss reads (a span's softmax reads every position): the last layer past its
    // attention runs for those only (ForwardOptions::last_layer_rows: the same gradients)
    let last_layer_rows = match target {
        Target::Mask { .. } | Target::Tag { .. } => Some((0..k).map(|i| i * t + target.position()).collect()),
        Target::Class(_) => Some((0..k).map(|i| i * t).collect()),
        Target::Start(_) | Target::End(_) => None,
    };
    let opts =
        ForwardOptions { mlm_rows, word_rows: Some(rows), head_mask: input.head_mask.clone(), last_layer_rows, ..Default::default() };
    (batch, targets, opts)
}

/// f at each of `points`, from forwards on the CPU path (no backward).
fn values_at(bert: &Bert, input: &Input, target: &Target, points: &[Array2<f32>]) -> Result<Vec<f32>> {
    let (batch, _, opts) = point_batch(input, target, points);
    let tr = forward(&bert.params, &bert.cfg, &batch, &opts)?;
    Ok((0..points.len()).map(|i| target.value(&tr, i, input.ids.len())).collect())
}

/// f (when the backend's trace has it: the CPU path) and df/dx (T, H) at each of `points` (each
/// (T, H) word rows), `IG_CHUNK` points per forward + backward.
async fn grads_at(
    backend: &mut Backend,
    bert: &Bert,
    key: WeightsKey,
    input: &Input,
    target: &Target,
    points: &[Array2<f32>],
) -> Result<Vec<(Option<f32>, Array2<f32>)>> {
    let t = input.ids.len();
    let last = points.len() - 1;
    let mut out = Vec::with_capacity(points.len());
    for chunk in points.chunks(IG_CHUNK) {
        let first = out.len();
        let k = chunk.len();
        let (batch, targets, mut opts) = point_batch(input, target, chunk);
        // the decoder's logits inside the loss (W read once; half of these points' work otherwise)
        // (a few rows: the GEMV path reads W once already; no vector path, as in wasm: logits first)
        opts.logits_in_loss = matches!(target, Target::Mask { .. }) && k >= 8 && crate::cpu::vocab_loss::has_fast_path();
        let (d_sum, tr) = backend.input_grads(bert, key, &batch, &targets, &opts).await?;
        let scale = (1.0 / target.loss_per_f(k)) as f32; // d f / d x = d loss / d x / (d loss / d f)
        for i in 0..k {
            // f is read at the first and the last point only
            let wanted = first + i == 0 || first + i == last;
            let v = tr.as_ref().filter(|_| wanted).map(|tr| target.value(tr, i, t));
            out.push((v, d_sum.slice(s![i * t..(i + 1) * t, ..]).mapv(|x| x * scale)));
        }
    }
    Ok(out)
}

/// The attribution of `target` for the input `(text, pair)` by `method`; `steps`
/// integrated-gradient points (at least 1); the gradients on `backend` (f on the CPU path), whose
/// GPU knows `bert`'s weights as `key`.
pub async fn attribute(
    backend: &mut Backend,
    bert: &Bert,
    key: WeightsKey,
    (text, pair): (&str, Option<&str>),
    target: &str,
    method: Method,
    steps: usize,
) -> Result<Attribution> {
    let enc = bert.tokenizer.encode(text, pair)?;
    let target_v = Target::parse(target, bert, enc.input_ids.len())?;
    attribute_input(backend, bert, key, &Input::of(&enc), &target_v, method, steps).await
}

/// `attribute` on a prepared input.
pub async fn attribute_input(
    backend: &mut Backend,
    bert: &Bert,
    key: WeightsKey,
    input: &Input,
    target: &Target,
    method: Method,
    steps: usize,
) -> Result<Attribution> {
    let ids: Vec<usize> = input.ids.iter().map(|&i| i as usize).collect();
    let x = crate::cpu::embedding::embedding_forward(bert.params.emb.word.view(), &ids);
    let t = x.nrows();
    let dot = |a: ArrayView1<f32>, b: ArrayView1<f32>| a.iter().zip(b).map(|(p, q)| (*p as f64) * (*q as f64)).sum::<f64>();
    let (value, scores, gap) = match method {
        Method::Grad | Method::GradXInput => {
            let (v, g) = grads_at(backend, bert, key, input, target, std::slice::from_ref(&x)).await?.pop().expect("one point");
            let v = match v {
                Some(v) => v,
                None => values_at(bert, input, target, std::slice::from_ref(&x))?[0],
            };
            let scores = (0..t)
                .map(|i| match method {
                    Method::Grad => dot(g.row(i), g.row(i)).sqrt() as f32,
                    _ => dot(g.row(i), x.row(i)) as f32,
                })
                .collect();
            (v, scores, None)
        }
        Method::Ig => {
            let n = steps.max(1);
            let pad = bert.tokenizer.pad_id as usize;
            let base = Array2::from_shape_fn(x.dim(), |(_, j)| bert.params.emb.word[[pad, j]]);
            let diff = &x - &base;
            // k = 1 .. N (k = N is x itself); the baseline (k = 0) needs f only: a forward apart,
            // which keeps the batch at N rows (a whole number of the GEMM's 4-row tiles for N = 32)
            let points: Vec<Array2<f32>> = (1..=n).map(|k| &base + &(&diff * (k as f32 / n as f32))).collect();
            let at = grads_at(backend, bert, key, input, target, &points).await?;
            let mut mean = Array2::<f64>::zeros(x.dim());
            for (_, g) in &at {
                mean.zip_mut_with(g, |m, &v| *m += v as f64 / n as f64);
            }
            let scores: Vec<f32> =
                (0..t).map(|i| diff.row(i).iter().zip(mean.row(i)).map(|(d, m)| *d as f64 * m).sum::<f64>() as f32).collect();
            let (f0, f1) = match at[n - 1].0 {
                Some(f1) => (values_at(bert, input, target, std::slice::from_ref(&base))?[0], f1),
                None => {
                    let v = values_at(bert, input, target, &[base.clone(), x.clone()])?;
                    (v[0], v[1])
                }
            };
            let total: f64 = scores.iter().map(|&s| s as f64).sum();
            (f1, scores, Some((total - (f1 as f64 - f0 as f64)).abs() as f32))
        }
    };
    Ok(Attribution { tokens: input.tokens.clone(), target: target.spec(bert), method, value, scores, completeness_gap: gap })
}

impl Target {
    /// The position whose output this is ([CLS] for a class).
    pub fn position(&self) -> usize {
        match *self {
            Target::Mask { pos, .. } | Target::Tag { pos, .. } | Target::Start(pos) | Target::End(pos) => pos,
            Target::Class(_) => 0,
        }
    }
}
