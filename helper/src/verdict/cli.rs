//! `verdict`'s command line: the flags, and the one place they (or stdin's
//! labels) become the [`Options`] of a call.

use std::io::{self, Write};
use std::path::PathBuf;

use super::model::{Input, Unwritten};
use super::ops::build_with;
use super::reply::Verdict;
use crate::exit;
use crate::input_file::read_stdin;

/// Turn a command's log into the executor skill's short reply.
///
/// Reads the log once, front to back, and recognises the aggregate line and
/// the failures of cargo test, cargo nextest, pytest, go test, node --test,
/// jest, vitest, mocha, tsc, eslint, rspec, Python's unittest, TAP/prove and
/// gcc/clang under make, plus any `N passed, N failed` line. Without a
/// recognised aggregate, SUMMARY is the log's last non-empty line. A test
/// file that fails to load is a failure named by the file; frames are the
/// first in the project, never in node_modules or the runner.
///
/// Example, a jest run where one file did not load:
///
///     $ voyage-helper verdict --log "$LOG" --exit 1
///     VERDICT: FAIL (exit 1, -)
///     SUMMARY: Test Suites: 1 failed, 1 passed, 2 total; Tests:       3 passed, 3 total
///     FAILURES:
///     - ./imports.test.js - Cannot find module './nope' from 'imports.test.js'
///         at Object.require (imports.test.js:1:17)
///     LOG: /repo/.temp/voyage/logs/20261130T101500Z-npx-jest-4821.log
///
/// INPUT. Flags, or with no flags `label: value` lines on stdin (labels in
/// any case, so the block `run` printed can be passed on as it is):
///
///     log: <path>          the LOG: of the run (required)
///     exit: <n>            its EXIT: (required, an integer)
///     duration: <d>        its DURATION:, shown as given (default -)
///     status: <s>          its STATUS: ok, timeout or error (default ok)
///     reason: <text>       its REASON:, the SUMMARY of an error
///     log-error: <text>    its LOG-ERROR: the log could not take the
///                          output (a full disk); TAIL: is then read too
///     expect: <sentence>   the wanted outcome, e.g. "all green"
///
/// OUTPUT (at most 40 lines, in this order):
///
///     VERDICT: PASS|FAIL|NO TESTS RAN|TIMEOUT|ERROR (exit <n>, <duration>)
///     EXPECT: met|not met|undecided - <why>     only with --expect
///     SUMMARY: <the tool's aggregate line, verbatim>
///     FAILURES:                                 only when something failed
///     - <test or target> - <message> (<the assertion's values>)
///         <first stack frame>
///     - +<N> more, see LOG                      past 10 failures
///     LOG: <path>
///
/// The verdict is never greener than any signal: the exit code, and what
/// each runner in the log counted. Failures the runner counts make it FAIL
/// even on exit 0, and the VERDICT line says why (`VERDICT: FAIL (exit 0,
/// 3s) - cargo test reports 3 failed but exited 0`); a run in which the
/// runner ran no test (a filter that matched nothing, every test skipped,
/// no test file, pytest's exit 5) is `NO TESTS RAN`, never PASS; a passing
/// summary followed by a non-zero exit (a crash) stays FAIL. A failed
/// assertion keeps its values (`left: 170; right: 270`, jest's `Expected:`
/// and `Received:`, pytest's `assert 10 == 20`).
///
/// EXPECT is decided only where a machine can: "all green", "passes",
/// "fails", "exit code 3" and the like against the verdict (never `met` for
/// "all green" unless it is PASS); anything that needs reading (why a test
/// fails, "without warnings") is `undecided - ...` for the model to judge. Input errors print `VERDICT: ERROR (exit -, -)`
/// and a SUMMARY saying what is missing or wrong: `log not found: <path>`,
/// `log is a directory: <path>`, `log is a FIFO, not a regular file:
/// <path>` (and the same for a device or socket). A log holding NUL bytes
/// is binary: without a recognised aggregate line its SUMMARY is `(the log
/// is binary, not text)`, never raw bytes.
///
/// Exit status: 0 PASS, 1 FAIL, NO TESTS RAN or TIMEOUT, 2 ERROR.
// `--help` text: its brackets and URLs are not rustdoc's links.
#[allow(rustdoc::broken_intra_doc_links, rustdoc::bare_urls)]
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct VerdictArgs {
    /// The log file a run wrote.
    #[arg(long, value_name = "PATH")]
    pub log: Option<PathBuf>,

    /// The run's exit code.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub exit: Option<String>,

    /// The run's duration, shown as given (e.g. 34s).
    #[arg(long, value_name = "D")]
    pub duration: Option<String>,

    /// The run's STATUS: ok, timeout or error.
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,

    /// The run's REASON: (with --status error).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,

    /// One sentence naming the wanted outcome, e.g. "all green".
    #[arg(long, value_name = "TEXT")]
    pub expect: Option<String>,

    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl VerdictArgs {
    /// The call's options: the flags, or with none the labels on stdin.
    pub(crate) fn into_options(self) -> Options {
        let flags_given = self.log.is_some()
            || self.exit.is_some()
            || self.duration.is_some()
            || self.status.is_some()
            || self.reason.is_some()
            || self.expect.is_some();
        let (input, unwritten) = if flags_given {
            let input = Input {
                log: self.log,
                exit: self.exit,
                duration: self.duration,
                status: self.status,
                reason: self.reason,
                expect: self.expect,
            };
            (input, None)
        } else {
            let stdin = read_stdin();
            (Input::parse_labels(&stdin), Unwritten::parse_labels(&stdin))
        };
        Options {
            input,
            unwritten,
            json: self.json,
        }
    }

    /// `verdict`: builds and prints the reply; a write error is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        execute(&self.into_options(), out)
    }
}

/// Options of one `verdict` call.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub input: Input,
    /// `run`'s `LOG-ERROR:` and `TAIL:`, when it could not write the log.
    pub unwritten: Option<Unwritten>,
    pub json: bool,
}

/// Builds the reply, prints it to `out` and returns the exit code:
/// 0 PASS, 1 FAIL, NO TESTS RAN or TIMEOUT, 2 ERROR (or the error writing
/// it).
pub(crate) fn execute(options: &Options, out: &mut impl Write) -> io::Result<u8> {
    let reply = build_with(&options.input, options.unwritten.as_ref());
    if options.json {
        reply.render_json(out)?;
    } else {
        reply.render_text(out)?;
    }
    out.flush()?;
    Ok(match reply.verdict {
        Verdict::Pass => exit::OK,
        Verdict::Fail | Verdict::NoTestsRan | Verdict::Timeout => exit::NOT_OK,
        Verdict::Error => exit::CANNOT_CHECK,
    })
}
