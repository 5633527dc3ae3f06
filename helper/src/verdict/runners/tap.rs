//! TAP, as Perl's Test::More prints it and `prove` runs it.
//!
//! ```text
//! not ok 1 - total sums prices                  raw TAP (prove -v)
//! #   Failed test 'total sums prices'            the diagnostics, on stderr
//! #   at t/cart.t line 4.
//! #          got: '270'
//! #     expected: '280'
//! t/broken.t (Wstat: 65280 (exited 255) Tests: 0 Failed: 0)
//!   Parse errors: Bad plan.  You planned 1 tests but ran 0.
//! Result: FAIL
//! ```
//!
//! A failure is a `not ok` line (not one with the `# todo` directive, in any
//! case: a known failure) or, where `prove` hides
//! the TAP, a `Failed test` diagnostic; they name the same test once. Its
//! message is the first diagnostic after the `at file line N.` line, which
//! is the frame. A subtest's parent fails because a child did: a `not ok` or
//! `Failed test` less indented than a failure just seen is that parent and
//! is not listed. A test file that died without a failed test is a failure
//! named by the file in `prove`'s report, with Perl's own error about that
//! file (`syntax error at t/x.t line 3, …`) when one was printed. The summary is `prove`'s
//! `Result:` line (`NOTESTS`: every file skipped, or none planned a
//! test), or Test::More's `# Looks like you failed N tests of M.`
use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Counts, Found, Recognizer, count};

#[derive(Debug, Default)]
pub(super) struct Tap {
    found: Found,
    current: Option<usize>,
    /// The indentations at which failures were seen in the subtests still
    /// open, to tell a parent by: a result less indented than one of them
    /// closes their family.
    failed_at: Vec<usize>,
    /// A parent just passed over: its own diagnostic is passed over too.
    skipped_parent: Option<String>,
    /// Waiting for the `at file line N.` diagnostic.
    want_at: bool,
    /// In `prove`'s `Test Summary Report`, a file that failed no test.
    died_file: Option<usize>,
    in_report: bool,
    /// Perl's own errors (`syntax error at t/x.t line 3, near …`), by file.
    perl_errors: Vec<(String, String)>,
    /// `Tests=N` of prove's `Files=2, Tests=10, …` line.
    tests: Option<u64>,
}

/// How deep subtests are followed.
const MAX_DEPTH: usize = 16;

/// How many test files' Perl errors are remembered for the report.
const MAX_PERL_ERRORS: usize = 16;

