//! AttentionViz's joint scatter as the page shows it (`app::qk_projection` fits it, from the
//! surveyed sentences' queries and keys of one head): every corpus token's query and key as two
//! coloured clouds, the current sentence's over them, and the keys one query attends to most.
//! Pure data and geometry (the nearest point to the pointer, the view's bounds), tested natively.

use serde::{Deserialize, Serialize};

/// What the page asks: head `head` of layer `layer` (1..=L, as the CLI counts), with the sentence
/// of `req` drawn over the surveyed sentences'.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QkRequest {
    pub req: crate::explain::snapshot::Request,
    pub layer: usize,
    pub head: usize,
}

/// One token of the current sentence: its piece and its query's and key's points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QkToken {
    pub text: String,
    pub query: [f32; 2],
    pub key: [f32; 2],
}

/// The scatter of one head.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QkView {
    pub layer: usize,
    pub head: usize,
    /// The share of the variance each axis explains.
    pub explained: [f32; 2],
    /// Each surveyed token's query and key point, in the same order as `tokens`.
    pub queries: Vec<[f32; 2]>,
    pub keys: Vec<[f32; 2]>,
    /// (line, position) of each surveyed token.
    pub tokens: Vec<(u32, u16)>,
    /// The surveyed lines' readable pieces, by line number ([CLS] and [SEP] included).
    pub lines: Vec<(usize, Vec<String>)>,
    /// The current sentence, every token (special ones included: heads attend to them).
    pub sentence: Vec<QkToken>,
    /// (T, T) this head's attention on the sentence, a row per query.
    pub attention: Vec<Vec<f32>>,
    /// Milliseconds the worker took.
    pub ms: f64,
}

/// Which point: a surveyed token's query or key, or the sentence's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QkPick {
    Query(usize),
    Key(usize),
    SentenceQuery(usize),
    SentenceKey(usize),
}

