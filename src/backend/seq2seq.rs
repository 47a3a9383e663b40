//! An encoder-decoder's forward, and its teacher-forced loss and gradients, through the backend. On
//! the CPU, `seq2seq::forward`; on the GPU the forward is two submits (each half read back whole),
//! the loss and gradients the same steps in three submits, the encoder's
//! trace kept on the device between them: the encoder's forward (its last hidden state read back),
//! the decoder's forward and backward reading it (the encoder states' gradient read back), and the
//! encoder's backward from that gradient. `enc_to_dec_proj` (when the widths differ) runs on the CPU
//! between the submits: one (B*S, H) product each way.

use super::{Backend, WeightsKey};
use crate::error::Result;
use crate::model::forward::MlmRows;
use crate::seq2seq::forward::{forward, loss_and_grads, Seq2SeqBatch, Seq2SeqTrace};
use crate::seq2seq::{Seq2Seq, Seq2SeqParams};

impl Backend {
    /// Both halves' forward with every intermediate, the decoder's logits at `rows`, as
    /// `seq2seq::forward::forward`.
    pub async fn seq2seq_forward(
        &mut self,
        m: &Seq2Seq,
        key: WeightsKey,
        batch: &Seq2SeqBatch,
        rows: MlmRows,
    ) -> Result<Seq2SeqTrace<f32>> {
        #[cfg(feature = "gpu")]
        if let Some(g) = &mut self.gpu {
            return gpu::forward(g, m, key, batch, rows).await;
        }
        let _ = key;
        forward(&m.params, &m.cfg, batch, rows)
    }

    /// The mean cross-entropy over `labels` (B*T, -100 ignored) and every parameter's gradient
    /// (dropout off), as `seq2seq::forward::loss_and_grads`. `key` names the weights as in `forward`.
    pub async fn seq2seq_loss_and_grads(
        &mut self,
        m: &Seq2Seq,
        key: WeightsKey,
        batch: &Seq2SeqBatch,
        labels: &[i64],
    ) -> Result<(f32, Seq2SeqParams<f32>)> {
        #[cfg(feature = "gpu")]
        if let Some(g) = &mut self.gpu {
            return gpu::loss_and_grads(g, m, key, batch, labels).await;
        }
        let _ = key;
        let out = loss_and_grads(&m.params, &m.cfg, batch, labels)?;
        Ok((out.loss, out.grads))
    }
}

#[cfg(feature = "gpu")]
mod gpu {
    use super::super::{GpuSide, WeightsKey};
    use crate::cpu::linear::{linear_backward, linear_forward};
    use crate::error::{BertError, Result};
    use crate::gpu::backward::record_backward;
    use crate::gpu::forward::record_forward;
    use crate::gpu::model::GpuModel;
    use crate::gpu::{GpuContext, View};
    use crate::model::backward::Targets;
    use crate::model::forward::{EncoderStates, ForwardOptions, MlmRows};
    use crate::seq2seq::forward::{Seq2SeqBatch, Seq2SeqTrace};
    use crate::seq2seq::{Seq2Seq, Seq2SeqParams};
    use ndarray::Array2;

    impl GpuSide {
        /// The device and both halves' weights on it, uploaded when `key` is not the last one's.
        fn with_seq2seq(&mut self, key: WeightsKey, m: &Seq2Seq) -> Result<(&GpuContext, &GpuModel, &GpuModel)> {
            if self.seq2seq.as_ref().map(|s| s.0) != Some(key) {
                self.seq2seq = None; // free the old weights before the new ones go up
                let enc = GpuModel::upload(&self.ctx, &m.cfg.encoder, &m.params.encoder)?;
                let dec = GpuModel::upload(&self.ctx, &m.cfg.decoder, &m.params.decoder)?;
                self.seq2seq = Some((key, enc, dec));
            }
            let (_, enc, dec) = self.seq2seq.as_ref().expect("uploaded above");
            Ok((&self.ctx, enc, dec))
        }
    }

    /// The encoder's last hidden state (B*S, H_enc) at the decoder's width.
    fn project(m: &Seq2Seq, last: &Array2<f32>) -> Array2<f32> {
        match &m.params.proj {
            Some(pr) => linear_forward(last.view(), pr.weight.view(), Some(pr.bias.view())),
            None => last.clone(),
        }
    }

    fn check(batch: &Seq2SeqBatch) -> Result<()> {
        match batch.src.b == batch.tgt.b {
            true => Ok(()),
            false => Err(BertError::Input(format!("{} sources but {} targets", batch.src.b, batch.tgt.b))),
        }
    }

