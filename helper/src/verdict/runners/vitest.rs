//! Vitest.
//!
//! ```text
//!  FAIL  test/cart.test.js > cart totals > sums price times qty
//! AssertionError: expected 270 to be 280 // Object.is equality
//!  ❯ test/cart.test.js:13:23
//!  FAIL  broken.test.js [ broken.test.js ]         a file that did not load
//! ⎯⎯⎯⎯⎯ Uncaught Exception ⎯⎯⎯⎯⎯                  an error outside any test
//!  Test Files  1 failed | 1 passed (2)
//!       Tests  3 failed | 3 passed (6)
//!      Errors  1 error
//! ```
//!
//! Each failure is listed twice: first in the per-file run list (`×` lines,
//! which also start with `❯` for files), then in full under `Failed Tests`
//! (or `Failed Suites` for files); only the full form is read. A file's
//! failure is named by the file. Errors outside any test (`Uncaught
//! Exception`, `Unhandled Rejection`) are failures named by their heading.
//! Frames in `node_modules` give way to one in the project (or a `File:`
//! line). When files failed, the summary joins the `Test Files` line to the
//! `Tests` line, and an `Errors` line after them. When no test file
//! matched, it is vitest's `No test files found` line.

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Counts, Found, Recognizer, count};

/// What vitest prints when no test file matched (`--passWithNoTests`
/// makes its code 0).
const NO_TESTS: &str = "No test files found, exiting with code";

#[derive(Debug, Default)]
pub(super) struct Vitest {
    found: Found,
    current: Option<usize>,
    /// A `Test Files` line that counts failed files.
    files_failed: Option<String>,
    /// The summary was just recorded (an `Errors` line may follow).
    summary_open: bool,
}

/// `⎯⎯⎯ Uncaught Exception ⎯⎯⎯`: the heading of an error outside any test.
fn outside_heading(trimmed: &str) -> Option<&str> {
    if !trimmed.starts_with('⎯') {
        return None;
    }
    let title = trimmed.trim_matches('⎯').trim();
    let is_heading = trimmed.starts_with('⎯') && trimmed.ends_with('⎯') && !title.is_empty();
    let is_list = title.starts_with("Failed ")
        || title == "Unhandled Errors"
        || title.starts_with('[')
        || title.ends_with(|c: char| c.is_ascii_digit());
    (is_heading && !is_list).then_some(title)
}

impl Recognizer for Vitest {
    fn runner(&self) -> &'static str {
        "vitest"
    }

    fn feed(&mut self, line: &str, trimmed: &str, number: u64) {
        if trimmed.starts_with(NO_TESTS) {
            self.found.summarise(line, number);
            return;
        }
        if let Some(rest) = trimmed.strip_prefix("Test Files ") {
            self.files_failed = rest.contains(" failed").then(|| trimmed.to_owned());
            self.current = None;
            return;
        }
        if let Some(rest) = trimmed.strip_prefix("Tests ") {
            if rest.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
                match self.files_failed.take() {
                    Some(files) => self.found.summarise_two(&files, trimmed, number),
                    None => self.found.summarise(line, number),
                }
                self.summary_open = true;
            }
            self.current = None;
            return;
        }
        if self.summary_open {
            self.summary_open = false;
            if let Some(rest) = trimmed.strip_prefix("Errors ")
                && rest.trim_start().starts_with(|c: char| c.is_ascii_digit())
            {
                self.found.extend_summary(trimmed);
                return;
            }
        }
        if let Some(name) = trimmed
            .strip_prefix("FAIL ")
            // nextest's `FAIL [   0.008s] ...` is not vitest's.
            .filter(|name| !name.trim_start().starts_with('['))
        {
            // `broken.test.js [ broken.test.js ]`: the file, named twice.
            let name = name.trim();
            let name = match name.split_once(" [ ") {
                Some((file, rest)) if rest.strip_suffix(" ]") == Some(file) => file,
                _ => name,
            };
            self.current = self.found.failures.push(Failure::new(name));
            return;
        }
        if let Some(title) = outside_heading(trimmed) {
            self.current = self.found.failures.push(Failure::new(title));
            return;
        }
        let Some(failure) = self.current.and_then(|i| self.found.failures.get_mut(i)) else {
            return;
        };
        let frame = trimmed
            .strip_prefix("❯ ")
            .or_else(|| trimmed.starts_with("File: ").then_some(trimmed));
        if let Some(frame) = frame {
            failure.offer_frame(frame);
            if failure.frame.is_some() {
                self.current = None;
            }
        } else if trimmed.starts_with('⎯') {
            self.current = None;
        } else if !trimmed.is_empty() {
            failure.offer_message(trimmed);
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }
    /// The `Tests` counts; failed files and errors outside any test count
    /// when no test failed.
    fn counts(&self) -> Option<Counts> {
        let text = &self.found.summary.as_ref()?.text;
        if text.starts_with(NO_TESTS) {
            return Some(Counts::tests(0, 0, 0));
        }
        let (files, tests) = text.rsplit_once("Tests ")?;
        let (tests, errors) = tests.split_once("; Errors ").unwrap_or((tests, ""));
        let n = |words: &[&str]| count(tests, words).unwrap_or(0);
        let failed = match n(&["failed"]) {
            0 => count(files, &["failed"])
                .unwrap_or(0)
                .saturating_add(count(errors, &["error", "errors"]).unwrap_or(0)),
            failed => failed,
        };
        Some(Counts::tests(
            failed,
            n(&["passed", "failed"]),
            n(&["skipped", "todo"]),
        ))
    }
}
