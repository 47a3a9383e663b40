//! The forward pass on the GPU, step for step as `crate::model::forward` (the spec), keeping every
//! intermediate in a buffer: the backward reads them, and `trace_read` brings them back as the
//! same `ForwardTrace` the CPU path returns (so `inspect --device gpu` writes the same file).

use super::attend::{attend, AttnOut};
use super::context::GpuContext;
use super::cross::{record_cross_forward, CrossBlock, GpuEncoder};
use super::kernels::attention::{is_weighted, AttnDims, AttnDropout, Multiplier};
use super::kernels::elementwise::{act_forward, dropout, Act};
use super::kernels::embedding::{embed_sum, gather};
use super::kernels::layernorm::{layernorm_forward, LnIn, LnOut};
use super::kernels::matmul::linear;
use super::model::GpuModel;
use super::recorder::{Recorder, View};
use super::sites::site_seed;
use super::slots::{LinearSlots, NormSlots, Slot};
use crate::config::TaskKind;
use crate::cpu::position::sinusoidal_table;
use crate::error::{BertError, Result};
use crate::model::forward::{Batch, ForwardOptions, MlmRows};
use crate::model::task::head_dropout;

pub use super::trace::{GpuLayerTrace, GpuMlmTrace, GpuPoolTrace, GpuTaskTrace, GpuTrace};

/// What every step of one forward reads: the model, the batch's sizes and the dropout seed.
struct Fwd<'m> {
    m: &'m GpuModel,
    ctx: &'m GpuContext,
    b: usize,
    t: usize,
    n: usize,
    h: usize,
    seed: Option<u32>,
}

impl<'m> Fwd<'m> {
    /// Dropout at site `site` with probability `p`: (its seed, p), when dropout is on.
    fn drop(&self, site: usize, p: f64) -> Option<(u32, f32)> {
        self.seed.filter(|_| p > 0.0).map(|s| (site_seed(s, site), p as f32))
    }

    fn buf(&self, label: &str, len: usize) -> Result<wgpu::Buffer> {
        self.ctx.buffer(label, len)
    }

    fn w(&self, s: Slot) -> View<'m> {
        s.of(&self.m.params)
    }

    /// y (rows, OUT) = x W^T + b with the parameters of `lin`.
    fn linear(
        &self,
        rec: &mut Recorder<'_>,
        x: View<'_>,
        lin: LinearSlots,
        y: &wgpu::Buffer,
        (rows, inp, out): (usize, usize, usize),
    ) -> Result<()> {
        linear(rec, x, self.w(lin.weight), Some(self.w(lin.bias)), View::whole(y), (rows, inp, out))
    }

    /// LayerNorm of `rows` rows of `x` (+ `residual`, the sum kept in `sum`) with `ln`, into new
    /// buffers named `names` (out, mean, rstd).
    fn norm(
        &self,
        rec: &mut Recorder<'_>,
        x: View<'_>,
        residual: Option<(View<'_>, View<'_>)>,
        ln: NormSlots,
        rows: usize,
        names: [&str; 3],
    ) -> Result<[wgpu::Buffer; 3]> {
        let h = self.h;
        let [out, mean, rstd] = [self.buf(names[0], rows * h)?, self.buf(names[1], rows)?, self.buf(names[2], rows)?];
        let input = LnIn { x, residual, gamma: self.w(ln.gamma), beta: self.w(ln.beta) };
        let to = LnOut { out: View::whole(&out), mean: View::whole(&mean), rstd: View::whole(&rstd) };
        layernorm_forward(rec, input, to, (rows, h), self.m.cfg.layer_norm_eps)?;
        Ok([out, mean, rstd])
    }

    /// Dropout of `len` values of `x` in place, at site `site`.
    fn dropout(&self, rec: &mut Recorder<'_>, x: &wgpu::Buffer, len: usize, site: usize, p: f64) -> Result<()> {
        match self.drop(site, p) {
            Some((s, p)) => dropout(rec, View::whole(x), len, p, s),
            None => Ok(()),
        }
    }
}

