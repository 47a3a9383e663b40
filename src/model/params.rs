//! The parameters of a BERT, one struct per HF module (`modeling_bert.py`: `BertEmbeddings`,
//! `BertLayer`, `BertPooler`, `BertLMPredictionHead`, `BertOnlyNSPHead`), every tensor reachable by
//! its canonical HF name (`bert.encoder.layer.0.attention.self.query.weight`, LayerNorm as
//! `weight`/`bias`). Gradients and optimiser moments use the same structs.

use crate::config::{BertConfig, Heads, PositionEncoding, TaskHead, TaskKind};
use crate::cpu::real::Real;
use crate::rng::Rng;
use ndarray::{Array1, Array2, ArrayViewD, ArrayViewMutD};

#[derive(Clone, Debug)]
pub struct Linear<T> {
    pub weight: Array2<T>, // (OUT, IN)
    pub bias: Array1<T>,   // (OUT)
}

#[derive(Clone, Debug)]
pub struct LayerNorm<T> {
    pub gamma: Array1<T>, // (H) `weight`
    pub beta: Array1<T>,  // (H) `bias`
}

#[derive(Clone, Debug)]
pub struct Embeddings<T> {
    pub word: Array2<T>,               // (V, H)
    pub position: Option<Array2<T>>,   // (P, H); None when sinusoidal
    pub token_type: Option<Array2<T>>, // (TV, H); None without segments (DistilBERT)
    pub ln: LayerNorm<T>,
}

#[derive(Clone, Debug)]
pub struct Layer<T> {
    pub query: Linear<T>,        // (H, H)
    pub key: Linear<T>,          // (H, H)
    pub value: Linear<T>,        // (H, H)
    pub attn_out: Linear<T>,     // (H, H)
    pub attn_ln: LayerNorm<T>,   // (H)
    pub intermediate: Linear<T>, // (I, H)
    pub output: Linear<T>,       // (H, I)
    pub out_ln: LayerNorm<T>,    // (H)
    /// A decoder layer's attention on the encoder (`crossattention`), between its self-attention
    /// and its FFN; None in an encoder.
    pub cross: Option<CrossAttention<T>>,
}

/// `BertAttention` used as cross-attention: queries from the decoder, keys and values from the
/// encoder's last hidden state, then dense, residual and LayerNorm as the self-attention's.
#[derive(Clone, Debug)]
pub struct CrossAttention<T> {
    pub query: Linear<T>, // (H, H)
    pub key: Linear<T>,   // (H, H)
    pub value: Linear<T>, // (H, H)
    pub out: Linear<T>,   // (H, H)
    pub ln: LayerNorm<T>, // (H)
}

#[derive(Clone, Debug)]
pub struct MlmHead<T> {
    pub transform: Linear<T>,       // (H, H)
    pub ln: LayerNorm<T>,           // (H)
    pub decoder: Option<Array2<T>>, // (V, H); None when tied to the word embeddings
    pub bias: Array1<T>,            // (V)
}

/// A fine-tuning head (`BertForSequenceClassification`, `...TokenClassification`,
/// `...QuestionAnswering`): one linear layer, `classifier` or `qa_outputs` by kind.
#[derive(Clone, Debug)]
pub struct TaskParams<T> {
    pub kind: TaskKind,
    pub linear: Linear<T>, // (OUT, H): OUT labels, or 2 (start, end) for question answering
}

#[derive(Clone, Debug)]
pub struct BertParams<T> {
    pub emb: Embeddings<T>,
    pub layers: Vec<Layer<T>>,
    pub pooler: Option<Linear<T>>, // (H, H)
    pub mlm: Option<MlmHead<T>>,
    pub nsp: Option<Linear<T>>, // (2, H)
    pub task: Option<TaskParams<T>>,
}

