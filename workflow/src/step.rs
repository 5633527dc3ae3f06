//! What every piece of a run shares, whichever kind of step it runs: where
//! its events go ([`Emit`]), what it knows of the run ([`Context`]), and how
//! it can end ([`StepError`], [`Failure`], [`Finish`]).
//!
//! These types sit below everything else that runs steps (the script and
//! prompt steps, the providers, the judge, self-healing, loops, nested
//! workflows and the runner), so that each of those imports them from here
//! rather than from one another.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError};

use super::code;
use super::event::{ErrorInfo, Event};
use super::settings::Settings;
use super::telemetry::Trace;

/// The cancel files looked for in the workflow's directory: ours, and
/// Executant's so that existing tooling keeps working.
pub(super) const CANCEL_FILES: [&str; 2] = [".voyage-cancel", ".executant-cancel"];

/// Where events go. Implementations must be cheap: the runner calls this
/// once per output line.
pub trait Emit: Sync {
    fn emit(&self, event: Event);
}

impl Emit for std::sync::mpsc::SyncSender<Event> {
    fn emit(&self, event: Event) {
        // A consumer that went away (stdout closed) must not stop the run.
        let _ = self.send(event);
    }
}

/// Keeps the events in memory, for tests and fuzzing.
impl Emit for std::sync::Mutex<Vec<Event>> {
    fn emit(&self, event: Event) {
        self.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
    }
}

/// What the whole run needs to know besides the workflow.
pub(super) struct Context {
    /// The top-level workflow file's directory, absolute: where the cancel
    /// file is looked for (nested runs share it), and `VOYAGE_WORKFLOW_DIR`
    /// of every command.
    pub work_dir: PathBuf,
    /// Set when the helper receives SIGINT, SIGTERM or SIGHUP (or stdout
    /// can no longer be written).
    pub stop: Arc<AtomicBool>,
    /// What the environment asks of the run, read once at the edge.
    pub settings: Settings,
    /// Corrections for the next prompt step: typed in the terminal view,
    /// or appended to `--interject-file`.
    pub interject: Arc<super::interject::Queue>,
    /// The run's trace while OpenTelemetry is on (`None` otherwise): the
    /// `TRACEPARENT` every child process gets.
    pub trace: Option<Trace>,
}

impl Context {
    /// The `TRACEPARENT` of a child process started now, while telemetry is
    /// on: the running top-level step's span, else the run's.
    pub(super) fn traceparent(&self) -> Option<String> {
        self.trace.as_ref().map(Trace::traceparent)
    }

    /// `Err(Cancelled)` once a stopping signal has arrived. Checked between
    /// every piece of work (loop iterations and children, before each
    /// command), not only between top-level steps, so that a signal landing
    /// between two commands of a loop stops it.
    pub(super) fn check_stopped(&self) -> Result<(), StepError> {
        if self.stop.load(Ordering::SeqCst) {
            Err(StepError::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Whether the run should stop before the next top-level step: a
    /// stopping signal arrived, or a cancel file exists (it is removed).
    /// The cancel file, as in Executant, is looked at only there.
    pub(super) fn cancel_requested(&self) -> bool {
        if self.stop.load(Ordering::SeqCst) {
            return true;
        }
        let mut found = false;
        for name in CANCEL_FILES {
            let path = self.work_dir.join(name);
            if path.exists() {
                // Losing a race with another remover is fine.
                let _ = std::fs::remove_file(&path);
                found = true;
            }
        }
        found
    }
}

/// Why a step did not succeed.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum StepError {
    Failed(Failure),
    /// The run was cancelled while the step ran.
    Cancelled,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Failure {
    pub code: &'static str,
    pub message: String,
    pub timed_out: bool,
}

impl Failure {
    pub(super) fn failed(code: &'static str, message: String) -> Self {
        Self {
            code,
            message,
            timed_out: false,
        }
    }

    pub(super) fn timed_out(message: String) -> Self {
        Self {
            code: code::WORKFLOW_STEP_TIMEOUT,
            message,
            timed_out: true,
        }
    }

    /// The failure as a `step:error` event carries it.
    pub(super) fn info(&self) -> ErrorInfo {
        ErrorInfo {
            name: if self.timed_out {
                "TimeoutError"
            } else {
                "Error"
            }
            .to_owned(),
            message: self.message.clone(),
            code: self.code.to_owned(),
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Finish {
    Complete,
    Failed(Failure),
    Cancelled,
}
