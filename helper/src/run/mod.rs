//! `voyage-helper run`: one command, a log, and a short block about it.
//!
//! The drop-in replacement for the executor skill's `run.sh` (the contract it
//! keeps: docs/maintainer/run-contract.md). Input comes as `label: value`
//! lines on stdin ([`labels`](voyage_judge::labels)) or as
//! flags; it is validated in the contract's order ([`request`]); the log goes
//! under the repository root ([`log_file`]); the command runs in its own
//! process group with a deadline ([`runner`]) while its output is tallied
//! ([`tally`]); and the result is printed as the contract's block ([`block`]).
//!
//! `run` never writes to stderr: every outcome, including refused input, is
//! a block on stdout.

mod block;
mod cli;
mod log_file;
mod request;
mod runner;
mod tally;

pub(crate) use cli::RunArgs;
pub(crate) use log_file::LOG_SUBDIR;
pub use log_file::slug;
pub use request::{MAX_TIMEOUT_SECS, Request};
pub use tally::{LineTally, TAIL_MAX_CHARS};
pub use voyage_judge::Labels;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use block::{Block, Ran, Status};
use runner::Ending;

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

/// Runs the request described by `options` and prints its block to `out`
/// (or, with `reply`, the verdict on it). Returns the process exit code, or
/// the error writing the block.
pub(crate) fn execute(options: &Options, out: &mut impl Write) -> io::Result<u8> {
    let block = produce(options);
    if let Some(reply) = &options.reply {
        // The block as `verdict` reads it: its own labels, as printed.
        let mut text = Vec::new();
        block.render_text(&mut text)?;
        let mut input = crate::verdict::Input::parse_labels(&text);
        input.expect = reply.expect.clone().or_else(|| match &options.input {
            Input::Stdin(bytes) => crate::verdict::Input::parse_labels(bytes).expect,
            Input::Flags(_) => None,
        });
        let verdict = crate::verdict::Options {
            input,
            json: options.json,
        };
        return crate::verdict::execute(&verdict, out);
    }
    if options.json {
        block.render_json(out)?;
    } else {
        block.render_text(out)?;
    }
    out.flush()?;
    Ok(if block.is_error() {
        EXIT_ERROR
    } else {
        EXIT_REPORTED
    })
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
}

/// Runs the shell line `command` in `cwd` as `run --cwd CWD -- COMMAND`
/// does: a log file, the default timeout, bash.
pub(crate) fn run_command(command: &str, cwd: &Path) -> Outcome {
    let block = match current_dir() {
        Ok(pwd) => produce(&Options {
            input: Input::Flags(Options::flags(
                &[OsString::from(command)],
                Some(cwd.as_os_str().to_owned()),
                None,
                None,
            )),
            json: true,
            reply: None,
            pwd,
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
        },
        Block::Ran(r) => Outcome {
            status: r.status.as_str(),
            exit: Some(r.exit),
            reason: r.reason,
            log: Some(r.log),
            duration_ms: u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
        },
    }
}

fn produce(options: &Options) -> Block {
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
    let outcome = match runner::run(&request.command, &request.cwd, timeout, log) {
        Ok(o) => o,
        Err(e) => {
            return Block::PreLaunch {
                reason: format!("cannot start bash: {e}"),
            };
        }
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
        success: status == Status::Ok && request.expect_exit.is_met_by(exit),
    })
}
