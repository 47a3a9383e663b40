//! Putting a (rows x cols) picture on a canvas, one pixel per cell (CSS scales it up): what every
//! matrix picture (heatmap.rs, mat_canvas.rs, matrix_canvas.rs) does once its colours are known.

use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

/// Whether the canvas already holds a (rows x cols) picture (one the DOM diff swapped in is blank
/// and has another size).
pub(super) fn is_drawn(c: &HtmlCanvasElement, rows: usize, cols: usize) -> bool {
    c.width() == cols as u32 && c.height() == rows as u32
}

/// Sizes the canvas to cols x rows and puts `rgba` (rows * cols * 4 bytes, row-major) on it.
pub(super) fn put_pixels(c: &HtmlCanvasElement, rgba: &[u8], rows: usize, cols: usize) -> Option<()> {
    if rows == 0 || cols == 0 || rgba.len() != rows * cols * 4 {
        return None;
    }
    c.set_width(cols as u32);
    c.set_height(rows as u32);
    let ctx: CanvasRenderingContext2d = c.get_context("2d").ok()??.dyn_into().ok()?;
    let img = ImageData::new_with_u8_clamped_array_and_sh(Clamped(rgba), cols as u32, rows as u32).ok()?;
    ctx.put_image_data(&img, 0.0, 0.0).ok()
}
