//! Moving through a (rows x cols) grid of cells, the same in every heatmap of the page: which cell
//! a pointer is over, and where a key moves the selected one. Plain Rust, tested natively; the
//! components call it from their pointer and key handlers.

/// The cell under a point at (x, y) in an element of (width, height) pixels showing the grid.
pub fn cell_under((x, y): (f64, f64), (width, height): (f64, f64), rows: usize, cols: usize) -> Option<(usize, usize)> {
    let col = (x / width.max(1.0) * cols as f64).floor();
    let row = (y / height.max(1.0) * rows as f64).floor();
    (row >= 0.0 && col >= 0.0 && (row as usize) < rows && (col as usize) < cols).then(|| (row as usize, col as usize))
}

/// Where `key` moves the cell `at`: the arrows one step (stopping at the edges), Home / End to the
/// row's ends, Enter / Space pick the cell itself; None for any other key.
pub fn step(key: &str, (r, c): (usize, usize), rows: usize, cols: usize) -> Option<(usize, usize)> {
    let (last_r, last_c) = (rows.saturating_sub(1), cols.saturating_sub(1));
    let (r, c) = (r.min(last_r), c.min(last_c));
    Some(match key {
        "ArrowUp" => (r.saturating_sub(1), c),
        "ArrowDown" => ((r + 1).min(last_r), c),
        "ArrowLeft" => (r, c.saturating_sub(1)),
        "ArrowRight" => (r, (c + 1).min(last_c)),
        "Home" => (r, 0),
        "End" => (r, last_c),
        "Enter" | " " => (r, c),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pointer_picks_the_cell_it_is_over() {
        // 3 x 4 cells drawn at 120 x 60 px: each cell 30 x 20
        assert_eq!(cell_under((0.0, 0.0), (120.0, 60.0), 3, 4), Some((0, 0)));
        assert_eq!(cell_under((119.9, 59.9), (120.0, 60.0), 3, 4), Some((2, 3)));
        assert_eq!(cell_under((31.0, 21.0), (120.0, 60.0), 3, 4), Some((1, 1)));
        assert_eq!(cell_under((120.0, 10.0), (120.0, 60.0), 3, 4), None, "past the right edge");
        assert_eq!(cell_under((-1.0, 10.0), (120.0, 60.0), 3, 4), None);
        assert_eq!(cell_under((5.0, 5.0), (0.0, 0.0), 0, 0), None, "an empty grid");
    }

    #[test]
    fn keys_move_and_stop_at_the_edges() {
        assert_eq!(step("ArrowUp", (0, 2), 3, 4), Some((0, 2)));
        assert_eq!(step("ArrowDown", (2, 2), 3, 4), Some((2, 2)));
        assert_eq!(step("ArrowDown", (0, 2), 3, 4), Some((1, 2)));
        assert_eq!(step("ArrowRight", (1, 3), 3, 4), Some((1, 3)));
        assert_eq!(step("ArrowLeft", (1, 3), 3, 4), Some((1, 2)));
        assert_eq!(step("Home", (1, 3), 3, 4), Some((1, 0)));
        assert_eq!(step("End", (1, 0), 3, 4), Some((1, 3)));
        assert_eq!(step("Enter", (1, 1), 3, 4), Some((1, 1)));
        assert_eq!(step("a", (1, 1), 3, 4), None);
        assert_eq!(step("ArrowUp", (9, 9), 3, 4), Some((1, 3)), "a stale cell is clamped first");
    }
}
