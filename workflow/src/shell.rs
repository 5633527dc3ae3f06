//! Running one shell command as a child: one attempt of a script step, or
//! a shell `forEach:` source listing its items.
//!
//! A step's command runs as `sh -c` in the current directory (not the
//! workflow's), as the leader of a process group of its own, with stdout
//! and stderr sharing one pipe so their lines interleave as the command
//! wrote them. Every line becomes an `output:text` event: empty lines too,
//! a last line without a newline at the end, no stripping of colours or
//! carriage returns. A timeout stops the whole group (TERM, a grace, KILL).
//! Processes a step leaves running with their output redirected elsewhere
//! (`server >/dev/null 2>&1 &`) keep running, as in Executant, so a later
//! step can use them.

use std::ffi::OsStr;
use std::time::Duration;

use super::child::{child_env, time_limit, timed_out};
use super::code;
use super::event::{Event, Level};
use super::lines::LineSplitter;
use super::model::CommandTask;
use super::step::{Context, Emit, Failure, StepError};
use crate::proc::supervise::{Ending, Job, Leftovers, Stderr, supervise};

/// How long a shell `forEach:` source may take, as in Executant.
const ITEMS_TIMEOUT: Duration = Duration::from_secs(30);
/// Most output a shell `forEach:` source may print.
const ITEMS_MAX_BYTES: usize = 16 << 20;

/// Runs the command once, emitting each line and showing it to `seen`;
/// its exit code, or the error of a timeout, a cancel or a failed start.
pub(super) fn attempt(
    task: &CommandTask,
    ctx: &Context,
    emit: &dyn Emit,
    seen: &mut dyn FnMut(&str),
) -> Result<i32, StepError> {
    ctx.check_stopped()?;
    emit.emit(Event::log(Level::Info, format!("$ {}", task.command)));
    let mut lines = LineSplitter::default();
    let traceparent = ctx.traceparent();
    let env = child_env(ctx, &traceparent);
    let job = Job {
        argv: &[
            OsStr::new("sh"),
            OsStr::new("-c"),
            OsStr::new(&task.command),
        ],
        cwd: None,
        timeout: time_limit(task.timeout_seconds),
        leftovers: Leftovers::Keep,
        stderr: Stderr::Merged,
        env: &env,
        input: None,
        stop: Some(&ctx.stop),
        stop_with_us: false,
    };
    let mut deliver = |line: String| {
        seen(&line);
        emit.emit(Event::text(line));
    };
    let outcome = supervise(job, &mut |chunk| lines.feed(chunk, &mut deliver)).map_err(|e| {
        StepError::Failed(Failure::failed(
            code::WORKFLOW_SPAWN_FAILED,
            format!("Step \"{}\": cannot start sh: {e}", task.name),
        ))
    })?;
    lines.finish(&mut deliver);
    match outcome.ending {
        Ending::Exited(code) => Ok(code),
        Ending::TimedOut(_) => Err(timed_out(&task.name, task.timeout_seconds)),
        Ending::Interrupted { .. } => Err(StepError::Cancelled),
    }
}

/// The items a shell `forEach:` source prints: its non-blank stdout lines,
/// not trimmed.
pub(super) fn shell_items(command: &str, ctx: &Context) -> Result<Vec<String>, StepError> {
    ctx.check_stopped()?;
    let mut out = Vec::new();
    let mut too_big = false;
    let failed = |why: String| {
        StepError::Failed(Failure::failed(
            code::WORKFLOW_ITEMS_FAILED,
            format!("forEach shell command failed: {why}\nCommand: {command}"),
        ))
    };
    // Stderr goes to an unnamed file rather than into the items, and is
    // quoted when the command fails (it usually says why).
    let errors =
        tempfile::tempfile().map_err(|e| failed(format!("no file for its stderr: {e}")))?;
    let traceparent = ctx.traceparent();
    let env = child_env(ctx, &traceparent);
    let job = Job {
        argv: &[OsStr::new("/bin/sh"), OsStr::new("-c"), OsStr::new(command)],
        cwd: None,
        timeout: Some(ITEMS_TIMEOUT),
        leftovers: Leftovers::Stop,
        stderr: Stderr::File(&errors),
        env: &env,
        input: None,
        stop: Some(&ctx.stop),
        stop_with_us: false,
    };
    let outcome = supervise(job, &mut |chunk| {
        if out.len() + chunk.len() > ITEMS_MAX_BYTES {
            too_big = true;
        } else {
            out.extend_from_slice(chunk);
        }
    })
    .map_err(|e| failed(format!("cannot start /bin/sh: {e}")))?;
    match outcome.ending {
        Ending::Exited(0) if !too_big => {}
        Ending::Exited(0) => {
            return Err(failed(format!(
                "it printed more than {} MiB",
                ITEMS_MAX_BYTES >> 20
            )));
        }
        Ending::Exited(code) => {
            let said = stderr_tail(errors);
            let said = if said.is_empty() {
                String::new()
            } else {
                format!("\n{said}")
            };
            return Err(failed(format!("exit code {code}{said}")));
        }
        Ending::TimedOut(_) => {
            return Err(failed(format!(
                "it did not finish within {} s",
                ITEMS_TIMEOUT.as_secs()
            )));
        }
        Ending::Interrupted { .. } => return Err(StepError::Cancelled),
    }
    Ok(String::from_utf8_lossy(&out)
        .split('\n')
        .filter(|line| !line.trim().is_empty())
        .map(str::to_owned)
        .collect())
}

/// How much of a failed item source's stderr is quoted.
const STDERR_TAIL: u64 = 2048;

/// The last [`STDERR_TAIL`] bytes of `file`, trimmed.
fn stderr_tail(mut file: std::fs::File) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = file.seek(SeekFrom::Start(len.saturating_sub(STDERR_TAIL)));
    let mut tail = Vec::new();
    let _ = file.take(STDERR_TAIL).read_to_end(&mut tail);
    String::from_utf8_lossy(&tail).trim().to_owned()
}
