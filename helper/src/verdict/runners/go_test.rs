//! `go test`, with and without `-v`.
//!
//! ```text
//! === RUN   TestTotal                            -v: output while running
//!     cart_test.go:11: Total() = 270, want 280
//! --- FAIL: TestTotal (0.00s)
//! --- FAIL: TestTable (0.00s)                    without -v: output after
//!     --- FAIL: TestTable/empty (0.00s)
//!         cart_test.go:32: Total([]) = -10, want 0
//! panic: runtime error: index out of range [3] with length 3 [recovered]
//! FAIL    example.com/shop/cart    0.006s
//! ok      example.com/shop/parse    0.004s
//! ```
//!
//! A test's messages belong to it by the runner's own structure: with `-v`
//! they stand between its `=== RUN` (or `=== CONT`, `=== NAME`) line and its
//! `--- FAIL` line; without, they follow its `--- FAIL` line, indented one
//! level deeper than it. The message kept is the last one the test printed
//! (`t.Fatal` ends a test; `t.Log` lines come first). A parent that failed
//! only because a subtest did (no message of its own) is not a failure.
//!
//! There is no overall line: the summary is the last failing package's
//! `FAIL<tab>package` line, or on a green run the last `ok` line (or a
//! `?` line, `[no test files]`, when there is no other). go counts no
//! tests, only packages: a run whose every package printed `[no test
//! files]` or `[no tests to run]` (a `-run` pattern that matched
//! nothing) ran no test. A panic's
//! first frame in the user's code is found by skipping Go's own runtime and
//! testing frames.

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Counts, Found, Recognizer};

/// How many running tests' messages are remembered under `-v`; tests that
/// end are forgotten, so only a run of thousands of parallel tests reaches it.
const MAX_PENDING: usize = 256;

#[derive(Debug, Default)]
pub(super) struct GoTest {
    found: Found,
    /// `-v`: the test whose output follows (`=== RUN`, `=== CONT`).
    running: Option<String>,
    /// `-v`: the last message of each test still running.
    pending: Vec<(String, String)>,
    /// A `--- FAIL` line not yet known to be a real failure or a parent
    /// that failed through a subtest, with its indentation.
    open: Option<(Failure, usize)>,
    /// The failure whose messages follow (without `-v`), and the
    /// indentation they have.
    current: Option<(usize, usize)>,
    in_panic: bool,
    failed_package_seen: bool,
    /// `# package` header of a build failure.
    in_build_errors: bool,
    /// Packages by their result line: failed, ran tests, ran none.
    packages: [u64; 3],
}

/// Frames in Go's own source tree say nothing about the user's code.
fn is_go_internal(path: &str) -> bool {
    [
        "/src/runtime/",
        "/src/testing/",
        "/src/reflect/",
        "/src/sync/",
    ]
    .iter()
    .any(|dir| path.contains(dir))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// `cart_test.go:11: message`: the form of every `t.Log`/`t.Error` line.
fn is_message(trimmed: &str) -> bool {
    // The first colon ends the file name: a cheap test before the rest.
    let Some(colon) = memchr::memchr(b':', trimmed.as_bytes()) else {
        return false;
    };
    let file = trimmed.get(..colon).unwrap_or_default();
    let rest = trimmed.get(colon + 1..).unwrap_or_default();
    file.ends_with(".go")
        && !file.contains(' ')
        && rest
            .split_once(": ")
            .is_some_and(|(line, _)| !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()))
}

/// `--- FAIL: name (0.00s)` and the like: the status word and the name.
fn result_line(trimmed: &str) -> Option<(&str, &str)> {
    let rest = trimmed.strip_prefix("--- ")?;
    let (status, rest) = rest.split_once(": ")?;
    let name = rest.rsplit_once(" (").map_or(rest, |(name, _)| name);
    Some((status, name))
}

impl GoTest {
    /// The open `--- FAIL` line is a failure after all.
    fn settle(&mut self) {
        if let Some((failure, at)) = self.open.take() {
            self.current = self
                .found
                .failures
                .push(failure)
                .map(|index| (index, at + 4));
        }
    }

    fn take_pending(&mut self, name: &str) -> Option<String> {
        let at = self.pending.iter().position(|(n, _)| n == name)?;
        Some(self.pending.swap_remove(at).1)
    }

    fn on_result(&mut self, status: &str, name: &str, at: usize) {
        let message = self.take_pending(name);
        let child_of_open = self
            .open
            .as_ref()
            .is_some_and(|(parent, _)| name.starts_with(&format!("{}/", parent.name)));
        if status != "FAIL" {
            // A passing subtest inside the open parent's block leaves it open.
            if !child_of_open {
                self.settle();
            }
            return;
        }
        if child_of_open {
            // The parent failed through this subtest.
            self.open = None;
        } else {
            self.settle();
        }
        self.current = None;
        self.in_panic = false;
        let mut failure = Failure::new(name);
        match message {
            Some(message) => {
                failure.set_message(&message);
                self.current = self.found.failures.push(failure).map(|i| (i, at + 4));
            }
            None => self.open = Some((failure, at)),
        }
    }

    fn on_message(&mut self, trimmed: &str, at: usize) {
        if let Some((failure, open_at)) = self.open.as_mut()
            && at == *open_at + 4
        {
            failure.set_message(trimmed);
            self.settle();
            return;
        }
        if let Some((index, want)) = self.current
            && at == want
        {
            if let Some(f) = self.found.failures.get_mut(index) {
                f.set_message(trimmed);
            }
            return;
        }
        let Some(running) = &self.running else {
            return;
        };
        match self.pending.iter().position(|(n, _)| n == running) {
            Some(at) => {
                if let Some((_, last)) = self.pending.get_mut(at) {
                    last.clear();
                    last.push_str(trimmed);
                }
            }
            None if self.pending.len() < MAX_PENDING => {
                self.pending.push((running.clone(), trimmed.to_owned()));
            }
            None => {}
        }
    }
}

