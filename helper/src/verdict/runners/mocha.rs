//! Mocha (spec reporter).
//!
//! ```text
//!   6 passing (7ms)
//!   3 failing
//!
//!   1) cart totals
//!        sums price times qty:
//!      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
//!       at Context.<anonymous> (test/cart.test.js:13:12)
//! ```
//!
//! A failure's title is split over lines, the last ending in `:`; they are
//! joined with spaces (mocha's full title).

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Found, Recognizer};

#[derive(Debug, Default)]
pub(super) struct Mocha {
    found: Found,
    failing_seen: bool,
    /// Title lines of a failure still being read.
    title: Option<Vec<String>>,
    current: Option<usize>,
}

fn count_then(trimmed: &str, word: &str) -> bool {
    trimmed
        .split_once(' ')
        .is_some_and(|(n, rest)| n.parse::<u64>().is_ok() && rest.starts_with(word))
}

impl Recognizer for Mocha {
    fn runner(&self) -> &'static str {
        "mocha"
    }

    fn feed(&mut self, line: &str, number: u64) {
        let trimmed = line.trim();
        if count_then(trimmed, "failing") && trimmed.ends_with("failing") {
            self.found.summarise(line, number);
            self.failing_seen = true;
            return;
        }
        if count_then(trimmed, "passing (") {
            if !self.failing_seen {
                self.found.summarise(line, number);
            }
            return;
        }
        if !self.failing_seen {
            return;
        }
        if let Some((n, rest)) = trimmed.split_once(") ")
            && n.parse::<u64>().is_ok()
            && line.starts_with("  ")
        {
            self.title = Some(vec![rest.to_owned()]);
            self.current = None;
            return;
        }
        if let Some(mut parts) = self.title.take() {
            match trimmed.strip_suffix(':') {
                Some(last) => {
                    parts.push(last.to_owned());
                    self.current = self.found.failures.push(Failure::new(parts.join(" ")));
                }
                None if !trimmed.is_empty() => {
                    parts.push(trimmed.to_owned());
                    self.title = Some(parts);
                }
                None => self.title = Some(parts),
            }
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
