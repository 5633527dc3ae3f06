//! `cargo nextest run`.
//!
//! ```text
//!         FAIL [   0.008s] (3/7) cart tests::parse_line_reads_fields
//!   stderr ───
//!     thread 'tests::…' (7503) panicked at src/lib.rs:85:9:
//!     assertion `left == right` failed
//!      Summary [   0.037s] 7 tests run: 4 passed, 3 failed, 0 skipped
//! ```
//!
//! Each failure's captured output is indented and holds libtest's own
//! `test result:` line, which is not the run's summary. The summary's
//! counts: `N passed`, `N failed`, `N exec failed`, `N timed out`,
//! `N skipped` (a filter that matched nothing: `0 tests run: 0 passed,
//! 3 skipped`, then `error: no tests to run`).

use std::sync::LazyLock;

use regex::Regex;

use super::cargo_test::PanicReader;
use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Counts, Found, Recognizer, count};

/// A failing status line: status, duration, an optional `(n/m)` counter
/// (padded to the width of `m`: `( 1/16)`), then `<binary-id> <test name>`.
static FAIL_LINE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:FAIL|SIGSEGV|SIGABRT|SIGKILL|SIGBUS|TIMEOUT|ABORT|LEAK-FAIL|TRY \d+ FAIL)\s+\[[^\]]*\]\s+(?:\(\s*\d+/\d+\)\s+)?(?P<name>\S+ \S.*)$").ok()
});

#[derive(Debug, Default)]
pub(super) struct Nextest {
    found: Found,
    panics: PanicReader,
    /// Inside an indented `stdout ───` / `stderr ───` block.
    in_output: bool,
    /// Waiting for the first line of a failing test's stderr, which is the
    /// message when it is not a panic (a test returning `Err`).
    first_stderr_line: bool,
    current: Option<usize>,
}

impl Nextest {
    /// A line that is no status line: a `stdout ───`/`stderr ───` header, or
    /// a failing test's captured output.
    fn output_line(&mut self, trimmed: &str) {
        if trimmed.ends_with("───")
            && (trimmed.starts_with("stdout") || trimmed.starts_with("stderr"))
        {
            self.in_output = true;
            let stderr = trimmed.starts_with("stderr");
            self.first_stderr_line = stderr;
            self.panics.enter(if stderr { self.current } else { None });
            return;
        }
        if !self.in_output || trimmed.is_empty() {
            return;
        }
        let failures = &mut self.found.failures;
        if self.first_stderr_line {
            self.first_stderr_line = false;
            if let Some(f) = self.current.and_then(|i| failures.get_mut(i))
                && trimmed.starts_with("Error: ")
            {
                f.offer_message(trimmed);
                return;
            }
        }
        self.panics.feed(trimmed, failures);
    }
}

impl Recognizer for Nextest {
    fn runner(&self) -> &'static str {
        "cargo nextest"
    }

    fn feed(&mut self, line: &str, trimmed: &str, number: u64) {
        if trimmed.starts_with("Summary [") {
            self.found.summarise(line, number);
            self.in_output = false;
            return;
        }
        // Every status word starts with one of these: most lines stop here.
        if !trimmed.starts_with(['F', 'S', 'T', 'A', 'L']) {
            self.output_line(trimmed);
            return;
        }
        let status_word = trimmed.split(' ').next().unwrap_or_default();
        let maybe_failure = matches!(
            status_word,
            "FAIL"
                | "SIGSEGV"
                | "SIGABRT"
                | "SIGKILL"
                | "SIGBUS"
                | "TIMEOUT"
                | "ABORT"
                | "LEAK-FAIL"
                | "TRY"
        );
        if let Some(caps) = maybe_failure
            .then(|| super::captures(&FAIL_LINE, line))
            .flatten()
        {
            let name = super::group(&caps, 1);
            self.current = self.found.failures.push(Failure::new(name));
            self.in_output = false;
            self.panics.enter(None);
            return;
        }
        self.output_line(trimmed);
    }

    fn found(&self) -> &Found {
        &self.found
    }
    fn counts(&self) -> Option<Counts> {
        let text = &self.found.summary.as_ref()?.text;
        let n = |words: &[&str]| count(text, words).unwrap_or(0);
        let failed = n(&["failed", "exec failed", "timed out"]);
        Some(Counts::tests(
            failed,
            n(&["passed"]).saturating_add(failed),
            n(&["skipped", "not run"]),
        ))
    }
}
