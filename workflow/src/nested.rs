//! `workflow:` steps: the resolved child runs as a nested run (same cancel
//! file, no report), and its events are mapped onto the parent step's row
//! the way Executant maps them (spec §2.3):
//!
//! | child event | becomes |
//! |---|---|
//! | `step:start` | `step:iteration` (item = child step name) + `output:text "→ name"` |
//! | `step:complete` | `step:iteration-complete` complete + `output:text "✓ name (dur)"` |
//! | `step:error` | `step:iteration-complete` error + `output:text "✗ name: message"` |
//! | `step:iteration` | `step:inner` |
//! | `workflow:start`, `workflow:complete`, `step:skip`, `step:inner`, `step:retrospective` | dropped |
//! | `workflow:cancelled` | the whole run is cancelled |
//! | anything else | passed through |
//!
//! The child workflow itself is run by the runner, handed in as
//! `run_child`, so that this module (the checks, the mapping, the ending)
//! sits below the runner rather than in a cycle with it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::code;
use super::event::{Event, IterationStatus};
use super::model::{Workflow, WorkflowTask};
use super::step::{Emit, Failure, Finish, StepError};
use super::text::duration_words;

/// Runs a `workflow:` step: its resolved child through `run_child`, which
/// runs a whole workflow into the [`Emit`] it is given.
pub(super) fn run(
    step: &WorkflowTask,
    resume: Option<&[u64]>,
    emit: &dyn Emit,
    run_child: impl FnOnce(&Arc<Workflow>, &dyn Emit) -> Finish,
) -> Result<(), StepError> {
    if resume.is_some_and(|r| !r.is_empty()) {
        return Err(StepError::Failed(Failure::failed(
            code::WORKFLOW_BAD_FILTER,
            format!(
                "Step \"{}\": resuming into a nested workflow step is not supported — resume from an earlier step or drop the extra --from-step path parts",
                step.name
            ),
        )));
    }
    let Some(child) = &step.workflow else {
        return Err(StepError::Failed(Failure::failed(
            code::WORKFLOW_INTERNAL,
            format!(
                "Step \"{}\" references a workflow that was not resolved before the run (a bug in voyage-helper)",
                step.name
            ),
        )));
    };
    let child = Arc::new((**child).clone());
    let mapper = Mapper {
        parent: emit,
        total: u64::try_from(child.tasks.len()).unwrap_or(u64::MAX),
        current: AtomicU64::new(0),
    };
    match run_child(&child, &mapper) {
        Finish::Complete => Ok(()),
        Finish::Cancelled => Err(StepError::Cancelled),
        Finish::Failed(failure) => Err(StepError::Failed(failure)),
    }
}

struct Mapper<'e> {
    parent: &'e dyn Emit,
    total: u64,
    /// The 1-based number of the child step running now.
    current: AtomicU64,
}

impl Emit for Mapper<'_> {
    fn emit(&self, event: Event) {
        match event {
            Event::WorkflowStart { .. }
            | Event::WorkflowComplete { .. }
            | Event::WorkflowCancelled { .. }
            | Event::WorkflowReport { .. }
            | Event::StepSkip { .. }
            | Event::StepInner { .. }
            | Event::StepRetrospective { .. } => {}
            Event::StepStart { index, name } => {
                let number = u64::try_from(index).unwrap_or(0) + 1;
                self.current.store(number, Ordering::SeqCst);
                self.parent.emit(Event::StepIteration {
                    index: -1,
                    item: name.clone(),
                    iteration: number,
                    total: self.total,
                });
                self.parent.emit(Event::text(format!("→ {name}")));
            }
            Event::StepComplete {
                name, duration_ms, ..
            } => {
                self.parent.emit(Event::StepIterationComplete {
                    index: -1,
                    iteration: self.current.load(Ordering::SeqCst),
                    status: IterationStatus::Complete,
                    error: None,
                });
                self.parent.emit(Event::text(format!(
                    "✓ {name} ({})",
                    duration_words(duration_ms)
                )));
            }
            Event::StepError { name, error, .. } => {
                self.parent.emit(Event::StepIterationComplete {
                    index: -1,
                    iteration: self.current.load(Ordering::SeqCst),
                    status: IterationStatus::Error,
                    error: Some(error.message.clone()),
                });
                self.parent
                    .emit(Event::text(format!("✗ {name}: {}", error.message)));
            }
            Event::StepIteration {
                iteration,
                total,
                item,
                ..
            } => {
                self.parent.emit(Event::StepInner {
                    index: -1,
                    iteration: self.current.load(Ordering::SeqCst),
                    inner_index: iteration.saturating_sub(1),
                    inner_total: total,
                    name: item,
                });
            }
            other => self.parent.emit(other),
        }
    }
}
