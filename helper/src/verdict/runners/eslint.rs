//! ESLint (stylish formatter).
//!
//! ```text
//! /work/project/src/cart.js
//!   18:9   error  'label' is assigned a value but never used  no-unused-vars
//! ✖ 5 problems (4 errors, 1 warning)
//! ```
//!
//! Warnings are not failures. Two rules reporting one position are two
//! failures.

use std::sync::LazyLock;

use regex::Regex;

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Counts, Found, Recognizer, count};

static PROBLEM: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<sev>error|warning)\s+(?P<msg>.+?)(?:\s{2,}(?P<rule>\S+))?$").ok()
});

#[derive(Debug, Default)]
pub(super) struct Eslint {
    found: Found,
    /// The file heading the problems below it; empty when none does. Reused
    /// rather than reallocated: every unindented line of any log sets it.
    file: String,
}

impl Recognizer for Eslint {
    fn runner(&self) -> &'static str {
        "eslint"
    }

    fn feed(&mut self, line: &str, _trimmed: &str, number: u64) {
        if line.starts_with("✖ ") && line.contains(" problem") {
            self.found.summarise(line, number);
            self.file.clear();
            return;
        }
        if !line.starts_with(char::is_whitespace) {
            self.file.clear();
            self.file.push_str(line);
            return;
        }
        if self.file.is_empty() {
            return;
        }
        let file = &self.file;
        let looks_like_problem = line.trim_start().starts_with(|c: char| c.is_ascii_digit())
            && (line.contains("error") || line.contains("warning"));
        if !looks_like_problem {
            return;
        }
        if let Some(caps) = super::captures(&PROBLEM, line)
            && super::group(&caps, 3) == "error"
        {
            let name = format!(
                "{file}:{}:{}",
                super::group(&caps, 1),
                super::group(&caps, 2)
            );
            // Two rules can report one position: both are listed.
            self.found
                .failures
                .push_distinct(Failure::new(name).with_message(super::group(&caps, 4)));
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }
    /// `✖ 5 problems (3 errors, 2 warnings)`: warnings are no failures.
    fn counts(&self) -> Option<Counts> {
        let text = &self.found.summary.as_ref()?.text;
        Some(Counts::errors(
            count(text, &["error", "errors"]).unwrap_or(0),
        ))
    }
}
