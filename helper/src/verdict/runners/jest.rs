//! Jest.
//!
//! ```text
//! FAIL ./cart.test.js
//!   ● cart totals › sums price times qty
//!
//!     expect(received).toBe(expected) // Object.is equality
//!     Expected: 280
//!     Received: 270
//!       at Object.toBe (test/cart.test.js:12:23)
//!   ● Test suite failed to run
//!
//!     Cannot find module './no-such-module' from 'imports.test.js'
//! Test Suites: 2 failed, 1 passed, 3 total
//! Tests:       3 failed, 3 passed, 6 total
//! ```
//!
//! `● Test suite failed to run` is a file that did not load, or threw
//! outside any test: the failure is named by the `FAIL` file above it, and
//! when its first line is only jest's explanation (`Jest encountered an
//! unexpected token`), the `SyntaxError: …` line further down is the
//! message. Frames in `node_modules` are passed over for one in the project.
//! The `Expected:` and `Received:` lines under a message are the
//! assertion's values. When files failed, the summary is the `Test
//! Suites:` line and the `Tests:` line together: the tests alone do not
//! count a file that never ran. When no test file matched, it is jest's
//! `No tests found` line.

use crate::verdict::failure::{Failure, looks_like_error};
use crate::verdict::recognizer::{Counts, Found, Recognizer, count};

/// What jest prints when no test file matched (`--passWithNoTests` makes
/// its code 0).
const NO_TESTS: &str = "No tests found, exiting with code";

#[derive(Debug, Default)]
pub(super) struct Jest {
    found: Found,
    current: Option<usize>,
    /// The file of the `FAIL` line being read.
    file: String,
    /// The failure being read is a whole file's, and its message may still
    /// give way to an error line.
    suite_message_open: bool,
    /// A `Test Suites:` line that counts failed files.
    suites_failed: Option<String>,
}

/// `Expected: 270`, `Received: 170`, `Expected substring: "x"`: the
/// values under an `expect(…)` message (vitest puts them in the message).
fn is_expect_value(trimmed: &str) -> bool {
    (trimmed.starts_with("Expected") || trimmed.starts_with("Received"))
        && trimmed.split_once(": ").is_some_and(|(head, value)| {
            !value.trim().is_empty() && head.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
        })
}

impl Recognizer for Jest {
    fn runner(&self) -> &'static str {
        "jest"
    }

    fn feed(&mut self, line: &str, trimmed: &str, number: u64) {
        if trimmed.starts_with(NO_TESTS) {
            self.found.summarise(line, number);
            return;
        }
        if trimmed.starts_with("Test Suites:") {
            self.suites_failed = trimmed.contains(" failed").then(|| trimmed.to_owned());
            self.current = None;
            return;
        }
        if trimmed.starts_with("Tests:") {
            match self.suites_failed.take() {
                Some(suites) => self.found.summarise_two(&suites, trimmed, number),
                None => self.found.summarise(line, number),
            }
            self.current = None;
            return;
        }
        if let Some(name) = trimmed.strip_prefix("● ") {
            let suite = name == "Test suite failed to run" && !self.file.is_empty();
            let name = if suite { self.file.as_str() } else { name };
            self.current = self.found.failures.push(Failure::new(name));
            self.suite_message_open = suite;
            return;
        }
        if let Some(file) = trimmed
            .strip_prefix("FAIL ")
            .or_else(|| trimmed.strip_prefix("PASS "))
        {
            self.file.clear();
            self.file.push_str(file.trim());
            self.current = None;
            return;
        }
        if self.suite_message_open
            && let Some(failure) = self.current.and_then(|i| self.found.failures.get_mut(i))
            && !failure.message.is_empty()
        {
            if looks_like_error(&failure.message) {
                self.suite_message_open = false;
            } else if looks_like_error(trimmed) {
                failure.set_message(trimmed);
                self.suite_message_open = false;
                return;
            }
        }
        if is_expect_value(trimmed)
            && let Some(failure) = self.current.and_then(|i| self.found.failures.get_mut(i))
            && !failure.message.is_empty()
        {
            failure.add_value(trimmed);
            return;
        }
        self.found
            .failures
            .read_body(&mut self.current, trimmed, "at ");
    }

    fn found(&self) -> &Found {
        &self.found
    }
    /// The `Tests:` counts; files that failed to run count when no test
    /// failed (`Test Suites: 1 failed, 1 total; Tests: 0 total`).
    fn counts(&self) -> Option<Counts> {
        let text = &self.found.summary.as_ref()?.text;
        if text.starts_with(NO_TESTS) {
            return Some(Counts::tests(0, 0, 0));
        }
        let (suites, tests) = text.rsplit_once("Tests:")?;
        let n = |words: &[&str]| count(tests, words).unwrap_or(0);
        let failed = match n(&["failed"]) {
            0 => count(suites, &["failed"]).unwrap_or(0),
            failed => failed,
        };
        Some(Counts::tests(
            failed,
            n(&["passed", "failed"]),
            n(&["skipped", "todo"]),
        ))
    }
}