/// Calls `$f(name, view)` for every tensor in a fixed order; `$view` is `view` or `view_mut`, and
/// the optional `mut` makes the borrows mutable. One list serves `tensors` and `tensors_mut`.
macro_rules! each_tensor {
    ($p:expr, $f:expr, $view:ident $(, $m:tt)?) => {{
        let p = $p;
        let mut f = $f;
        macro_rules! lin {
            ($name:expr, $l:expr) => {{
                let l = $l;
                f(format!("{}.weight", $name), l.weight.$view().into_dyn());
                f(format!("{}.bias", $name), l.bias.$view().into_dyn());
            }};
        }
        macro_rules! ln {
            ($name:expr, $l:expr) => {{
                let l = $l;
                f(format!("{}.weight", $name), l.gamma.$view().into_dyn());
                f(format!("{}.bias", $name), l.beta.$view().into_dyn());
            }};
        }
        f("bert.embeddings.word_embeddings.weight".to_string(), p.emb.word.$view().into_dyn());
        if let Some(pos) = & $($m)? p.emb.position {
            f("bert.embeddings.position_embeddings.weight".to_string(), pos.$view().into_dyn());
        }
        if let Some(tt) = & $($m)? p.emb.token_type {
            f("bert.embeddings.token_type_embeddings.weight".to_string(), tt.$view().into_dyn());
        }
        ln!("bert.embeddings.LayerNorm", & $($m)? p.emb.ln);
        for (i, l) in (& $($m)? p.layers).into_iter().enumerate() {
            let pre = format!("bert.encoder.layer.{i}");
            lin!(format!("{pre}.attention.self.query"), & $($m)? l.query);
            lin!(format!("{pre}.attention.self.key"), & $($m)? l.key);
            lin!(format!("{pre}.attention.self.value"), & $($m)? l.value);
            lin!(format!("{pre}.attention.output.dense"), & $($m)? l.attn_out);
            ln!(format!("{pre}.attention.output.LayerNorm"), & $($m)? l.attn_ln);
            lin!(format!("{pre}.intermediate.dense"), & $($m)? l.intermediate);
            lin!(format!("{pre}.output.dense"), & $($m)? l.output);
            ln!(format!("{pre}.output.LayerNorm"), & $($m)? l.out_ln);
            if let Some(c) = & $($m)? l.cross {
                lin!(format!("{pre}.crossattention.self.query"), & $($m)? c.query);
                lin!(format!("{pre}.crossattention.self.key"), & $($m)? c.key);
                lin!(format!("{pre}.crossattention.self.value"), & $($m)? c.value);
                lin!(format!("{pre}.crossattention.output.dense"), & $($m)? c.out);
                ln!(format!("{pre}.crossattention.output.LayerNorm"), & $($m)? c.ln);
            }
        }
        if let Some(pl) = & $($m)? p.pooler {
            lin!("bert.pooler.dense", pl);
        }
        if let Some(h) = & $($m)? p.mlm {
            lin!("cls.predictions.transform.dense", & $($m)? h.transform);
            ln!("cls.predictions.transform.LayerNorm", & $($m)? h.ln);
            if let Some(d) = & $($m)? h.decoder {
                f("cls.predictions.decoder.weight".to_string(), d.$view().into_dyn());
            }
            f("cls.predictions.bias".to_string(), h.bias.$view().into_dyn());
        }
        if let Some(n) = & $($m)? p.nsp {
            lin!("cls.seq_relationship", n);
        }
        if let Some(t) = & $($m)? p.task {
            lin!(t.kind.prefix(), & $($m)? t.linear);
        }
    }};
}

impl<T: Real> BertParams<T> {
    /// Every tensor with its canonical HF name (the `BertForPreTraining` layout).
    pub fn tensors(&self) -> Vec<(String, ArrayViewD<'_, T>)> {
        let mut out = Vec::new();
        each_tensor!(self, |n, t| out.push((n, t)), view);
        out
    }

    pub fn tensors_mut(&mut self) -> Vec<(String, ArrayViewMutD<'_, T>)> {
        let mut out = Vec::new();
        each_tensor!(self, |n, t| out.push((n, t)), view_mut, mut);
        out
    }

