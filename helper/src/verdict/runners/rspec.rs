//! RSpec (progress and documentation formatters).
//!
//! ```text
//!   1) Cart#total sums price times qty
//!      Failure/Error: expect(cart.total).to eq(280)
//!
//!        expected: 280
//!             got: 270
//!      # ./spec/cart_spec.rb:13:in `block (3 levels) in <top (required)>'
//! An error occurred while loading ./spec/broken_spec.rb.
//! 6 examples, 3 failures
//! ```
//!
//! `Failure/Error:` is followed by the source line that failed; the message
//! is the first line after it (an exception's class alone, `ArgumentError:`,
//! is joined with the line below); `got: 270` under `expected: 280` is
//! kept as the assertion's value. Files that fail to load, and errors in
//! hooks outside any example, are failures named by what rspec names. The
//! frame is the first `# ` line in the project, not in rspec's gems.

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Counts, Found, Recognizer, count};

#[derive(Debug, Default)]
pub(super) struct Rspec {
    found: Found,
    in_failures: bool,
    current: Option<usize>,
    /// Past `Failure/Error:`, waiting for the message.
    want_message: bool,
    /// The message read so far ends in `:` and wants the next line.
    message_open: bool,
}

/// `./spec/x_spec.rb:13:in ...`: a path, a colon and a line number.
fn is_location(frame: &str) -> bool {
    let mut parts = frame.split(':');
    parts
        .next()
        .is_some_and(|p| !p.is_empty() && !p.contains(' '))
        && parts
            .next()
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

impl Rspec {
    fn start(&mut self, name: &str) {
        self.current = self.found.failures.push(Failure::new(name));
        self.want_message = false;
        self.message_open = false;
    }

    fn body(&mut self, trimmed: &str) {
        let Some(failure) = self.current.and_then(|i| self.found.failures.get_mut(i)) else {
            return;
        };
        if let Some(frame) = trimmed.strip_prefix("# ") {
            if is_location(frame) {
                failure.offer_frame(trimmed);
            }
            self.want_message = false;
            self.message_open = false;
            if failure.frame.is_some() {
                self.current = None;
            }
            return;
        }
        if trimmed.is_empty() {
            return;
        }
        if trimmed.starts_with("Failure/Error:") {
            self.want_message = true;
            return;
        }
        if trimmed.starts_with("got: ") && failure.message.starts_with("expected") {
            // `eq`'s `expected: 280` is the message; `got: 270` its value.
            failure.add_value(trimmed);
            return;
        }
        if self.message_open {
            let joined = format!("{} {trimmed}", failure.message);
            failure.set_message(&joined);
            self.message_open = false;
        } else if self.want_message {
            failure.set_message(trimmed);
            self.want_message = false;
            self.message_open = trimmed.ends_with(':') && !trimmed.contains(' ');
        } else {
            failure.offer_message(trimmed);
        }
    }
}

impl Recognizer for Rspec {
    fn runner(&self) -> &'static str {
        "rspec"
    }

    fn feed(&mut self, line: &str, trimmed: &str, number: u64) {
        if trimmed.starts_with(|c: char| c.is_ascii_digit())
            && let Some((n, rest)) = trimmed.split_once(' ')
            && n.parse::<u64>().is_ok()
            && (rest.starts_with("examples, ") || rest.starts_with("example, "))
        {
            self.found.summarise(line, number);
            self.in_failures = false;
            self.current = None;
            return;
        }
        if trimmed == "Failures:" {
            self.in_failures = true;
            self.current = None;
            return;
        }
        if let Some(rest) = line.strip_prefix("An error occurred ") {
            // `while loading ./spec/x_spec.rb.` (with ` - Did you mean?` when
            // rspec has a guess), or `in a `before(:suite)` hook.`
            let what = rest.split(" - Did you mean?").next().unwrap_or(rest);
            let what = what.trim_end_matches('.');
            let name = what.strip_prefix("while loading ").unwrap_or(what);
            self.start(name);
            return;
        }
        if trimmed.starts_with("Finished in ") || trimmed == "Failed examples:" {
            self.current = None;
            return;
        }
        if self.in_failures
            && let Some((n, name)) = trimmed.split_once(") ")
            && n.parse::<u64>().is_ok()
            && line.starts_with("  ")
            && !line.starts_with("     ")
        {
            self.start(name);
            return;
        }
        self.body(trimmed);
    }

    fn found(&self) -> &Found {
        &self.found
    }

    /// `6 examples, 3 failures, 1 pending`; errors outside of examples
    /// (a file that did not load) count as failed.
    fn counts(&self) -> Option<Counts> {
        let text = &self.found.summary.as_ref()?.text;
        let n = |words: &[&str]| count(text, words).unwrap_or(0);
        let pending = n(&["pending"]);
        Some(Counts::tests(
            n(&["failure", "failures", "error", "errors"]),
            n(&["example", "examples"]).saturating_sub(pending),
            pending,
        ))
    }
}