/// `syntax error at t/broken.t line 3, near "= ;"` → `t/broken.t`.
fn perl_error_file(line: &str) -> Option<&str> {
    // Perl ends them with `line N.` or `near "…"`: a cheap test first.
    if !(line.ends_with('.') || line.ends_with('"')) {
        return None;
    }
    let (_, rest) = line.rsplit_once(" at ")?;
    let (file, after) = rest.split_once(" line ")?;
    let digits = after.trim_start_matches(|c: char| c.is_ascii_digit());
    (!file.contains(' ') && digits.len() < after.len()).then_some(file)
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

impl Tap {
    fn failure(&mut self, name: &str, at: usize) {
        let parent = self.failed_at.iter().any(|seen| *seen > at);
        self.failed_at.retain(|seen| *seen <= at);
        if self.failed_at.len() < MAX_DEPTH && !self.failed_at.contains(&at) {
            self.failed_at.push(at);
        }
        if parent {
            self.skipped_parent = Some(name.to_owned());
            self.current = None;
            return;
        }
        if self.skipped_parent.as_deref() == Some(name) {
            self.current = None;
            return;
        }
        self.skipped_parent = None;
        self.current = self.found.failures.push(Failure::new(name));
        self.want_at = true;
    }
}

impl Recognizer for Tap {
    fn runner(&self) -> &'static str {
        "tap"
    }

    fn feed(&mut self, line: &str, trimmed: &str, number: u64) {
        if let Some(result) = trimmed.strip_prefix("Result: ") {
            if result == "FAIL" || result == "PASS" || result == "NOTESTS" {
                self.found.summarise(trimmed, number);
            }
            self.in_report = false;
            return;
        }
        if let Some(rest) = trimmed.strip_prefix("Files=")
            && let Some((_, tests)) = rest.split_once(", Tests=")
        {
            self.tests = tests.split(',').next().and_then(|n| n.parse().ok());
            return;
        }
        if trimmed.starts_with("# Looks like you failed ") && indent(line) == 0 {
            self.found.summarise(trimmed, number);
            return;
        }
        if trimmed == "Test Summary Report" {
            self.in_report = true;
            self.current = None;
            return;
        }
        if self.in_report {
            // `t/broken.t (Wstat: 65280 (exited 255) Tests: 0 Failed: 0)`
            if !line.starts_with(' ') {
                self.died_file = None;
                if let Some((file, rest)) = trimmed.split_once(" (Wstat: ")
                    && rest.ends_with(" Failed: 0)")
                {
                    let file = file.trim();
                    let mut failure = Failure::new(file);
                    if let Some((_, error)) = self.perl_errors.iter().find(|(f, _)| f == file) {
                        failure = failure.with_message(error);
                    }
                    self.died_file = self.found.failures.push(failure);
                }
            } else if let Some(f) = self.died_file.and_then(|i| self.found.failures.get_mut(i)) {
                f.offer_message(trimmed);
            }
            return;
        }
        if let Some(rest) = trimmed.strip_prefix("not ok") {
            let todo = rest.split_once(" # ").is_some_and(|(_, directive)| {
                directive
                    .get(..4)
                    .is_some_and(|w| w.eq_ignore_ascii_case("todo"))
            });
            if todo {
                return;
            }
            let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
            let name = rest.strip_prefix("- ").unwrap_or(rest);
            let name = name.split(" # ").next().unwrap_or(name).trim();
            let name = if name.is_empty() { trimmed } else { name };
            self.failure(name, indent(line));
            return;
        }
        if trimmed.starts_with("ok ") {
            // A passing result closes the family of the subtests under it.
            let at = indent(line);
            self.failed_at.retain(|seen| *seen <= at);
            self.skipped_parent = None;
            self.current = None;
            return;
        }
        let Some(diag) = trimmed.strip_prefix('#') else {
            if !line.starts_with(' ')
                && self.perl_errors.len() < MAX_PERL_ERRORS
                && let Some(file) = perl_error_file(trimmed)
                && !self.perl_errors.iter().any(|(f, _)| f == file)
            {
                self.perl_errors.push((file.to_owned(), trimmed.to_owned()));
            }
            return;
        };
        let diag = diag.trim();
        if let Some(quoted) = diag.strip_prefix("Failed test '") {
            let name = quoted.strip_suffix('\'').unwrap_or(quoted);
            if self
                .current
                .and_then(|i| self.found.failures.items().get(i))
                .is_none_or(|f| f.name != name)
            {
                self.failure(name, indent(line));
            }
            return;
        }
        let Some(failure) = self.current.and_then(|i| self.found.failures.get_mut(i)) else {
            return;
        };
        if self.want_at && diag.starts_with("at ") && diag.contains(" line ") {
            failure.offer_frame(diag);
            self.want_at = false;
        } else if !self.want_at && !diag.starts_with("Looks like ") && !diag.is_empty() {
            failure.offer_message(diag);
            self.current = None;
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }

    /// prove's `Result:` with its `Tests=N`, or `failed N tests of M`.
    fn counts(&self) -> Option<Counts> {
        let text = &self.found.summary.as_ref()?.text;
        let listed = (self.found.failures.total() as u64).max(1);
        Some(match text.strip_prefix("Result: ") {
            Some("NOTESTS") => Counts::tests(0, 0, 0),
            Some("PASS") => Counts::tests(0, self.tests.unwrap_or(1), 0),
            Some(_) => Counts::tests(listed, self.tests.unwrap_or(listed), 0),
            // `# Looks like you failed 2 tests of 5.`
            None => {
                let of = text
                    .rsplit_once(" of ")
                    .and_then(|(_, m)| m.trim_end_matches('.').parse().ok());
                let failed = count(text, &["tests", "test"]).unwrap_or(listed);
                Counts::tests(failed, of.unwrap_or(failed), 0)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(tap: &str) -> Vec<String> {
        let mut r = Tap::default();
        for (n, line) in tap.lines().enumerate() {
            r.feed(line, line.trim_start(), n as u64 + 1);
        }
        r.found
            .failures
            .items()
            .iter()
            .map(|f| f.name.clone())
            .collect()
    }

    #[test]
    fn a_parent_is_passed_over_even_after_a_passing_sibling() {
        let tap = "    not ok 1 - child\n    ok 2 - sibling\nnot ok 1 - parent\n#   Failed test 'parent'\nnot ok 2 - flat\nok 3 - fine # todo not yet\nnot ok 4 - later # Todo not yet\n";
        assert_eq!(names(tap), vec!["child", "flat"]);
    }
}
