//! Any tool that prints `N passed, N failed` alone on a line (`, N skipped`
//! may follow, and one word with a colon may stand before it).

use std::sync::LazyLock;

use regex::Regex;

use crate::verdict::recognizer::{Counts, Found, Recognizer, count};

static AGGREGATE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Za-z]+:\s*)?\d+ passed, \d+ failed(?:, \d+ skipped)?$").ok()
});

/// Found with SIMD: this test runs on every line of every log.
static PASSED: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new(" passed, "));

#[derive(Debug, Default)]
pub(super) struct Generic {
    found: Found,
}

impl Recognizer for Generic {
    fn runner(&self) -> &'static str {
        "generic"
    }

    fn feed(&mut self, _line: &str, trimmed: &str, number: u64) {
        let line = trimmed;
        if PASSED.find(line.as_bytes()).is_some() && super::matches(&AGGREGATE, line) {
            self.found.summarise(line, number);
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }
    fn counts(&self) -> Option<Counts> {
        let text = &self.found.summary.as_ref()?.text;
        let n = |word: &str| count(text, &[word]).unwrap_or(0);
        Some(Counts::tests(
            n("failed"),
            n("passed").saturating_add(n("failed")),
            n("skipped"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_line() {
        let mut g = Generic::default();
        g.feed(
            "tests: 3 passed, 1 failed, 2 skipped",
            "tests: 3 passed, 1 failed, 2 skipped",
            1,
        );
        assert_eq!(
            g.summary().unwrap().text,
            "tests: 3 passed, 1 failed, 2 skipped"
        );
        let mut g = Generic::default();
        g.feed(
            "3 passed, 1 failed and more",
            "3 passed, 1 failed and more",
            1,
        );
        g.feed(
            "two words: 3 passed, 1 failed",
            "two words: 3 passed, 1 failed",
            2,
        );
        assert!(g.summary().is_none());
    }
}
