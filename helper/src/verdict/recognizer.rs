//! The seam between reading a log and knowing a runner's output format.
//!
//! Every recogniser sees every line once, in order, and keeps what it finds:
//! its runner's aggregate line and its failures. After the last line the
//! [`pick`] function chooses whose findings the reply uses. A recogniser
//! also says what its runner counted ([`Counts`]): the failures and the
//! tests that ran, a signal of its own beside the exit code.

use serde::Serialize;

use super::failure::FailureList;
use super::lines::MAX_LINE_BYTES;

/// An aggregate line and where it stood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Summary {
    pub text: String,
    pub line: u64,
}

/// What a recogniser has found so far.
#[derive(Debug, Default, Clone)]
pub(super) struct Found {
    /// The aggregate line, once seen.
    pub summary: Option<Summary>,
    pub failures: FailureList,
}

impl Found {
    /// Records `line` (trimmed) as the aggregate line.
    pub(super) fn summarise(&mut self, line: &str, number: u64) {
        self.summary = Some(Summary {
            text: line.trim().to_owned(),
            line: number,
        });
    }

    /// Records the aggregate `first; second` for runners that print their
    /// totals over two lines (files, then tests), each trimmed.
    /// Like any line, the result is at most [`MAX_LINE_BYTES`] long.
    pub(super) fn summarise_two(&mut self, first: &str, second: &str, number: u64) {
        let mut text = format!("{}; {}", first.trim(), second.trim());
        cut(&mut text);
        self.summary = Some(Summary { text, line: number });
    }

    /// Appends `; line` to the aggregate line already recorded.
    pub(super) fn extend_summary(&mut self, line: &str) {
        if let Some(summary) = self.summary.as_mut() {
            summary.text.push_str("; ");
            summary.text.push_str(line.trim());
            cut(&mut summary.text);
        }
    }
}

/// Cuts `text` to [`MAX_LINE_BYTES`] at a character boundary.
fn cut(text: &mut String) {
    if text.len() > MAX_LINE_BYTES {
        let mut at = MAX_LINE_BYTES;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
    }
}

/// What a runner's own aggregate counted, as far as the verdict cares.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Tests (or files, or errors) the runner counts as failed.
    pub failed: u64,
    /// Tests that ran, passed or failed; `None` for a tool that runs no
    /// tests (a compiler, a linter). `go test` counts no tests: it is the
    /// packages that ran some.
    pub ran: Option<u64>,
    /// Tests left out: skipped, ignored, filtered out, deselected, pending.
    pub not_run: u64,
    /// What `failed` counts, as the reply names it: `failed` or `errors`.
    #[serde(skip)]
    pub unit: &'static str,
}

impl Counts {
    /// Counts of a test runner.
    pub(super) fn tests(failed: u64, ran: u64, not_run: u64) -> Self {
        Self {
            failed,
            ran: Some(ran),
            not_run,
            unit: "failed",
        }
    }

    /// Counts of a compiler or linter: errors, no tests.
    pub(super) fn errors(errors: u64) -> Self {
        Self {
            failed: errors,
            ran: None,
            not_run: 0,
            unit: "errors",
        }
    }
}

/// The sum of every `N <word>` in `text` for each of `words` (a word ends
/// where a letter or digit does not follow: `error` is not `errors`), or
/// `None` when none occurs. `2 failed; 1 error` with `["failed"]` is 2.
pub(super) fn count(text: &str, words: &[&str]) -> Option<u64> {
    let mut total = None;
    for word in words {
        for (at, _) in text.match_indices(word) {
            let after = text.get(at + word.len()..).unwrap_or_default();
            if after.starts_with(|c: char| c.is_alphanumeric()) {
                continue;
            }
            let Some(before) = text.get(..at).and_then(|b| b.strip_suffix(' ')) else {
                continue;
            };
            let head = before.trim_end_matches(|c: char| c.is_ascii_digit());
            let digits = before.get(head.len()..).unwrap_or_default();
            if digits.is_empty() || head.ends_with(|c: char| c.is_alphanumeric() || c == '/') {
                continue;
            }
            if let Ok(n) = digits.parse::<u64>() {
                total = Some(total.unwrap_or(0u64).saturating_add(n));
            }
        }
    }
    total
}

/// A runner's output format, learnt line by line.
pub(super) trait Recognizer {
    /// The runner's name, for `--json` and tests (e.g. `cargo test`).
    fn runner(&self) -> &'static str;
    /// Takes in the next cleaned line (see [`super::lines`]) and the same
    /// line without its indentation (lines come without trailing
    /// whitespace), trimmed once for all recognisers.
    fn feed(&mut self, line: &str, trimmed: &str, number: u64);
    fn found(&self) -> &Found;

    /// Called once after the last line: settles what was still pending.
    fn finish(&mut self) {}

    fn summary(&self) -> Option<&Summary> {
        self.found().summary.as_ref()
    }

    fn failures(&self) -> &FailureList {
        &self.found().failures
    }

    /// What the runner counted, once the log is read: `None` when it
    /// printed no counts (no aggregate line), or is no runner of tests
    /// and found nothing.
    fn counts(&self) -> Option<Counts> {
        None
    }
}

/// Chooses the recogniser whose findings describe the log: the one whose
/// aggregate line came last (a wrapper's own summary after a tool's wins
/// over it), or, where none saw an aggregate line, the one with the most
/// failures. Ties go to the earlier, more specific recogniser.
pub(super) fn pick(recognizers: &[Box<dyn Recognizer>]) -> Option<&dyn Recognizer> {
    let with_summary = recognizers
        .iter()
        .filter_map(|r| r.summary().map(|s| (s.line, r)))
        .fold(
            None::<(u64, &Box<dyn Recognizer>)>,
            |best, (line, r)| match best {
                Some((best_line, _)) if best_line >= line => best,
                _ => Some((line, r)),
            },
        );
    if let Some((_, r)) = with_summary {
        return Some(r.as_ref());
    }
    recognizers
        .iter()
        .filter(|r| !r.failures().is_empty())
        .fold(None::<&Box<dyn Recognizer>>, |best, r| match best {
            Some(b) if b.failures().total() >= r.failures().total() => Some(b),
            _ => Some(r),
        })
        .map(AsRef::as_ref)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_whole_words_after_a_number() {
        let line = "test result: FAILED. 1 passed; 3 failed; 0 ignored; 12 filtered out";
        assert_eq!(count(line, &["passed"]), Some(1));
        assert_eq!(count(line, &["failed"]), Some(3));
        assert_eq!(count(line, &["filtered out", "ignored"]), Some(12));
        assert_eq!(count(line, &["skipped"]), None);
        assert_eq!(count("2 errors, 1 error", &["error", "errors"]), Some(3));
        // Not a count: glued to a word, a ratio's denominator, no number.
        assert_eq!(count("x3 failed", &["failed"]), None);
        assert_eq!(count("4/7 tests run", &["tests run"]), None);
        assert_eq!(count("exec failed", &["failed"]), None);
        assert_eq!(count("3 failedly", &["failed"]), None);
    }
}
