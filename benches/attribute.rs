//! `cargo bench --bench attribute`: what an attribution costs next to what the page already
//! computes, on the shipped model and a 21-token sentence with one [MASK], measured side by side
//! in one run (native CPU, one thread): the explainer's snapshot, one forward + backward of the
//! target's loss, and grad, grad x input and integrated gradients (N = 32). Prints a table with the
//! targets: grad and grad x input within one frame (16 ms) on top of a keystroke, IG within 4x one
//! forward + backward.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "common/mod.rs"]
mod common;
use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::explain::snapshot::{build, Request};
use bertscope::infer::attribute::{attribute_input, Input, Method, Target};
use bertscope::model::backward::{loss_and_grads, Targets};
use bertscope::model::forward::Batch;
use common::time_side_by_side;
use std::path::Path;

fn main() {
    // as the CLI: freed pages stay with mimalloc (purge_delay -1) instead of being faulted in again
    unsafe { libmimalloc_sys::mi_option_set(15, -1) };
    let reps = std::env::var("BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(9);
    let bert = Bert::from_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/models/default").as_path()).unwrap();
    let text = "the quick brown fox jumps over the lazy dog while the [MASK] sleeps under the old oak tree.";
    let enc = bert.tokenizer.encode(text, None).unwrap();
    let t = enc.input_ids.len();
    let mask = enc.input_ids.iter().position(|&i| i == bert.tokenizer.mask_id).unwrap();
    let input = Input::of(&enc);
    let target = Target::parse(&format!("mask:{mask}:cat"), &bert, t).unwrap();
    let req = Request { text: text.into(), top_k: 5, ..Default::default() };
    let batch = Batch::single(enc.input_ids.iter().map(|&i| i as usize).collect(), vec![0; t]);
    let mut labels = vec![-100i64; t];
    labels[mask] = bert.tokenizer.token_to_id("cat").unwrap() as i64;
    let targets = Targets { mlm_labels: Some(labels), nsp_labels: None, task: None };

    let run = |m: Method, n: usize| drop(block_on(attribute_input(&mut Backend::cpu(), &bert, (0, 0), &input, &target, m, n)).unwrap());
    // side by side: each round runs all five, so the ratios hold on a busy machine
    let ms: Vec<f64> = time_side_by_side(
        reps,
        &mut [
            &mut || drop(build(&bert, &req).unwrap()),
            &mut || drop(loss_and_grads(&bert.params, &bert.cfg, &batch, &targets, None).unwrap()),
            &mut || run(Method::Grad, 1),
            &mut || run(Method::GradXInput, 1),
            &mut || run(Method::Ig, 32),
        ],
    )
    .into_iter()
    .map(|s| 1e3 * s)
    .collect();
    let [snapshot, fwd_bwd, grad, gxi, ig] = ms[..] else { unreachable!("five timings") };
    println!("{t} tokens, the shipped model, native CPU, one thread; median of {reps} rounds, each running all five");
    println!();
    println!("| what | ms | against | target |");
    println!("|---|---:|---|---|");
    println!("| the explainer's snapshot (a keystroke's forward) | {snapshot:.2} | | |");
    println!("| one forward + backward of the target's loss | {fwd_bwd:.2} | | |");
    println!("| grad | {grad:.2} | +{grad:.2} ms on a keystroke | <= 16 ms |");
    println!("| grad x input | {gxi:.2} | +{gxi:.2} ms on a keystroke | <= 16 ms |");
    println!("| integrated gradients, N = 32 | {ig:.2} | {:.1}x one forward + backward | <= 4x |", ig / fwd_bwd);
}
