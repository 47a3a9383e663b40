//! The training charts as numbers: series that keep a bounded number of points (every other one is
//! dropped when full, so a long run costs no more memory than a short one), "nice" axis ticks, and
//! the mapping of data to pixels. The page's canvas code only strokes what `layout` returns.

use serde::{Deserialize, Serialize};

/// Points (x, y) in increasing x, at most `cap`; when full, every other point is dropped and only
/// every `stride`-th point offered is kept from then on (the first point always stays).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub points: Vec<(f64, f64)>,
    cap: usize,
    stride: usize,
    offered: usize,
}

/// Points a chart's series keeps by default.
pub const SERIES_CAP: usize = 1000;

impl Default for Series {
    fn default() -> Self {
        Series::new(SERIES_CAP)
    }
}

impl Series {
    pub fn new(cap: usize) -> Self {
        Series { points: Vec::new(), cap: cap.max(4), stride: 1, offered: 0 }
    }

    /// A series holding exactly these points (a derived curve, such as a moving average).
    pub fn from_points(points: Vec<(f64, f64)>) -> Self {
        let cap = points.len().max(4);
        Series { points, cap, stride: 1, offered: 0 }
    }

    pub fn push(&mut self, x: f64, y: f64) {
        if !(x.is_finite() && y.is_finite()) {
            return;
        }
        let keep = self.offered.is_multiple_of(self.stride);
        self.offered += 1;
        if !keep {
            return;
        }
        self.points.push((x, y));
        if self.points.len() > self.cap {
            let mut i = 0;
            self.points.retain(|_| {
                i += 1;
                (i - 1) % 2 == 0
            });
            self.stride *= 2;
        }
    }

    pub fn last(&self) -> Option<(f64, f64)> {
        self.points.last().copied()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    pub fn len(&self) -> usize {
        self.points.len()
    }
}

/// About `n` round tick values (1, 2, 2.5 or 5 times a power of ten) covering [lo, hi].
pub fn nice_ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || n == 0 {
        return vec![];
    }
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5 * lo.abs().max(1e-9), hi + 0.5 * hi.abs().max(1e-9)) };
    let raw = (hi - lo) / n.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|&s| s >= 0.75 * raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() * step;
    let mut out = vec![];
    let mut k = 0;
    loop {
        let v = first + k as f64 * step;
        if v > hi + step * 1e-9 || k > 100 {
            break;
        }
        out.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
        k += 1;
    }
    out
}

/// Decimals enough to print multiples of `step` exactly (at most 6).
fn decimals(step: f64) -> usize {
    let step = step.abs().max(1e-12);
    let mut d = (-step.log10()).ceil().max(0.0) as usize;
    while d < 6 && ((step * 10f64.powi(d as i32)) - (step * 10f64.powi(d as i32)).round()).abs() > 1e-6 {
        d += 1;
    }
    d
}

/// Labels for evenly spaced ticks, with as many decimals as their spacing needs (so neighbours
/// never print the same text); very small or large ranges share one exponent (`1.5e-3`).
pub fn tick_labels(ticks: &[f64]) -> Vec<String> {
    let step = if ticks.len() >= 2 { ticks[1] - ticks[0] } else { ticks.first().map_or(1.0, |v| v.abs().max(1e-12)) };
    let max = ticks.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if max > 0.0 && !(1e-2..1e5).contains(&max) {
        let exp = max.log10().floor() as i32;
        let scale = 10f64.powi(exp);
        let d = decimals(step / scale);
        return ticks.iter().map(|&v| if v == 0.0 { "0".into() } else { format!("{:.d$}e{exp}", v / scale) }).collect();
    }
    let d = decimals(step);
    ticks.iter().map(|&v| if v == 0.0 { "0".into() } else { format!("{v:.d$}") }).collect()
}

/// The plot area inside a canvas of `w` x `h` pixels (room left for labels).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

