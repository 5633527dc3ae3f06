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
//! The short summary (`FAILED id - message`, `ERROR id`, `SUBFAILED[msg]
//! (params) id - message`) names failures with their node ids; only lines
//! under its header count (`ERROR` also starts `Captured log` lines, and
//! `-rA` lists `PASSED` ones there). The message is the first `E ` line of
//! the failure's section, not the summary's copy, which pytest cuts to the
//! terminal's width; when that line is not an exception's own line (a
//! collection error's `File "…", line 1`), the first one that is wins. The
//! frame is the section's first location (pytest prints the outermost frame
//! first, which is the test's own line), or a later one when that is in the
//! installed packages. An `assert` with a message of its own prints that
//! first (`E   AssertionError: total is wrong`): the `E   assert 10 == 20`
//! line under it is kept as the assertion's values. A test that failed only through its subtests
//! (`contains N failed subtests`) is not listed beside them.

use std::sync::LazyLock;

use regex::Regex;

use crate::verdict::failure::{Failure, FailureList, looks_like_error};
use crate::verdict::recognizer::{Counts, Found, Recognizer, count};

static AGGREGATE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^=+ .*\b(?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|no tests ran)\b.* in [\d.]+s(?: \([^)]*\))? =+$").ok()
});
/// `-q` prints the same line without the `=` rule around it.
static QUIET_AGGREGATE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?|subtests passed|subtests failed)(?:, \d+ [a-z ]+)* in [\d.]+s(?: \([^)]*\))?$").ok()
});
static SECTION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^_{3,} (?P<name>.+?) _{3,}$").ok());
static LOCATION: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^\S+\.py:\d+:").ok());
/// `E     File "/p/tests/test_x.py", line 1`: where a syntax error is.
static FILE_LINE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"^\s*File "[^"]+", line \d+"#).ok());

/// Node ids whose subtests failed, remembered to drop their parents.
const MAX_SUBFAILED: usize = 64;

#[derive(Debug, Default)]
pub(super) struct Pytest {
    found: Found,
    /// Failures as their sections name them (`test_x`, `TestC.test_x`).
    sections: FailureList,
    current_section: Option<usize>,
    /// Collection errors etc. have sections too; only FAILURES and ERRORS
    /// sections hold failures.
    in_failures: bool,
    /// Under the `short test summary info` header.
    in_short_summary: bool,
    /// The current section's message is not yet an exception's own line.
    message_upgradable: bool,
    /// Node ids with a `SUBFAILED` line.
    subfailed: Vec<String>,
}

impl Pytest {
    /// A line of the short test summary.
    fn summary_line(&mut self, line: &str) {
        let (rest, sub) = if let Some(rest) = line.strip_prefix("SUBFAILED") {
            // `SUBFAILED[msg] (i=1) tests/x.py::test - message`: the
            // subtest's label stands before the node id.
            let Some((id_at, _)) = rest.match_indices(" ").find(|(at, _)| {
                rest.get(at + 1..)
                    .is_some_and(|r| r.split(' ').next().is_some_and(|w| w.contains("::")))
            }) else {
                return;
            };
            let label = rest.get(..id_at).unwrap_or_default().trim();
            (rest.get(id_at + 1..).unwrap_or_default(), Some(label))
        } else if let Some(rest) = line
            .strip_prefix("FAILED ")
            .or_else(|| line.strip_prefix("ERROR "))
        {
            (rest, None)
        } else {
            return;
        };
        let (id, message) = rest.split_once(" - ").unwrap_or((rest, ""));
        let id = id.trim();
        if sub.is_none()
            && message.starts_with("contains ")
            && message.ends_with(" failed subtests")
            && self.subfailed.iter().any(|s| s == id)
        {
            return;
        }
        let (name, section_name) = match sub {
            Some(label) => {
                if self.subfailed.len() < MAX_SUBFAILED && !self.subfailed.iter().any(|s| s == id) {
                    self.subfailed.push(id.to_owned());
                }
                (
                    format!("{id} {label}"),
                    format!("{} {label}", Self::section_name(id)),
                )
            }
            None => (id.to_owned(), Self::section_name(id)),
        };
        let mut failure = Failure::new(name);
        // A collection error's section is `ERROR collecting <path>`, a
        // fixture's `ERROR at setup of <test>` (or `teardown`).
        let candidates = [
            section_name.clone(),
            format!("ERROR collecting {id}"),
            format!("ERROR at setup of {section_name}"),
            format!("ERROR at teardown of {section_name}"),
        ];
        let at = candidates
            .iter()
            .find_map(|name| self.sections.items().iter().position(|s| &s.name == name));
        let section = at.and_then(|i| self.sections.get_mut(i));
        if let Some(section) = section {
            failure.offer_message(&section.message);
            if let Some(frame) = &section.frame {
                failure = failure.with_frame(frame);
            }
            for value in &section.values {
                failure.add_value(value);
            }
        }
        failure.offer_message(message);
        self.found.failures.push(failure);
    }

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

    fn feed(&mut self, line: &str, _trimmed: &str, number: u64) {
        if line.starts_with('=') {
            if super::matches(&AGGREGATE, line) {
                self.found.summarise(line, number);
            }
            self.in_failures = line.contains(" FAILURES ") || line.contains(" ERRORS ");
            self.in_short_summary = line.contains(" short test summary info ");
            self.current_section = None;
            return;
        }
        if line.starts_with(|c: char| c.is_ascii_digit()) && super::matches(&QUIET_AGGREGATE, line)
        {
            self.found.summarise(line, number);
            return;
        }
        if self.in_short_summary {
            self.summary_line(line);
            return;
        }
        if !self.in_failures {
            return;
        }
        if line.starts_with('_')
            && let Some(caps) = super::captures(&SECTION, line)
        {
            self.current_section = self.sections.push(Failure::new(super::group(&caps, 1)));
            self.message_upgradable = false;
            return;
        }
        let Some(section) = self.current_section.and_then(|i| self.sections.get_mut(i)) else {
            return;
        };
        if let Some(message) = line.strip_prefix("E ") {
            let message = message.trim();
            if section.message.is_empty() {
                section.offer_message(message);
                self.message_upgradable = !looks_like_error(message);
            } else if self.message_upgradable && looks_like_error(message) {
                section.set_message(message);
                self.message_upgradable = false;
            } else if message.starts_with("assert ") && !section.message.contains("assert ") {
                // `assert x == y, "why"` prints the why first, then the
                // comparison with its values.
                section.add_value(message);
            }
            if super::matches(&FILE_LINE, message) {
                section.offer_frame(message);
            }
        } else if super::matches(&LOCATION, line) {
            section.offer_frame(line);
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }

    /// `3 failed, 4 passed, 1 skipped, 2 deselected, 1 xfailed, 2 errors`,
    /// or `no tests ran`: errors (collection, fixtures) count as failed.
    fn counts(&self) -> Option<Counts> {
        let text = &self.found.summary.as_ref()?.text;
        let n = |words: &[&str]| count(text, words).unwrap_or(0);
        let failed = n(&["failed", "error", "errors"]);
        Some(Counts::tests(
            failed,
            n(&["passed", "xfailed", "xpassed"]).saturating_add(n(&["failed"])),
            n(&["skipped", "deselected"]),
        ))
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
