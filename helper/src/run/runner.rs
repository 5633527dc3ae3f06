//! Running the command of one `run` call: `bash -c` in its own process group
//! under [`crate::proc::supervise`], its output copied to the log and tallied
//! (lines, tail) as it arrives, and every member of its group stopped when
//! it ends.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

use super::tally::LineTally;
use crate::proc::supervise::{Job, Leftovers, Stderr, supervise};

pub(super) use crate::proc::supervise::Ending;

/// What a finished run reports.
#[derive(Debug, Clone)]
pub(super) struct Outcome {
    pub ending: Ending,
    pub duration: Duration,
    pub lines: u64,
    pub tail: Option<String>,
    /// Why the log could not take the output (a full disk): it holds only
    /// what came before. `LINES` and `TAIL` still count all of it.
    pub log_error: Option<String>,
}

/// Runs `bash -c <command>` in `cwd` with stdin from `/dev/null`, its output
/// copied to `log`, for at most `timeout`; with `stop_with_us`, the
/// command's group is stopped even if this process is killed outright;
/// with `fence`, inside the kernel fence of the run whose marker that is
/// (`voyage-helper scope exec --shell bash`, this same binary).
pub(super) fn run(
    command: &OsStr,
    cwd: &Path,
    timeout: Duration,
    mut log: File,
    stop_with_us: bool,
    fence: Option<&Path>,
) -> io::Result<Outcome> {
    let mut tally = LineTally::new();
    let helper = match fence {
        Some(_) => Some(std::env::current_exe()?),
        None => None,
    };
    let argv: Vec<&OsStr> = match (fence, &helper) {
        (Some(marker), Some(helper)) => vec![
            helper.as_os_str(),
            OsStr::new("scope"),
            OsStr::new("exec"),
            OsStr::new("--marker"),
            marker.as_os_str(),
            OsStr::new("--shell"),
            OsStr::new("bash"),
            OsStr::new("--"),
            command,
        ],
        _ => vec![OsStr::new("bash"), OsStr::new("-c"), command],
    };
    let job = Job {
        argv: &argv,
        cwd: Some(cwd),
        timeout: Some(timeout),
        leftovers: Leftovers::Stop,
        stderr: Stderr::Merged,
        env: &[],
        input: None,
        stop: None,
        stop_with_us,
    };
    let mut log_error: Option<io::Error> = None;
    let outcome = supervise(job, &mut |chunk| {
        // A full disk must not stop the command: keep counting what it
        // printed even when the log cannot take it, and say so after. The
        // log stops at the first failed write: a log with a hole in it
        // would read as the whole output.
        if log_error.is_none()
            && let Err(e) = log.write_all(chunk)
        {
            log_error = Some(e);
        }
        tally.feed(chunk);
    })?;
    crate::fault::point("run:exit");
    if let Err(e) = log.flush()
        && log_error.is_none()
    {
        log_error = Some(e);
    }
    Ok(Outcome {
        ending: outcome.ending,
        duration: outcome.duration,
        lines: tally.lines(),
        tail: tally.tail(),
        log_error: log_error.map(|e| e.to_string()),
    })
}
