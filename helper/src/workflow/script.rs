//! Script (`command:`) steps and shell `forEach:` sources.
//!
//! A command runs as `sh -c` in the current directory (not the workflow's),
//! as the leader of a process group of its own, with stdout and stderr
//! sharing one pipe so their lines interleave as the command wrote them.
//! Every line becomes an `output:text` event: empty lines too, a last line
//! without a newline at the end, no stripping of colours or carriage
//! returns. A timeout stops the whole group (TERM, a grace, KILL).
//! Processes a step leaves running with their output redirected elsewhere
//! (`server >/dev/null 2>&1 &`) keep running, as in Executant, so a later
//! step can use them.

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use super::event::{Event, Level};
use super::model::CommandTask;
use super::runner::{Context, Emit, Failure, StepError};
use crate::proc::supervise::{Ending, Job, Leftovers, Stderr, supervise};

/// The variable every command gets: the top-level workflow file's
/// directory (commands run in the current directory, which may differ).
pub const WORKFLOW_DIR_VAR: &str = "VOYAGE_WORKFLOW_DIR";
/// Longest text one `output:text` event carries; a longer line arrives in
/// pieces of this size, so one endless line cannot exhaust memory.
pub const MAX_LINE: usize = 1 << 20;
/// How long a shell `forEach:` source may take, as in Executant.
const ITEMS_TIMEOUT: Duration = Duration::from_secs(30);
/// Most output a shell `forEach:` source may print.
const ITEMS_MAX_BYTES: usize = 16 << 20;

/// Runs a script step, emitting its lines (with `self_healing:`, handing
/// failures to an agent between attempts); writes them to the step's
/// `output:` file when it succeeds.
pub fn run(task: &CommandTask, ctx: &Context, emit: &dyn Emit) -> Result<(), StepError> {
    let mut captured: Option<Vec<String>> = task.output.as_ref().map(|_| Vec::new());
    if task.self_healing {
        super::healing::run(task, ctx, emit, captured.as_mut())?;
    } else {
        let code = attempt(task, ctx, emit, &mut |line| {
            if let Some(captured) = captured.as_mut() {
                captured.push(line.to_owned());
            }
        })?;
        if code != 0 {
            return Err(command_failed(&task.name, code));
        }
    }
    if let (Some(path), Some(captured)) = (&task.output, captured) {
        write_output(Path::new(path), &captured.join("\n")).map_err(|e| {
            StepError::Failed(Failure::failed(
                "WORKFLOW_OUTPUT_FAILED",
                format!(
                    "Step \"{}\" succeeded but its output could not be written to {path}: {e}",
                    task.name
                ),
            ))
        })?;
    }
    Ok(())
}