/// The embeddings' part of the trace.
struct Embedded {
    word: Option<wgpu::Buffer>,
    position: wgpu::Buffer,
    token_type: Option<wgpu::Buffer>,
    sum: wgpu::Buffer,
    x0: wgpu::Buffer,
    ln_mean: wgpu::Buffer,
    ln_rstd: wgpu::Buffer,
}

/// Records the forward of `batch` into `rec`. With `keep_parts`, the word and token-type parts of
/// the embedding sum are kept too (the explainer shows them; training does not need them).
pub fn record_forward(
    rec: &mut Recorder<'_>,
    m: &GpuModel,
    batch: &Batch,
    opts: &ForwardOptions<f32>,
    keep_parts: bool,
) -> Result<GpuTrace> {
    let cfg = &m.cfg;
    batch.validate(cfg)?;
    let ctx: &GpuContext = rec.ctx();
    ctx.check_alive()?;
    if let Some(hm) = &opts.head_mask {
        if hm.dim() != (cfg.num_hidden_layers, cfg.num_attention_heads) {
            return Err(BertError::Input(format!(
                "head mask must be (layers, heads) = ({}, {}), got {:?}",
                cfg.num_hidden_layers,
                cfg.num_attention_heads,
                hm.dim()
            )));
        }
    }
    let (b, t) = (batch.b, batch.t);
    let seed = opts.dropout_seed.map(|s| (s ^ (s >> 32)) as u32);
    let f = Fwd { m, ctx, b, t, n: b * t, h: cfg.hidden_size, seed };
    let maskv: Vec<f32> = batch.attention_mask.iter().map(|&x| x as f32).collect();
    let mask = ctx.upload("attention_mask", &maskv)?;
    let e = record_embeddings(rec, &f, batch, opts, keep_parts)?;
    // a decoder's encoder (what its cross-attention reads), uploaded once
    let encoder = match (m.slots.layers.iter().any(|l| l.cross.is_some()), &opts.encoder) {
        (true, Some(enc)) => Some(GpuEncoder::upload(rec, enc, b, f.h)?),
        (true, None) => return Err(BertError::Input("a decoder needs the encoder's output (ForwardOptions::encoder)".into())),
        (false, _) => None,
    };
    let mut hidden = vec![e.x0];
    let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
    for l in 0..cfg.num_hidden_layers {
        let input = View::whole(hidden.last().expect("input"));
        let (layer, out) = record_layer(rec, &f, l, input, &mask, encoder.as_ref(), opts)?;
        layers.push(layer);
        hidden.push(out);
    }
    let last = View::whole(hidden.last().expect("hidden"));
    let mlm = record_mlm(rec, &f, last, &opts.mlm_rows)?;
    let pool = record_pool(rec, &f, last)?;
    let task = record_task(rec, &f, last, pool.as_ref())?;
    Ok(GpuTrace {
        b,
        t,
        mask,
        word: e.word,
        position: e.position,
        token_type: e.token_type,
        sum: e.sum,
        ln_mean: e.ln_mean,
        ln_rstd: e.ln_rstd,
        hidden,
        layers,
        mlm,
        pool,
        task,
        head_mask: opts.head_mask.clone(),
        dropout_seed: seed,
        encoder,
    })
}

