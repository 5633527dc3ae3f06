//! C and C++ compiler diagnostics (gcc, clang), typically under `make`.
//!
//! ```text
//! cart.c:2:86: error: expected ‘;’ before ‘}’ token
//! main.c:(.text+0x5): undefined reference to `foo'
//! make: *** [Makefile:4: cart] Error 1
//! ```
//!
//! Each `file:line:col: error:` (or `fatal error:`) line is a failure named
//! by its location; a linker's `undefined reference` is one named by the
//! object and section it was found in. Warnings and notes are not failures.
//! make's `*** [...] Error N` line is the summary only when compiler errors
//! were seen: make running a test suite leaves the suite's own summary.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use crate::verdict::failure::Failure;

/// The two markers every diagnostic line holds one of, found with SIMD:
/// this test runs on every line of every log.
static ERROR: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("error: "));
static UNDEFINED: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("undefined reference"));
use crate::verdict::recognizer::{Counts, Found, Recognizer};

#[derive(Debug, Default)]
pub(super) struct MakeGcc {
    found: Found,
}

/// `file:line:col: error: message` → (`file:line:col`, `message`).
fn diagnostic(line: &str) -> Option<(&str, &str)> {
    let (location, message) = line
        .split_once(": error: ")
        .or_else(|| line.split_once(": fatal error: "))?;
    let mut parts = location.rsplitn(3, ':');
    let col = parts.next()?;
    let row = parts.next()?;
    let file = parts.next()?;
    let numeric = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    (numeric(col) && numeric(row) && !file.is_empty() && !file.contains(' '))
        .then_some((location, message))
}

impl Recognizer for MakeGcc {
    fn runner(&self) -> &'static str {
        "make / cc"
    }

    fn feed(&mut self, line: &str, _trimmed: &str, number: u64) {
        if line.starts_with("make") && line.contains(": *** ") {
            if !self.found.failures.is_empty() {
                self.found.summarise(line, number);
            }
            return;
        }
        let bytes = line.as_bytes();
        if ERROR.find(bytes).is_none() && UNDEFINED.find(bytes).is_none() {
            return;
        }
        if let Some((location, message)) = diagnostic(line) {
            self.found
                .failures
                .push_distinct(Failure::new(location).with_message(message));
        } else if let Some((place, symbol)) = line.split_once(": undefined reference to ") {
            self.found.failures.push_distinct(
                Failure::new(place).with_message(&format!("undefined reference to {symbol}")),
            );
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }
    /// The compiler's errors: a diagnostic is no guess.
    fn counts(&self) -> Option<Counts> {
        match self.found.failures.total() as u64 {
            0 => None,
            errors => Some(Counts::errors(errors)),
        }
    }
}
