//! What the benches share: the median time of a closure.

use std::time::Instant;

/// The median seconds of `reps` runs of `f`, after one warm-up run.
pub fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

/// Median seconds of each closure over `reps` rounds that run every closure once, in turn (after
/// one warm-up round): a load that comes and goes falls on all of them alike, so their ratios hold.
pub fn time_side_by_side(reps: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    fs.iter_mut().for_each(|f| f());
    let mut t = vec![Vec::with_capacity(reps); fs.len()];
    for _ in 0..reps {
        for (f, ti) in fs.iter_mut().zip(t.iter_mut()) {
            let s = Instant::now();
            f();
            ti.push(s.elapsed().as_secs_f64());
        }
    }
    t.into_iter()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            v[reps / 2]
        })
        .collect()
}