/// Embeddings: word + position + token type, LayerNorm, dropout.
fn record_embeddings(rec: &mut Recorder<'_>, f: &Fwd<'_>, batch: &Batch, opts: &ForwardOptions<f32>, keep_parts: bool) -> Result<Embedded> {
    let (cfg, ps, ctx, n, h) = (&f.m.cfg, &f.m.slots, f.ctx, f.n, f.h);
    // the position rows of every token (N, H), at the family's position ids (RoBERTa's skip pads)
    let pos_ids = batch.position_ids(cfg);
    let position = match ps.position {
        Some(slot) => {
            let out = f.buf("position", n * h)?;
            gather(rec, f.w(slot), &pos_ids, h, View::whole(&out))?;
            out
        }
        None => {
            let table = sinusoidal_table::<f32>(pos_ids.iter().max().map_or(0, |m| m + 1), h);
            let rows: Vec<f32> = pos_ids.iter().flat_map(|&p| table.row(p).to_vec()).collect();
            ctx.upload("position", &rows)?
        }
    };
    // no segment table (DistilBERT): a zero row for every token
    let zero_type;
    let type_t = match ps.token_type {
        Some(slot) => f.w(slot),
        None => {
            zero_type = ctx.upload("no_segments", &vec![0f32; h])?;
            View::whole(&zero_type)
        }
    };
    let type_ids: Vec<usize> = if ps.token_type.is_some() { batch.token_type_ids.clone() } else { vec![0; n] };
    // the word rows: looked up by id, or given (attributions move them): then row i is row i
    let rows_buf;
    let (word_t, word_ids): (View<'_>, Vec<usize>) = match &opts.word_rows {
        Some(r) if r.dim() == (n, h) => {
            rows_buf = ctx.upload("word_rows", r.as_standard_layout().as_slice().expect("standard layout"))?;
            (View::whole(&rows_buf), (0..n).collect())
        }
        Some(r) => return Err(BertError::Input(format!("word rows must be (B*T, H) = ({n}, {h}), got {:?}", r.dim()))),
        None => (f.w(ps.word), batch.input_ids.clone()),
    };
    let sum = f.buf("emb_sum", n * h)?;
    // position rows are per token, so the kernel's row % T is the row itself
    embed_sum(rec, word_t, View::whole(&position), type_t, (&word_ids, &type_ids), (n, h), View::whole(&sum))?;
    let (word, token_type) = if keep_parts {
        let wb = f.buf("emb_word", n * h)?;
        gather(rec, word_t, &word_ids, h, View::whole(&wb))?;
        let tb = f.buf("emb_type", n * h)?;
        gather(rec, type_t, &type_ids, h, View::whole(&tb))?;
        (Some(wb), Some(tb))
    } else {
        (None, None)
    };
    let [x0, ln_mean, ln_rstd] = f.norm(rec, View::whole(&sum), None, ps.emb_ln, n, ["hidden0", "emb_ln_mean", "emb_ln_rstd"])?;
    f.dropout(rec, &x0, n * h, 0, cfg.hidden_dropout_prob)?;
    Ok(Embedded { word, position, token_type, sum, x0, ln_mean, ln_rstd })
}

