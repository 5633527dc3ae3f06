//! The run's trace as the runner sees it: which span is current, so that
//! every process a step starts carries that step's `TRACEPARENT`.
//!
//! The runner and the telemetry consumer live on different threads, with a
//! channel between them: a command may start before the consumer has even
//! seen its `step:start`. So the two never pass span ids to each other; both
//! derive a step's span id from the same [`Ids`]-made key
//! and the step's index ([`TraceIds::step`]), and the runner only says which
//! top-level step is running ([`Trace::enter`]).

use std::sync::atomic::{AtomicI64, Ordering};

use super::ids::{self, Ids, Parent, SpanId, TraceId};

/// The ids fixed for the whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TraceIds {
    pub trace: TraceId,
    /// The run's root span.
    pub root: SpanId,
    /// The span of the process that started us (its `TRACEPARENT`), which
    /// the root span is a child of.
    pub parent: Option<SpanId>,
    /// What step span ids are derived from.
    key: u64,
}

impl TraceIds {
    /// New ids, in the trace of `parent` when there is one.
    pub(crate) fn new(ids: &mut Ids, parent: Option<Parent>) -> Self {
        let trace = parent.map_or_else(|| ids.trace(), |p| p.trace);
        Self {
            trace,
            root: ids.span(),
            parent: parent.map(|p| p.span),
            key: ids.next_u64(),
        }
    }

    /// The span id of the top-level step at `index`.
    pub(crate) fn step(&self, index: i64) -> SpanId {
        ids::keyed(self.key, index.unsigned_abs())
    }
}

/// No top-level step is running.
const NONE: i64 = -1;

/// The trace a run's [`Context`](super::super::step::Context) carries while
/// telemetry is on.
#[derive(Debug)]
pub(crate) struct Trace {
    pub ids: TraceIds,
    /// The index of the top-level step running now, or [`NONE`].
    current: AtomicI64,
}

impl Trace {
    pub(crate) fn new(ids: TraceIds) -> Self {
        Self {
            ids,
            current: AtomicI64::new(NONE),
        }
    }

    /// The `TRACEPARENT` of a process started now: the running top-level
    /// step's span, else the root span.
    pub(crate) fn traceparent(&self) -> String {
        let span = match self.current.load(Ordering::Acquire) {
            NONE => self.ids.root,
            index => self.ids.step(index),
        };
        ids::traceparent(self.ids.trace, span)
    }

    /// Says that the step at `index` runs until the guard is dropped. Only
    /// a top-level step takes the place: a nested workflow's steps, which
    /// run inside one, find it taken and leave it alone (their events are
    /// the parent step's, so are their processes).
    pub(crate) fn enter(&self, index: i64) -> Entered<'_> {
        let took = index >= 0
            && self
                .current
                .compare_exchange(NONE, index, Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
        Entered { trace: self, took }
    }
}

/// A running top-level step, until dropped.
#[derive(Debug)]
pub(crate) struct Entered<'t> {
    trace: &'t Trace,
    took: bool,
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        if self.took {
            self.trace.current.store(NONE, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_step_names_the_parent_of_a_process() {
        let ids = TraceIds::new(&mut Ids::seeded(1), None);
        let trace = Trace::new(ids);
        let root = ids::traceparent(ids.trace, ids.root);
        assert_eq!(trace.traceparent(), root);
        {
            let _step = trace.enter(3);
            let step = ids::traceparent(ids.trace, ids.step(3));
            assert_eq!(trace.traceparent(), step);
            // A nested workflow's step inside it changes nothing.
            {
                let _nested = trace.enter(0);
                assert_eq!(trace.traceparent(), step);
            }
            assert_eq!(trace.traceparent(), step);
        }
        assert_eq!(trace.traceparent(), root);
    }

    #[test]
    fn a_caller_traceparent_keeps_its_trace() {
        let parent =
            ids::parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        let ids = TraceIds::new(&mut Ids::seeded(1), parent);
        assert_eq!(ids.trace.hex(), "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(ids.parent, Some(SpanId(0xb7ad_6b71_6920_3331)));
        assert_ne!(ids.step(0), ids.step(1));
        assert_ne!(ids.step(0), ids.root);
    }
}
