//! One wgpu device for the whole engine: adapter, device, queue and limits; buffers with labels
//! and shapes; the pipeline cache; a recorder that puts a whole forward or training step in one
//! command encoder; asynchronous readback through one staging buffer. Submits, dispatches and
//! readbacks are counted so tests can hold them down.

use super::pipeline::{Family, PipelineCache};
use crate::error::{BertError, Result};
use std::cell::{Cell, RefCell};
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
    dummy_ro: wgpu::Buffer,
    /// One per writable slot: WebGPU rejects a buffer bound to two writable slots of a dispatch.
    dummy_rw: Vec<wgpu::Buffer>,
}

fn gpu_err(msg: impl Into<String>) -> BertError {
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
        let most_rw = 4; // LayerNorm's backward
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

    fn bump(&self, f: impl FnOnce(&mut Counters)) {
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

    pub fn recorder(&self) -> Recorder<'_> {
        let encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("bertscope") });
        // Errors while recording (a bad binding, a buffer too large) are caught here and returned
        // by `finish`, instead of wgpu's default handler, which panics.
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        Recorder {
            ctx: self,
            encoder: Some(encoder),
            pass: None,
            reads: RefCell::new(Vec::new()),
            dispatches: 0,
            scopes: Some((oom, validation)),
        }
    }
}

/// A region of a buffer, in f32 elements.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    pub buf: &'a wgpu::Buffer,
    pub off: usize,
    pub len: usize,
}

impl<'a> View<'a> {
    pub fn whole(buf: &'a wgpu::Buffer) -> Self {
        View { buf, off: 0, len: (buf.size() / 4) as usize }
    }
}

/// One pending copy into the staging buffer: (source region, where it lands in staging).
struct PendingRead {
    src: wgpu::Buffer,
    src_off: u64,
    bytes: u64,
    dst_off: u64,
}

/// Records dispatches into one command encoder (one compute pass, reopened after copies).
pub struct Recorder<'c> {
    pub(crate) ctx: &'c GpuContext,
    encoder: Option<wgpu::CommandEncoder>,
    pass: Option<wgpu::ComputePass<'static>>,
    reads: RefCell<Vec<PendingRead>>,
    dispatches: u64,
    /// (out-of-memory, validation): a tuple drops its first field first, and scopes must pop in
    /// reverse order of pushing, also when a recorder is dropped unfinished.
    scopes: Option<(wgpu::ErrorScopeGuard, wgpu::ErrorScopeGuard)>,
}

/// Where a requested readback will be, once `finish` returns.
#[derive(Clone, Copy, Debug)]
pub struct ReadHandle {
    off: usize,
    len: usize,
}

/// The results of one submit: every requested region as f32.
pub struct Readback {
    data: Vec<f32>,
}

impl Readback {
    pub fn get(&self, h: ReadHandle) -> &[f32] {
        &self.data[h.off..h.off + h.len]
    }
}

