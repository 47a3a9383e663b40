//! Launcher of `shaders/matmul.wgsl`: C = alpha A B (+ bias) (+ C), strided and batched.

use crate::error::Result;
use crate::gpu::entry::EntryPoint;
use crate::gpu::kernels::matmul_subgroup::{tile, ENTRIES};
use crate::gpu::recorder::{Recorder, View};

/// One operand: a buffer region and element strides within it (row, column, and the two batch
/// levels: z1 = z / inner, z2 = z % inner).
#[derive(Clone, Copy, Debug)]
pub struct Operand<'a> {
    pub view: View<'a>,
    pub off: usize,
    pub rs: usize,
    pub cs: usize,
    pub b1: usize,
    pub b2: usize,
}

impl<'a> Operand<'a> {
    /// A row-major (rows, cols) matrix at the start of `view`.
    pub fn rows(view: View<'a>, cols: usize) -> Self {
        Operand { view, off: 0, rs: cols, cs: 1, b1: 0, b2: 0 }
    }
    /// The transpose of a row-major (rows, cols) matrix: element (i, j) is view[j * cols + i].
    pub fn transposed(view: View<'a>, cols: usize) -> Self {
        Operand { view, off: 0, rs: 1, cs: cols, b1: 0, b2: 0 }
    }
    pub fn at(mut self, off: usize) -> Self {
        self.off = off;
        self
    }
    pub fn batch(mut self, b1: usize, b2: usize) -> Self {
        self.b1 = b1;
        self.b2 = b2;
        self
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// (outer, inner) batch counts: z runs over outer * inner products.
    pub batch: (usize, usize),
    pub alpha: f32,
    pub accumulate: bool,
}

impl Shape {
    pub fn new(m: usize, n: usize, k: usize) -> Self {
        Shape { m, n, k, batch: (1, 1), alpha: 1.0, accumulate: false }
    }
}

/// Which kernel. `Auto` is what the model uses: `Subgroup` where the context enables it (CPU
/// drivers with 8-lane subgroups), `Tiled` everywhere else. The others are for tests and the bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Auto,
    /// Register-blocked, 4x4 outputs per invocation.
    Tiled,
    /// `matmul_subgroup`: a (128 or 64) x 64 tile per 8-lane subgroup.
    Subgroup,
    /// One output per invocation: the baseline.
    Naive,
}

/// `Params` of matmul.wgsl (and the subgroup kernel, which shares its header): shapes, and each
/// operand's offset, row and column strides and two batch strides, in elements.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    m: u32,
    n: u32,
    k: u32,
    inner: u32,
    a_off: u32,
    a_rs: u32,
    a_cs: u32,
    a_b1: u32,
    a_b2: u32,
    b_off: u32,
    b_rs: u32,
    b_cs: u32,
    b_b1: u32,
    b_b2: u32,
    c_off: u32,
    c_rs: u32,
    c_b1: u32,
    c_b2: u32,
    flags: u32,
    alpha: f32,
}

/// `flags`: a bias is added; C accumulates (C += A B).
const HAS_BIAS: u32 = 1;
const ACCUMULATE: u32 = 2;

pub fn matmul(
    rec: &mut Recorder<'_>,
    a: Operand<'_>,
    b: Operand<'_>,
    bias: Option<View<'_>>,
    c: Operand<'_>,
    s: Shape,
    kernel: Kernel,
) -> Result<()> {
    assert_eq!(c.cs, 1, "C must have contiguous rows");
    let flags = if bias.is_some() { HAS_BIAS } else { 0 } | if s.accumulate { ACCUMULATE } else { 0 };
    let u = |v: usize| v as u32;
    let params = Params {
        m: u(s.m),
        n: u(s.n),
        k: u(s.k),
        inner: u(s.batch.1),
        a_off: u(a.off),
        a_rs: u(a.rs),
        a_cs: u(a.cs),
        a_b1: u(a.b1),
        a_b2: u(a.b2),
        b_off: u(b.off),
        b_rs: u(b.rs),
        b_cs: u(b.cs),
        b_b1: u(b.b1),
        b_b2: u(b.b2),
        c_off: u(c.off),
        c_rs: u(c.rs),
        c_b1: u(c.b1),
        c_b2: u(c.b2),
        flags,
        alpha: s.alpha,
    };
    if kernel == Kernel::Subgroup && !rec.ctx.subgroup8 {
        return Err(crate::error::BertError::Gpu("the subgroup matmul needs a CPU adapter with 8-lane subgroups".into()));
    }
    let kernel = match kernel {
        Kernel::Auto if rec.ctx.subgroup8 => Kernel::Subgroup,
        Kernel::Auto => Kernel::Tiled,
        k => k,
    };
    // (entry point, workgroup size, rows x columns of C per workgroup)
    let (entry, wg, per) = match kernel {
        Kernel::Subgroup => {
            // the 64-row tile when the 128-row one would mostly load clamped rows
            let (entry, (_, ta, tb)) =
                if s.m > 64 { (EntryPoint::MatmulSubgroup128, ENTRIES[0]) } else { (EntryPoint::MatmulSubgroup64, ENTRIES[1]) };
            (entry, (8u32, 1u32), tile(ta, tb))
        }
        Kernel::Naive => (EntryPoint::MatmulNaive, (8, 8), (8, 8)),
        _ => (EntryPoint::MatmulTiled, (8, 8), (32, 32)),
    };
    let gx = s.n.div_ceil(per.1) as u32;
    let gy = s.m.div_ceil(per.0) as u32;
    let z = (s.batch.0 * s.batch.1) as u32;
    rec.dispatch(entry, wg, &params, &[Some(a.view), Some(b.view), bias], &[Some(c.view)], (gx, gy, z))
}

/// y (N, OUT) = x (N, IN) W^T (+ b), W (OUT, IN) row-major as HF stores it; `dims` = (N, IN, OUT).
pub fn linear(
    rec: &mut Recorder<'_>,
    x: View<'_>,
    w: View<'_>,
    b: Option<View<'_>>,
    y: View<'_>,
    (n, inp, out): (usize, usize, usize),
) -> Result<()> {
    let s = Shape::new(n, out, inp);
    matmul(rec, Operand::rows(x, inp), Operand::transposed(w, inp), b, Operand::rows(y, out), s, Kernel::Auto)
}

/// Backward of `linear`: dx (=, or += when `acc_dx`) dy W; dW += dy^T x (db is a column sum);
/// `dims` = (N, IN, OUT) as the forward's.
pub fn linear_backward(
    rec: &mut Recorder<'_>,
    dy: View<'_>,
    x: View<'_>,
    w: View<'_>,
    dx: Option<(View<'_>, bool)>,
    dw: View<'_>,
    (n, inp, out): (usize, usize, usize),
) -> Result<()> {
    if let Some((dx, acc)) = dx {
        let s = Shape { accumulate: acc, ..Shape::new(n, inp, out) };
        matmul(rec, Operand::rows(dy, out), Operand::rows(w, inp), None, Operand::rows(dx, inp), s, Kernel::Auto)?;
    }
    let s = Shape { accumulate: true, ..Shape::new(out, inp, n) };
    matmul(rec, Operand::transposed(dy, out), Operand::rows(x, inp), None, Operand::rows(dw, inp), s, Kernel::Auto)
}