/// Layer `l` on `input` (N, H): self-attention, add & norm, (a decoder's cross-attention), the
/// FFN, add & norm. Returns its trace and its output.
fn record_layer(
    rec: &mut Recorder<'_>,
    f: &Fwd<'_>,
    l: usize,
    input: View<'_>,
    mask: &wgpu::Buffer,
    encoder: Option<&GpuEncoder>,
    opts: &ForwardOptions<f32>,
) -> Result<(GpuLayerTrace, wgpu::Buffer)> {
    let (cfg, ls, n, h) = (&f.m.cfg, &f.m.slots.layers[l], f.n, f.h);
    let (nh, inter) = (cfg.num_attention_heads, cfg.intermediate_size);
    let (q, k, v) = (f.buf("q", n * h)?, f.buf("k", n * h)?, f.buf("v", n * h)?);
    for (out, lin) in [(&q, ls.query), (&k, ls.key), (&v, ls.value)] {
        f.linear(rec, input, lin, out, (n, h, h))?;
    }
    let hrow: Vec<f32> = match &opts.head_mask {
        Some(hm) => hm.row(l).to_vec(),
        None => vec![1.0; nh],
    };
    let head = f.ctx.upload("head_mask", &hrow)?;
    let adrop = f.drop(1 + 3 * l, cfg.attention_probs_dropout_prob).map(|(seed, p)| AttnDropout { p, seed });
    let weighted = is_weighted(opts.head_mask.is_some(), adrop);
    let dims = AttnDims { causal: cfg.is_decoder, ..AttnDims::selfish(f.b, f.t, nh, h / nh) };
    let qkv = (View::whole(&q), View::whole(&k), View::whole(&v));
    let AttnOut { scores, probs, pw, context } =
        attend(rec, &dims, "", qkv, View::whole(mask), Multiplier { head: View::whole(&head), drop: adrop, weighted })?;
    let attn_dense = f.buf("attn_dense", n * h)?;
    f.linear(rec, View::whole(&context), ls.attn_out, &attn_dense, (n, h, h))?;
    f.dropout(rec, &attn_dense, n * h, 2 + 3 * l, cfg.hidden_dropout_prob)?;
    let attn_res = f.buf("attn_res", n * h)?;
    let names = ["attn_ln_out", "attn_ln_mean", "attn_ln_rstd"];
    let [attn_ln_out, attn_ln_mean, attn_ln_rstd] =
        f.norm(rec, View::whole(&attn_dense), Some((input, View::whole(&attn_res))), ls.attn_ln, n, names)?;
    // a decoder layer: attention on the encoder, between the self-attention and the FFN
    let cross = match (&ls.cross, encoder) {
        (Some(cs), Some(enc)) => {
            let cb = CrossBlock { m: f.m, cs, enc, dims: (f.b, f.t, l), seed: f.seed };
            Some(record_cross_forward(rec, &cb, View::whole(&attn_ln_out))?)
        }
        _ => None,
    };
    let ffn_in = View::whole(cross.as_ref().map_or(&attn_ln_out, |c| &c.ln_out));
    let (ffn_pre, ffn_act) = (f.buf("ffn_pre", n * inter)?, f.buf("ffn_act", n * inter)?);
    f.linear(rec, ffn_in, ls.intermediate, &ffn_pre, (n, h, inter))?;
    let act: Act = cfg.activation().into();
    act_forward(rec, act, View::whole(&ffn_pre), View::whole(&ffn_act), n * inter)?;
    let ffn_out = f.buf("ffn_out", n * h)?;
    f.linear(rec, View::whole(&ffn_act), ls.output, &ffn_out, (n, inter, h))?;
    f.dropout(rec, &ffn_out, n * h, 3 + 3 * l, cfg.hidden_dropout_prob)?;
    let out_res = f.buf("out_res", n * h)?;
    let names = ["hidden", "out_ln_mean", "out_ln_rstd"];
    let [out, out_ln_mean, out_ln_rstd] = f.norm(rec, View::whole(&ffn_out), Some((ffn_in, View::whole(&out_res))), ls.out_ln, n, names)?;
    let trace = GpuLayerTrace {
        q,
        k,
        v,
        scores,
        probs,
        pw,
        weighted,
        head,
        context,
        attn_dense,
        attn_res,
        attn_ln_mean,
        attn_ln_rstd,
        attn_ln_out,
        ffn_pre,
        ffn_act,
        ffn_out,
        out_res,
        out_ln_mean,
        out_ln_rstd,
        cross,
    };
    Ok((trace, out))
}

