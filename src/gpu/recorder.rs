//! The recorder: a whole forward or training step in one command encoder (one compute pass,
//! reopened after copies), bindings checked as the browser would check them, and asynchronous
//! readback of every requested region through one staging buffer.

use super::context::{gpu_err, GpuContext};
use super::entry::EntryPoint;
use crate::error::Result;
use std::cell::RefCell;

impl GpuContext {
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

    /// One dispatch of `kernel` with workgroup size `wg` (x, y), the uniform `params` (the
    /// shader's `Params` struct, field for field), its family's read-only then read-write storage
    /// bindings (None -> a dummy), `groups` workgroups.
    pub fn dispatch<P: bytemuck::Pod>(
        &mut self,
        kernel: EntryPoint,
        wg: (u32, u32),
        params: &P,
        ro: &[Option<View<'_>>],
        rw: &[Option<View<'_>>],
        groups: (u32, u32, u32),
    ) -> Result<()> {
        let (family, entry) = kernel.at();
        if groups.0 == 0 || groups.1 == 0 || groups.2 == 0 {
            return Ok(());
        }
        let max = self.ctx.limits.max_compute_workgroups_per_dimension;
        if groups.0 > max || groups.1 > max || groups.2 > max {
            return Err(gpu_err(format!("{entry}: {groups:?} workgroups exceed this GPU's {max} per dimension; use the CPU path")));
        }
        let ctx = self.ctx;
        let cached = ctx.pipelines.get(&ctx.device, &ctx.limits, kernel, wg)?;
        let (layout, pipeline) = (&cached.0, &cached.1);
        let (n_ro, n_rw) = family.slots();
        assert!(ro.len() <= n_ro && rw.len() <= n_rw, "{entry}: too many bindings");
        let mut bytes = bytemuck::bytes_of(params).to_vec();
        bytes.resize(bytes.len().div_ceil(16).max(1) * 16, 0); // uniform structs are 16-byte multiples
        let uniform = ctx.init_buffer(entry, &bytes, wgpu::BufferUsages::UNIFORM);
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