impl QkView {
    /// The box around every point (min x, min y, max x, max y), a little wider than the points.
    pub fn bounds(&self) -> [f32; 4] {
        let all = self.queries.iter().chain(&self.keys).chain(self.sentence.iter().flat_map(|t| [&t.query, &t.key]));
        let mut b = [f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY];
        for p in all {
            b = [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])];
        }
        if !b[0].is_finite() {
            return [-1.0, -1.0, 1.0, 1.0];
        }
        let pad = 0.03 * (b[2] - b[0]).max(b[3] - b[1]).max(1e-6);
        [b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad]
    }

    /// The `n` keys of the sentence that query `query` attends to most, with their weights, most
    /// first (ties to the earlier key).
    pub fn top_keys(&self, query: usize, n: usize) -> Vec<(usize, f32)> {
        let Some(row) = self.attention.get(query) else { return vec![] };
        let mut v: Vec<(usize, f32)> = row.iter().copied().enumerate().collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }

    /// The point nearest to (x, y) within `radius` (all in data units), the sentence's first.
    pub fn nearest(&self, x: f32, y: f32, radius: f32) -> Option<QkPick> {
        let d2 = |p: &[f32; 2]| (p[0] - x).powi(2) + (p[1] - y).powi(2);
        let r2 = radius * radius;
        let best = |pts: &mut dyn Iterator<Item = (QkPick, f32)>| pts.filter(|p| p.1 <= r2).min_by(|a, b| a.1.total_cmp(&b.1));
        let sentence = self
            .sentence
            .iter()
            .enumerate()
            .flat_map(|(i, t)| [(QkPick::SentenceQuery(i), d2(&t.query)), (QkPick::SentenceKey(i), d2(&t.key))]);
        if let Some((p, _)) = best(&mut sentence.into_iter()) {
            return Some(p);
        }
        let corpus = self
            .queries
            .iter()
            .enumerate()
            .map(|(i, p)| (QkPick::Query(i), d2(p)))
            .chain(self.keys.iter().enumerate().map(|(i, p)| (QkPick::Key(i), d2(p))));
        best(&mut corpus.into_iter()).map(|(p, _)| p)
    }

    /// A surveyed token's line and position, and the line's pieces.
    pub fn context(&self, token: usize) -> Option<(usize, usize, &[String])> {
        let &(line, position) = self.tokens.get(token)?;
        let i = self.lines.binary_search_by_key(&(line as usize), |(l, _)| *l).ok()?;
        Some((line as usize, position as usize, &self.lines[i].1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> QkView {
        QkView {
            layer: 1,
            head: 0,
            explained: [0.5, 0.2],
            queries: vec![[0.0, 0.0], [1.0, 1.0]],
            keys: vec![[2.0, 0.0], [0.0, 3.0]],
            tokens: vec![(0, 1), (2, 1)],
            lines: vec![(0, vec!["[CLS]".into(), "a".into(), "[SEP]".into()]), (2, vec!["[CLS]".into(), "b".into(), "[SEP]".into()])],
            sentence: vec![QkToken { text: "x".into(), query: [1.1, 1.0], key: [-1.0, -1.0] }],
            attention: vec![vec![1.0]],
            ms: 1.0,
        }
    }

    #[test]
    fn the_nearest_point_prefers_the_sentence_and_respects_the_radius() {
        let v = view();
        assert_eq!(v.nearest(1.0, 1.0, 0.5), Some(QkPick::SentenceQuery(0)), "the sentence's point is drawn on top");
        assert_eq!(v.nearest(1.9, 0.1, 0.5), Some(QkPick::Key(0)));
        assert_eq!(v.nearest(0.1, 0.1, 0.5), Some(QkPick::Query(0)));
        assert_eq!(v.nearest(5.0, 5.0, 0.5), None);
    }

    #[test]
    fn bounds_hold_every_point_and_context_finds_the_line() {
        let v = view();
        let b = v.bounds();
        assert!(b[0] < -1.0 && b[1] < -1.0 && b[2] > 2.0 && b[3] > 3.0, "{b:?}");
        assert_eq!(v.context(1).map(|(l, p, pieces)| (l, p, pieces[p].clone())), Some((2, 1, "b".to_string())));
        assert_eq!(v.context(7), None);
    }

    #[test]
    fn top_keys_are_the_largest_weights_first() {
        let mut v = view();
        v.attention = vec![vec![0.1, 0.6, 0.3]];
        assert_eq!(v.top_keys(0, 2), vec![(1, 0.6), (2, 0.3)]);
        assert_eq!(v.top_keys(3, 2), vec![]);
    }
}

/// Where the scatter is looked at: the data point at the canvas's centre and pixels per data unit,
/// on a canvas `w` x `h` pixels (y up in data, down in pixels).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub w: f64,
    pub h: f64,
    pub cx: f64,
    pub cy: f64,
    pub scale: f64,
}

impl Frame {
    /// Every point of `view` in sight.
    pub fn fit(view: &QkView, w: f64, h: f64) -> Frame {
        let [x0, y0, x1, y1] = view.bounds().map(|v| v as f64);
        let scale = (w / (x1 - x0).max(1e-9)).min(h / (y1 - y0).max(1e-9));
        Frame { w, h, cx: (x0 + x1) / 2.0, cy: (y0 + y1) / 2.0, scale }
    }

    pub fn to_px(&self, p: [f32; 2]) -> (f64, f64) {
        ((p[0] as f64 - self.cx) * self.scale + self.w / 2.0, self.h / 2.0 - (p[1] as f64 - self.cy) * self.scale)
    }

    pub fn to_data(&self, px: f64, py: f64) -> [f32; 2] {
        [((px - self.w / 2.0) / self.scale + self.cx) as f32, ((self.h / 2.0 - py) / self.scale + self.cy) as f32]
    }

    /// Zoomed by `factor` about pixel (px, py), which keeps its data point.
    pub fn zoomed(&self, factor: f64, px: f64, py: f64) -> Frame {
        let at = self.to_data(px, py);
        let scale = (self.scale * factor).clamp(1e-6, 1e9);
        let mut f = Frame { scale, ..*self };
        f.cx = at[0] as f64 - (px - self.w / 2.0) / scale;
        f.cy = at[1] as f64 + (py - self.h / 2.0) / scale;
        f
    }

    /// Moved so the picture follows a drag of (dx, dy) pixels.
    pub fn panned(&self, dx: f64, dy: f64) -> Frame {
        Frame { cx: self.cx - dx / self.scale, cy: self.cy + dy / self.scale, ..*self }
    }
}

#[cfg(test)]
mod frame_tests {
    use super::*;

    #[test]
    fn pixels_and_data_round_trip_and_zoom_keeps_the_point_under_the_pointer() {
        let f = Frame { w: 640.0, h: 400.0, cx: 1.0, cy: -2.0, scale: 50.0 };
        assert_eq!(f.to_px([1.0, -2.0]), (320.0, 200.0));
        let (px, py) = f.to_px([3.0, 1.0]);
        assert!(px > 320.0 && py < 200.0, "right and up");
        let back = f.to_data(px, py);
        assert!((back[0] - 3.0).abs() < 1e-5 && (back[1] - 1.0).abs() < 1e-5);
        let z = f.zoomed(2.0, 100.0, 50.0);
        let (a, b) = (f.to_data(100.0, 50.0), z.to_data(100.0, 50.0));
        assert!((a[0] - b[0]).abs() < 1e-5 && (a[1] - b[1]).abs() < 1e-5 && z.scale == 100.0);
        let p = f.panned(10.0, -20.0);
        assert_eq!(p.to_px([1.0, -2.0]), (330.0, 180.0), "the picture moves with the drag");
    }
}
