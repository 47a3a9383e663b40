//! Launcher of `shaders/embedding.wgsl`: the embedding sum, row gathers, and the scatter-add
//! backward (rows grouped by id on the CPU, so each gradient element has one writer).

use crate::error::Result;
use crate::gpu::entry::EntryPoint;
use crate::gpu::kernels::{grid1d, WG1};
use crate::gpu::recorder::{Recorder, View};

/// `Params` of embedding.wgsl: `t` positions (embed_sum), `n_ids` distinct ids (scatter_add).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    rows: u32,
    cols: u32,
    t: u32,
    n_ids: u32,
}

fn u32s(ids: &[usize]) -> Vec<u32> {
    ids.iter().map(|&i| i as u32).collect()
}

/// out (N, H) = word[ids] + pos[row % T] + type[tids]; `pos` holds T rows; `(t, h)` = (T, H).
pub fn embed_sum(
    rec: &mut Recorder<'_>,
    word: View<'_>,
    pos: View<'_>,
    ttype: View<'_>,
    (ids, tids): (&[usize], &[usize]),
    (t, h): (usize, usize),
    out: View<'_>,
) -> Result<()> {
    let ctx = rec.ctx();
    let ib = ctx.upload("input_ids", &u32s(ids))?;
    let tb = ctx.upload("token_type_ids", &u32s(tids))?;
    let n = ids.len();
    let params = Params { rows: n as u32, cols: h as u32, t: t as u32, n_ids: 0 };
    rec.dispatch(
        EntryPoint::EmbedSum,
        (WG1, 1),
        &params,
        &[Some(word), Some(pos), Some(ttype), Some(View::whole(&ib)), Some(View::whole(&tb))],
        &[Some(out)],
        grid1d(rec, n * h, WG1),
    )
}

/// out (R, H) = table[rows]
pub fn gather(rec: &mut Recorder<'_>, table: View<'_>, rows: &[usize], h: usize, out: View<'_>) -> Result<()> {
    let rb = rec.ctx().upload("gather_rows", &u32s(rows))?;
    let params = Params { rows: rows.len() as u32, cols: h as u32, t: 1, n_ids: 0 };
    rec.dispatch(
        EntryPoint::Gather,
        (WG1, 1),
        &params,
        &[Some(table), None, None, Some(View::whole(&rb))],
        &[Some(out)],
        grid1d(rec, rows.len() * h, WG1),
    )
}

/// out[ids[r]] += src[r] for every row r of src (R, H): the backward of a gather.
pub fn scatter_add(rec: &mut Recorder<'_>, src: View<'_>, ids: &[usize], h: usize, out: View<'_>) -> Result<()> {
    scatter_add_except(rec, src, ids, None, h, out)
}

/// As `scatter_add`, leaving out the rows whose id is `skip` (nn.Embedding's `padding_idx`: the
/// lookup of the pad row sends it no gradient).
pub fn scatter_add_except(
    rec: &mut Recorder<'_>,
    src: View<'_>,
    ids: &[usize],
    skip: Option<usize>,
    h: usize,
    out: View<'_>,
) -> Result<()> {
    // CSR: unique ids, offsets into the row list, rows grouped by id
    let mut order: Vec<usize> = (0..ids.len()).filter(|&r| Some(ids[r]) != skip).collect();
    if order.is_empty() {
        return Ok(());
    }
    order.sort_by_key(|&r| (ids[r], r));
    let mut uniq: Vec<u32> = Vec::new();
    let mut offs: Vec<u32> = Vec::new();
    for (q, &r) in order.iter().enumerate() {
        if uniq.last() != Some(&(ids[r] as u32)) || uniq.is_empty() {
            uniq.push(ids[r] as u32);
            offs.push(q as u32);
        }
    }
    offs.push(order.len() as u32);
    let mut lists = offs;
    lists.extend(order.iter().map(|&r| r as u32));
    let ctx = rec.ctx();
    let ub = ctx.upload("scatter_ids", &uniq)?;
    let lb = ctx.upload("scatter_lists", &lists)?;
    let params = Params { rows: ids.len() as u32, cols: h as u32, t: 1, n_ids: uniq.len() as u32 };
    rec.dispatch(
        EntryPoint::ScatterAdd,
        (WG1, 1),
        &params,
        &[Some(src), None, None, Some(View::whole(&ub)), Some(View::whole(&lb))],
        &[Some(out)],
        grid1d(rec, uniq.len() * h, WG1),
    )
}
