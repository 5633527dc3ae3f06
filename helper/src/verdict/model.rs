//! What the caller told `verdict` about the run: the [`Input`], given as
//! flags or as `label: value` lines.

use std::path::PathBuf;

use voyage_judge::labels::{self, Spelling};

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

/// What `run` said of a log it could not write (a full disk): its
/// `LOG-ERROR:` (the system's words) and its `TAIL:` (the output's last
/// line, counted as it streamed, whatever reached the file).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Unwritten {
    pub error: String,
    pub tail: Option<String>,
}

impl Unwritten {
    /// Reads `log-error:` and `tail:` (any case); `None` without a
    /// `log-error:`.
    pub(crate) fn parse_labels(input: &[u8]) -> Option<Self> {
        let [error, tail] =
            labels::read(input, ["log-error", "tail"], Spelling::AnyCase).map(|value| {
                value
                    .map(|v| String::from_utf8_lossy(v).into_owned())
                    .filter(|v| !v.is_empty())
            });
        Some(Self {
            error: error?,
            tail,
        })
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
}
