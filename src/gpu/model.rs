//! A BERT's parameters on the GPU: one buffer in `layout.rs`'s layout, every tensor's place resolved
//! into `slots.rs`'s fields at upload. Gradients and Adam moments use buffers of the same layout.

use super::context::GpuContext;
pub use super::layout::{ParamEntry, ParamLayout};
use super::recorder::View;
use super::slots::Slots;
use crate::config::{BertConfig, Heads};
use crate::error::{BertError, Result};
use crate::model::BertParams;

pub struct GpuModel {
    pub cfg: BertConfig,
    pub heads: Heads,
    pub layout: ParamLayout,
    /// Every tensor's place in `params` (and in the gradient and moment buffers).
    pub slots: Slots,
    pub params: wgpu::Buffer,
}

impl GpuModel {
    pub fn upload(ctx: &GpuContext, cfg: &BertConfig, params: &BertParams<f32>) -> Result<Self> {
        let layout = ParamLayout::new(params, ctx.align_elems());
        let slots = Slots::resolve(&layout, params, cfg.position_encoding)?;
        let params_buf = ctx.upload("params", &layout.flatten(params))?;
        Ok(GpuModel { cfg: cfg.clone(), heads: params.heads(), layout, slots, params: params_buf })
    }

    /// The parameters back on the CPU (after training).
    pub async fn download(&self, ctx: &GpuContext) -> Result<BertParams<f32>> {
        let rec = ctx.recorder();
        let h = rec.read(View::whole(&self.params));
        let r = rec.finish().await?;
        let mut p = BertParams::zeros(&self.cfg, self.heads);
        if p.num_params() > self.layout.total {
            return Err(BertError::Gpu("parameter layout does not match the model".into()));
        }
        self.layout.unflatten(r.get(h), &mut p);
        Ok(p)
    }
}
