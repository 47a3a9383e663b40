//! Viridis, the colour-blind-safe sequential scale of the heatmaps (matplotlib's viridis sampled at
//! t = 0, 0.1, ..., 1 and interpolated linearly), and the legend built from it.

/// matplotlib viridis at t = 0.0, 0.1, ..., 1.0.
const STOPS: [[u8; 3]; 11] = [
    [0x44, 0x01, 0x54],
    [0x48, 0x24, 0x75],
    [0x41, 0x44, 0x87],
    [0x35, 0x5f, 0x8d],
    [0x2a, 0x78, 0x8e],
    [0x21, 0x91, 0x8c],
    [0x22, 0xa8, 0x84],
    [0x44, 0xbf, 0x70],
    [0x7a, 0xd1, 0x51],
    [0xbd, 0xdf, 0x26],
    [0xfd, 0xe7, 0x25],
];

/// The colour at `u` in [0, 1] (clamped; NaN as 0) of a scale interpolated linearly between
/// evenly spaced `stops` (this module's viridis and diverging.rs's PuOr).
pub fn between_stops(stops: &[[u8; 3]], u: f32) -> [u8; 3] {
    let u = if u.is_nan() { 0.0 } else { u.clamp(0.0, 1.0) };
    let x = u * (stops.len() - 1) as f32;
    let i = (x.floor() as usize).min(stops.len() - 2);
    let f = x - i as f32;
    let (a, b) = (stops[i], stops[i + 1]);
    std::array::from_fn(|c| (a[c] as f32 + f * (b[c] as f32 - a[c] as f32)).round() as u8)
}

/// `#rrggbb`.
pub fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A CSS `linear-gradient` through `stops`, first on the left, for a legend.
pub fn css_gradient_of(stops: &[[u8; 3]]) -> String {
    let stops: Vec<String> = stops.iter().map(|&s| hex(s)).collect();
    format!("linear-gradient(to right, {})", stops.join(", "))
}

/// One RGBA pixel per value, coloured by `colour`.
pub fn pixels(values: &[f32], colour: impl Fn(f32) -> [u8; 3]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 4);
    for &v in values {
        let [r, g, b] = colour(v);
        out.extend_from_slice(&[r, g, b, 255]);
    }
    out
}

/// Perceived lightness (Rec. 709 luma, 0..255) of a colour: what the scales' tests order by.
pub fn luma([r, g, b]: [u8; 3]) -> f32 {
    0.2126 * r as f32 + 0.7152 * g as f32 + 0.0722 * b as f32
}

/// The colour of `t` in [0, 1] (clamped; NaN is drawn as 0).
pub fn viridis(t: f32) -> [u8; 3] {
    between_stops(&STOPS, t)
}

/// `#rrggbb` of `t`.
pub fn viridis_hex(t: f32) -> String {
    hex(viridis(t))
}

/// Text that reads on top of the colour of `t` (dark on the light end).
pub fn text_on(t: f32) -> &'static str {
    if t > 0.62 {
        "#111"
    } else {
        "#fff"
    }
}

/// A CSS `linear-gradient` running from 0 (left) to 1 (right), for the legend.
pub fn css_gradient() -> String {
    css_gradient_of(&STOPS)
}

/// `n` * `n` probabilities (row-major) as RGBA pixels, one pixel per cell.
pub fn rgba(values: &[f32]) -> Vec<u8> {
    pixels(values, viridis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_and_stops_are_matplotlib_viridis() {
        assert_eq!(viridis_hex(0.0), "#440154");
        assert_eq!(viridis_hex(0.5), "#21918c");
        assert_eq!(viridis_hex(1.0), "#fde725");
        assert_eq!(viridis(-3.0), viridis(0.0));
        assert_eq!(viridis(7.0), viridis(1.0));
        assert_eq!(viridis(f32::NAN), viridis(0.0));
    }

    #[test]
    fn lightness_grows_monotonically() {
        // viridis is sequential: perceived lightness increases from 0 to 1
        let light = |t: f32| luma(viridis(t));
        let l: Vec<f32> = (0..=100).map(|i| light(i as f32 / 100.0)).collect();
        assert!(l.windows(2).all(|w| w[1] >= w[0] - 0.5), "{l:?}");
    }

    #[test]
    fn pixels_and_gradient() {
        assert_eq!(rgba(&[0.0, 1.0]), [0x44, 0x01, 0x54, 255, 0xfd, 0xe7, 0x25, 255]);
        let g = css_gradient();
        assert!(g.starts_with("linear-gradient(to right, #440154") && g.ends_with("#fde725)"));
        assert_eq!(text_on(0.9), "#111");
    }
}
