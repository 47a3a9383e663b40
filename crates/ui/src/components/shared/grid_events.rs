//! The pointer and keyboard handlers every matrix canvas shares: which cell the pointer is over,
//! where the arrow keys (Home / End, Enter / Space) move the selected cell, and Escape. The arithmetic is
//! `ui::grid_nav` (tested natively); these only read the event.

use crate::grid_nav::{cell_under, step};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// A mouse handler for a canvas drawing a (rows x cols) grid: emits the cell under the pointer.
pub fn on_pointer(rows: usize, cols: usize, cb: Callback<(usize, usize)>) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        let c: HtmlCanvasElement = e.target_unchecked_into();
        let size = (c.client_width() as f64, c.client_height() as f64);
        if let Some(cell) = cell_under((e.offset_x() as f64, e.offset_y() as f64), size, rows, cols) {
            cb.emit(cell);
        }
    })
}

/// A key handler: from `at` (the selected cell, (0, 0) when none) emits where the key moves it;
/// Escape goes to `escape`, when given.
pub fn on_keys(
    rows: usize,
    cols: usize,
    at: Option<(usize, usize)>,
    cb: Callback<(usize, usize)>,
    escape: Option<Callback<()>>,
) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        if let (Some(esc), "Escape") = (&escape, e.key().as_str()) {
            return esc.emit(());
        }
        if let Some(next) = step(&e.key(), at.unwrap_or((0, 0)), rows, cols) {
            e.prevent_default();
            cb.emit(next);
        }
    })
}

/// A key handler for a grid that is one button: Enter or Space emits (0, 0).
pub fn on_press(cb: Callback<(usize, usize)>) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        if e.key() == "Enter" || e.key() == " " {
            e.prevent_default();
            cb.emit((0, 0));
        }
    })
}
