//! A long job the worker runs in slices (pre-training, fine-tuning, translation training): what
//! every kind must say (its steps, one step, its files) so that one runner (`engine::job`) starts,
//! steps, pauses, saves and reports all of them alike. No browser code here.

use crate::bundle::ModelFiles;
use crate::error::Result;
use crate::worker::protocol::{FromEngine, JobEvent};

// The worker is single-threaded (wasm): no `Send` bound is wanted on the steps' futures.
#[allow(async_fn_in_trait)]
pub trait Job {
    /// What the kind reports once set up, one step's point for its charts, what it shows as it goes.
    type Ready;
    type Point;
    type Show;

    /// Steps taken, and planned.
    fn steps(&self) -> (usize, usize);

    fn finished(&self) -> bool {
        let (done, total) = self.steps();
        done >= total
    }

    /// One step: its point, the units it took (tokens, examples, pairs: the throughput) and what
    /// fell due to show after it (a filmstrip frame, held-out scores).
    async fn step(&mut self) -> Result<(Self::Point, usize, Option<Self::Show>)>;

    /// What to show when the run pauses and about once a second while it runs (the current batch).
    async fn shown(&mut self) -> Result<Option<Self::Show>> {
        Ok(None)
    }

    /// The model as it is now, as an HF folder's files.
    async fn files(&mut self) -> Result<ModelFiles>;

    /// The message that carries this kind's events to the page.
    fn wrap(ev: JobEvent<Self::Ready, Self::Point, Self::Show>) -> FromEngine;
}
