//! Jest.
//!
//! ```text
//! FAIL ./cart.test.js
//!   ● cart totals › sums price times qty
//!
//!     expect(received).toBe(expected) // Object.is equality
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
//! When files failed, the summary is the `Test Suites:` line and the
//! `Tests:` line together: the tests alone do not count a file that never
//! ran.

use crate::verdict::failure::{Failure, looks_like_error};
use crate::verdict::recognizer::{Found, Recognizer};

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

impl Recognizer for Jest {
    fn runner(&self) -> &'static str {
        "jest"
    }

    fn feed(&mut self, line: &str, trimmed: &str, number: u64) {
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
        self.found
            .failures
            .read_body(&mut self.current, trimmed, "at ");
    }

    fn found(&self) -> &Found {
        &self.found
    }
}
