//! The diverging scale of signed values (embeddings, cosine similarities): ColorBrewer PuOr, a
//! colour-blind-safe purple (negative) - near white (0) - orange (positive) scale, interpolated
//! linearly between its 11 stops.

use super::colormap::{between_stops, css_gradient_of, hex, pixels};

/// ColorBrewer PuOr (11 classes), from -1 (dark purple) to +1 (dark orange).
const STOPS: [[u8; 3]; 11] = [
    [0x2d, 0x00, 0x4b],
    [0x54, 0x27, 0x88],
    [0x80, 0x73, 0xac],
    [0xb2, 0xab, 0xd2],
    [0xd8, 0xda, 0xeb],
    [0xf7, 0xf7, 0xf7],
    [0xfe, 0xe0, 0xb6],
    [0xfd, 0xb8, 0x63],
    [0xe0, 0x82, 0x14],
    [0xb3, 0x58, 0x06],
    [0x7f, 0x3b, 0x08],
];

/// The colour of `t` in [-1, 1] (clamped; NaN is drawn as 0).
pub fn puor(t: f32) -> [u8; 3] {
    let t = if t.is_nan() { 0.0 } else { t };
    between_stops(&STOPS, (t + 1.0) * 0.5)
}

/// `#rrggbb` of `t`.
pub fn puor_hex(t: f32) -> String {
    hex(puor(t))
}

/// A CSS `linear-gradient` from -1 (left) to +1 (right), for the legend.
pub fn css_gradient() -> String {
    css_gradient_of(&STOPS)
}

/// `values` divided by `max_abs` as RGBA pixels, one pixel per value.
pub fn rgba(values: &[f32], max_abs: f32) -> Vec<u8> {
    let inv = if max_abs > 0.0 { 1.0 / max_abs } else { 0.0 };
    pixels(values, |v| puor(v * inv))
}

/// The largest |v| (0 for an empty slice; NaN ignored).
pub fn max_abs(values: &[f32]) -> f32 {
    values.iter().filter(|v| !v.is_nan()).fold(0.0f32, |m, v| m.max(v.abs()))
}

/// The `q` quantile (0..1) of |v|: a colour range that a few outlier dimensions do not wash out
/// (values beyond it are drawn at the ends of the scale).
pub fn quantile_abs(values: &[f32], q: f32) -> f32 {
    let mut a: Vec<f32> = values.iter().filter(|v| !v.is_nan()).map(|v| v.abs()).collect();
    if a.is_empty() {
        return 0.0;
    }
    let k = ((a.len() - 1) as f32 * q.clamp(0.0, 1.0)).round() as usize;
    let (_, v, _) = a.select_nth_unstable_by(k, f32::total_cmp);
    *v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::colormap::luma;

    #[test]
    fn ends_and_middle_are_puor() {
        assert_eq!(puor_hex(-1.0), "#2d004b");
        assert_eq!(puor_hex(0.0), "#f7f7f7");
        assert_eq!(puor_hex(1.0), "#7f3b08");
        assert_eq!(puor(-5.0), puor(-1.0));
        assert_eq!(puor(f32::NAN), puor(0.0));
    }

    #[test]
    fn lightness_falls_away_from_zero_on_both_sides() {
        let light = |t: f32| luma(puor(t));
        for i in 0..50 {
            let (a, b) = (i as f32 / 50.0, (i + 1) as f32 / 50.0);
            assert!(light(b) <= light(a) + 0.5 && light(-b) <= light(-a) + 0.5, "at {a}");
        }
    }

    #[test]
    fn pixels_are_scaled_by_the_largest_magnitude() {
        let v = [-2.0, 0.0, 2.0, 1.0];
        assert_eq!(max_abs(&v), 2.0);
        let px = rgba(&v, max_abs(&v));
        assert_eq!(&px[..4], &[0x2d, 0x00, 0x4b, 255]);
        assert_eq!(&px[8..12], &[0x7f, 0x3b, 0x08, 255]);
        assert_eq!(&px[12..15], &puor(0.5));
        assert_eq!(rgba(&[1.0], 0.0)[..3], puor(0.0), "all zeros: no division by zero");
        let many: Vec<f32> = (0..=100).map(|i| if i == 50 { -1000.0 } else { i as f32 / 100.0 }).collect();
        assert_eq!(quantile_abs(&many, 1.0), 1000.0);
        assert_eq!(quantile_abs(&many, 0.98), 0.99, "the outlier does not set the range");
        assert_eq!(quantile_abs(&[], 0.5), 0.0);
        assert!(css_gradient().starts_with("linear-gradient(to right, #2d004b") && css_gradient().ends_with("#7f3b08)"));
    }
}