    pub fn heads(&self) -> Heads {
        Heads {
            pooler: self.pooler.is_some(),
            mlm: self.mlm.is_some(),
            nsp: self.nsp.is_some(),
            task: self.task.as_ref().map(|t| TaskHead { kind: t.kind, outputs: t.linear.bias.len() }),
        }
    }

    pub fn num_params(&self) -> usize {
        self.tensors().iter().map(|(_, t)| t.len()).sum()
    }

    /// Sets every tensor to zero, keeping the allocations (gradients between steps).
    pub fn fill_zero(&mut self) {
        for (_, mut t) in self.tensors_mut() {
            t.fill(T::zero());
        }
    }

    /// Same structure, all zeros (gradients, optimiser moments).
    pub fn zeros_like(&self) -> Self {
        self.map(|_| T::zero())
    }

    /// A gradient holder for a backward that wants only the inputs' gradient (attributions): the
    /// LayerNorms zeros as usual, every matrix, bias and embedding table empty (0 elements), so
    /// `linear_backward` and the embeddings' backward skip their parameter gradients.
    pub fn input_grads_only(&self) -> Self {
        self.rebuild(|m| Array2::zeros((0, m.ncols())), |_| Array1::zeros(0), |v| v.mapv(|_| T::zero()))
    }

    /// A gradient holder (or optimiser moment) with the word embeddings frozen: their table empty
    /// (0 rows), so the backward computes no gradient for it (nor, when the decoder is tied, for
    /// the decoder) and AdamW leaves it as it is.
    pub fn freeze_word_grads(mut self) -> Self {
        self.emb.word = Array2::zeros((0, self.emb.word.ncols()));
        self
    }

    /// Same structure, elementwise `f`.
    pub fn map<U: Real>(&self, f: impl Fn(T) -> U + Copy) -> BertParams<U> {
        self.rebuild(|m| m.mapv(f), |v| v.mapv(f), |v| v.mapv(f))
    }

    /// Same structure, each part made anew: matrices and embedding tables by `mat`, biases by
    /// `bias`, LayerNorm's gamma and beta by `norm`.
    fn rebuild<U: Real>(
        &self,
        mat: impl Fn(&Array2<T>) -> Array2<U>,
        bias: impl Fn(&Array1<T>) -> Array1<U>,
        norm: impl Fn(&Array1<T>) -> Array1<U>,
    ) -> BertParams<U> {
        let lin = |l: &Linear<T>| Linear { weight: mat(&l.weight), bias: bias(&l.bias) };
        let ln = |l: &LayerNorm<T>| LayerNorm { gamma: norm(&l.gamma), beta: norm(&l.beta) };
        BertParams {
            emb: Embeddings {
                word: mat(&self.emb.word),
                position: self.emb.position.as_ref().map(&mat),
                token_type: self.emb.token_type.as_ref().map(&mat),
                ln: ln(&self.emb.ln),
            },
            layers: self
                .layers
                .iter()
                .map(|l| Layer {
                    query: lin(&l.query),
                    key: lin(&l.key),
                    value: lin(&l.value),
                    attn_out: lin(&l.attn_out),
                    attn_ln: ln(&l.attn_ln),
                    intermediate: lin(&l.intermediate),
                    output: lin(&l.output),
                    out_ln: ln(&l.out_ln),
                    cross: l.cross.as_ref().map(|c| CrossAttention {
                        query: lin(&c.query),
                        key: lin(&c.key),
                        value: lin(&c.value),
                        out: lin(&c.out),
                        ln: ln(&c.ln),
                    }),
                })
                .collect(),
            pooler: self.pooler.as_ref().map(lin),
            mlm: self.mlm.as_ref().map(|h| MlmHead {
                transform: lin(&h.transform),
                ln: ln(&h.ln),
                decoder: h.decoder.as_ref().map(&mat),
                bias: bias(&h.bias),
            }),
            nsp: self.nsp.as_ref().map(lin),
            task: self.task.as_ref().map(|t| TaskParams { kind: t.kind, linear: lin(&t.linear) }),
        }
    }

