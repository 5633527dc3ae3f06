//! `voyage-helper verdict`: the executor skill's reply, built from a log.
//!
//! The executor skill (seed: "How to work", steps 2 to 5, and "Output
//! format") maps a run to PASS / FAIL / TIMEOUT / ERROR, finds the tool's own
//! aggregate line and its failures, and judges `expect:`. Everything there
//! that needs no model happens here, reading the log once ([`lines`]) through
//! one recogniser per runner format ([`runners`]), choosing among them
//! ([`recognizer::pick`]), judging what can be judged ([`expect`]) and
//! rendering the reply ([`reply`]).

mod cli;
mod expect;
mod failure;
mod lines;
mod recognizer;
mod reply;
mod runners;

pub(crate) use cli::VerdictArgs;
pub use expect::{RunFacts, RunKind, judge};
pub use lines::MAX_LINE_BYTES;
pub use reply::MAX_LINES;
pub(crate) use reply::Reply;
pub use runners::{Findings, scan};

use std::io::{self, Write};
use std::path::PathBuf;

use reply::{MAX_BULLETS, Verdict};
use voyage_judge::labels::{self, Spelling};

use crate::exit;

/// What the caller told us about the run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    pub log: Option<PathBuf>,
    pub exit: Option<String>,
    pub duration: Option<String>,
    pub status: Option<String>,
    pub reason: Option<String>,
    pub expect: Option<String>,
}

impl Input {
    /// Reads `label: value` lines with the executor's one label reader
    /// ([`voyage_judge::labels::read`]), in any case, so `run`'s own block
    /// (`LOG:`, `EXIT:`, `DURATION:`, `STATUS:`, `REASON:`) can be passed on
    /// unchanged; the first occurrence of a label wins.
    pub fn parse_labels(input: &[u8]) -> Self {
        let [log, exit, duration, status, reason, expect] = labels::read(
            input,
            ["log", "exit", "duration", "status", "reason", "expect"],
            Spelling::AnyCase,
        )
        .map(|value| value.map(|v| String::from_utf8_lossy(v).into_owned()));
        Self {
            log: log.map(PathBuf::from),
            exit,
            duration,
            status,
            reason,
            expect,
        }
    }
}

/// Options of one `verdict` call.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub input: Input,
    pub json: bool,
}

/// Builds the reply, prints it to `out` and returns the exit code:
/// 0 PASS, 1 FAIL or TIMEOUT, 2 ERROR (or the error writing it).
pub(crate) fn execute(options: &Options, out: &mut impl Write) -> io::Result<u8> {
    let reply = build(&options.input);
    if options.json {
        reply.render_json(out)?;
    } else {
        reply.render_text(out)?;
    }
    out.flush()?;
    Ok(match reply.verdict {
        Verdict::Pass => exit::OK,
        Verdict::Fail | Verdict::Timeout => exit::NOT_OK,
        Verdict::Error => exit::CANNOT_CHECK,
    })
}

/// The summary of a log with nothing in it.
pub(crate) const EMPTY_LOG: &str = "(the log is empty)";

/// The summary of a log that holds NUL bytes, when no runner's aggregate
/// line was recognised in it.
const BINARY_LOG: &str = "(the log is binary, not text)";

/// Why the log could not be opened, as the reply's summary says it.
fn unopenable(log: &std::path::Path, e: &crate::input_file::InputError) -> String {
    use crate::input_file::InputError;
    let shown = log.display();
    match e {
        InputError::NotFound(_) => format!("log not found: {shown}"),
        // "log is a directory: …", "log is a FIFO, not a regular file: …"
        InputError::NotRegular(_) => format!("log {e}: {shown}"),
        InputError::Unreadable(_) | InputError::TooLarge { .. } => {
            format!("cannot read log: {shown}: {e}")
        }
    }
}

