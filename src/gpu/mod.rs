//! The WebGPU compute backend (wgpu): the same forward, backward and AdamW as `crate::cpu`, in
//! WGSL kernels from `shaders/`. Natively on Vulkan / Metal / DX12 (lavapipe in CI), in the
//! browser on WebGPU. The CPU path is the spec: every kernel is tested against its CPU twin.

pub mod attend;
pub mod block_reads;
pub mod context;
pub mod cross;
pub mod entry;
pub mod kernels;
pub mod layout;
pub mod loss;
pub mod pipeline;
pub mod recorder;
pub mod sites;
pub mod slots;
pub mod task;

pub use context::{AdapterSummary, Counters, GpuContext};
pub use recorder::{ReadHandle, Readback, Recorder, View};
pub mod backward;
pub mod forward;
pub mod model;
pub mod trace;
pub mod trace_read;
pub mod train;
