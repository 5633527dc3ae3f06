//! Jest.
//!
//! ```text
//!   ● cart totals › sums price times qty
//!
//!     expect(received).toBe(expected) // Object.is equality
//!       at Object.toBe (test/cart.test.js:12:23)
//! Tests:       3 failed, 3 passed, 6 total
//! ```

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Found, Recognizer};

#[derive(Debug, Default)]
pub(super) struct Jest {
    found: Found,
    current: Option<usize>,
}

impl Recognizer for Jest {
    fn runner(&self) -> &'static str {
        "jest"
    }

    fn feed(&mut self, line: &str, number: u64) {
        let trimmed = line.trim();
        if trimmed.starts_with("Tests:") {
            self.found.summarise(line, number);
            self.current = None;
            return;
        }
        if let Some(name) = trimmed.strip_prefix("● ") {
            // `● Test suite failed to run` belongs to the file named above it;
            // it is a failure all the same.
            self.current = self.found.failures.push(Failure::new(name));
            return;
        }
        if trimmed.starts_with("FAIL ") || trimmed.starts_with("PASS ") {
            self.current = None;
            return;
        }
        self.found
            .failures
            .read_body(&mut self.current, trimmed, "at ");
    }

    fn found(&self) -> &Found {
        &self.found
    }
}
