//! Validating the inputs of `run` into a [`Request`], in the contract's order.
//!
//! docs/maintainer/run-contract.md §2: `command:` first, then `cwd:`,
//! `timeout:`, `expect-exit:`; the
//! first failure wins and becomes the block's `REASON:`. Voyage tightens three
//! rules the original left loose: an empty `cwd:` is an error, `timeout:` is
//! capped at one day and `expect-exit:` at 255.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use voyage_judge::Labels;

/// Default timeout when `timeout:` is absent
/// (docs/maintainer/run-contract.md §2).
pub(super) const DEFAULT_TIMEOUT_SECS: u64 = 600;
/// Upper bound for `timeout:`: one day.
pub const MAX_TIMEOUT_SECS: u64 = 86_400;

/// Which exit codes count as the expected outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectExit {
    /// Exactly this code.
    Code(u8),
    /// Any code but 0.
    Nonzero,
}

impl ExpectExit {
    pub fn is_met_by(self, code: i32) -> bool {
        match self {
            Self::Code(want) => code == i32::from(want),
            Self::Nonzero => code != 0,
        }
    }
}

/// A validated `run` request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// One shell line, run verbatim by `bash -c`.
    pub command: OsString,
    /// The directory to run in, spelled as the caller gave it (glued onto the
    /// current directory when relative, never normalised).
    pub cwd: PathBuf,
    pub timeout_secs: u64,
    pub expect_exit: ExpectExit,
}

/// Why a request was refused; the `Display` text is the block's `REASON:`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("missing command:")]
    MissingCommand,
    #[error("empty cwd: (leave the label out to run in the current directory)")]
    EmptyCwd,
    #[error("working directory missing: {}", .0.display())]
    CwdMissing(PathBuf),
    #[error("cwd is not a directory: {}", .0.display())]
    CwdNotADirectory(PathBuf),
    #[error("invalid timeout: {0}")]
    InvalidTimeout(String),
    #[error("invalid timeout: {0} (more than {MAX_TIMEOUT_SECS} seconds)")]
    TimeoutTooLong(String),
    #[error("invalid expect-exit: {0}")]
    InvalidExpectExit(String),
    #[error("invalid expect-exit: {0} (exit codes stop at 255)")]
    ExpectExitTooHigh(String),
}

impl Request {
    /// Validates `labels`; `pwd` is the directory relative `cwd:` values are
    /// glued onto.
    pub fn from_labels(labels: &Labels, pwd: &Path) -> Result<Self, RequestError> {
        let command = match &labels.command {
            Some(c) if !c.is_empty() => OsString::from_vec(c.clone()),
            _ => return Err(RequestError::MissingCommand),
        };
        let cwd = match &labels.cwd {
            None => pwd.to_path_buf(),
            Some(c) if c.is_empty() => return Err(RequestError::EmptyCwd),
            Some(c) => glue(pwd, c),
        };
        match std::fs::metadata(&cwd) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(RequestError::CwdNotADirectory(cwd)),
            Err(_) => return Err(RequestError::CwdMissing(cwd)),
        }
        let timeout_secs = match &labels.timeout {
            None => DEFAULT_TIMEOUT_SECS,
            Some(t) => parse_timeout(t)?,
        };
        let expect_exit = match &labels.expect_exit {
            None => ExpectExit::Code(0),
            Some(e) => parse_expect_exit(e)?,
        };
        Ok(Self {
            command,
            cwd,
            timeout_secs,
            expect_exit,
        })
    }
}

/// run contract §2: absolute when it starts with `/`, `\` or a drive letter and a
/// colon; otherwise `<pwd>/<value>`, with no normalising.
fn glue(pwd: &Path, value: &[u8]) -> PathBuf {
    let absolute = match value {
        [b'/' | b'\\', ..] => true,
        [drive, b':', ..] => drive.is_ascii_alphabetic(),
        _ => false,
    };
    let value = PathBuf::from(OsString::from_vec(value.to_vec()));
    if absolute {
        value
    } else {
        let mut glued = pwd.as_os_str().to_os_string();
        glued.push("/");
        glued.push(value.as_os_str());
        PathBuf::from(glued)
    }
}

/// `^[1-9][0-9]*$`, at most one day.
fn parse_timeout(raw: &[u8]) -> Result<u64, RequestError> {
    let text = String::from_utf8_lossy(raw).into_owned();
    if !is_plain_positive(raw) {
        return Err(RequestError::InvalidTimeout(text));
    }
    match text.parse::<u64>() {
        Ok(secs) if secs <= MAX_TIMEOUT_SECS => Ok(secs),
        _ => Err(RequestError::TimeoutTooLong(text)),
    }
}

