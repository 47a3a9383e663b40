//! One wgpu device for the whole engine: adapter, device, queue and limits; buffers with labels
//! and shapes; the pipeline cache. Submits, dispatches and readbacks are counted so tests can hold
//! them down; the recorder that fills one command encoder is `recorder.rs`.

use super::pipeline::PipelineCache;
use crate::error::{BertError, Result};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What the caller needs to know about the adapter (the page shows `name`).
#[derive(Clone, Debug, PartialEq)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: String,
    pub max_buffer_size: u64,
    pub max_storage_binding: u64,
}

/// Counters for the tests and the bench table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub submits: u64,
    pub dispatches: u64,
    pub readbacks: u64,
}

pub struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: AdapterSummary,
    pub limits: wgpu::Limits,
    pub(crate) pipelines: PipelineCache,
    counters: Cell<Counters>,
    lost: Arc<AtomicBool>,
    /// The first error wgpu reported outside an error scope.
    stray: Arc<std::sync::Mutex<Option<String>>>,
    /// The adapter is a CPU driver with 8-lane subgroups (lavapipe on AVX2) and the device has
    /// `Features::SUBGROUP`: matmuls use `kernels::matmul_subgroup` (see there why).
    pub subgroup8: bool,
    /// Bound where a kernel does not use a slot (layouts are fixed per family).
    pub(super) dummy_ro: wgpu::Buffer,
    /// One per writable slot: WebGPU rejects a buffer bound to two writable slots of a dispatch.
    pub(super) dummy_rw: Vec<wgpu::Buffer>,
}

pub(super) fn gpu_err(msg: impl Into<String>) -> BertError {
    BertError::Gpu(msg.into())
}

impl GpuContext {
    /// Finds an adapter (any backend wgpu was built with: Vulkan incl. lavapipe, Metal, DX12,
    /// browser WebGPU) and opens a device with the adapter's own limits.
    pub async fn new() -> Result<Self> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                ..Default::default()
            })
            .await
            .map_err(|e| gpu_err(format!("no GPU adapter found ({e}); use the CPU path (--device cpu)")))?;
        let ai = adapter.get_info();
        let limits = adapter.limits();
        // BS_SUBGROUP_MATMUL=0 keeps the tiled kernel (to compare the two on one adapter)
        let allowed = !matches!(std::env::var("BS_SUBGROUP_MATMUL").as_deref(), Ok("0"));
        let subgroup8 = allowed
            && ai.device_type == wgpu::DeviceType::Cpu
            && ai.subgroup_min_size == 8
            && ai.subgroup_max_size == 8
            && adapter.features().contains(wgpu::Features::SUBGROUP);
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("bertscope"),
                required_features: if subgroup8 { wgpu::Features::SUBGROUP } else { wgpu::Features::empty() },
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| gpu_err(format!("could not open the GPU device on {}: {e}", ai.name)))?;
        let lost = Arc::new(AtomicBool::new(false));
        let flag = lost.clone();
        device.set_device_lost_callback(move |_reason, _msg| flag.store(true, Ordering::SeqCst));
        // Errors outside a recorder's scopes (an upload to a lost device) are kept for the next
        // `check_alive` instead of wgpu's default handler, which panics.
        let stray = Arc::new(std::sync::Mutex::new(None::<String>));
        let sink = stray.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
            s.get_or_insert_with(|| e.to_string());
        }));
        let mk = |label: &str, usage| {
            device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size: 16, usage, mapped_at_creation: false })
        };
        let dummy_ro = mk("dummy-ro", wgpu::BufferUsages::STORAGE);
        let most_rw = 4; // LayerNorm's forward: out, sum, mean, rstd
        let dummy_rw = (0..most_rw).map(|i| mk(&format!("dummy-rw-{i}"), wgpu::BufferUsages::STORAGE)).collect();
        let info = AdapterSummary {
            name: ai.name.clone(),
            backend: format!("{:?}", ai.backend),
            max_buffer_size: limits.max_buffer_size,
            max_storage_binding: limits.max_storage_buffer_binding_size as u64,
        };
        Ok(GpuContext {
            device,
            queue,
            info,
            limits,
            pipelines: PipelineCache::default(),
            counters: Cell::new(Counters::default()),
            lost,
            stray,
            subgroup8,
            dummy_ro,
            dummy_rw,
        })
    }

    /// Native callers block on the async constructor.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_blocking() -> Result<Self> {
        pollster::block_on(Self::new())
    }

    pub fn counters(&self) -> Counters {
        self.counters.get()
    }

    pub(super) fn bump(&self, f: impl FnOnce(&mut Counters)) {
        let mut c = self.counters.get();
        f(&mut c);
        self.counters.set(c);
    }

    /// Errors once the device is lost (driver reset, browser took it away): the caller falls back
    /// to the CPU path; the context must be rebuilt.
    pub fn check_alive(&self) -> Result<()> {
        // natively the lost callback runs from poll (a destroyed device is lost once its queue is idle)
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::Poll);
        if self.lost.load(Ordering::SeqCst) {
            return Err(gpu_err("the GPU device was lost; switch to the CPU path or reload"));
        }
        // sticky: only uploads run outside a recorder's scopes, and they fail on a broken device
        if let Some(e) = self.stray.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            let first = e.lines().filter(|l| !l.trim().is_empty()).last().unwrap_or("").trim();
            return Err(gpu_err(format!("the GPU device stopped working ({first}); switch to the CPU path or reload")));
        }
        Ok(())
    }

    /// Offsets of sub-range bindings must be multiples of this many f32s.
    pub fn align_elems(&self) -> usize {
        (self.limits.min_storage_buffer_offset_alignment as usize / 4).max(1)
    }

    /// A zeroed f32 storage buffer of `len` elements (at least one, so empty tensors bind).
    pub fn buffer(&self, label: &str, len: usize) -> Result<wgpu::Buffer> {
        let size = (len.max(1) * 4) as u64;
        self.check_size(label, size)?;
        Ok(self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }))
    }

    fn check_size(&self, label: &str, size: u64) -> Result<()> {
        let max = self.limits.max_buffer_size.min(self.limits.max_storage_buffer_binding_size as u64);
        if size > max {
            return Err(gpu_err(format!(
                "tensor `{label}` needs {size} bytes, more than this GPU allows in one buffer ({max} bytes, {}); use the CPU path",
                self.info.name
            )));
        }
        Ok(())
    }

    /// A storage buffer holding `data` (f32 or u32 words).
    pub fn upload<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> Result<wgpu::Buffer> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        self.check_size(label, bytes.len() as u64)?;
        if bytes.is_empty() {
            return self.buffer(label, 1);
        }
        self.check_alive()?;
        Ok(self.init_buffer(label, bytes, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC))
    }

    /// A buffer holding `bytes` (padded to 4), written through the queue: unlike
    /// `create_buffer_init` this does not panic when the device has been lost.
    pub(crate) fn init_buffer(&self, label: &str, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
        let size = (bytes.len() as u64).div_ceil(4).max(1) * 4;
        let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if bytes.len() % 4 == 0 {
            self.queue.write_buffer(&buf, 0, bytes);
        } else {
            let mut padded = bytes.to_vec();
            padded.resize(size as usize, 0);
            self.queue.write_buffer(&buf, 0, &padded);
        }
        buf
    }
}