impl<'c> Recorder<'c> {
    pub fn ctx(&self) -> &'c GpuContext {
        self.ctx
    }

    fn end_pass(&mut self) {
        self.pass = None;
    }

    /// One dispatch of `entry` in `family` with workgroup size `wg` (x, y), uniform `params`, the
    /// family's read-only then read-write storage bindings (None -> a dummy), `groups` workgroups.
    pub fn dispatch(
        &mut self,
        family: Family,
        entry: &'static str,
        wg: (u32, u32),
        params: &[u32],
        ro: &[Option<View<'_>>],
        rw: &[Option<View<'_>>],
        groups: (u32, u32, u32),
    ) -> Result<()> {
        if groups.0 == 0 || groups.1 == 0 || groups.2 == 0 {
            return Ok(());
        }
        let max = self.ctx.limits.max_compute_workgroups_per_dimension;
        if groups.0 > max || groups.1 > max || groups.2 > max {
            return Err(gpu_err(format!("{entry}: {groups:?} workgroups exceed this GPU's {max} per dimension; use the CPU path")));
        }
        let ctx = self.ctx;
        let cached = ctx.pipelines.get(&ctx.device, &ctx.limits, family, entry, wg)?;
        let (layout, pipeline) = (&cached.0, &cached.1);
        let (n_ro, n_rw) = family.slots();
        assert!(ro.len() <= n_ro && rw.len() <= n_rw, "{entry}: too many bindings");
        let mut words = params.to_vec();
        words.resize(words.len().div_ceil(4).max(1) * 4, 0); // uniform structs are 16-byte multiples
        let uniform = ctx.init_buffer(entry, bytemuck::cast_slice(&words), wgpu::BufferUsages::UNIFORM);
        let align = ctx.align_elems();
        let bind = |v: Option<View<'_>>, dummy: &'c wgpu::Buffer| -> Result<(wgpu::Buffer, u64, u64)> {
            match v {
                Some(v) => {
                    if v.off % align != 0 {
                        return Err(gpu_err(format!("{entry}: binding offset {} not aligned to {align}", v.off)));
                    }
                    Ok((v.buf.clone(), (v.off * 4) as u64, (v.len.max(1) * 4) as u64))
                }
                None => Ok((dummy.clone(), 0, 16)),
            }
        };
        let mut slots = Vec::with_capacity(n_ro + n_rw);
        for i in 0..n_ro {
            slots.push(bind(ro.get(i).copied().flatten(), &ctx.dummy_ro)?);
        }
        for i in 0..n_rw {
            slots.push(bind(rw.get(i).copied().flatten(), &ctx.dummy_rw[i])?);
        }
        // WebGPU (the browser) rejects a dispatch where a writable binding overlaps any other
        // binding of the same buffer; native wgpu does not check, so the tests would not see it
        for (i, a) in slots.iter().enumerate().skip(n_ro) {
            for (j, b) in slots.iter().enumerate() {
                if i != j && a.0 == b.0 && a.1 < b.1 + b.2 && b.1 < a.1 + a.2 {
                    return Err(gpu_err(format!("{entry}: binding {} (writable) overlaps binding {} of the same buffer", i + 1, j + 1)));
                }
            }
        }
        let mut entries = vec![wgpu::BindGroupEntry { binding: 0, resource: uniform.as_entire_binding() }];
        for (i, (buf, off, size)) in slots.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: i as u32 + 1,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: buf,
                    offset: *off,
                    size: wgpu::BufferSize::new(*size),
                }),
            });
        }
        let bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(entry), layout, entries: &entries });
        if self.pass.is_none() {
            let enc = self.encoder.as_mut().expect("recorder open");
            let pass =
                enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("bertscope"), timestamp_writes: None }).forget_lifetime();
            self.pass = Some(pass);
        }
        let pass = self.pass.as_mut().expect("pass open");
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, groups.2);
        self.dispatches += 1;
        Ok(())
    }

    /// Zeroes a region (gradients before a step).
    pub fn clear(&mut self, v: View<'_>) {
        self.end_pass();
        let enc = self.encoder.as_mut().expect("recorder open");
        enc.clear_buffer(v.buf, (v.off * 4) as u64, Some((v.len * 4) as u64));
    }

    pub fn copy(&mut self, src: View<'_>, dst: View<'_>) {
        assert_eq!(src.len, dst.len, "copy lengths");
        self.end_pass();
        let enc = self.encoder.as_mut().expect("recorder open");
        enc.copy_buffer_to_buffer(src.buf, (src.off * 4) as u64, dst.buf, (dst.off * 4) as u64, Some((src.len * 4) as u64));
    }

    /// Asks for `v` to come back to the CPU after `finish`.
    pub fn read(&self, v: View<'_>) -> ReadHandle {
        let mut reads = self.reads.borrow_mut();
        let dst_off: u64 = reads.iter().map(|r| r.bytes).sum();
        reads.push(PendingRead { src: v.buf.clone(), src_off: (v.off * 4) as u64, bytes: (v.len * 4) as u64, dst_off });
        ReadHandle { off: (dst_off / 4) as usize, len: v.len }
    }

    /// Submits everything recorded (one submit) and, if anything was asked for, reads it back
    /// through one staging buffer (one readback).
    pub async fn finish(mut self) -> Result<Readback> {
        self.end_pass();
        let ctx = self.ctx;
        let mut enc = self.encoder.take().expect("recorder open");
        let reads = std::mem::take(&mut *self.reads.borrow_mut());
        let total: u64 = reads.iter().map(|r| r.bytes).sum();
        let staging = (total > 0).then(|| {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("staging"),
                size: total,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        if let Some(st) = &staging {
            for r in reads.iter().filter(|r| r.bytes > 0) {
                enc.copy_buffer_to_buffer(&r.src, r.src_off, st, r.dst_off, Some(r.bytes));
            }
        }
        let cmd = enc.finish();
        let (oom, validation) = self.scopes.take().expect("scopes pushed at creation");
        // Scopes pop in reverse order of pushing.
        let oom = oom.pop().await;
        let validation = validation.pop().await;
        // a lost device first: its errors would otherwise read as validation errors
        ctx.check_alive()?;
        if let Some(e) = oom {
            return Err(gpu_err(format!("the GPU ran out of memory: {e}")));
        }
        if let Some(e) = validation {
            return Err(gpu_err(format!("GPU validation error: {e}")));
        }
        ctx.queue.submit(Some(cmd));
        let dispatches = self.dispatches;
        ctx.bump(|c| {
            c.submits += 1;
            c.dispatches += dispatches;
        });
        let Some(st) = staging else {
            return Ok(Readback { data: Vec::new() });
        };
        let (tx, rx) = futures_channel::oneshot::channel();
        st.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        #[cfg(not(target_arch = "wasm32"))]
        ctx.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| gpu_err(format!("waiting for the GPU failed: {e}")))?;
        rx.await.map_err(|_| gpu_err("the GPU readback was dropped"))?.map_err(|e| gpu_err(format!("could not read GPU results: {e}")))?;
        ctx.check_alive()?;
        let data = {
            let view = st.get_mapped_range(..).map_err(|e| gpu_err(format!("mapping the staging buffer: {e}")))?;
            bytemuck::cast_slice::<u8, f32>(&view).to_vec()
        };
        st.unmap();
        ctx.bump(|c| c.readbacks += 1);
        Ok(Readback { data })
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn finish_blocking(self) -> Result<Readback> {
        pollster::block_on(self.finish())
    }
}