impl Recognizer for GoTest {
    fn runner(&self) -> &'static str {
        "go test"
    }

    fn feed(&mut self, line: &str, trimmed: &str, number: u64) {
        if trimmed.is_empty() {
            return;
        }
        if let Some(rest) = trimmed.strip_prefix("=== ") {
            self.settle();
            self.current = None;
            self.in_panic = false;
            if let Some((verb, name)) = rest.split_once(' ')
                && matches!(verb, "RUN" | "CONT" | "NAME")
            {
                self.running = Some(name.trim().to_owned());
            }
            return;
        }
        if trimmed.starts_with("--- ")
            && let Some((status, name)) = result_line(trimmed)
        {
            self.on_result(status, name, indent(line));
            return;
        }
        if line.starts_with("FAIL\t") || line.starts_with("ok  \t") {
            self.settle();
            self.current = None;
            self.running = None;
            self.pending.clear();
            self.in_panic = false;
            self.in_build_errors = false;
            let failed = line.starts_with("FAIL");
            let kind = match (failed, line.ends_with("[no tests to run]")) {
                (true, _) => 0,
                (false, false) => 1,
                (false, true) => 2,
            };
            if let Some(n) = self.packages.get_mut(kind) {
                *n += 1;
            }
            if failed || !self.failed_package_seen {
                self.found.summarise(line, number);
            }
            self.failed_package_seen |= failed;
            return;
        }
        if line.starts_with("?   \t") && line.ends_with("[no test files]") {
            if let Some(n) = self.packages.get_mut(2) {
                *n += 1;
            }
            if self.found.summary.is_none() {
                self.found.summarise(line, number);
            }
            return;
        }
        if line.starts_with("# ") {
            self.settle();
            self.in_build_errors = true;
            return;
        }
        if self.in_build_errors {
            // ./cart.go:3:5: undefined: foo
            let mut parts = line.splitn(4, ':');
            if let (Some(file), Some(l), Some(c), Some(msg)) =
                (parts.next(), parts.next(), parts.next(), parts.next())
                && file.ends_with(".go")
                && l.parse::<u32>().is_ok()
                && c.parse::<u32>().is_ok()
            {
                self.found
                    .failures
                    .push(Failure::new(format!("{file}:{l}:{c}")).with_message(msg));
            }
            return;
        }
        if line.starts_with(' ') && is_message(trimmed) {
            self.on_message(trimmed, indent(line));
            return;
        }
        if line.starts_with(' ') && self.open.is_none() {
            // More lines of a message printed over several.
            return;
        }
        self.settle();
        let Some(failure) = self
            .current
            .and_then(|(i, _)| self.found.failures.get_mut(i))
        else {
            return;
        };
        if let Some(panic) = line.strip_prefix("panic: ") {
            failure.offer_message(&format!("panic: {panic}"));
            self.in_panic = true;
            return;
        }
        if self.in_panic
            && let Some(frame) = line.strip_prefix('\t')
        {
            let location = frame.split(" +0x").next().unwrap_or(frame);
            if location.contains(".go:") && !is_go_internal(location) {
                failure.offer_frame(location);
                self.in_panic = false;
            }
        }
    }

    fn finish(&mut self) {
        self.settle();
    }

    fn found(&self) -> &Found {
        &self.found
    }

    /// Packages, not tests: `ran` is how many packages ran tests.
    fn counts(&self) -> Option<Counts> {
        let [failed, ran, none] = self.packages;
        if failed + ran + none == 0 {
            return None;
        }
        let failures = match self.found.failures.total() as u64 {
            0 => failed,
            listed if failed > 0 => listed,
            _ => 0,
        };
        Some(Counts::tests(failures, ran.saturating_add(failed), none))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failures(log: &str) -> Vec<(String, String)> {
        let mut r = GoTest::default();
        for (n, line) in log.lines().enumerate() {
            r.feed(line, line.trim_start(), n as u64 + 1);
        }
        r.finish();
        r.found
            .failures
            .items()
            .iter()
            .map(|f| (f.name.clone(), f.message.clone()))
            .collect()
    }

    #[test]
    fn parallel_tests_keep_their_own_messages() {
        let log = "=== RUN   TestA\n=== PAUSE TestA\n=== RUN   TestB\n=== PAUSE TestB\n=== CONT  TestA\n    a_test.go:5: a broke\n=== CONT  TestB\n    b_test.go:9: b broke\n--- FAIL: TestB (0.00s)\n--- FAIL: TestA (0.00s)\nFAIL\n";
        assert_eq!(
            failures(log),
            vec![
                ("TestB".into(), "b_test.go:9: b broke".into()),
                ("TestA".into(), "a_test.go:5: a broke".into()),
            ]
        );
    }

    #[test]
    fn a_parent_without_a_message_of_its_own_is_not_listed() {
        let log = "--- FAIL: TestT (0.00s)\n    --- PASS: TestT/ok (0.00s)\n    --- FAIL: TestT/bad (0.00s)\n        t_test.go:3: bad\n--- FAIL: TestSilent (0.00s)\nFAIL\n";
        assert_eq!(
            failures(log),
            vec![
                ("TestT/bad".into(), "t_test.go:3: bad".into()),
                ("TestSilent".into(), String::new()),
            ]
        );
    }
}
