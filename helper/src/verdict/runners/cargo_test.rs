//! `cargo test` (libtest's output) and `cargo build`-style compile errors.
//!
//! ```text
//! test tests::b ... FAILED
//! ---- tests::b stdout ----
//! thread 'tests::b' panicked at src/lib.rs:10:5:
//! assertion `left == right` failed
//! test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; ...
//! ```
//!
//! Each test binary prints its own `test result:` line; a FAILED one is kept
//! over later `ok` ones (with `--no-fail-fast` later binaries still run).

use std::sync::LazyLock;

use regex::Regex;

use crate::verdict::failure::{Failure, FailureList};
use crate::verdict::recognizer::{Found, Recognizer};

/// `thread 'name' panicked at src/lib.rs:10:5:` (Rust 1.73+), or the older
/// `thread 'name' panicked at 'message', src/lib.rs:10:5`.
static PANIC: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^thread '(?P<thread>[^']*)' (?:\(\d+\) )?panicked at (?:'(?P<msg>.*)', )?(?P<loc>[^\s']+?):?$").ok()
});
static COMPILE_ERROR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^error(?:\[E\d+\])?: (?P<msg>.+)$").ok());
static LOCATION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\s*--> (?P<loc>\S+:\d+:\d+)$").ok());

/// Reads Rust panics out of test output and attaches message and location
/// to the failure they belong to. Shared with the nextest recogniser.
#[derive(Debug, Default)]
pub(super) struct PanicReader {
    /// Index of the failure whose output is being read.
    current: Option<usize>,
    /// Waiting for the message line that follows a new-style panic header.
    want_message: bool,
}

impl PanicReader {
    /// The output that follows belongs to failure `index`.
    pub(super) fn enter(&mut self, index: Option<usize>) {
        self.current = index;
        self.want_message = false;
    }

    pub(super) fn feed(&mut self, line: &str, failures: &mut FailureList) {
        let Some(failure) = self.current.and_then(|i| failures.get_mut(i)) else {
            return;
        };
        if self.want_message {
            if !line.trim().is_empty() {
                failure.offer_message(line);
                self.want_message = false;
            }
            return;
        }
        if let Some(error) = line.strip_prefix("Error: ") {
            failure.offer_message(&format!("Error: {error}"));
            return;
        }
        if let Some(caps) = super::captures(&PANIC, line) {
            failure.offer_frame(super::group(&caps, 3));
            let msg = super::group(&caps, 2);
            if msg.is_empty() {
                self.want_message = failure.message.is_empty();
            } else {
                failure.offer_message(msg);
            }
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct CargoTest {
    found: Found,
    panics: PanicReader,
    /// A compile error waiting for its `-->` location.
    pending_error: Option<String>,
    summary_failed: bool,
}

impl Recognizer for CargoTest {
    fn runner(&self) -> &'static str {
        "cargo test"
    }

    fn feed(&mut self, line: &str, number: u64) {
        let failures = &mut self.found.failures;
        if let Some(rest) = line.strip_prefix("test result: ") {
            let failed = rest.starts_with("FAILED");
            if failed || !self.summary_failed {
                self.summary_failed = failed;
                self.found.summarise(line, number);
            }
            self.panics.enter(None);
            return;
        }
        if let Some(name) = line
            .strip_prefix("test ")
            .and_then(|l| l.strip_suffix(" ... FAILED"))
        {
            failures.push(Failure::new(name));
            return;
        }
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"))
        {
            let index = failures.push(Failure::new(name));
            self.panics.enter(index);
            return;
        }
        if line == "failures:" {
            self.panics.enter(None);
            return;
        }
        self.panics.feed(line, failures);

        // Compile errors: `error[E0308]: mismatched types` then `--> file:l:c`.
        if let Some(message) = self.pending_error.take()
            && let Some(caps) = super::captures(&LOCATION, line)
        {
            let loc = super::group(&caps, 1);
            failures.push(Failure::new(loc).with_message(&message));
            return;
        }
        if line.starts_with("error")
            && let Some(caps) = super::captures(&COMPILE_ERROR, line)
        {
            let msg = super::group(&caps, 1);
            if msg.starts_with("could not compile") {
                if self.found.summary.is_none() {
                    self.found.summarise(line, number);
                }
            } else if !msg.starts_with("test failed")
                && !msg.starts_with("aborting")
                && !msg.starts_with("1 target failed")
            {
                self.pending_error = Some(line.to_owned());
            }
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }
}
