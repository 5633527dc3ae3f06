//! `cargo test` (libtest's output) and `cargo build`-style compile errors.
//!
//! ```text
//! test tests::b ... FAILED
//! ---- tests::b stdout ----
//! thread 'tests::b' panicked at src/lib.rs:10:5:
//! assertion `left == right` failed
//!   left: 170
//!  right: 270
//! test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; ...
//! ```
//!
//! An assertion's `left:` and `right:` lines are kept as its values.
//!
//! With `--nocapture` there are no `---- name stdout ----` sections: a
//! panic is the test's by its thread's name, kept until the test's own
//! `... FAILED` line (a `should panic ... ok` one drops it).
//!
//! Each test binary prints its own `test result:` line; a FAILED one is kept
//! over later `ok` ones (with `--no-fail-fast` later binaries still run).
//! On a green run a line that ran no test (the Doc-tests of a library with
//! none: `0 passed`) describes nothing and is passed over; when several
//! binaries ran tests, their counts are added up into one line of the same
//! form, `test result: ok. 8 passed; 0 failed; 0 ignored; 0 measured; 0
//! filtered out (3 test binaries)`.

use std::sync::LazyLock;

use regex::Regex;

use crate::verdict::failure::{Failure, FailureList};
use crate::verdict::recognizer::{Counts, Found, Recognizer};

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
    /// Whether the output being read belongs to a known failure.
    pub(super) fn is_reading(&self) -> bool {
        self.current.is_some()
    }

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
        // `assert_eq!`'s values, under its message: `  left: 170`,
        // ` right: 270`.
        let value = line.trim_start();
        if (value.starts_with("left: ") || value.starts_with("right: "))
            && failure.message.starts_with("assertion")
        {
            failure.add_value(value);
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
    /// The counts of every `test result:` line, added up.
    totals: Totals,
    /// Panics printed outside any `---- name stdout ----` section (the
    /// output is not captured: `--nocapture`), by thread name, until the
    /// test's own `... FAILED` or `... ok` line says what they were.
    loose: Vec<Failure>,
    /// The loose panic waiting for its message line.
    loose_want: Option<usize>,
    /// cargo said `could not compile`: the tests did not build.
    compile_failed: bool,
}

/// How many loose panics are remembered: tests running at once.
const MAX_LOOSE: usize = 32;

/// `passed`, `failed`, `ignored`, `measured` and `filtered out` counts, and
/// how many binaries ran at least one test.
#[derive(Debug, Default, Clone, Copy)]
struct Totals {
    counts: [u64; 5],
    binaries: u64,
    last_line: u64,
    /// `test result:` lines seen.
    lines: u64,
}

const COUNTED: [&str; 5] = ["passed", "failed", "ignored", "measured", "filtered out"];

impl Totals {
    /// Adds `2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out;
    /// finished in 0.00s`.
    fn add(&mut self, counts: &str, number: u64) {
        self.lines += 1;
        let mut ran = 0;
        for part in counts.split(';') {
            let part = part.trim();
            let Some((n, kind)) = part.split_once(' ') else {
                continue;
            };
            let (Ok(n), Some(at)) = (n.parse::<u64>(), COUNTED.iter().position(|k| *k == kind))
            else {
                continue;
            };
            if let Some(slot) = self.counts.get_mut(at) {
                *slot += n;
            }
            if at < 3 {
                ran += n;
            }
        }
        if ran > 0 {
            self.binaries += 1;
            self.last_line = number;
        }
    }

    fn render(&self) -> String {
        let parts: Vec<String> = COUNTED
            .iter()
            .zip(self.counts)
            .map(|(kind, n)| format!("{n} {kind}"))
            .collect();
        format!(
            "test result: ok. {} ({} test binaries)",
            parts.join("; "),
            self.binaries
        )
    }
}

impl CargoTest {
    /// Reads a panic outside any captured section; true if `line` was one
    /// (or its message).
    fn loose_panic(&mut self, line: &str) -> bool {
        if let Some(at) = self.loose_want {
            if line.trim().is_empty() {
                return false;
            }
            if let Some(f) = self.loose.get_mut(at) {
                f.offer_message(line);
            }
            self.loose_want = None;
            return true;
        }
        if !line.starts_with("thread '") {
            return false;
        }
        let Some(caps) = super::captures(&PANIC, line) else {
            return false;
        };
        let thread = super::group(&caps, 1);
        let mut failure = Failure::new(thread).with_message(super::group(&caps, 2));
        failure.offer_frame(super::group(&caps, 3));
        self.loose.retain(|f| f.name != thread);
        if self.loose.len() >= MAX_LOOSE {
            self.loose.remove(0);
        }
        self.loose_want = failure.message.is_empty().then_some(self.loose.len());
        self.loose.push(failure);
        true
    }
}

impl Recognizer for CargoTest {
    fn runner(&self) -> &'static str {
        "cargo test"
    }

    fn feed(&mut self, line: &str, _trimmed: &str, number: u64) {
        if let Some(rest) = line.strip_prefix("test result: ") {
            let failed = rest.starts_with("FAILED");
            let before = self.totals.binaries;
            self.totals
                .add(rest.split_once(". ").map_or(rest, |(_, r)| r), number);
            let ran_tests = self.totals.binaries > before;
            // A green line that ran nothing (Doc-tests of a library without
            // any) replaces only another that ran nothing.
            let keep = failed || (!self.summary_failed && (ran_tests || self.totals.binaries == 0));
            if keep {
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
            let failure = match self.loose.iter().position(|f| f.name == name) {
                Some(at) => self.loose.swap_remove(at),
                None => Failure::new(name),
            };
            self.loose_want = None;
            self.found.failures.push(failure);
            return;
        }
        if let Some(name) = line
            .strip_prefix("test ")
            .and_then(|l| l.strip_suffix(" ... ok"))
        {
            // A `#[should_panic]` test panicked as it should.
            let name = name.strip_suffix(" - should panic").unwrap_or(name);
            self.loose.retain(|f| f.name != name);
            self.loose_want = None;
            return;
        }
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"))
        {
            let index = self.found.failures.push(Failure::new(name));
            self.panics.enter(index);
            return;
        }
        if line == "failures:" {
            self.panics.enter(None);
            return;
        }
        // After the lines above: a loose panic's message is never one of them.
        if !self.panics.is_reading() && self.loose_panic(line) {
            return;
        }
        let failures = &mut self.found.failures;
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
                self.compile_failed = true;
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

    fn finish(&mut self) {
        self.loose.clear();
        if !self.summary_failed && self.totals.binaries > 1 {
            let text = self.totals.render();
            self.found.summarise(&text, self.totals.last_line);
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }

    /// Every binary's counts added up (a filter that matched nothing in
    /// any of them ran no test); tests that did not build count as failed.
    fn counts(&self) -> Option<Counts> {
        let [passed, failed, ignored, measured, filtered] = self.totals.counts;
        if self.totals.lines > 0 {
            return Some(Counts::tests(
                failed.saturating_add(u64::from(self.compile_failed)),
                passed.saturating_add(failed).saturating_add(measured),
                ignored.saturating_add(filtered),
            ));
        }
        // Nothing ran: the failures are the compiler's errors.
        self.compile_failed
            .then(|| Counts::errors((self.found.failures.total() as u64).max(1)))
    }
}
