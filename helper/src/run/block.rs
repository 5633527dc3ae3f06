//! The block `run` prints: the contract's observable output
//! (docs/maintainer/run-contract.md §3, §8).
//!
//! Text form, each line at most once and in this order:
//!
//! ```text
//! RESULT: SUCCESS|DEVIATION
//! STATUS: ok|timeout|error
//! EXIT: <n>
//! DURATION: <n>s
//! LOG: <path>
//! LINES: <n>
//! TAIL: <line>      only when a line of the log has content
//! LOG-ERROR: <text> only when the log could not take the output
//! REASON: <text>    only for STATUS: error; always last
//! ```
//!
//! A pre-launch error prints only `RESULT`, `STATUS` and `REASON`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

/// How the run ended, as `STATUS:` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Status {
    Ok,
    Timeout,
    Error,
}

impl Status {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Timeout => "timeout",
            Self::Error => "error",
        }
    }
}

/// Everything `run` reports about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Block {
    /// Nothing ran: the input or the log file was refused.
    PreLaunch { reason: String },
    /// The command was started.
    Ran(Ran),
}

/// The report of a command that was started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Ran {
    pub status: Status,
    /// `EXIT:`: the code, 128 + signal, or 124 on a timeout.
    pub exit: i32,
    pub duration: Duration,
    pub log: PathBuf,
    pub lines: u64,
    pub tail: Option<String>,
    pub reason: Option<String>,
    /// The signal that stopped this process while the command ran
    /// (`SIGTERM`, …): the command did not end by itself.
    pub interrupted_by: Option<String>,
    /// Whether the exit code satisfied `expect-exit:` on an `ok` run.
    pub success: bool,
    /// Why the log could not take the output (`No space left on device
    /// (os error 28)`): it holds only what came before.
    pub log_error: Option<String>,
}

/// `--json` form of a [`Block`]. Fields that do not apply are `null`.
#[derive(Debug, Serialize)]
struct JsonBlock<'a> {
    /// `SUCCESS` or `DEVIATION`.
    result: &'static str,
    status: Status,
    exit: Option<i32>,
    /// Whole seconds, as `DURATION:` prints them.
    duration_secs: Option<u64>,
    duration_ms: Option<u128>,
    log: Option<String>,
    lines: Option<u64>,
    tail: Option<&'a str>,
    reason: Option<&'a str>,
    /// Present only when the log could not take the output.
    #[serde(skip_serializing_if = "Option::is_none")]
    log_error: Option<&'a str>,
}

/// Whole seconds, rounded to the nearest (the original printed bash's
/// `SECONDS`, whole seconds too).
pub(super) fn whole_seconds(d: Duration) -> u64 {
    (d.as_millis().saturating_add(500) / 1000)
        .try_into()
        .unwrap_or(u64::MAX)
}

impl Block {
    /// `true` when the run is reported as `RESULT: SUCCESS`.
    pub(super) fn is_success(&self) -> bool {
        matches!(self, Self::Ran(r) if r.success)
    }

    /// `true` for `STATUS: error` blocks, which make `run` exit 2.
    pub(super) fn is_error(&self) -> bool {
        match self {
            Self::PreLaunch { .. } => true,
            Self::Ran(r) => r.status == Status::Error,
        }
    }

    fn result(&self) -> &'static str {
        if self.is_success() {
            "SUCCESS"
        } else {
            "DEVIATION"
        }
    }

    pub(super) fn render_text(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "RESULT: {}", self.result())?;
        match self {
            Self::PreLaunch { reason } => {
                writeln!(out, "STATUS: error")?;
                writeln!(out, "REASON: {reason}")?;
            }
            Self::Ran(r) => {
                writeln!(out, "STATUS: {}", r.status.as_str())?;
                writeln!(out, "EXIT: {}", r.exit)?;
                writeln!(out, "DURATION: {}s", whole_seconds(r.duration))?;
                writeln!(out, "LOG: {}", r.log.display())?;
                writeln!(out, "LINES: {}", r.lines)?;
                if let Some(tail) = &r.tail {
                    writeln!(out, "TAIL: {tail}")?;
                }
                if let Some(error) = &r.log_error {
                    writeln!(out, "LOG-ERROR: {error}")?;
                }
                if let Some(reason) = &r.reason {
                    writeln!(out, "REASON: {reason}")?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn render_json(&self, out: &mut impl Write) -> io::Result<()> {
        let json = match self {
            Self::PreLaunch { reason } => JsonBlock {
                result: self.result(),
                status: Status::Error,
                exit: None,
                duration_secs: None,
                duration_ms: None,
                log: None,
                lines: None,
                tail: None,
                reason: Some(reason),
                log_error: None,
            },
            Self::Ran(r) => JsonBlock {
                result: self.result(),
                status: r.status,
                exit: Some(r.exit),
                duration_secs: Some(whole_seconds(r.duration)),
                duration_ms: Some(r.duration.as_millis()),
                log: Some(r.log.display().to_string()),
                lines: Some(r.lines),
                tail: r.tail.as_deref(),
                reason: r.reason.as_deref(),
                log_error: r.log_error.as_deref(),
            },
        };
        serde_json::to_writer(&mut *out, &json)?;
        writeln!(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(b: &Block) -> String {
        let mut v = Vec::new();
        b.render_text(&mut v).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn pre_launch_block_is_three_lines() {
        let b = Block::PreLaunch {
            reason: "missing command:".into(),
        };
        assert_eq!(
            text(&b),
            "RESULT: DEVIATION\nSTATUS: error\nREASON: missing command:\n"
        );
        assert!(b.is_error());
    }

    #[test]
    fn ran_block_order() {
        let b = Block::Ran(Ran {
            status: Status::Error,
            exit: 127,
            duration: Duration::from_millis(1499),
            log: "/r/.temp/voyage/logs/x.log".into(),
            lines: 1,
            interrupted_by: None,
            tail: Some("bash: line 1: nope: command not found".into()),
            reason: Some("command not found or not executable (exit 127)".into()),
            success: false,
            log_error: None,
        });
        assert_eq!(
            text(&b),
            "RESULT: DEVIATION\nSTATUS: error\nEXIT: 127\nDURATION: 1s\n\
             LOG: /r/.temp/voyage/logs/x.log\nLINES: 1\n\
             TAIL: bash: line 1: nope: command not found\n\
             REASON: command not found or not executable (exit 127)\n"
        );
    }

    #[test]
    fn rounding_of_seconds() {
        assert_eq!(whole_seconds(Duration::from_millis(0)), 0);
        assert_eq!(whole_seconds(Duration::from_millis(499)), 0);
        assert_eq!(whole_seconds(Duration::from_millis(500)), 1);
        assert_eq!(whole_seconds(Duration::from_secs(34)), 34);
    }
}
