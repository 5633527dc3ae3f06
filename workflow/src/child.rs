//! What every child process a step starts has in common, whether a shell
//! command or an agent CLI: the `VOYAGE_WORKFLOW_DIR` it is given, the time
//! limit its step's `timeout_seconds` sets, and the failure it ends in when
//! that limit is reached.

use std::ffi::OsStr;
use std::time::Duration;

use super::step::{Context, Failure, StepError};
use super::telemetry::TRACEPARENT_VAR;
use super::text::duration_words;

/// The variable every command gets: the top-level workflow file's
/// directory (commands run in the current directory, which may differ).
pub(super) const WORKFLOW_DIR_VAR: &str = "VOYAGE_WORKFLOW_DIR";

/// The variables a child process gets besides the inherited ones:
/// [`WORKFLOW_DIR_VAR`], and `TRACEPARENT` while telemetry is on, its value
/// `traceparent` (from [`Context::traceparent`], made by the caller so that
/// it outlives the list).
pub(super) fn child_env<'a>(
    ctx: &'a Context,
    traceparent: &'a Option<String>,
) -> Vec<(&'static str, &'a OsStr)> {
    let mut env = vec![(WORKFLOW_DIR_VAR, ctx.work_dir.as_os_str())];
    if let Some(value) = traceparent {
        env.push((TRACEPARENT_VAR, OsStr::new(value)));
    }
    env
}

/// A step's `timeout_seconds` as a limit (the loader keeps it positive and
/// under a year).
pub(super) fn time_limit(seconds: Option<f64>) -> Option<Duration> {
    seconds.and_then(|s| Duration::try_from_secs_f64(s).ok())
}

/// The failure of a step stopped at its `timeout_seconds`.
pub(super) fn timed_out(step: &str, limit: Option<f64>) -> StepError {
    let limit = limit.unwrap_or_default();
    // Under a minute, the limit as written (0.3s, 5s); above, in words
    // (1m 05s), as Executant says it.
    let said = if limit < 60.0 {
        format!("{limit}s")
    } else {
        duration_words((limit * 1000.0) as u64)
    };
    StepError::Failed(Failure::timed_out(format!(
        "Step \"{step}\" timed out after {said}"
    )))
}
