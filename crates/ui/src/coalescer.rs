//! The requests to the worker, coalesced: at most one forward in flight, and of the inputs typed
//! meanwhile only the latest is sent (a keystroke never queues behind stale ones).

use crate::explain::Request;

/// At most one request in flight; while it runs, newer requests replace each other and only the
/// last is sent when the reply comes.
#[derive(Clone, Debug, Default)]
pub struct Coalescer {
    in_flight: Option<u64>,
    pending: Option<Request>,
    /// The seq of the last request sent or queued: the same edit is not sent twice.
    last: Option<u64>,
}

impl Coalescer {
    /// Returns the request to send now, or None when it waits (or was already sent).
    pub fn submit(&mut self, req: Request) -> Option<Request> {
        if self.last == Some(req.seq) {
            return None;
        }
        self.last = Some(req.seq);
        if self.in_flight.is_some() {
            self.pending = Some(req);
            None
        } else {
            self.in_flight = Some(req.seq);
            Some(req)
        }
    }

    /// The reply for `seq` came: returns the waiting request to send next, if any.
    pub fn done(&mut self, seq: u64) -> Option<Request> {
        if self.in_flight != Some(seq) {
            return None;
        }
        self.in_flight = None;
        let next = self.pending.take()?;
        self.in_flight = Some(next.seq);
        Some(next)
    }

    pub fn busy(&self) -> bool {
        self.in_flight.is_some()
    }
}
