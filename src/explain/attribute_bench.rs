//! What an attribution costs next to what the page already computes, timed by a clock the caller
//! gives (natively `Instant`, in the page's worker `performance.now`), so `cargo bench --bench
//! attribute` and the page's `?bench=attribution` time the same rows the same way.
//!
//! The input: a 21-token sentence with one [MASK], its target the guess "cat" (any masked-LM
//! model). Each of `reps` rounds runs every row once, in turn, so a load that comes and goes falls
//! on all of them alike and their ratios hold; each row's figure is its median.

use crate::backend::Backend;
use crate::bundle::Bert;
use crate::error::{BertError, Result};
use crate::explain::snapshot::{build, Request};
use crate::infer::attribute::{attribute_input, Input, Method, Target};
use crate::model::backward::{loss_and_grads, Targets};
use crate::model::forward::Batch;
pub use bertscope_view::explain::attribute_bench::*;

/// The sentence the rows explain (the page benchmark's, with one [MASK]).
pub const SENTENCE: &str = "the quick brown fox jumps over the lazy dog while the [MASK] sleeps under the old oak tree.";

/// Times the five rows over `reps` rounds (after one warm-up round) with `now_ms`.
pub async fn attribution_timings(bert: &Bert, reps: usize, now_ms: &dyn Fn() -> f64) -> Result<AttributionTimings> {
    if bert.params.mlm.is_none() {
        return Err(BertError::Input("the attribution benchmark explains a [MASK] guess: the model has no masked-LM head".into()));
    }
    let enc = bert.tokenizer.encode(SENTENCE, None)?;
    let t = enc.input_ids.len();
    let mask = enc.input_ids.iter().position(|&i| i == bert.tokenizer.mask_id).expect("the sentence has a [MASK]");
    let input = Input::of(&enc);
    let target = Target::parse(&format!("mask:{mask}:cat"), bert, t)?;
    let Target::Mask { token, .. } = target else { unreachable!("a mask target") };
    let req = Request { text: SENTENCE.into(), top_k: 5, ..Default::default() };
    let batch =
        Batch::single(enc.input_ids.iter().map(|&i| i as usize).collect(), enc.token_type_ids.iter().map(|&i| i as usize).collect());
    let mut labels = vec![-100i64; t];
    labels[mask] = token as i64;
    let targets = Targets { mlm_labels: Some(labels), nsp_labels: None, task: None };
    let mut rows: [Vec<f64>; 5] = Default::default();
    for round in 0..=reps {
        let mut lap = |row: usize, t0: f64| {
            if round > 0 {
                rows[row].push(now_ms() - t0);
            }
        };
        let t0 = now_ms();
        build(bert, &req)?;
        lap(0, t0);
        let t0 = now_ms();
        loss_and_grads(&bert.params, &bert.cfg, &batch, &targets, None)?;
        lap(1, t0);
        for (row, method, steps) in [(2, Method::Grad, 1), (3, Method::GradXInput, 1), (4, Method::Ig, 32)] {
            let t0 = now_ms();
            attribute_input(&mut Backend::cpu(), bert, (0, 0), &input, &target, method, steps).await?;
            lap(row, t0);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let [a, b, c, d, e] = &mut rows;
    Ok(AttributionTimings {
        tokens: t,
        rounds: reps,
        snapshot: median(a),
        forward_backward: median(b),
        grad: median(c),
        grad_x_input: median(d),
        ig: median(e),
    })
}
