//! `go test`.
//!
//! ```text
//! --- FAIL: TestTotal (0.00s)
//!     cart_test.go:17: Total() = 270, want 280
//! panic: runtime error: index out of range [3] with length 3 [recovered]
//! FAIL    example.com/shop/cart    0.006s
//! ok      example.com/shop/parse    0.004s
//! ```
//!
//! There is no overall line: the summary is the last failing package's
//! `FAIL<tab>package` line, or on a green run the last `ok` line. A
//! `t.Errorf` location prefixes its message; a panic's first frame in the
//! user's code is found by skipping Go's own runtime and testing frames.

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Found, Recognizer};

#[derive(Debug, Default)]
pub(super) struct GoTest {
    found: Found,
    current: Option<usize>,
    want_message: bool,
    in_panic: bool,
    failed_package_seen: bool,
    /// `# package` header of a build failure.
    in_build_errors: bool,
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

impl Recognizer for GoTest {
    fn runner(&self) -> &'static str {
        "go test"
    }

    fn feed(&mut self, line: &str, number: u64) {
        if let Some(rest) = line.trim_start().strip_prefix("--- FAIL: ") {
            let name = rest.rsplit_once(" (").map_or(rest, |(name, _)| name);
            self.current = self.found.failures.push(Failure::new(name));
            self.want_message = true;
            self.in_panic = false;
            return;
        }
        if line.starts_with("FAIL\t") {
            self.found.summarise(line, number);
            self.failed_package_seen = true;
            self.in_panic = false;
            self.in_build_errors = false;
            return;
        }
        if line.starts_with("ok  \t") {
            if !self.failed_package_seen {
                self.found.summarise(line, number);
            }
            return;
        }
        if line.starts_with("# ") {
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
        let Some(failure) = self.current.and_then(|i| self.found.failures.get_mut(i)) else {
            return;
        };
        if let Some(panic) = line.strip_prefix("panic: ") {
            failure.offer_message(&format!("panic: {panic}"));
            self.in_panic = true;
            self.want_message = false;
            return;
        }
        if self.in_panic {
            if let Some(frame) = line.strip_prefix('\t') {
                let location = frame.split(" +0x").next().unwrap_or(frame);
                if location.contains(".go:") && !is_go_internal(location) {
                    failure.offer_frame(location);
                    self.in_panic = false;
                }
            }
            return;
        }
        if self.want_message && line.starts_with("    ") && !line.trim().is_empty() {
            failure.offer_message(line);
            self.want_message = false;
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }
}
