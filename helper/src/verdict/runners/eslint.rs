//! ESLint (stylish formatter).
//!
//! ```text
//! /work/project/src/cart.js
//!   18:9   error  'label' is assigned a value but never used  no-unused-vars
//! ✖ 5 problems (4 errors, 1 warning)
//! ```
//!
//! Warnings are not failures.

use std::sync::LazyLock;

use regex::Regex;

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Found, Recognizer};

static PROBLEM: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<sev>error|warning)\s+(?P<msg>.+?)(?:\s{2,}(?P<rule>\S+))?$").ok()
});

#[derive(Debug, Default)]
pub(super) struct Eslint {
    found: Found,
    file: Option<String>,
}

impl Recognizer for Eslint {
    fn runner(&self) -> &'static str {
        "eslint"
    }

    fn feed(&mut self, line: &str, number: u64) {
        if line.starts_with("✖ ") && line.contains(" problem") {
            self.found.summarise(line, number);
            self.file = None;
            return;
        }
        if line.is_empty() {
            self.file = None;
            return;
        }
        if !line.starts_with(char::is_whitespace) {
            self.file = Some(line.to_owned());
            return;
        }
        let Some(file) = &self.file else {
            return;
        };
        if let Some(caps) = super::captures(&PROBLEM, line)
            && super::group(&caps, 3) == "error"
        {
            let name = format!(
                "{file}:{}:{}",
                super::group(&caps, 1),
                super::group(&caps, 2)
            );
            self.found
                .failures
                .push(Failure::new(name).with_message(super::group(&caps, 4)));
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }
}
