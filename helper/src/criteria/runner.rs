//! Running one criterion: screened (the denylist engine, then the
//! allowlist with the project's entries: [`super::screen`]), then `bash -o pipefail -c COMMAND` in the foreground under
//! the process supervisor (its own process group, stdin from `/dev/null`,
//! the whole group stopped on a timeout: TERM, a grace, KILL), as `run`
//! runs its commands.

use std::ffi::OsStr;
use std::io;
use std::path::Path;
use std::time::Duration;

use super::model::{Outcome, Ran};
use super::screen::{self, Rule, Rules};
use crate::plan::Criterion;
use crate::proc::supervise::{Ending, Job, Leftovers, Stderr, supervise};
use crate::scan::Context;

/// How many bytes of a criterion's output are kept, for the lines shown
/// when it fails.
const KEEP_BYTES: usize = 8 * 1024;
/// How many of its last lines are shown.
const TAIL_LINES: usize = 12;
/// The exit code reported for a criterion stopped by its timeout (GNU
/// `timeout`'s, as `run` reports).
const TIMEOUT_EXIT: i32 = 124;

/// The helper was told to stop while a criterion ran (SIGINT, SIGTERM,
/// SIGHUP): the remaining criteria do not run.
#[derive(Debug)]
pub(super) struct Stopped {
    pub signal: String,
}

/// Why a criterion could not be run at all.
#[derive(Debug)]
pub(super) enum RunError {
    Stopped(Stopped),
    Spawn(io::Error),
}

/// Screens, checks and runs `criterion` in `cwd`.
pub(super) fn run(
    criterion: &Criterion,
    cwd: &Path,
    timeout: Duration,
    rules: &Rules,
    ctx: &Context,
) -> Result<Ran, RunError> {
    if let Err(refusal) = screen::screen(&criterion.command, rules, ctx) {
        let outcome = match refusal.rule {
            Rule::Denylist => Outcome::Blocked,
            Rule::Allowlist => Outcome::Unrunnable,
        };
        return Ok(Ran::not_run(
            outcome,
            format!(
                "{}. Fix: {}",
                refusal.reason.trim_end_matches('.'),
                refusal.fix
            ),
        ));
    }
    let mut kept: Vec<u8> = Vec::new();
    let job = Job {
        argv: &[
            OsStr::new("bash"),
            OsStr::new("-o"),
            OsStr::new("pipefail"),
            OsStr::new("-c"),
            OsStr::new(&criterion.command),
        ],
        cwd: Some(cwd),
        timeout: Some(timeout),
        leftovers: Leftovers::Stop,
        stderr: Stderr::Merged,
        env: &[],
        input: None,
        stop: None,
        stop_with_us: true,
    };
    let outcome = supervise(job, &mut |chunk| {
        kept.extend_from_slice(chunk);
        if kept.len() > 2 * KEEP_BYTES {
            let cut = kept.len() - KEEP_BYTES;
            kept.drain(..cut);
        }
    })
    .map_err(RunError::Spawn)?;
    crate::fault::point("criteria:exit");
    let tail = tail_lines(&kept);
    let duration_ms = u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX);
    let ran = match outcome.ending {
        Ending::Exited(0) => Ran::exited(Outcome::Passed, 0, duration_ms, tail, None),
        Ending::Exited(code) => Ran::exited(Outcome::Failed, code, duration_ms, tail, None),
        Ending::TimedOut(_) => Ran::exited(
            Outcome::Failed,
            TIMEOUT_EXIT,
            duration_ms,
            tail,
            Some(format!(
                "timed out after {} s; its process group was stopped",
                timeout.as_secs()
            )),
        ),
        Ending::Interrupted { signal, .. } => {
            return Err(RunError::Stopped(Stopped { signal }));
        }
    };
    Ok(ran)
}

/// The last lines of what a command printed, for a failure report.
fn tail_lines(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(TAIL_LINES);
    lines
        .get(start..)
        .unwrap_or_default()
        .iter()
        .map(|l| crate::ansi::clean(l.as_bytes()).chars().take(400).collect())
        .collect()
}
