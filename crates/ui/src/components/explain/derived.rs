//! What the head average and the rollout views share: their props, the picked cell of their
//! matrix, and the layer chosen in their select.

use crate::components::SnapRef;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DerivedProps {
    /// The snapshot in view ([CLS]/[SEP] already dropped when hidden).
    pub snapshot: SnapRef,
    pub tokens: Rc<Vec<String>>,
    /// The legend's note (what the rows are).
    pub note: AttrValue,
}

/// The picked (row, col) of an n x n matrix ((0, 0) when the text got shorter) and the callback
/// that picks another.
#[hook]
pub fn use_cell(n: usize) -> ((usize, usize), Callback<(usize, usize)>) {
    let cell = use_state(|| (0usize, 0usize));
    let rc = if cell.0 < n && cell.1 < n { *cell } else { (0, 0) };
    (rc, Callback::from(move |rc: (usize, usize)| cell.set(rc)))
}

/// A layer `<select>`: its value as a number, or None for any other option ("all", "last").
#[hook]
pub fn use_layer_choice() -> (Option<usize>, Callback<Event>) {
    let choice = use_state(|| None::<usize>);
    let value = *choice;
    let onchange = Callback::from(move |e: Event| {
        choice.set(e.target_unchecked_into::<HtmlSelectElement>().value().parse::<usize>().ok());
    });
    (value, onchange)
}
