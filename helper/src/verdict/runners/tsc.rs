//! The TypeScript compiler, `tsc`.
//!
//! ```text
//! src/cart.ts(11,11): error TS2322: Type 'string' is not …      plain
//! src/cart.ts:11:11 - error TS2322: Type 'string' is not …       --pretty
//! Found 3 errors in 2 files.                                     --pretty only
//! ```

use std::sync::LazyLock;

use regex::Regex;

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Counts, Found, Recognizer, count};

static PLAIN: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(?P<loc>\S.*?\(\d+,\d+\)): (?P<msg>error TS\d+: .*)$").ok());
static PRETTY: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(?P<loc>\S.*?:\d+:\d+) - (?P<msg>error TS\d+: .*)$").ok());

/// Found with SIMD: this test runs on every line of every log.
static ERROR_TS: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new("error TS"));

#[derive(Debug, Default)]
pub(super) struct Tsc {
    found: Found,
}

impl Recognizer for Tsc {
    fn runner(&self) -> &'static str {
        "tsc"
    }

    fn feed(&mut self, line: &str, _trimmed: &str, number: u64) {
        if line.starts_with("Found ") && line.contains(" error") {
            self.found.summarise(line, number);
            return;
        }
        if ERROR_TS.find(line.as_bytes()).is_none() {
            return;
        }
        if let Some(caps) = super::captures(&PLAIN, line).or_else(|| super::captures(&PRETTY, line))
        {
            let failure = Failure::new(super::group(&caps, 1)).with_message(super::group(&caps, 2));
            // One position can hold two errors (TS2322 and TS6133 on one
            // name): both are listed.
            self.found.failures.push_distinct(failure);
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }
    /// `Found 3 errors in 2 files.`, or without `--pretty` the errors
    /// listed.
    fn counts(&self) -> Option<Counts> {
        let listed = self.found.failures.total() as u64;
        let counted = self
            .found
            .summary
            .as_ref()
            .and_then(|s| count(&s.text, &["error", "errors"]));
        match counted.unwrap_or(listed) {
            0 => None,
            errors => Some(Counts::errors(errors)),
        }
    }
}