    /// BERT's initialisation (`_init_weights`): weights N(0, 0.02), biases 0, LayerNorm 1/0.
    pub fn init(cfg: &BertConfig, heads: Heads, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        Self::build(cfg, heads, Some(&mut || T::c(0.02 * rng.normal())))
    }

    /// All zeros (a skeleton to load into).
    pub fn zeros(cfg: &BertConfig, heads: Heads) -> Self {
        Self::build(cfg, heads, None)
    }

    /// The structure `cfg` and `heads` ask for; weight matrices drawn from `w`, or zeros when
    /// None (a plain fill: calling a closure per element cost a loading page ~50 ms in wasm).
    fn build(cfg: &BertConfig, heads: Heads, mut w: Option<&mut dyn FnMut() -> T>) -> Self {
        let (h, i, v) = (cfg.hidden_size, cfg.intermediate_size, cfg.vocab_size);
        let mut normal = |r: usize, c: usize| match w.as_mut() {
            Some(w) => Array2::from_shape_simple_fn((r, c), &mut **w),
            None => Array2::zeros((r, c)),
        };
        let ln = || LayerNorm { gamma: Array1::ones(h), beta: Array1::zeros(h) };
        let mut lin = |o: usize, n: usize| Linear { weight: normal(o, n), bias: Array1::zeros(o) };
        let emb = Embeddings {
            word: lin(v, h).weight,
            position: match cfg.position_encoding {
                PositionEncoding::Learned => Some(lin(cfg.max_position_embeddings, h).weight),
                PositionEncoding::Sinusoidal => None,
            },
            token_type: cfg.family.has_segments().then(|| lin(cfg.type_vocab_size, h).weight),
            ln: ln(),
        };
        let layers = (0..cfg.num_hidden_layers)
            .map(|_| Layer {
                query: lin(h, h),
                key: lin(h, h),
                value: lin(h, h),
                attn_out: lin(h, h),
                attn_ln: ln(),
                intermediate: lin(i, h),
                output: lin(h, i),
                out_ln: ln(),
                cross: cfg.add_cross_attention.then(|| CrossAttention {
                    query: lin(h, h),
                    key: lin(h, h),
                    value: lin(h, h),
                    out: lin(h, h),
                    ln: ln(),
                }),
            })
            .collect();
        let pooler = heads.pooler.then(|| lin(h, h));
        let mlm = heads.mlm.then(|| MlmHead {
            transform: lin(h, h),
            ln: ln(),
            decoder: (!cfg.tie_word_embeddings).then(|| lin(v, h).weight),
            bias: Array1::zeros(v),
        });
        let nsp = heads.nsp.then(|| lin(2, h));
        let task = heads.task.map(|t| TaskParams { kind: t.kind, linear: lin(t.outputs, h) });
        BertParams { emb, layers, pooler, mlm, nsp, task }
    }

    /// The decoder matrix (V, H): its own, or the word embeddings when tied.
    pub fn decoder(&self) -> Option<&Array2<T>> {
        let h = self.mlm.as_ref()?;
        Some(h.decoder.as_ref().unwrap_or(&self.emb.word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::count_params;

    #[test]
    fn tensor_list_matches_the_counter_and_names_are_unique() {
        let tasks = TaskKind::ALL.map(|k| Heads::for_task(k, 3));
        for heads in [Heads::BASE_MODEL, Heads::MASKED_LM, Heads::PRETRAINING].into_iter().chain(tasks) {
            let mut cfg = BertConfig::new(50, 12, 2, 3, 20, 16);
            for tie in [true, false] {
                cfg.tie_word_embeddings = tie;
                let p = BertParams::<f32>::init(&cfg, heads, 1);
                assert_eq!(p.num_params(), count_params(&cfg, heads).total);
                let names: std::collections::HashSet<_> = p.tensors().into_iter().map(|(n, _)| n).collect();
                assert_eq!(names.len(), p.tensors().len());
                let mut q = p.clone();
                assert_eq!(q.tensors_mut().len(), p.tensors().len());
            }
        }
    }
}