/// Everything the canvas draws: ticks with their pixel positions and labels, and one polyline (in
/// pixels) per series.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub frame: Frame,
    pub x_ticks: Vec<(f64, String)>,
    pub y_ticks: Vec<(f64, String)>,
    pub lines: Vec<Vec<(f64, f64)>>,
    /// The data ranges drawn.
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
}

/// Lays out `series` in a `w` x `h` canvas with `pad` pixels for labels (left / bottom), x from
/// `x_min` to at least `x_max` (the run's last step: the x axis does not jump as points arrive);
/// `y_zero`: the y axis starts at 0 (accuracy, lr, tokens/s).
pub fn layout(series: &[&Series], w: f64, h: f64, pad: (f64, f64), x_max: f64, y_zero: bool) -> Layout {
    let frame = Frame { left: pad.0, top: 12.0, right: (w - 14.0).max(pad.0 + 1.0), bottom: (h - pad.1).max(13.0) };
    let pts = || series.iter().flat_map(|s| s.points.iter());
    let x0 = 0.0f64;
    let x1 = pts().map(|p| p.0).fold(x_max.max(1.0), f64::max);
    let mut y0 = pts().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let mut y1 = pts().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    if !y0.is_finite() {
        (y0, y1) = (0.0, 1.0);
    }
    if y_zero {
        y0 = y0.min(0.0);
    }
    if y1 - y0 < 1e-12 {
        y1 = y0 + y0.abs().max(1.0) * 0.1;
    }
    let ys = nice_ticks(y0, y1, 4);
    // widen to the outer ticks so lines never touch the frame edge unlabelled
    let step = if ys.len() >= 2 { ys[1] - ys[0] } else { (y1 - y0) / 4.0 };
    let y0 = (y0 / step).floor() * step;
    let y1 = (y1 / step).ceil() * step;
    let y1 = if y1 <= y0 { y0 + step } else { y1 };
    let sx = |x: f64| frame.left + (x - x0) / (x1 - x0) * (frame.right - frame.left);
    let sy = |y: f64| frame.bottom - (y - y0) / (y1 - y0) * (frame.bottom - frame.top);
    let xt = nice_ticks(x0, x1, 5);
    let yt = nice_ticks(y0, y1, 4);
    let x_ticks = xt.iter().zip(tick_labels(&xt)).map(|(&v, l)| (sx(v), l)).collect();
    let y_ticks = yt.iter().zip(tick_labels(&yt)).map(|(&v, l)| (sy(v), l)).collect();
    let lines = series.iter().map(|s| s.points.iter().map(|&(x, y)| (sx(x), sy(y))).collect()).collect();
    Layout { frame, x_ticks, y_ticks, lines, x_range: (x0, x1), y_range: (y0, y1) }
}

/// Exponential moving average of `ys` (0 < alpha <= 1), for a readable training-loss curve.
pub fn ema(points: &[(f64, f64)], alpha: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len());
    let mut m: Option<f64> = None;
    for &(x, y) in points {
        let v = match m {
            None => y,
            Some(p) => p + alpha * (y - p),
        };
        m = Some(v);
        out.push((x, v));
    }
    out
}