/// The masked-LM head at `rows` of the last hidden state `last`.
fn record_mlm(rec: &mut Recorder<'_>, f: &Fwd<'_>, last: View<'_>, rows: &MlmRows) -> Result<Option<GpuMlmTrace>> {
    let (cfg, n, h) = (&f.m.cfg, f.n, f.h);
    let mh = match (&f.m.slots.mlm, rows) {
        (None, _) | (_, MlmRows::None) => return Ok(None),
        (Some(mh), _) => mh,
    };
    let rows: Vec<usize> = match rows {
        MlmRows::Rows(r) => r.clone(),
        _ => (0..n).collect(),
    };
    if let Some(&r) = rows.iter().find(|&&r| r >= n) {
        return Err(BertError::Input(format!("MLM row {r} is outside the batch ({n} rows)")));
    }
    let mm = rows.len();
    let x = f.buf("mlm_x", mm * h)?;
    gather(rec, last, &rows, h, View::whole(&x))?;
    let (pre, act) = (f.buf("mlm_pre", mm * h)?, f.buf("mlm_act", mm * h)?);
    f.linear(rec, View::whole(&x), mh.transform, &pre, (mm, h, h))?;
    act_forward(rec, cfg.mlm_activation().into(), View::whole(&pre), View::whole(&act), mm * h)?;
    let [ln_out, ln_mean, ln_rstd] = f.norm(rec, View::whole(&act), None, mh.ln, mm, ["mlm_ln_out", "mlm_ln_mean", "mlm_ln_rstd"])?;
    let logits = f.buf("mlm_logits", mm * cfg.vocab_size)?;
    linear(rec, View::whole(&ln_out), f.w(mh.decoder), Some(f.w(mh.bias)), View::whole(&logits), (mm, h, cfg.vocab_size))?;
    Ok(Some(GpuMlmTrace { rows, x, pre, act, ln_mean, ln_rstd, ln_out, logits }))
}

/// The pooler on each sequence's [CLS] (and the next-sentence head on it).
fn record_pool(rec: &mut Recorder<'_>, f: &Fwd<'_>, last: View<'_>) -> Result<Option<GpuPoolTrace>> {
    let (cfg, b, t, h) = (&f.m.cfg, f.b, f.t, f.h);
    let Some(pl) = f.m.slots.pooler else { return Ok(None) };
    let cls_rows: Vec<usize> = (0..b).map(|bi| bi * t).collect();
    let cls = f.buf("cls", b * h)?;
    gather(rec, last, &cls_rows, h, View::whole(&cls))?;
    let pre = f.buf("pool_pre", b * h)?;
    f.linear(rec, View::whole(&cls), pl, &pre, (b, h, h))?;
    let pooled = f.buf("pooled", b * h)?;
    act_forward(rec, cfg.pooler_activation().into(), View::whole(&pre), View::whole(&pooled), b * h)?;
    let nsp_logits = match f.m.slots.nsp {
        Some(ns) => {
            let nl = f.buf("nsp_logits", b * 2)?;
            f.linear(rec, View::whole(&pooled), ns, &nl, (b, h, 2))?;
            Some(nl)
        }
        None => None,
    };
    Ok(Some(GpuPoolTrace { cls, pooled, nsp_logits, act: cfg.pooler_activation().into() }))
}

/// A fine-tuning head (model::task): on the pooled [CLS] or on every token.
fn record_task(rec: &mut Recorder<'_>, f: &Fwd<'_>, last: View<'_>, pool: Option<&GpuPoolTrace>) -> Result<Option<GpuTaskTrace>> {
    let (cfg, h) = (&f.m.cfg, f.h);
    let Some((kind, lin)) = &f.m.slots.task else { return Ok(None) };
    let outs = lin.bias.len;
    let (rows, src) = match kind {
        TaskKind::SequenceClassification => {
            let pt = pool.ok_or_else(|| BertError::Config("a sequence classifier needs the pooler".into()))?;
            (f.b, View::whole(&pt.pooled))
        }
        _ => (f.n, last),
    };
    let input = f.buf("task_input", rows * h)?;
    rec.copy(src, View::whole(&input));
    f.dropout(rec, &input, rows * h, 1 + 3 * cfg.num_hidden_layers, head_dropout(cfg, *kind))?;
    let logits = f.buf("task_logits", rows * outs)?;
    f.linear(rec, View::whole(&input), *lin, &logits, (rows, h, outs))?;
    Ok(Some(GpuTaskTrace { kind: *kind, rows, input, logits }))
}
