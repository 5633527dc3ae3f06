//! The verdict operation, as the command line, `run` and `trek` call it:
//! [`build`] reads the log once and makes the reply.

use super::expect::{self, RunFacts, RunKind};
use super::model::{Input, Unwritten};
use super::reply::{MAX_BULLETS, Reply};
use super::runners;
use super::signals;

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
    build_with(input, None)
}

/// The reply for `input`, knowing that `run` could not write the whole
/// output to the log (`unwritten`): the reply says so, names the log and
/// the error, and reads the output's last line (`TAIL:`) where the log
/// lacks it, never taking a short log for a silent command.
pub(crate) fn build_with(input: &Input, unwritten: Option<&Unwritten>) -> Reply {
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
    let mut findings = match runners::scan(file) {
        Ok(f) => f,
        Err(e) => {
            return Reply::input_error(format!("cannot read log: {}: {e}", log.display()));
        }
    };
    let tail = unwritten.and_then(|u| u.tail.as_deref());
    // The log stops where the disk filled: the output's last line, which
    // `run` kept as it streamed, may still be the runner's aggregate.
    if findings.summary.is_none()
        && let Some(tail) = tail
        && let Ok(last) = runners::scan(tail.as_bytes())
        && last.summary.is_some()
    {
        findings.runner = last.runner;
        findings.summary = last.summary;
        findings.counted.extend(last.counted);
    }

    let weighed = signals::weigh(kind, exit_code, &findings.counted);
    // A binary log's last "line" is raw bytes; name what it is instead.
    let last_line = if findings.binary {
        BINARY_LOG.into()
    } else if let Some(unwritten) = unwritten {
        unwritten_summary(log, unwritten, findings.last_line.is_none())
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
        counted: weighed.counted,
    };
    Reply {
        verdict: weighed.verdict,
        exit: exit_code.to_string(),
        duration: input
            .duration
            .clone()
            .filter(|d| !d.trim().is_empty())
            .unwrap_or_else(|| "-".into()),
        note: match (weighed.note, unwritten) {
            (note, None) => note,
            (None, Some(u)) => Some(unwritten_note(u)),
            (Some(note), Some(u)) => Some(format!("{note}; {}", unwritten_note(u))),
        },
        counts: weighed.counts,
        expect: input.expect.as_deref().map(|e| expect::judge(e, facts)),
        summary,
        runner: findings.runner,
        more_failures: total.saturating_sub(failures.len()),
        failures,
        log: Some(log.display().to_string()),
    }
}

/// The VERDICT line's word on a log `run` could not write (its path is
/// the LOG: line).
fn unwritten_note(unwritten: &Unwritten) -> String {
    format!(
        "the log could not be written ({}): it holds only the output before that",
        unwritten.error
    )
}

/// The summary, when no aggregate line was read: the output's last line
/// as `run` saw it; for an empty log, said with why it is empty.
fn unwritten_summary(log: &std::path::Path, unwritten: &Unwritten, empty: bool) -> String {
    match (&unwritten.tail, empty) {
        (Some(tail), false) => tail.clone(),
        (Some(tail), true) => format!(
            "(the log could not be written: {}: {}; the command's last line: {tail})",
            log.display(),
            unwritten.error
        ),
        (None, _) => format!(
            "(the log could not be written: {}: {})",
            log.display(),
            unwritten.error
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

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
