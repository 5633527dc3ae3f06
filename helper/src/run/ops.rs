//! The run operation, as the command line and `trek` call it: the
//! [`Options`] of one call, resolved into a request and run into a
//! [`Block`] ([`produce`]), or a shell line run for another area
//! ([`run_command`]).

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::block::{Block, Ran, Status};
use super::log_file;
use super::request::Request;
use super::runner::{self, Ending};
use voyage_judge::Labels;

use crate::clock::UtcTime;

/// Exit code `run` uses for `ok` and `timeout` blocks.
pub(crate) const EXIT_REPORTED: u8 = 0;
/// Exit code `run` uses for every `error` block.
pub(crate) const EXIT_ERROR: u8 = 2;
/// `EXIT:` of a timed-out run, as the original forced it (and GNU `timeout`).
pub(crate) const TIMEOUT_EXIT: i32 = 124;

/// Where the input of one `run` call comes from, resolved from the CLI.
#[derive(Debug, Clone)]
pub(crate) enum Input {
    /// `label: value` lines, as the skill sends them.
    Stdin(Vec<u8>),
    /// The same inputs given as flags.
    Flags(Labels),
}

/// Options of one `run` call.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub input: Input,
    pub json: bool,
    /// Print the executor skill's reply (what `verdict` makes of this run)
    /// instead of the block, judging this `expect:` sentence if given.
    pub reply: Option<Reply>,
    /// The directory relative `cwd:` values are glued onto.
    pub pwd: PathBuf,
    /// Stop the command even when this process is killed outright (a
    /// watchdog, one `sh` more per call): for `trek`, not for `run`.
    pub stop_with_us: bool,
    /// The run marker whose kernel fence the command runs in (`run
    /// --fence`); trek's own commands never do.
    pub fence: Option<PathBuf>,
}

impl Options {
    /// Builds the labels from flag values; `command` words are joined with
    /// single spaces into one shell line.
    pub(crate) fn flags(
        command: &[OsString],
        cwd: Option<OsString>,
        timeout: Option<String>,
        expect_exit: Option<String>,
    ) -> Labels {
        use std::os::unix::ffi::OsStrExt;
        let joined = command
            .iter()
            .map(|w| w.as_bytes().to_vec())
            .collect::<Vec<_>>()
            .join(&b' ');
        let trimmed = |v: &[u8]| v.trim_ascii().to_vec();
        Labels {
            command: Some(trimmed(&joined)),
            cwd: cwd.map(|c| trimmed(c.as_bytes())),
            timeout: timeout.map(|t| trimmed(t.as_bytes())),
            expect_exit: expect_exit.map(|e| trimmed(e.as_bytes())),
        }
    }
}

/// The directory a shell would call the current one: `$PWD` when it is an
/// absolute path to the same directory (it keeps the caller's symlinked
/// spelling, as the original's `$PWD` did), else the real current directory.
pub(crate) fn current_dir() -> io::Result<PathBuf> {
    let real = std::env::current_dir()?;
    if let Some(pwd) = std::env::var_os("PWD").map(PathBuf::from)
        && pwd.is_absolute()
        && same_dir(&pwd, &real)
    {
        return Ok(pwd);
    }
    Ok(real)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (a.metadata(), b.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// `--reply`: what the reply judges besides the run itself.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reply {
    /// The `expect:` sentence: the `--expect` flag, else stdin's label.
    pub expect: Option<String>,
}

/// How one command run through the runner ended, for another area
/// (`trek step-done`'s Verify): what `run --json` reports of it.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    /// `ok`, `timeout` or `error`.
    pub status: &'static str,
    /// The exit code; `None` when nothing ran.
    pub exit: Option<i32>,
    pub reason: Option<String>,
    /// The full output's log file.
    pub log: Option<PathBuf>,
    pub duration_ms: u64,
    /// The signal that stopped this process while the command ran: the
    /// command was cut short from outside, it did not fail by itself.
    pub interrupted_by: Option<String>,
}