/// `^(nonzero|0|[1-9][0-9]*)$`, at most 255.
fn parse_expect_exit(raw: &[u8]) -> Result<ExpectExit, RequestError> {
    let text = String::from_utf8_lossy(raw).into_owned();
    if raw == b"nonzero" {
        return Ok(ExpectExit::Nonzero);
    }
    if raw != b"0" && !is_plain_positive(raw) {
        return Err(RequestError::InvalidExpectExit(text));
    }
    match text.parse::<u8>() {
        Ok(code) => Ok(ExpectExit::Code(code)),
        Err(_) => Err(RequestError::ExpectExitTooHigh(text)),
    }
}

fn is_plain_positive(raw: &[u8]) -> bool {
    matches!(raw, [b'1'..=b'9', rest @ ..] if rest.iter().all(u8::is_ascii_digit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(input: &str) -> Labels {
        Labels::parse(input.as_bytes())
    }

    fn reason(input: &str, pwd: &Path) -> String {
        Request::from_labels(&labels(input), pwd)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn defaults() {
        let pwd = std::env::temp_dir();
        let r = Request::from_labels(&labels("command: true"), &pwd).unwrap();
        assert_eq!(r.cwd, pwd);
        assert_eq!(r.timeout_secs, 600);
        assert_eq!(r.expect_exit, ExpectExit::Code(0));
    }

    #[test]
    fn validation_order_first_failure_wins() {
        let pwd = std::env::temp_dir();
        assert_eq!(reason("timeout: x\ncwd: /nope", &pwd), "missing command:");
        assert_eq!(reason("command:\ncommand: true", &pwd), "missing command:");
        assert_eq!(
            reason("command: true\ncwd: /no/such/dir\ntimeout: x", &pwd),
            "working directory missing: /no/such/dir"
        );
        assert_eq!(
            reason("command: true\ntimeout: 05\nexpect-exit: x", &pwd),
            "invalid timeout: 05"
        );
        assert_eq!(
            reason("command: true\nexpect-exit: -1", &pwd),
            "invalid expect-exit: -1"
        );
    }

    #[test]
    fn relative_cwd_is_glued_without_normalising() {
        let pwd = Path::new("/tmp");
        assert_eq!(
            reason("command: true\ncwd: no-such-sub/../x", pwd),
            "working directory missing: /tmp/no-such-sub/../x"
        );
        assert_eq!(glue(Path::new("/a"), b"C:\\x"), PathBuf::from("C:\\x"));
        assert_eq!(glue(Path::new("/a"), b"\\x"), PathBuf::from("\\x"));
        assert_eq!(glue(Path::new("/a"), b"b/c"), PathBuf::from("/a/b/c"));
    }

    #[test]
    fn empty_cwd_is_refused() {
        let pwd = std::env::temp_dir();
        assert!(reason("command: true\ncwd:   ", &pwd).starts_with("empty cwd:"));
    }

    #[test]
    fn timeout_rules() {
        for bad in ["0", "-1", "+3", "1.5", "1s", " ", "05"] {
            assert_eq!(
                parse_timeout(bad.as_bytes()),
                Err(RequestError::InvalidTimeout(bad.into()))
            );
        }
        assert_eq!(parse_timeout(b"86400"), Ok(86_400));
        assert_eq!(
            parse_timeout(b"86401"),
            Err(RequestError::TimeoutTooLong("86401".into()))
        );
        assert!(matches!(
            parse_timeout(b"99999999999999999999999"),
            Err(RequestError::TimeoutTooLong(_))
        ));
    }

    #[test]
    fn expect_exit_rules() {
        assert_eq!(parse_expect_exit(b"0"), Ok(ExpectExit::Code(0)));
        assert_eq!(parse_expect_exit(b"255"), Ok(ExpectExit::Code(255)));
        assert_eq!(parse_expect_exit(b"nonzero"), Ok(ExpectExit::Nonzero));
        assert!(matches!(
            parse_expect_exit(b"256"),
            Err(RequestError::ExpectExitTooHigh(_))
        ));
        for bad in ["00", "Nonzero", "-1", "1e2", ""] {
            assert!(matches!(
                parse_expect_exit(bad.as_bytes()),
                Err(RequestError::InvalidExpectExit(_))
            ));
        }
        assert!(ExpectExit::Nonzero.is_met_by(3));
        assert!(!ExpectExit::Nonzero.is_met_by(0));
        assert!(ExpectExit::Code(3).is_met_by(3));
    }
}
