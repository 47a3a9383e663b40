//! The attention filmstrip: probe frames kept in step order, at most `cap` of them (when full,
//! every other frame between the first and the latest is dropped), the difference between two
//! frames' heads, and the diverging colour scale that draws it.

use super::training::Frame;
use std::rc::Rc;

#[derive(Clone, Debug, PartialEq)]
pub struct Filmstrip {
    pub frames: Vec<Rc<Frame>>,
    cap: usize,
}

/// Frames the page's filmstrip keeps (long runs are thinned).
pub const FILMSTRIP_CAP: usize = 120;

impl Default for Filmstrip {
    fn default() -> Self {
        Filmstrip::new(FILMSTRIP_CAP)
    }
}

impl Filmstrip {
    pub fn new(cap: usize) -> Self {
        Filmstrip { frames: Vec::new(), cap: cap.max(3) }
    }

    /// Adds a frame (a frame for a step already held replaces it).
    pub fn push(&mut self, f: Frame) {
        self.frames.retain(|g| g.step != f.step);
        let at = self.frames.partition_point(|g| g.step < f.step);
        self.frames.insert(at, Rc::new(f));
        if self.frames.len() > self.cap {
            let last = self.frames.len() - 1;
            let mut i = 0;
            self.frames.retain(|_| {
                i += 1;
                let k = i - 1;
                k == 0 || k == last || k % 2 == 0
            });
        }
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&Rc<Frame>> {
        self.frames.get(i)
    }

    /// The index of the frame nearest to `step`.
    pub fn nearest(&self, step: usize) -> Option<usize> {
        (0..self.frames.len()).min_by_key(|&i| self.frames[i].step.abs_diff(step))
    }
}

/// `b - a` for one head of two frames of the same probe (None when the shapes differ).
pub fn head_diff(a: &Frame, b: &Frame, layer: usize, head: usize) -> Option<Vec<f32>> {
    if a.tokens.len() != b.tokens.len() || layer >= a.layers.min(b.layers) || head >= a.heads.min(b.heads) {
        return None;
    }
    Some(a.head(layer, head).iter().zip(b.head(layer, head)).map(|(x, y)| y - x).collect())
}

/// The largest absolute value (at least 1e-6): the diff's colour scale runs from -m to +m.
pub fn abs_max(v: &[f32]) -> f32 {
    v.iter().fold(1e-6f32, |m, x| m.max(x.abs()))
}

/// Purple (negative) - white (0) - orange (positive), the colour-blind-safe PuOr scale, for `t`
/// in [-1, 1] (clamped; NaN is white).
pub fn diverging(t: f32) -> [u8; 3] {
    const NEG: [u8; 3] = [0x54, 0x27, 0x88];
    const MID: [u8; 3] = [0xf7, 0xf7, 0xf7];
    const POS: [u8; 3] = [0xb3, 0x58, 0x06];
    let t = if t.is_nan() { 0.0 } else { t.clamp(-1.0, 1.0) };
    let (a, b, f) = if t < 0.0 { (MID, NEG, -t) } else { (MID, POS, t) };
    std::array::from_fn(|c| (a[c] as f32 + f * (b[c] as f32 - a[c] as f32)).round() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(step: usize, t: usize, v: f32) -> Frame {
        Frame {
            step,
            tokens: vec!["x".into(); t],
            layers: 2,
            heads: 2,
            attention: (0..4).map(|k| vec![v + k as f32; t * t]).collect(),
            mask_position: None,
            predictions: vec![],
        }
    }

    #[test]
    fn frames_stay_bounded_ordered_and_keep_both_ends() {
        let mut f = Filmstrip::new(10);
        for s in (0..=500).step_by(10) {
            f.push(frame(s, 3, 0.0));
            assert!(f.len() <= 10);
            assert_eq!(f.frames[0].step, 0);
            assert_eq!(f.frames.last().unwrap().step, s);
        }
        assert!(f.frames.windows(2).all(|w| w[0].step < w[1].step));
        assert!(f.len() >= 5, "thinning keeps about half: {}", f.len());
        f.push(frame(500, 3, 9.0));
        assert_eq!(f.frames.last().unwrap().attention[0][0], 9.0, "the same step replaces");
        assert_eq!(f.frames.iter().filter(|g| g.step == 500).count(), 1);
        assert_eq!(f.frames[f.nearest(3).unwrap()].step, 0);
        assert_eq!(f.frames[f.nearest(10_000).unwrap()].step, 500);
        assert_eq!(Filmstrip::new(5).nearest(3), None);
    }

    #[test]
    fn head_diff_is_b_minus_a() {
        let a = frame(0, 3, 0.25);
        let b = frame(10, 3, 0.5);
        let d = head_diff(&a, &b, 1, 1).unwrap();
        assert_eq!(d.len(), 9);
        assert!(d.iter().all(|&x| (x - 0.25).abs() < 1e-6));
        assert_eq!(head_diff(&b, &a, 0, 0).unwrap()[0], -0.25);
        assert_eq!(head_diff(&a, &frame(5, 4, 0.0), 0, 0), None, "other probe length");
        assert_eq!(head_diff(&a, &b, 2, 0), None);
        assert_eq!(abs_max(&[0.1, -0.3, 0.2]), 0.3);
        assert_eq!(abs_max(&[]), 1e-6);
    }

    #[test]
    fn diverging_scale_ends_and_middle() {
        assert_eq!(diverging(0.0), [0xf7, 0xf7, 0xf7]);
        assert_eq!(diverging(-1.0), [0x54, 0x27, 0x88]);
        assert_eq!(diverging(1.0), [0xb3, 0x58, 0x06]);
        assert_eq!(diverging(7.0), diverging(1.0));
        assert_eq!(diverging(f32::NAN), diverging(0.0));
        let half = diverging(0.5);
        assert!(half[0] < 0xf7 && half[0] > 0xb3);
    }
}
