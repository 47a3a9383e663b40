//! Embedding lookup (`torch.nn.Embedding`) and its scatter-add backward.

use crate::cpu::real::Real;
use ndarray::{Array2, ArrayView2, ArrayViewMut2, Zip};

/// table (R, H), ids (N) -> rows (N, H). Ids are checked by the caller.
pub fn embedding_forward<T: Real>(table: ArrayView2<T>, ids: &[usize]) -> Array2<T> {
    let mut out = Array2::zeros((ids.len(), table.ncols()));
    for (mut row, &id) in out.rows_mut().into_iter().zip(ids) {
        row.assign(&table.row(id));
    }
    out
}

/// dtable[ids[n]] += dout[n]; dout (N, H), dtable (R, H).
pub fn embedding_backward<T: Real>(dout: ArrayView2<T>, ids: &[usize], mut dtable: ArrayViewMut2<T>) {
    for (row, &id) in dout.rows().into_iter().zip(ids) {
        Zip::from(dtable.row_mut(id)).and(&row).for_each(|d, &g| *d += g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::arr2;

    #[test]
    fn repeated_ids_accumulate() {
        let table = arr2(&[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]);
        let ids = [2, 0, 2];
        assert_eq!(embedding_forward(table.view(), &ids), arr2(&[[5.0, 6.0], [1.0, 2.0], [5.0, 6.0]]));
        let mut d = Array2::zeros((3, 2));
        embedding_backward(arr2(&[[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]).view(), &ids, d.view_mut());
        assert_eq!(d, arr2(&[[2.0, 2.0], [0.0, 0.0], [4.0, 4.0]]));
    }
}
