//! Dropout sites: which counter-hash stream each dropout of a forward draws from, the same in the
//! forward, the backward and a decoder's cross blocks.

/// Dropout sites: 0 embeddings, then per layer 1 + 3l attention probs, 2 + 3l attention output,
/// 3 + 3l FFN output, then 1 + 3L a task head's input; a decoder's cross blocks after those
/// (`cross::cross_sites`). Each gets its own stream of the counter hash.
pub fn site_seed(seed: u32, site: usize) -> u32 {
    seed.wrapping_mul(0x9E37_79B9).wrapping_add((site as u32).wrapping_mul(0x85EB_CA6B))
}

/// Dropout sites of layer `l`'s cross block (probabilities, dense), after `site_seed`'s
/// 2 + 3L of an encoder's: 2 + 3L + 2l and 3 + 3L + 2l.
pub fn cross_sites(l: usize, layers: usize) -> (usize, usize) {
    (2 + 3 * layers + 2 * l, 3 + 3 * layers + 2 * l)
}
