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
//! joined with spaces (mocha's full title). Frames in `node_modules` and
//! node's own code are passed over.
//!
//! A file that fails to load stops the run before any test:
//!
//! ```text
//!  Exception during run: /work/project/test/broken.test.js:2
//! SyntaxError: Unexpected token ';'
//!  Exception during run: Error: Cannot find module './no-such-module'
//!     at Object.<anonymous> (/work/project/test/imports.test.js:1:17)
//! ```
//!
//! That is one failure named by where it happened (the header's location,
//! or the first frame in the project), with the error line as message; its
//! `Exception during run:` line is the summary. With no test file at all,
//! the summary is `Error: No test files found: "test"`.

use crate::verdict::failure::{Failure, is_third_party, looks_like_error};
use crate::verdict::recognizer::{Counts, Found, Recognizer};

/// What mocha prints when no file matched its spec (it exits 1).
const NO_FILES: &str = "Error: No test files found";

#[derive(Debug, Default)]
pub(super) struct Mocha {
    found: Found,
    failing_seen: bool,
    /// Title lines of a failure still being read.
    title: Option<Vec<String>>,
    current: Option<usize>,
    /// An `Exception during run:` being read.
    exception: Option<Exception>,
    /// The `N passing`, `N failing` and `N pending` counts.
    tally: [u64; 3],
}

#[derive(Debug, Default)]
struct Exception {
    /// The header's `file:line`, if it gave one.
    location: Option<String>,
    message: Option<String>,
    frame: Option<String>,
}

impl Exception {
    fn into_failure(self) -> Failure {
        let at = self.frame.as_deref().map(frame_location);
        let name = self
            .location
            .as_deref()
            .or(at)
            .unwrap_or("Exception during run");
        let mut failure = Failure::new(name).with_message(self.message.as_deref().unwrap_or(""));
        if let Some(frame) = self.frame.as_deref().or(self.location.as_deref()) {
            failure.offer_frame(frame);
        }
        failure
    }
}

/// `at Object.<anonymous> (/p/test/x.test.js:1:17)` → `/p/test/x.test.js:1:17`.
fn frame_location(frame: &str) -> &str {
    frame
        .rsplit_once(" (")
        .and_then(|(_, loc)| loc.strip_suffix(')'))
        .unwrap_or_else(|| frame.strip_prefix("at ").unwrap_or(frame))
}

fn count_then(trimmed: &str, word: &str) -> bool {
    trimmed.starts_with(|c: char| c.is_ascii_digit())
        && trimmed
            .split_once(' ')
            .is_some_and(|(n, rest)| n.parse::<u64>().is_ok() && rest.starts_with(word))
}

impl Recognizer for Mocha {
    fn runner(&self) -> &'static str {
        "mocha"
    }

    fn feed(&mut self, line: &str, trimmed: &str, number: u64) {
        if let Some(what) = trimmed.strip_prefix("Exception during run: ") {
            self.finish();
            let mut exception = Exception::default();
            if looks_like_error(what) {
                exception.message = Some(what.to_owned());
            } else {
                exception.location = Some(what.to_owned());
            }
            self.exception = Some(exception);
            if self.found.summary.is_none() {
                self.found.summarise(line, number);
            }
            return;
        }
        if let Some(exception) = self.exception.as_mut() {
            if exception.message.is_none() && looks_like_error(trimmed) {
                exception.message = Some(trimmed.to_owned());
            } else if trimmed.starts_with("at ") && !is_third_party(trimmed) {
                exception.frame = Some(trimmed.to_owned());
                self.finish();
            }
            return;
        }
        if trimmed.starts_with(NO_FILES) {
            self.found.summarise(line, number);
            return;
        }
        for (at, word) in ["passing", "failing", "pending"].into_iter().enumerate() {
            if count_then(trimmed, word)
                && let (Some(n), Some(slot)) = (
                    trimmed.split(' ').next().and_then(|n| n.parse().ok()),
                    self.tally.get_mut(at),
                )
            {
                *slot = n;
            }
        }
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
            self.current = None;
            // A test outside any `describe` has its title on one line.
            match rest.strip_suffix(':') {
                Some(title) => {
                    self.title = None;
                    self.current = self.found.failures.push(Failure::new(title));
                }
                None => self.title = Some(vec![rest.to_owned()]),
            }
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
        if let Some(failure) = self.current.and_then(|i| self.found.failures.get_mut(i))
            && failure.offer_comparison(trimmed)
        {
            return;
        }
        self.found
            .failures
            .read_body(&mut self.current, trimmed, "at ");
    }

    fn finish(&mut self) {
        if let Some(exception) = self.exception.take() {
            self.found.failures.push(exception.into_failure());
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }

    /// `N passing`, `N failing`, `N pending`; a file that did not load
    /// (`Exception during run:`) failed, and no file at all ran nothing.
    fn counts(&self) -> Option<Counts> {
        let text = &self.found.summary.as_ref()?.text;
        let [passing, failing, pending] = self.tally;
        let failed = if text.starts_with("Exception during run") {
            (self.found.failures.total() as u64).max(1)
        } else {
            failing
        };
        Some(Counts::tests(
            failed,
            passing.saturating_add(failing),
            pending,
        ))
    }
}
