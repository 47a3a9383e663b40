// Dropout's keep decision, shared by attention.wgsl and elementwise.wgsl (the pipeline cache puts
// this file in front of both): a counter hash of (seed, element), so a backward regenerates the
// same mask without storing it; `gpu::kernels::elementwise::keep_factor` is its CPU twin for tests.

fn hash(v: u32) -> u32 {
    // a 32-bit integer mixer (lowbias32): good avalanche, cheap, same result everywhere
    var h = v;
    h ^= h >> 16u; h *= 0x7feb352du;
    h ^= h >> 15u; h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn keep_factor(seed: u32, idx: u32, prob: f32) -> f32 {
    let u = f32(hash(idx ^ hash(seed)) >> 8u) * (1.0 / 16777216.0);
    if (u < prob) { return 0.0; }
    return 1.0 / (1.0 - prob);
}