/// "1 min 05 s" / "42 s" for a number of seconds.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "–".into();
    }
    let s = secs.round() as u64;
    if s >= 3600 {
        format!("{} h {:02} min", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_stay_bounded_and_keep_their_span() {
        let mut s = Series::new(100);
        for i in 1..=10_000 {
            s.push(i as f64, 1.0 / i as f64);
        }
        assert!(s.len() <= 100 && s.len() > 50, "{}", s.len());
        assert_eq!(s.points[0], (1.0, 1.0), "the first point stays");
        assert!(s.last().unwrap().0 > 9_800.0, "recent points are kept: {:?}", s.last());
        assert!(s.points.windows(2).all(|w| w[0].0 < w[1].0));
        let gaps: Vec<f64> = s.points.windows(2).map(|w| w[1].0 - w[0].0).collect();
        assert!(gaps.iter().all(|&g| g == gaps[0]), "evenly thinned: {gaps:?}");
        s.push(f64::NAN, 1.0);
        s.push(1.0, f64::INFINITY);
        assert!(s.points.iter().all(|p| p.1.is_finite()));
        let mut short = Series::new(100);
        (1..=50).for_each(|i| short.push(i as f64, 0.0));
        assert_eq!(short.len(), 50, "nothing dropped below the cap");
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(nice_ticks(0.0, 10.0, 5), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(nice_ticks(3.2, 7.9, 4), [4.0, 5.0, 6.0, 7.0]);
        assert_eq!(nice_ticks(0.0, 600.0, 5), [0.0, 100.0, 200.0, 300.0, 400.0, 500.0, 600.0]);
        let t = nice_ticks(0.0, 0.002, 4);
        assert_eq!(t.len(), 5);
        assert!((t[1] - 0.0005).abs() < 1e-12);
        assert!(!nice_ticks(5.0, 5.0, 4).is_empty(), "a flat range still gets ticks");
        assert!(nice_ticks(f64::NAN, 1.0, 4).is_empty());
        assert_eq!(tick_labels(&[0.0, 0.0005, 0.001, 0.0015, 0.002]), ["0", "0.5e-3", "1.0e-3", "1.5e-3", "2.0e-3"]);
        assert_eq!(tick_labels(&[2.0, 2.5, 3.0]), ["2.0", "2.5", "3.0"]);
        assert_eq!(tick_labels(&[4.0, 6.0]), ["4", "6"]);
        assert_eq!(tick_labels(&[0.0, 0.05, 0.1]), ["0", "0.05", "0.10"]);
        assert_eq!(tick_labels(&[10_000.0, 12_000.0]), ["10000", "12000"]);
        assert_eq!(tick_labels(&[0.0, 250_000.0]), ["0", "2.5e5"]);
        let l = tick_labels(&nice_ticks(0.0, 0.002, 4));
        let mut d = l.clone();
        d.dedup();
        assert_eq!(d, l, "no two ticks print the same");
    }

    #[test]
    fn layout_maps_data_into_the_frame() {
        let mut a = Series::new(100);
        let mut b = Series::new(100);
        for i in 0..=50 {
            a.push(i as f64, 7.0 - i as f64 * 0.05);
        }
        b.push(25.0, 6.0);
        b.push(50.0, 5.0);
        let l = layout(&[&a, &b], 600.0, 300.0, (60.0, 40.0), 100.0, false);
        assert_eq!(l.x_range, (0.0, 100.0), "x runs to the planned last step");
        assert!(l.y_range.0 <= 4.5 && l.y_range.1 >= 7.0);
        for line in &l.lines {
            for &(x, y) in line {
                assert!((l.frame.left..=l.frame.right).contains(&x) && (l.frame.top..=l.frame.bottom).contains(&y));
            }
        }
        assert!(l.lines[0][0].1 < l.lines[0][50].1, "a higher loss is drawn higher (smaller y)");
        assert!((l.lines[0][50].0 - (60.0 + 0.5 * (586.0 - 60.0))).abs() < 1e-9, "step 50 of 100 is mid-frame");
        assert!(l.x_ticks.iter().any(|t| t.1 == "100"));
        let z = layout(&[&b], 600.0, 300.0, (60.0, 40.0), 100.0, true);
        assert_eq!(z.y_range.0, 0.0);
        let empty = layout(&[], 600.0, 300.0, (60.0, 40.0), 10.0, false);
        assert!(empty.lines.is_empty() && !empty.y_ticks.is_empty());
    }

    #[test]
    fn ema_and_durations() {
        let e = ema(&[(0.0, 10.0), (1.0, 0.0), (2.0, 0.0)], 0.5);
        assert_eq!(e, [(0.0, 10.0), (1.0, 5.0), (2.0, 2.5)]);
        assert_eq!(duration(42.4), "42 s");
        assert_eq!(duration(65.0), "1 min 05 s");
        assert_eq!(duration(3725.0), "1 h 02 min");
        assert_eq!(duration(f64::NAN), "–");
    }
}