/// Runs the command once, emitting each line and showing it to `seen`;
/// its exit code, or the error of a timeout, a cancel or a failed start.
pub fn attempt(
    task: &CommandTask,
    ctx: &Context,
    emit: &dyn Emit,
    seen: &mut dyn FnMut(&str),
) -> Result<i32, StepError> {
    ctx.check_stopped()?;
    emit.emit(Event::log(Level::Info, format!("$ {}", task.command)));
    let mut lines = LineSplitter::default();
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
        env: &[(WORKFLOW_DIR_VAR, ctx.work_dir.as_os_str())],
        input: None,
        stop: Some(&ctx.stop),
    };
    let mut deliver = |line: String| {
        seen(&line);
        emit.emit(Event::text(line));
    };
    let outcome = supervise(job, &mut |chunk| lines.feed(chunk, &mut deliver)).map_err(|e| {
        StepError::Failed(Failure::failed(
            "WORKFLOW_SPAWN_FAILED",
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

/// The failure of a command step that exited with `code`.
pub fn command_failed(step: &str, code: i32) -> StepError {
    StepError::Failed(Failure::failed(
        "WORKFLOW_COMMAND_FAILED",
        format!("Command \"{step}\" exited with code {code}"),
    ))
}

/// A step's `timeout_seconds` as a limit (the loader keeps it positive and
/// under a year).
pub fn time_limit(seconds: Option<f64>) -> Option<Duration> {
    seconds.and_then(|s| Duration::try_from_secs_f64(s).ok())
}

/// The failure of a step stopped at its `timeout_seconds`.
pub fn timed_out(step: &str, limit: Option<f64>) -> StepError {
    let limit = limit.unwrap_or_default();
    // Under a minute, the limit as written (0.3s, 5s); above, in words
    // (1m 05s), as Executant says it.
    let said = if limit < 60.0 {
        format!("{limit}s")
    } else {
        super::text::duration_words((limit * 1000.0) as u64)
    };
    StepError::Failed(Failure::timed_out(format!(
        "Step \"{step}\" timed out after {said}"
    )))
}

fn write_output(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)
}

/// The items a shell `forEach:` source prints: its non-blank stdout lines,
/// not trimmed.
pub fn shell_items(command: &str, ctx: &Context) -> Result<Vec<String>, StepError> {
    ctx.check_stopped()?;
    let mut out = Vec::new();
    let mut too_big = false;
    let failed = |why: String| {
        StepError::Failed(Failure::failed(
            "WORKFLOW_ITEMS_FAILED",
            format!("forEach shell command failed: {why}\nCommand: {command}"),
        ))
    };
    // Stderr goes to an unnamed file rather than into the items, and is
    // quoted when the command fails (it usually says why).
    let errors =
        tempfile::tempfile().map_err(|e| failed(format!("no file for its stderr: {e}")))?;
    let job = Job {
        argv: &[OsStr::new("/bin/sh"), OsStr::new("-c"), OsStr::new(command)],
        cwd: None,
        timeout: Some(ITEMS_TIMEOUT),
        leftovers: Leftovers::Stop,
        stderr: Stderr::File(&errors),
        env: &[(WORKFLOW_DIR_VAR, ctx.work_dir.as_os_str())],
        input: None,
        stop: Some(&ctx.stop),
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

/// Cuts a byte stream into lines; a line longer than its limit arrives in
/// pieces of that size.
#[derive(Debug)]
pub struct LineSplitter {
    partial: Vec<u8>,
    max: usize,
}

impl Default for LineSplitter {
    fn default() -> Self {
        Self::with_limit(MAX_LINE)
    }
}

impl LineSplitter {
    pub fn with_limit(max: usize) -> Self {
        Self {
            partial: Vec::new(),
            max: max.max(1),
        }
    }

    /// Hands every complete line in `chunk` (with what came before it) to
    /// `deliver`, without its `\n`.
    pub fn feed(&mut self, chunk: &[u8], deliver: &mut dyn FnMut(String)) {
        let mut rest = chunk;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            let (line, after) = rest.split_at(at);
            if self.partial.is_empty() {
                deliver(String::from_utf8_lossy(line).into_owned());
            } else {
                self.partial.extend_from_slice(line);
                deliver(String::from_utf8_lossy(&self.partial).into_owned());
                self.partial.clear();
            }
            rest = after.get(1..).unwrap_or_default();
        }
        self.partial.extend_from_slice(rest);
        while self.partial.len() >= self.max {
            let piece: Vec<u8> = self.partial.drain(..self.max).collect();
            deliver(String::from_utf8_lossy(&piece).into_owned());
        }
    }

    /// Hands over a last line that had no `\n`, if any.
    pub fn finish(&mut self, deliver: &mut dyn FnMut(String)) {
        if !self.partial.is_empty() {
            deliver(String::from_utf8_lossy(&self.partial).into_owned());
            self.partial.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> Vec<String> {
        let mut out = Vec::new();
        let mut s = LineSplitter::default();
        for chunk in chunks {
            s.feed(chunk, &mut |l| out.push(l));
        }
        s.finish(&mut |l| out.push(l));
        out
    }

    #[test]
    fn lines_survive_any_chunking() {
        assert_eq!(split(&[b"a\n\nb", b"c\nd"]), ["a", "", "bc", "d"]);
        assert_eq!(split(&[b"x\r\n"]), ["x\r"]);
        assert_eq!(split(&[b"", b"\n"]), [""]);
        assert!(split(&[b""]).is_empty());
    }

    #[test]
    fn an_endless_line_arrives_in_pieces() {
        let big = vec![b'x'; MAX_LINE * 2 + 5];
        let lines = split(&[&big]);
        assert_eq!(
            lines.iter().map(String::len).collect::<Vec<_>>(),
            [MAX_LINE, MAX_LINE, 5]
        );
    }
}
