//! pytest.
//!
//! ```text
//! ____________ test_total ____________          a failure's section
//! E       assert 270 == 280
//! tests/test_cart.py:12: AssertionError          its location line
//! FAILED tests/test_cart.py::test_total - assert 270 == 280
//! ===== 3 failed, 4 passed in 0.05s =====
//! ```
//!
//! The short summary (`FAILED id - message`) names failures with their node
//! ids; the sections before it give each one's first location (pytest prints
//! the outermost frame first, which is the test's own line).

use std::sync::LazyLock;

use regex::Regex;

use crate::verdict::failure::{Failure, FailureList};
use crate::verdict::recognizer::{Found, Recognizer};

static AGGREGATE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^=+ .*\b(?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|no tests ran)\b.* in [\d.]+s(?: \([^)]*\))? =+$").ok()
});
static SECTION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^_{3,} (?P<name>.+?) _{3,}$").ok());
static LOCATION: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^\S+\.py:\d+:").ok());

#[derive(Debug, Default)]
pub(super) struct Pytest {
    found: Found,
    /// Failures as their sections name them (`test_x`, `TestC.test_x`).
    sections: FailureList,
    current_section: Option<usize>,
    /// Collection errors etc. have sections too; only FAILURES and ERRORS
    /// sections hold failures.
    in_failures: bool,
}

impl Pytest {
    /// The section name pytest prints for a node id.
    fn section_name(node_id: &str) -> String {
        match node_id.split_once("::") {
            Some((_, rest)) => rest.replace("::", "."),
            None => node_id.to_owned(),
        }
    }
}

impl Recognizer for Pytest {
    fn runner(&self) -> &'static str {
        "pytest"
    }

    fn feed(&mut self, line: &str, number: u64) {
        if line.starts_with('=') {
            if super::matches(&AGGREGATE, line) {
                self.found.summarise(line, number);
            }
            self.in_failures = line.contains(" FAILURES ") || line.contains(" ERRORS ");
            self.current_section = None;
            return;
        }
        if let Some(rest) = line
            .strip_prefix("FAILED ")
            .or_else(|| line.strip_prefix("ERROR "))
        {
            let (id, message) = rest.split_once(" - ").unwrap_or((rest, ""));
            let mut failure = Failure::new(id).with_message(message);
            if let Some(section) = self.sections.find_mut(&Self::section_name(id.trim())) {
                if let Some(frame) = &section.frame {
                    failure = failure.with_frame(frame);
                }
                failure.offer_message(&section.message);
            }
            self.found.failures.push(failure);
            return;
        }
        if !self.in_failures {
            return;
        }
        if line.starts_with('_')
            && let Some(caps) = super::captures(&SECTION, line)
        {
            self.current_section = self.sections.push(Failure::new(super::group(&caps, 1)));
            return;
        }
        let Some(section) = self.current_section.and_then(|i| self.sections.get_mut(i)) else {
            return;
        };
        if let Some(message) = line.strip_prefix("E ") {
            section.offer_message(message);
        } else if super::matches(&LOCATION, line) {
            section.offer_frame(line);
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }

    fn failures(&self) -> &FailureList {
        // Run with `-rN` there is no short summary: use the sections.
        if self.found.failures.is_empty() {
            &self.sections
        } else {
            &self.found.failures
        }
    }
}