/// Runs the shell line `command` in `cwd` as `run --cwd CWD -- COMMAND`
/// does (a log file, bash), for at most `timeout_secs` (else the default
/// timeout); with `stop_with_us`, never outliving this process.
pub(crate) fn run_command(
    command: &str,
    cwd: &Path,
    timeout_secs: Option<u64>,
    stop_with_us: bool,
) -> Outcome {
    // The process's directory only resolves a relative `cwd`: trek's
    // phases, which hand their work tree's absolute path, never read it.
    let pwd = if cwd.is_absolute() {
        Ok(cwd.to_path_buf())
    } else {
        current_dir()
    };
    let block = match pwd {
        Ok(pwd) => produce(&Options {
            input: Input::Flags(Options::flags(
                &[OsString::from(command)],
                Some(cwd.as_os_str().to_owned()),
                timeout_secs.map(|s| s.to_string()),
                None,
            )),
            json: true,
            reply: None,
            pwd,
            stop_with_us,
            fence: None,
        }),
        Err(e) => Block::PreLaunch {
            reason: format!("working directory missing: {e}"),
        },
    };
    match block {
        Block::PreLaunch { reason } => Outcome {
            status: Status::Error.as_str(),
            exit: None,
            reason: Some(reason),
            log: None,
            duration_ms: 0,
            interrupted_by: None,
        },
        Block::Ran(r) => Outcome {
            status: r.status.as_str(),
            exit: Some(r.exit),
            reason: r.reason,
            log: Some(r.log),
            duration_ms: u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
            interrupted_by: r.interrupted_by,
        },
    }
}

/// Runs the request `options` describes and returns its block (a
/// pre-launch block when the input is refused or nothing could start).
pub(super) fn produce(options: &Options) -> Block {
    let labels = match &options.input {
        Input::Stdin(bytes) => Labels::parse(bytes),
        Input::Flags(labels) => labels.clone(),
    };
    let request = match Request::from_labels(&labels, &options.pwd) {
        Ok(r) => r,
        Err(e) => {
            return Block::PreLaunch {
                reason: e.to_string(),
            };
        }
    };
    let root = log_file::root_for(&request.cwd);
    let command_text = request.command.to_string_lossy();
    let name = log_file::file_name(UtcTime::now(), &command_text, std::process::id());
    let (log_path, log) = match log_file::create(&root, &name) {
        Ok(created) => created,
        Err(e) => {
            return Block::PreLaunch {
                reason: e.to_string(),
            };
        }
    };
    let timeout = Duration::from_secs(request.timeout_secs);
    let outcome = match runner::run(
        &request.command,
        &request.cwd,
        timeout,
        log,
        options.stop_with_us,
        options.fence.as_deref(),
    ) {
        Ok(o) => o,
        Err(e) => {
            return Block::PreLaunch {
                reason: format!("cannot start bash: {e}"),
            };
        }
    };
    let interrupted_by = match &outcome.ending {
        Ending::Interrupted { signal, .. } => Some(signal.clone()),
        _ => None,
    };
    let (status, exit, reason) = match outcome.ending {
        Ending::Exited(code @ (126 | 127)) => (
            Status::Error,
            code,
            Some(format!("command not found or not executable (exit {code})")),
        ),
        Ending::Exited(code) => (Status::Ok, code, None),
        Ending::TimedOut(_) => (Status::Timeout, TIMEOUT_EXIT, None),
        Ending::Interrupted { signal, code } => (
            Status::Error,
            code,
            Some(format!("interrupted by signal {signal}")),
        ),
    };
    Block::Ran(Ran {
        status,
        exit,
        duration: outcome.duration,
        log: log_path,
        lines: outcome.lines,
        tail: outcome.tail,
        reason,
        interrupted_by,
        success: status == Status::Ok && request.expect_exit.is_met_by(exit),
        log_error: outcome.log_error,
    })
}