/// The reply for `input` (reads the log it names).
pub fn build(input: &Input) -> Reply {
    let Some(log) = input.log.as_ref().filter(|l| !l.as_os_str().is_empty()) else {
        // `run`'s block when nothing ran: RESULT, STATUS: error and REASON.
        if let (Some("error"), Some(reason)) = (
            input.status.as_deref(),
            input.reason.as_deref().filter(|r| !r.is_empty()),
        ) {
            return Reply::input_error(reason.to_owned());
        }
        return Reply::input_error("missing log:".into());
    };
    let file = match crate::input_file::open(log) {
        Ok(f) => f,
        Err(e) => return Reply::input_error(unopenable(log, &e)),
    };
    let exit_code = match input.exit.as_deref().map(str::trim) {
        None | Some("") => return Reply::input_error("missing exit:".into()),
        Some(raw) => match raw.parse::<i32>() {
            Ok(code) => code,
            Err(_) => return Reply::input_error(format!("invalid exit: {raw}")),
        },
    };
    let kind = match input.status.as_deref().map(str::trim) {
        None | Some("" | "ok") => RunKind::Finished,
        Some("timeout") => RunKind::TimedOut,
        Some("error") => RunKind::Error,
        Some(other) => {
            return Reply::input_error(format!("invalid status: {other} (ok, timeout or error)"));
        }
    };
    let findings = match runners::scan(file) {
        Ok(f) => f,
        Err(e) => {
            return Reply::input_error(format!("cannot read log: {}: {e}", log.display()));
        }
    };

    let verdict = match kind {
        RunKind::Finished if exit_code == 0 => Verdict::Pass,
        RunKind::Finished => Verdict::Fail,
        RunKind::TimedOut => Verdict::Timeout,
        RunKind::Error => Verdict::Error,
    };
    // A binary log's last "line" is raw bytes; name what it is instead.
    let last_line = if findings.binary {
        BINARY_LOG.into()
    } else {
        findings
            .last_line
            .clone()
            .unwrap_or_else(|| EMPTY_LOG.into())
    };
    let summary = match kind {
        RunKind::Error => input
            .reason
            .clone()
            .filter(|r| !r.is_empty())
            .unwrap_or(last_line),
        // A timed-out tool never printed its aggregate line; an earlier
        // step's would mislead.
        RunKind::TimedOut => last_line,
        RunKind::Finished => findings.summary.clone().unwrap_or(last_line),
    };
    let total = findings.failures.total();
    let failures: Vec<_> = findings
        .failures
        .items()
        .iter()
        .take(MAX_BULLETS)
        .cloned()
        .collect();
    let facts = RunFacts {
        kind,
        exit: exit_code,
        failures: total,
    };
    Reply {
        verdict,
        exit: exit_code.to_string(),
        duration: input
            .duration
            .clone()
            .filter(|d| !d.trim().is_empty())
            .unwrap_or_else(|| "-".into()),
        expect: input.expect.as_deref().map(|e| expect::judge(e, facts)),
        summary,
        runner: findings.runner,
        more_failures: total.saturating_sub(failures.len()),
        failures,
        log: Some(log.display().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_in_any_case_first_wins() {
        let input = Input::parse_labels(
            b"RESULT: DEVIATION\nSTATUS: ok\nEXIT: 1\nDURATION: 3s\nLOG: /x.log\nLINES: 9\nTAIL: exit: 7\nexpect: all green\nexit: 2\n",
        );
        assert_eq!(input.exit.as_deref(), Some("1"));
        assert_eq!(input.log, Some(PathBuf::from("/x.log")));
        assert_eq!(input.duration.as_deref(), Some("3s"));
        assert_eq!(input.status.as_deref(), Some("ok"));
        assert_eq!(input.expect.as_deref(), Some("all green"));
    }

    #[test]
    fn input_errors() {
        let summary = |i: Input| build(&i).summary;
        assert_eq!(summary(Input::default()), "missing log:");
        let log = Some(PathBuf::from("/no/such.log"));
        assert_eq!(
            summary(Input {
                log,
                exit: Some("1".into()),
                ..Input::default()
            }),
            "log not found: /no/such.log"
        );
        let real = tempfile::NamedTempFile::new().unwrap();
        let log = Some(real.path().to_path_buf());
        assert_eq!(
            summary(Input {
                log: log.clone(),
                ..Input::default()
            }),
            "missing exit:"
        );
        assert_eq!(
            summary(Input {
                log,
                exit: Some("x1".into()),
                ..Input::default()
            }),
            "invalid exit: x1"
        );
    }
}
