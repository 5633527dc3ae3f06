//! Python's `unittest` (`python -m unittest`, with or without `-v`).
//!
//! ```text
//! ======================================================================
//! FAIL: test_total (test_cart.TestCart.test_total)
//! ----------------------------------------------------------------------
//! Traceback (most recent call last):
//!   File "/work/project/test_cart.py", line 8, in test_total
//!     self.assertEqual(total([(100, 1), (90, 2)]), 280)
//! AssertionError: 270 != 280
//! ----------------------------------------------------------------------
//! Ran 5 tests in 0.001s
//!
//! FAILED (failures=2, errors=1)
//! ```
//!
//! `FAIL:` and `ERROR:` (a test that raised, or a module that failed to
//! import) open a failure named as printed, subtest parameters included.
//! The message is the exception's line, the first unindented line after the
//! traceback's last frame; the frame is the first `File` line in the
//! project (Python prints the outermost first: the test's own line). The
//! summary is the `Ran N tests` line with the verdict line after it
//! (`NO TESTS RAN` from Python 3.12 on, `OK` before it).

use crate::verdict::failure::{Failure, is_third_party};
use crate::verdict::recognizer::{Counts, Found, Recognizer};

#[derive(Debug, Default)]
pub(super) struct Unittest {
    found: Found,
    current: Option<usize>,
    /// A `File "…"` frame was the last traceback line read: the next
    /// unindented line is the exception.
    after_frame: bool,
    /// The `Ran N tests in …` line, waiting for `OK` or `FAILED (…)`.
    ran: Option<String>,
}

impl Recognizer for Unittest {
    fn runner(&self) -> &'static str {
        "unittest"
    }

    fn feed(&mut self, line: &str, trimmed: &str, number: u64) {
        if let Some(name) = line
            .strip_prefix("FAIL: ")
            .or_else(|| line.strip_prefix("ERROR: "))
        {
            self.current = self.found.failures.push(Failure::new(name));
            self.after_frame = false;
            return;
        }
        if line.starts_with("Ran ") && line.contains(" test") && line.contains(" in ") {
            self.ran = Some(trimmed.to_owned());
            self.current = None;
            return;
        }
        if let Some(ran) = &self.ran
            && (line == "OK"
                || line.starts_with("OK (")
                || line.starts_with("FAILED (")
                || line == "NO TESTS RAN"
                || line.starts_with("NO TESTS RAN ("))
        {
            let ran = ran.clone();
            self.found.summarise_two(&ran, line, number);
            self.ran = None;
            return;
        }
        let Some(failure) = self.current.and_then(|i| self.found.failures.get_mut(i)) else {
            return;
        };
        if trimmed.is_empty() || line.starts_with("---") || line.starts_with("===") {
            return;
        }
        if let Some(frame) = line.strip_prefix("  File \"") {
            if !is_third_party(frame) {
                failure.offer_frame(trimmed);
            }
            self.after_frame = true;
            return;
        }
        if line.starts_with(' ') {
            return;
        }
        if self.after_frame {
            failure.set_message(trimmed);
            self.after_frame = false;
        } else if !trimmed.starts_with("Traceback ") {
            failure.offer_message(trimmed);
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }

    /// `Ran 5 tests in 0.001s; FAILED (failures=2, errors=1, skipped=1)`:
    /// skipped tests did not run.
    fn counts(&self) -> Option<Counts> {
        let text = &self.found.summary.as_ref()?.text;
        let ran = text
            .strip_prefix("Ran ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())?;
        let field = |name: &str| {
            text.split(['(', ',', ')', ' '])
                .filter_map(|part| part.strip_prefix(name)?.strip_prefix('='))
                .filter_map(|n| n.parse::<u64>().ok())
                .sum::<u64>()
        };
        let skipped = field("skipped");
        let failed = field("failures")
            .saturating_add(field("errors"))
            // `unexpected successes=1`: an expected failure that passed.
            .saturating_add(field("successes"));
        Some(Counts::tests(failed, ran.saturating_sub(skipped), skipped))
    }
}
