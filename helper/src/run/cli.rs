//! `run`'s command line: the flags, and the one place they (or stdin) are
//! turned into the [`Options`] of a call. The core needs another shape than
//! the flags (the input is either flags or stdin's labels, and relative
//! directories need the shell's current one), hence [`RunArgs::into_options`].

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;

use super::block::Block;
use super::ops::{EXIT_ERROR, EXIT_REPORTED, Input, Options, Reply, current_dir, produce};
use crate::input_file::read_stdin;

/// Run one shell command with a log, and print a short block about it.
///
/// The command runs as `bash -c <command>` in its own process group, with
/// stdin from /dev/null and stdout+stderr merged into a log file under
/// `<root>/.temp/voyage/logs/` (root: the enclosing git work tree, else the
/// directory it runs in). Its output never reaches your terminal: you get the
/// block, and open LOG: for more.
///
/// INPUT. Either flags (`voyage-helper run --timeout 60 -- cargo test`), or,
/// with no flags, `label: value` lines on stdin, as the executor skill sends
/// them:
///
///     command: cargo test --workspace      (required; run verbatim)
///     cwd: crates/core                     (optional; relative to here)
///     timeout: 300                         (optional; 1..86400 s, default 600)
///     expect-exit: 0                       (optional; 0..255 or nonzero)
///
/// Labels count only at column 0 and in lower case; unknown lines are
/// ignored; the first occurrence of a label wins.
///
/// OUTPUT (stable; the skill and scripts parse it), one line each, in order:
///
///     RESULT: SUCCESS|DEVIATION   SUCCESS only for ok with the expected exit
///     STATUS: ok|timeout|error
///     EXIT: <n>                   exit code, 128+signal, or 124 on timeout
///     DURATION: <n>s              whole seconds
///     LOG: <path>
///     LINES: <n>                  newlines in the log
///     TAIL: <line>                last line with content (max 400 chars)
///     LOG-ERROR: <text>           only when the log could not take the
///                                 output (a full disk); it holds what
///                                 came before, LINES and TAIL count all
///     REASON: <text>              only with STATUS: error
///
/// Refused input prints only RESULT, STATUS: error and REASON (a `cwd:`
/// that does not exist: `working directory missing: <path>`; one that is a
/// file: `cwd is not a directory: <path>`). Exit codes
/// 126 and 127 are reported as STATUS: error ("command not found or not
/// executable"). On timeout, or if this process gets SIGINT, SIGTERM or
/// SIGHUP, the command's whole process group gets SIGTERM, 2 s of grace, then
/// SIGKILL; whatever a finished command left running in its group is stopped
/// the same way. `--json` prints the same fields as one JSON object.
///
/// Exit status: 0 for ok and timeout, 2 for every error. Nothing is ever
/// written to stderr, unless stdout itself cannot be written: then
/// `error: cannot write output: ...` and exit 2 (a closed pipe: exit 0).
///
/// REPLY. With `--reply`, the block is not printed: the run's verdict is,
/// exactly as `voyage-helper verdict` prints it for this block (VERDICT:,
/// EXPECT:, SUMMARY:, FAILURES:, LOG:), with the `expect:` label of stdin
/// (or `--expect`) judged, and verdict's exit status (0 PASS, 1 FAIL, NO
/// TESTS RAN or TIMEOUT, 2 ERROR). The executor skill runs a command this
/// way in one call:
///
///     printf 'command: cargo test\nexpect: all green\n' | voyage-helper run --reply
///
/// FENCE. With `--fence MARKER`, the command runs inside the kernel fence
/// of the /trekexecute run whose marker that is (`voyage-helper scope exec
/// --shell bash`: writes only to the step's Files and the places the fence
/// opens). The PreToolUse hook adds it to the executor skill's calls made
/// during a run; a marker that cannot be read is not run around: the
/// command is not run (exit 126, reported as STATUS: error, the reason in
/// the log).
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct RunArgs {
    /// Directory to run in (absolute, or relative to the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<OsString>,

    /// Seconds before the command's process group is stopped (1..86400).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<String>,

    /// The exit code that counts as RESULT: SUCCESS (0..255, or nonzero).
    #[arg(long, value_name = "CODE")]
    pub expect_exit: Option<String>,

    /// Print the block as one JSON object.
    #[arg(long)]
    pub json: bool,

    /// Print the executor skill's reply (the verdict on the run) instead of
    /// the block.
    #[arg(long)]
    pub reply: bool,

    /// With --reply: the outcome wanted, judged in the reply's EXPECT: line
    /// (default: stdin's `expect:` label).
    #[arg(long, value_name = "TEXT", requires = "reply")]
    pub expect: Option<String>,

    /// Run the command inside the kernel fence of the run whose marker is
    /// FILE (added by the PreToolUse hook during a /trekexecute run); the
    /// last one given counts.
    #[arg(long, value_name = "FILE", overrides_with = "fence")]
    pub fence: Option<PathBuf>,

    /// The command, after `--`; several words are joined with spaces.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

impl RunArgs {
    /// Resolves the arguments; `pwd` is where relative `cwd` values start.
    pub(crate) fn into_options(self, pwd: PathBuf) -> Options {
        let flags_given = !self.command.is_empty()
            || self.cwd.is_some()
            || self.timeout.is_some()
            || self.expect_exit.is_some();
        let input = if flags_given {
            Input::Flags(Options::flags(
                &self.command,
                self.cwd,
                self.timeout,
                self.expect_exit,
            ))
        } else {
            Input::Stdin(read_stdin())
        };
        Options {
            input,
            json: self.json,
            reply: self.reply.then_some(Reply {
                expect: self.expect,
            }),
            pwd,
            stop_with_us: false,
            fence: self.fence,
        }
    }

    /// `run`: resolves the arguments where the shell stands, runs, prints
    /// the block. A write error of stdout is returned (see `crate::output`).
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        let pwd = match current_dir() {
            Ok(pwd) => pwd,
            Err(e) => {
                // No directory to run in: still answer with a block.
                let block = Block::PreLaunch {
                    reason: format!("working directory missing: {e}"),
                };
                block.render_text(out)?;
                out.flush()?;
                return Ok(EXIT_ERROR);
            }
        };
        execute(&self.into_options(pwd), out)
    }
}

/// Runs the request described by `options` and prints its block to `out`
/// (or, with `reply`, the verdict on it). Returns the process exit code, or
/// the error writing the block.
fn execute(options: &Options, out: &mut impl Write) -> io::Result<u8> {
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
            unwritten: crate::verdict::Unwritten::parse_labels(&text),
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
