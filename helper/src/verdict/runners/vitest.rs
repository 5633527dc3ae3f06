//! Vitest.
//!
//! ```text
//!  FAIL  test/cart.test.js > cart totals > sums price times qty
//! AssertionError: expected 270 to be 280 // Object.is equality
//!  ❯ test/cart.test.js:13:23
//!       Tests  3 failed | 3 passed (6)
//! ```
//!
//! Each failure is listed twice: first in the per-file run list (`×` lines,
//! which also start with `❯` for files), then in full under `Failed Tests`;
//! only the full form is read.

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Found, Recognizer};

#[derive(Debug, Default)]
pub(super) struct Vitest {
    found: Found,
    current: Option<usize>,
}

impl Recognizer for Vitest {
    fn runner(&self) -> &'static str {
        "vitest"
    }

    fn feed(&mut self, line: &str, number: u64) {
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix("Tests ") {
            if rest.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
                self.found.summarise(line, number);
            }
            self.current = None;
            return;
        }
        if let Some(name) = trimmed.strip_prefix("FAIL ") {
            self.current = self.found.failures.push(Failure::new(name.trim()));
            return;
        }
        let Some(failure) = self.current.and_then(|i| self.found.failures.get_mut(i)) else {
            return;
        };
        if let Some(frame) = trimmed.strip_prefix("❯ ") {
            failure.offer_frame(frame);
            self.current = None;
        } else if trimmed.starts_with('⎯') {
            self.current = None;
        } else if !trimmed.is_empty() {
            failure.offer_message(trimmed);
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }
}
