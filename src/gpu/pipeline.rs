//! Compiled compute pipelines, cached by (shader family, entry point, workgroup size). Each WGSL
//! family has a fixed binding layout: binding 0 is a uniform of u32/f32 words, then `ro`
//! read-only storage buffers, then `rw` read-write ones; workgroup sizes are pipeline-overridable
//! constants `WG_X`, `WG_Y`, so one source serves every size the adapter allows.

use crate::error::{BertError, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// One file in `shaders/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Matmul,
    Attention,
    LayerNorm,
    Elementwise,
    Embedding,
    Reduce,
    CrossEntropy,
    AdamW,
}

impl Family {
    pub fn source(self) -> &'static str {
        match self {
            Family::Matmul => include_str!("../../shaders/matmul.wgsl"),
            Family::Attention => include_str!("../../shaders/attention.wgsl"),
            Family::LayerNorm => include_str!("../../shaders/layernorm.wgsl"),
            Family::Elementwise => include_str!("../../shaders/elementwise.wgsl"),
            Family::Embedding => include_str!("../../shaders/embedding.wgsl"),
            Family::Reduce => include_str!("../../shaders/reduce.wgsl"),
            Family::CrossEntropy => include_str!("../../shaders/cross_entropy.wgsl"),
            Family::AdamW => include_str!("../../shaders/adamw.wgsl"),
        }
    }

    /// (read-only, read-write) storage bindings after the uniform.
    pub fn slots(self) -> (usize, usize) {
        match self {
            Family::Matmul => (3, 1),       // a, b, bias | c
            Family::Attention => (3, 2),    // x, mask/probs, head factors | y, z
            Family::LayerNorm => (5, 4),    // x, x2, gamma, mean, rstd | out, sum/dx, stats, dgamma/dbeta
            Family::Elementwise => (2, 1),  // x, y | out
            Family::Embedding => (5, 1),    // table(s)/src, ids, lists | out
            Family::Reduce => (1, 1),       // x | out
            Family::CrossEntropy => (1, 2), // targets | logits (-> dlogits), row loss
            Family::AdamW => (2, 3),        // grads, clip | params, m, v
        }
    }
}

type Entry = Rc<(wgpu::BindGroupLayout, wgpu::ComputePipeline)>;

#[derive(Default)]
pub struct PipelineCache {
    modules: RefCell<HashMap<Family, Rc<wgpu::ShaderModule>>>,
    layouts: RefCell<HashMap<Family, Rc<(wgpu::BindGroupLayout, wgpu::PipelineLayout)>>>,
    pipelines: RefCell<HashMap<(Family, &'static str, (u32, u32)), Entry>>,
}

impl PipelineCache {
    pub fn len(&self) -> usize {
        self.pipelines.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(
        &self,
        device: &wgpu::Device,
        limits: &wgpu::Limits,
        family: Family,
        entry: &'static str,
        wg: (u32, u32),
    ) -> Result<Entry> {
        if let Some(e) = self.pipelines.borrow().get(&(family, entry, wg)) {
            return Ok(e.clone());
        }
        if wg.0 * wg.1 > limits.max_compute_invocations_per_workgroup
            || wg.0 > limits.max_compute_workgroup_size_x
            || wg.1 > limits.max_compute_workgroup_size_y
        {
            return Err(BertError::Gpu(format!(
                "{entry}: workgroup {wg:?} exceeds this GPU's limits ({} invocations)",
                limits.max_compute_invocations_per_workgroup
            )));
        }
        let module = self
            .modules
            .borrow_mut()
            .entry(family)
            .or_insert_with(|| {
                Rc::new(device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(&format!("{family:?}")),
                    source: wgpu::ShaderSource::Wgsl(family.source().into()),
                }))
            })
            .clone();
        let layouts = self.layouts.borrow_mut().entry(family).or_insert_with(|| Rc::new(make_layout(device, family))).clone();
        let constants = [("WG_X", wg.0 as f64), ("WG_Y", wg.1 as f64)];
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(&layouts.1),
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions { constants: &constants, zero_initialize_workgroup_memory: true },
            cache: None,
        });
        let e: Entry = Rc::new((layouts.0.clone(), pipeline));
        self.pipelines.borrow_mut().insert((family, entry, wg), e.clone());
        Ok(e)
    }
}

fn make_layout(device: &wgpu::Device, family: Family) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let (ro, rw) = family.slots();
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, has_dynamic_offset: false, min_binding_size: None },
        count: None,
    }];
    for i in 0..ro + rw {
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: i as u32 + 1,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: i < ro },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        });
    }
    let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(&format!("{family:?}")), entries: &entries });
    let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(&format!("{family:?}")),
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 0,
    });
    (bgl, pl)
}
