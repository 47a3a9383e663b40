//! `cargo bench --bench attribute`: what an attribution costs next to what the page already
//! computes, on the shipped model (native CPU, one thread), by `explain::attribute_bench` (the page
//! times the same rows in its worker: `node tests/e2e/bench_why.mjs`). Prints a table with the
//! targets: grad and grad x input within one frame (16 ms) on top of a keystroke, IG within 4x one
//! forward + backward.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use bertscope::backend::block_on;
use bertscope::bundle::Bert;
use bertscope::explain::attribute_bench::attribution_timings;
use std::path::Path;
use std::time::Instant;

fn main() {
    // as the CLI: freed pages stay with mimalloc (purge_delay -1) instead of being faulted in again
    unsafe { libmimalloc_sys::mi_option_set(15, -1) };
    let reps = std::env::var("BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(9);
    let bert = Bert::from_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/models/bert-tiny").as_path()).unwrap();
    let start = Instant::now();
    let now_ms = || start.elapsed().as_secs_f64() * 1e3;
    let r = block_on(attribution_timings(&bert, reps, &now_ms)).unwrap();
    println!("{} tokens, the shipped model, native CPU, one thread; median of {reps} rounds, each running all five", r.tokens);
    println!();
    println!("| what | ms | against | target |");
    println!("|---|---:|---|---|");
    println!("| the explainer's snapshot (a keystroke's forward) | {:.2} | | |", r.snapshot);
    println!("| one forward + backward of the target's loss | {:.2} | | |", r.forward_backward);
    println!("| grad | {:.2} | +{:.2} ms on a keystroke | <= 16 ms |", r.grad, r.grad);
    println!("| grad x input | {:.2} | +{:.2} ms on a keystroke | <= 16 ms |", r.grad_x_input, r.grad_x_input);
    println!("| integrated gradients, N = 32 | {:.2} | {:.1}x one forward + backward | <= 4x |", r.ig, r.ig_ratio());
}
