//! A heatmap as a standalone file: the layout shared by the PNG (drawn on a canvas by the page) and
//! the SVG (built here as text): a title, key labels across the top, query labels down the side,
//! one square per (query, key) cell in viridis, and the legend with its note underneath.

use super::colormap::viridis_hex;

/// Room for the title, the labels and the legend, in pixels.
pub const TITLE_H: usize = 36;
pub const LABEL: usize = 110;
pub const PAD: usize = 24;
pub const LEGEND_H: usize = 64;
pub const MIN_WIDTH: usize = 460;
/// Longest label kept whole (longer ones end in "…").
pub const LABEL_CHARS: usize = 14;

/// Where everything goes for an N x N heatmap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    pub n: usize,
    /// Side of one cell (28 px for short inputs, smaller so that the matrix stays <= ~720 px).
    pub cell: usize,
    /// Top-left corner of the matrix.
    pub left: usize,
    pub top: usize,
    pub width: usize,
    pub height: usize,
    /// Top of the legend's ramp.
    pub legend_y: usize,
}

impl Layout {
    pub fn new(n: usize) -> Self {
        let cell = (720 / n.max(1)).clamp(4, 28);
        let (left, top) = (LABEL, TITLE_H + LABEL);
        let width = (left + n * cell + PAD).max(MIN_WIDTH);
        let legend_y = top + n * cell + 18;
        Layout { n, cell, left, top, width, height: legend_y + LEGEND_H, legend_y }
    }

    /// Whether the token labels fit their rows (a cell under 9 px gets none).
    pub fn labelled(&self) -> bool {
        self.cell >= 9
    }

    /// The legend ramp: x, width.
    pub fn ramp(&self) -> (usize, usize) {
        (PAD, self.width.min(MIN_WIDTH) - 2 * PAD)
    }
}

/// A label cut to LABEL_CHARS characters.
pub fn short_label(t: &str) -> String {
    if t.chars().count() <= LABEL_CHARS {
        t.to_string()
    } else {
        let mut s: String = t.chars().take(LABEL_CHARS - 1).collect();
        s.push('…');
        s
    }
}

/// `t` safe inside XML text and attribute values.
pub fn xml_escape(t: &str) -> String {
    let mut s = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => s.push('\u{fffd}'),
            c => s.push(c),
        }
    }
    s
}

/// The heatmap (`values`: N*N row-major, N = `tokens.len()`, in [0, 1]) as an SVG document: one
/// `<rect class="cell">` per cell carrying its row, column and value, labels, title and legend.
pub fn svg(title: &str, tokens: &[String], values: &[f32], legend_note: &str) -> String {
    use std::fmt::Write;
    let n = tokens.len();
    let lay = Layout::new(n);
    let (c, left, top) = (lay.cell, lay.left, lay.top);
    let mut s = String::with_capacity(200 + n * n * 110);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif">"#,
        w = lay.width,
        h = lay.height
    );
    let _ = write!(s, "<title>{}</title>", xml_escape(title));
    let _ = write!(s, r##"<rect class="background" x="0" y="0" width="{}" height="{}" fill="#ffffff"/>"##, lay.width, lay.height);
    let _ = write!(s, r##"<text x="{PAD}" y="24" font-size="16" font-weight="bold" fill="#111">{}</text>"##, xml_escape(title));
    if lay.labelled() {
        let fs = (c as f32 * 0.5).clamp(8.0, 12.0);
        for (i, t) in tokens.iter().enumerate() {
            let mid = i * c + c / 2;
            let label = xml_escape(&short_label(t));
            let _ = write!(
                s,
                r##"<text class="row-label" x="{}" y="{}" font-size="{fs}" text-anchor="end" dominant-baseline="middle" fill="#111">{label}</text>"##,
                left - 6,
                top + mid
            );
            let _ = write!(
                s,
                r##"<text class="col-label" transform="translate({},{}) rotate(-60)" font-size="{fs}" dominant-baseline="middle" fill="#111">{label}</text>"##,
                left + mid,
                top - 6
            );
        }
    }
    for i in 0..n {
        for j in 0..n {
            let v = values.get(i * n + j).copied().unwrap_or(0.0);
            let _ = write!(
                s,
                r#"<rect class="cell" data-row="{i}" data-col="{j}" data-value="{v}" x="{}" y="{}" width="{c}" height="{c}" fill="{}"><title>{i}→{j}: {v:.4}</title></rect>"#,
                left + j * c,
                top + i * c,
                viridis_hex(v)
            );
        }
    }
    // legend: the ramp as a gradient, ticks at 0, 0.5, 1, and the note
    let (rx, rw) = lay.ramp();
    let y = lay.legend_y;
    s.push_str(r#"<defs><linearGradient id="viridis" x1="0" x2="1" y1="0" y2="0">"#);
    for k in 0..=10 {
        let _ = write!(s, r#"<stop offset="{}" stop-color="{}"/>"#, k as f32 / 10.0, viridis_hex(k as f32 / 10.0));
    }
    s.push_str("</linearGradient></defs>");
    let _ = write!(s, r#"<rect class="legend-ramp" x="{rx}" y="{y}" width="{rw}" height="12" fill="url(#viridis)"/>"#);
    for (t, anchor) in [(0.0f32, "start"), (0.5, "middle"), (1.0, "end")] {
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" font-size="11" text-anchor="{anchor}" fill="#111">{t}</text>"##,
            rx as f32 + t * rw as f32,
            y + 26
        );
    }
    let _ =
        write!(s, r##"<text class="legend-note" x="{rx}" y="{}" font-size="11" fill="#555">{}</text>"##, y + 44, xml_escape(legend_note));
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rect_per_cell_with_its_value_and_escaped_labels() {
        let tokens: Vec<String> = ["[CLS]", "a<b&\"c\"", "[SEP]"].map(String::from).to_vec();
        let values: Vec<f32> = (0..9).map(|i| i as f32 / 8.0).collect();
        let s = svg("L0 · H1 <test>", &tokens, &values, "each row sums to 1");
        assert!(s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("<rect class=\"cell\"").count(), 9);
        assert!(s.contains(r#"data-row="2" data-col="1" data-value="0.875""#));
        assert!(s.contains("a&lt;b&amp;&quot;c&quot;") && !s.contains("a<b"));
        assert!(s.contains("L0 · H1 &lt;test&gt;"));
        assert!(s.contains("each row sums to 1"));
        assert_eq!(s.matches("<text class=\"row-label\"").count(), 3);
        // every element opened is closed (a cheap well-formedness check; the e2e test parses it)
        assert_eq!(s.matches("<text").count(), s.matches("</text>").count());
        assert_eq!(s.matches("<rect class=\"cell\"").count(), s.matches("</rect>").count());
        assert_eq!(s.matches("<title>").count(), s.matches("</title>").count());
    }

    #[test]
    fn layout_grows_with_the_input_and_stays_bounded() {
        let small = Layout::new(20);
        assert_eq!(small.cell, 28);
        assert_eq!((small.width, small.height), (LABEL + 560 + PAD, TITLE_H + LABEL + 560 + 18 + LEGEND_H));
        assert_eq!(Layout::new(40).cell, 18);
        let big = Layout::new(512);
        assert_eq!(big.cell, 4);
        assert!(!big.labelled() && small.labelled());
        assert_eq!(Layout::new(2).width, MIN_WIDTH);
    }

    #[test]
    fn long_labels_are_cut() {
        assert_eq!(short_label("abcdefghijklmnopq"), "abcdefghijklm…");
        assert_eq!(short_label("short"), "short");
    }
}
