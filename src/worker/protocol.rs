//! The messages between the page and the engine's Web Worker (`bertscope_view::protocol`; tested
//! here with messages the engine builds).

pub use bertscope_view::protocol::*;

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
