//! Launcher of `shaders/matmul.wgsl`: C = alpha A B (+ bias) (+ C), strided and batched.

use crate::error::Result;
use crate::gpu::context::{Recorder, View};
use crate::gpu::kernels::f;
use crate::gpu::pipeline::Family;

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

/// Which kernel: the register-blocked one (4x4 per invocation) or the naive baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Tiled,
    Naive,
}

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
    let flags = bias.is_some() as u32 | (s.accumulate as u32) << 1;
    let params = [
        s.m, s.n, s.k, s.batch.1, a.off, a.rs, a.cs, a.b1, a.b2, b.off, b.rs, b.cs, b.b1, b.b2, c.off, c.rs, c.b1, c.b2,
    ]
    .map(|v| v as u32);
    let mut words = params.to_vec();
    words.push(flags);
    words.push(f(s.alpha));
    let wg = (8u32, 8u32);
    let per = if kernel == Kernel::Tiled { 4 } else { 1 };
    let gx = s.n.div_ceil(per * wg.0 as usize) as u32;
    let gy = s.m.div_ceil(per * wg.1 as usize) as u32;
    let entry = if kernel == Kernel::Tiled { "tiled" } else { "naive" };
    let z = (s.batch.0 * s.batch.1) as u32;
    rec.dispatch(Family::Matmul, entry, wg, &words, &[Some(a.view), Some(b.view), bias], &[Some(c.view)], (gx, gy, z))
}

/// y (N, OUT) = x (N, IN) W^T (+ b), W (OUT, IN) row-major as HF stores it.
#[allow(clippy::too_many_arguments)]
pub fn linear(
    rec: &mut Recorder<'_>,
    x: View<'_>,
    w: View<'_>,
    b: Option<View<'_>>,
    y: View<'_>,
    n: usize,
    inp: usize,
    out: usize,
) -> Result<()> {
    let s = Shape::new(n, out, inp);
    matmul(rec, Operand::rows(x, inp), Operand::transposed(w, inp), b, Operand::rows(y, out), s, Kernel::Tiled)
}

/// Backward of `linear`: dx (=, or += when `acc_dx`) dy W; dW += dy^T x. (db is a column sum.)
#[allow(clippy::too_many_arguments)]
pub fn linear_backward(
    rec: &mut Recorder<'_>,
    dy: View<'_>,
    x: View<'_>,
    w: View<'_>,
    dx: Option<(View<'_>, bool)>,
    dw: View<'_>,
    n: usize,
    inp: usize,
    out: usize,
) -> Result<()> {
    if let Some((dx, acc)) = dx {
        let s = Shape { accumulate: acc, ..Shape::new(n, inp, out) };
        matmul(rec, Operand::rows(dy, out), Operand::rows(w, inp), None, Operand::rows(dx, inp), s, Kernel::Tiled)?;
    }
    let s = Shape { accumulate: true, ..Shape::new(out, inp, n) };
    matmul(rec, Operand::transposed(dy, out), Operand::rows(x, inp), None, Operand::rows(dw, inp), s, Kernel::Tiled)
}
