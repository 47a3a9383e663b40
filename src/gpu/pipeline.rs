//! Compiled compute pipelines, cached by (entry point, workgroup size). Each WGSL
//! family has a fixed binding layout: binding 0 is a uniform of u32/f32 words, then `ro`
//! read-only storage buffers, then `rw` read-write ones; workgroup sizes are pipeline-overridable
//! constants `WG_X`, `WG_Y`, so one source serves every size the adapter allows.

pub use super::entry::{EntryPoint, Family};
use crate::error::{BertError, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

type Cached = Rc<(wgpu::BindGroupLayout, wgpu::ComputePipeline)>;
/// (kernel, workgroup size)
type Key = (EntryPoint, (u32, u32));

#[derive(Default)]
pub struct PipelineCache {
    modules: RefCell<HashMap<Family, Rc<wgpu::ShaderModule>>>,
    layouts: RefCell<HashMap<Family, Rc<(wgpu::BindGroupLayout, wgpu::PipelineLayout)>>>,
    pipelines: RefCell<HashMap<Key, Cached>>,
}

impl PipelineCache {
    pub fn len(&self) -> usize {
        self.pipelines.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, device: &wgpu::Device, limits: &wgpu::Limits, kernel: EntryPoint, wg: (u32, u32)) -> Result<Cached> {
        let (family, entry) = kernel.at();
        if let Some(e) = self.pipelines.borrow().get(&(kernel, wg)) {
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
        let e: Cached = Rc::new((layouts.0.clone(), pipeline));
        self.pipelines.borrow_mut().insert((kernel, wg), e.clone());
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