    pub(super) async fn forward(
        g: &mut GpuSide,
        m: &Seq2Seq,
        key: WeightsKey,
        batch: &Seq2SeqBatch,
        rows: MlmRows,
    ) -> Result<Seq2SeqTrace<f32>> {
        check(batch)?;
        let (ctx, enc, dec) = g.with_seq2seq(key, m)?;
        let eopts = ForwardOptions { mlm_rows: MlmRows::None, ..Default::default() };
        let encoder = crate::gpu::trace_read::forward(ctx, enc, &batch.src, &eopts).await?;
        let states = EncoderStates { hidden: project(m, encoder.last_hidden()), mask: encoder.mask.clone() };
        let dopts = ForwardOptions { mlm_rows: rows, encoder: Some(states.clone()), ..Default::default() };
        let decoder = crate::gpu::trace_read::forward(ctx, dec, &batch.tgt, &dopts).await?;
        Ok(Seq2SeqTrace { encoder, states, decoder })
    }

    fn matrix(v: &[f32], rows: usize, cols: usize, what: &str) -> Result<Array2<f32>> {
        Array2::from_shape_vec((rows, cols), v.to_vec()).map_err(|e| BertError::Gpu(format!("{what} readback: {e}")))
    }

    pub(super) async fn loss_and_grads(
        g: &mut GpuSide,
        m: &Seq2Seq,
        key: WeightsKey,
        batch: &Seq2SeqBatch,
        labels: &[i64],
    ) -> Result<(f32, Seq2SeqParams<f32>)> {
        check(batch)?;
        let (src, tgt) = (&batch.src, &batch.tgt);
        let targets = Targets { mlm_labels: Some(labels.to_vec()), nsp_labels: None, task: None };
        targets.validate(&m.cfg.decoder, tgt)?;
        if targets.labelled_rows().is_empty() {
            return Err(BertError::Input("every label is -100: nothing to learn from".into()));
        }
        let (ctx, enc, dec) = g.with_seq2seq(key, m)?;
        let ns = src.b * src.t;
        let mut grads = m.params.zeros_like();

        // 1. The encoder's forward; its last hidden state (B*S, H_enc) comes back.
        let mut rec = ctx.recorder();
        let eopts = ForwardOptions { mlm_rows: MlmRows::None, ..Default::default() };
        let etr = record_forward(&mut rec, enc, src, &eopts, false)?;
        let hl = rec.read(View::whole(etr.hidden.last().expect("at least the embeddings")));
        let rb = rec.finish().await?;
        let last = matrix(rb.get(hl), ns, m.cfg.encoder.hidden_size, "the encoder's last hidden state")?;
        let hidden = project(m, &last);
        let mask = Array2::from_shape_fn((src.b, src.t), |(i, j)| src.attention_mask[i * src.t + j] as f32);

        // 2. The decoder's forward and backward on it; the encoder states' gradient comes back.
        let dgrads = ctx.buffer("decoder_grads", dec.layout.total)?;
        let mut rec = ctx.recorder();
        let dopts = ForwardOptions { encoder: Some(EncoderStates { hidden, mask }), ..targets.forward_options(None) };
        let dtr = record_forward(&mut rec, dec, tgt, &dopts, false)?;
        let reads = record_backward(&mut rec, dec, &dgrads, tgt, &dtr, &targets, None)?;
        let hg = rec.read(View::whole(&dgrads));
        let de = reads.d_encoder.as_ref().ok_or_else(|| BertError::Gpu("the decoder has no cross-attention".into()))?;
        let hd = rec.read(View::whole(de));
        let rb = rec.finish().await?;
        dec.layout.unflatten(rb.get(hg), &mut grads.decoder);
        let loss = reads.loss(&rb).loss;
        let d_states = matrix(rb.get(hd), ns, m.cfg.decoder.hidden_size, "the encoder states' gradient")?;
        let d_last = match (&m.params.proj, grads.proj.as_mut()) {
            (Some(pr), Some(gp)) => {
                linear_backward(d_states.view(), last.view(), pr.weight.view(), gp.weight.view_mut(), Some(gp.bias.view_mut()))
            }
            _ => d_states,
        };

        // 3. The encoder's backward from that gradient (its trace still on the device).
        let egrads = ctx.buffer("encoder_grads", enc.layout.total)?;
        let d_last = ctx.upload("d_last", &d_last.iter().copied().collect::<Vec<f32>>())?;
        let mut rec = ctx.recorder();
        record_backward(&mut rec, enc, &egrads, src, &etr, &Targets::default(), Some(View::whole(&d_last)))?;
        let hg = rec.read(View::whole(&egrads));
        let rb = rec.finish().await?;
        enc.layout.unflatten(rb.get(hg), &mut grads.encoder);
        Ok((loss, grads))
    }
}
