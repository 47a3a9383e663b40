//! One launcher per `shaders/<family>.wgsl`: shapes in, the shader's `Params` uniform (a `#[repr(C)]`
//! Pod struct, field for field, flag bits as named constants) and a dispatch out.
//! Launchers only record into a [`Recorder`]; nothing runs until it is finished.

pub mod adamw;
pub mod attention;
pub mod cross_entropy;
pub mod elementwise;
pub mod embedding;
pub mod layernorm;
pub mod matmul;
pub mod matmul_subgroup;
pub mod reduce;

use super::recorder::Recorder;

/// Workgroup size of the 1-D kernels: within WebGPU's guaranteed 256 invocations everywhere.
pub const WG1: u32 = 64;

/// Workgroups for `n` invocations of a 1-D kernel, folded into y when x would exceed the limit
/// (kernels index `gid.x + gid.y * num_workgroups.x * WG_X`).
pub fn grid1d(rec: &Recorder<'_>, n: usize, wg: u32) -> (u32, u32, u32) {
    let groups = (n as u64).div_ceil(wg as u64).max(1);
    let max = rec.ctx().limits.max_compute_workgroups_per_dimension as u64;
    let x = groups.min(max);
    let y = groups.div_ceil(x);
    (x as u32, y as u32, 1)
}
