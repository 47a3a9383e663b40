//! The values of a matrix, shared between the views that draw and export it without copying.

use std::rc::Rc;

/// (rows * cols) row-major values shared by the views; equal when they are the same allocation (a
/// canvas keyed on them draws again only for new numbers).
#[derive(Clone, Debug)]
pub struct Mat(pub Rc<Vec<f32>>);

impl PartialEq for Mat {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Mat {
    pub fn new(v: Vec<f32>) -> Self {
        Mat(Rc::new(v))
    }
}
