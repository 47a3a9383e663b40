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
