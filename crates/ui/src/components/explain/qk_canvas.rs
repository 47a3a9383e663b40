//! The queries-and-keys scatter's picture: the surveyed tokens' queries and keys as small
//! translucent squares written straight into the canvas's pixels (tens of thousands of points in a
//! few milliseconds, so panning and zooming redraw at frame rate), then the current sentence's
//! points, the chosen query's lines to the keys it attends to most, and their labels on top.

use crate::components::show_token;
use crate::explain::qk_scatter::{Frame, QkView};
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

/// Queries blue, keys orange (a pair that stays apart for the common colour blindnesses).
pub const QUERY: [u8; 3] = [31, 119, 180];
pub const KEY: [u8; 3] = [255, 127, 14];
const QUERY_CSS: &str = "rgb(31,119,180)";
const KEY_CSS: &str = "rgb(255,127,14)";
/// How much of a point's colour covers what is under it (of 255), and its side in pixels: faint
/// and small for tens of thousands of points (where they pile up), stronger and larger for a few.
fn ink(points: usize) -> (u32, usize) {
    if points > 4000 {
        (90, 2)
    } else {
        (200, 3)
    }
}
/// Keys joined to the chosen query.
pub const LINKS: usize = 3;

/// Blends `c` with opacity `alpha` into the `side` x `side` pixels at (x, y) of a w x h RGBA picture.
fn plot(px: &mut [u8], (w, h): (usize, usize), (x, y): (f64, f64), c: [u8; 3], (alpha, side): (u32, usize)) {
    if !(x >= 0.0 && y >= 0.0) {
        return;
    }
    let (x, y) = (x as usize, y as usize);
    for yy in (y..y + side).filter(|&yy| yy < h) {
        for xx in (x..x + side).filter(|&xx| xx < w) {
            let i = 4 * (yy * w + xx);
            for k in 0..3 {
                px[i + k] = ((px[i + k] as u32 * (255 - alpha) + c[k] as u32 * alpha) / 255) as u8;
            }
        }
    }
}

/// The corpus's points as RGBA bytes: keys first, queries over them.
fn cloud(view: &QkView, f: &Frame) -> Vec<u8> {
    let (w, h) = (f.w as usize, f.h as usize);
    let mut px = vec![255u8; w * h * 4];
    let ink = ink(view.queries.len() + view.keys.len());
    let half = (ink.1 / 2) as f64;
    for (points, colour) in [(&view.keys, KEY), (&view.queries, QUERY)] {
        for p in points.iter() {
            let (x, y) = f.to_px(*p);
            plot(&mut px, (w, h), (x - half, y - half), colour, ink);
        }
    }
    px
}

fn dot(ctx: &CanvasRenderingContext2d, (x, y): (f64, f64), r: f64, fill: &str) {
    ctx.begin_path();
    let _ = ctx.arc(x, y, r, 0.0, std::f64::consts::TAU);
    ctx.set_fill_style_str(fill);
    ctx.fill();
    ctx.set_stroke_style_str("#222");
    ctx.set_line_width(1.5);
    ctx.stroke();
}

fn label(ctx: &CanvasRenderingContext2d, (x, y): (f64, f64), text: &str) {
    ctx.set_font("bold 13px sans-serif");
    ctx.set_line_width(3.0);
    ctx.set_stroke_style_str("white");
    let _ = ctx.stroke_text(text, x + 8.0, y - 6.0);
    ctx.set_fill_style_str("#111");
    let _ = ctx.fill_text(text, x + 8.0, y - 6.0);
}

/// Draws `view` in frame `f` on `c`, query `chosen` of the sentence joined to its strongest keys.
pub fn draw(c: &HtmlCanvasElement, view: &QkView, f: &Frame, chosen: usize) -> Option<()> {
    let (w, h) = (f.w as u32, f.h as u32);
    if c.width() != w || c.height() != h {
        c.set_width(w);
        c.set_height(h);
    }
    let ctx: CanvasRenderingContext2d = c.get_context("2d").ok()??.dyn_into().ok()?;
    let px = cloud(view, f);
    let img = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&px), w, h).ok()?;
    ctx.put_image_data(&img, 0.0, 0.0).ok()?;
    let s = &view.sentence;
    let links = view.top_keys(chosen, LINKS);
    if let Some(q) = s.get(chosen) {
        let from = f.to_px(q.query);
        for &(k, weight) in &links {
            ctx.begin_path();
            ctx.move_to(from.0, from.1);
            let to = f.to_px(s[k].key);
            ctx.line_to(to.0, to.1);
            ctx.set_stroke_style_str("rgba(20,20,20,0.75)");
            ctx.set_line_width(1.0 + 6.0 * weight as f64);
            ctx.stroke();
        }
    }
    for t in s.iter() {
        dot(&ctx, f.to_px(t.key), 4.0, KEY_CSS);
    }
    for t in s.iter() {
        dot(&ctx, f.to_px(t.query), 4.0, QUERY_CSS);
    }
    if let Some(q) = s.get(chosen) {
        for &(k, weight) in &links {
            let at = f.to_px(s[k].key);
            dot(&ctx, at, 6.0, KEY_CSS);
            label(&ctx, at, &format!("{} {:.0}%", show_token(&s[k].text), 100.0 * weight));
        }
        let at = f.to_px(q.query);
        dot(&ctx, at, 8.0, QUERY_CSS);
        label(&ctx, at, &show_token(&q.text));
    }
    Some(())
}
