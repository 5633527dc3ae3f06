//! The git wrapper: every git call the helper makes goes through [`run`].
//!
//! Git is the `git` CLI (docs/maintainer/dependencies.md: its own refusals
//! are the safety contract, and it opens every repository format), started through
//! [`crate::proc::supervise`] like any other child, with `LC_ALL=C` so its
//! messages do not change with the user's locale, stdin from `/dev/null`,
//! prompts for credentials off, and a deadline. Callers pass `-z` and an
//! explicit `--format` where they read what git prints.

use std::ffi::OsStr;
use std::io::{self, Read, Seek};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::proc::supervise::{Ending, Job, Leftovers, Stderr, supervise};

/// How long one git call may take. Local operations take milliseconds; a
/// repository on a stalled network disk must not hang the helper.
const TIMEOUT: Duration = Duration::from_secs(120);
/// Most stdout bytes kept from one call (a `git log` of a huge history).
const MAX_STDOUT: usize = 64 << 20;

/// What one git call returned.
#[derive(Debug, Clone)]
pub struct Output {
    /// git's exit code; a call that timed out or was interrupted is an
    /// [`io::Error`] instead.
    pub code: i32,
    pub stdout: Vec<u8>,
    /// Trimmed, for messages.
    pub stderr: String,
}

impl Output {
    pub fn ok(&self) -> bool {
        self.code == 0
    }

    /// stdout as text (lossy), for subjects and paths shown to people.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// The NUL-separated fields of a `-z` listing.
    pub fn fields(&self) -> Vec<String> {
        self.stdout
            .split(|b| *b == 0)
            .filter(|f| !f.is_empty())
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect()
    }

    /// What went wrong, in words: git's stderr, or its exit code.
    pub fn why(&self) -> String {
        if self.stderr.is_empty() {
            format!("git exited with {}", self.code)
        } else {
            self.stderr.clone()
        }
    }
}

/// What a git call may have besides its arguments.
#[derive(Debug, Clone, Copy, Default)]
pub struct With<'a> {
    /// `GIT_INDEX_FILE`: a scratch index, so the repository's own index
    /// is never read-modified-written by the call.
    pub index: Option<&'a Path>,
    /// What git reads on stdin (`--pathspec-from-file=-`); `None`:
    /// `/dev/null`.
    pub input: Option<&'a [u8]>,
}

/// Runs `git -C dir ARGS…`.
pub fn run(dir: &Path, args: &[&str]) -> io::Result<Output> {
    run_with(dir, args, With::default())
}

/// [`run`] with a scratch index or stdin.
pub fn run_with(dir: &Path, args: &[&str], with: With<'_>) -> io::Result<Output> {
    let mut argv: Vec<&OsStr> = vec![OsStr::new("git"), OsStr::new("-C"), dir.as_os_str()];
    argv.extend(args.iter().map(OsStr::new));
    let mut errors = tempfile::tempfile()?;
    let mut stdout = Vec::new();
    let mut truncated = false;
    let mut env: Vec<(&str, &OsStr)> = vec![
        ("LC_ALL", OsStr::new("C")),
        ("GIT_TERMINAL_PROMPT", OsStr::new("0")),
        ("GIT_OPTIONAL_LOCKS", OsStr::new("0")),
    ];
    if let Some(index) = with.index {
        env.push(("GIT_INDEX_FILE", index.as_os_str()));
    }
    let job = Job {
        argv: &argv,
        cwd: None,
        timeout: Some(TIMEOUT),
        leftovers: Leftovers::Stop,
        stderr: Stderr::File(&errors),
        env: &env,
        input: with.input,
        stop: None,
        stop_with_us: false,
    };
    let outcome = supervise(job, &mut |chunk| {
        if stdout.len() + chunk.len() > MAX_STDOUT {
            truncated = true;
        } else {
            stdout.extend_from_slice(chunk);
        }
    })?;
    crate::fault::point("git:exit");
    let mut said = String::new();
    errors.rewind()?;
    // Only the start is kept: git's message comes first.
    let _ = errors.take(16 * 1024).read_to_string(&mut said);
    if truncated {
        return Err(io::Error::other(format!(
            "git {} printed more than {} MiB",
            args.first().copied().unwrap_or_default(),
            MAX_STDOUT >> 20
        )));
    }
    match outcome.ending {
        Ending::Exited(code) => Ok(Output {
            code,
            stdout,
            stderr: said.trim().to_owned(),
        }),
        Ending::TimedOut(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("git did not finish within {} s", TIMEOUT.as_secs()),
        )),
        Ending::Interrupted { signal, .. } => Err(io::Error::new(
            io::ErrorKind::Interrupted,
            format!("interrupted by {signal}"),
        )),
    }
}

/// What a caller setting up a run needs to know of the work tree holding
/// a directory, asked of git in one call rather than three.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkTree {
    /// The top of the work tree (as `--show-toplevel` prints it).
    pub top: PathBuf,
    /// The git directory shared by all of the repository's work trees.
    pub common_dir: PathBuf,
    /// HEAD's full commit id; `None` before the first commit.
    pub head: Option<String>,
}

impl WorkTree {
    /// The work tree holding `dir`, or `None` outside one (or without git).
    pub fn of(dir: &Path) -> Option<Self> {
        let out = run(
            dir,
            &[
                "rev-parse",
                "--show-toplevel",
                "--git-common-dir",
                "--verify",
                "-q",
                "HEAD",
            ],
        )
        .ok()?;
        // 0: all three printed; 1: HEAD names no commit yet, the two
        // others printed; anything else: not in a work tree.
        if !matches!(out.code, 0 | 1) {
            return None;
        }
        let text = out.text();
        let mut lines = text.lines();
        let top = PathBuf::from(lines.next().filter(|l| !l.is_empty())?);
        // Relative to the directory git ran in.
        let common_dir = dir.join(lines.next().filter(|l| !l.is_empty())?);
        let head = lines
            .next()
            .filter(|l| out.ok() && !l.is_empty())
            .map(str::to_owned);
        Some(Self {
            top,
            common_dir,
            head,
        })
    }
}

/// The top of the work tree holding `dir`, or `None` outside one (or
/// without git).
pub fn toplevel(dir: &Path) -> Option<PathBuf> {
    let out = run(dir, &["rev-parse", "--show-toplevel"]).ok()?;
    let text = out.text();
    let top = text.trim_end_matches(['\n', '\r']);
    (out.ok() && !top.is_empty()).then(|| PathBuf::from(top))
}
