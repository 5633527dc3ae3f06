//! `node --test`, in its TAP form (Node 20 without a terminal) and its
//! `spec` form.
//!
//! TAP: `not ok 2 - name` opens a YAML block whose `error:` field holds the
//! message and `stack:` the frames; suites that failed only because a child
//! did carry `failureType: 'subtestsFailed'` and are not failures. The
//! aggregate is a block of `# key N` lines; the `# fail N` line is kept.
//! The block's `expected:` and `actual:` keys are the assertion's values.
//!
//! spec: `✖ name (1.2ms)` followed by the indented message and `at` frames;
//! a suite's `✖` line has no message under it. The aggregate is `ℹ fail N`.
//! `assert.strictEqual`'s `170 !== 270` line is kept as the values.
//!
//! A test file that fails to load is a failure named by its path whose
//! message is only `test failed`; the error itself is what the file's
//! process printed just before (as `# ` comments in TAP): its
//! `SyntaxError: …` line, and the `file:line` header or first `at` frame in
//! the project. Those replace `test failed`.

use crate::verdict::failure::{Failure, is_third_party, looks_like_error};
use crate::verdict::recognizer::{Counts, Found, Recognizer};

/// The aggregate's keys whose counts the verdict reads, in [`NodeTest`]'s
/// `tally` order.
const TALLIED: [&str; 5] = ["pass", "fail", "cancelled", "skipped", "todo"];

#[derive(Debug, Default)]
pub(super) struct NodeTest {
    found: Found,
    /// A TAP failure whose YAML block is being read.
    tap: Option<Failure>,
    /// The YAML key whose block value is being read (`error` or `stack`).
    block_key: Option<&'static str>,
    subtests_only: bool,
    /// A spec `✖` line waiting to learn whether it is a test or a suite,
    /// with its indentation.
    spec: Option<(Failure, usize)>,
    spec_frame_wanted: Option<usize>,
    tap_seen: bool,
    pass_line: Option<(String, u64)>,
    /// The last value of each of [`TALLIED`]'s `# key N` lines.
    tally: [u64; 5],
    /// What a crashing test file printed since the last test result.
    crash: Crash,
    /// The crash output that came before the failure being read.
    crash_before: Crash,
}

/// A test file's own crash output: its error line and where it points.
#[derive(Debug, Default, Clone)]
struct Crash {
    message: Option<String>,
    frame: Option<String>,
}

impl Crash {
    fn note(&mut self, text: &str) {
        // Error lines start with a capital, frames with `at `, the header
        // with a path: every other line is passed over at its first byte.
        let first = text.as_bytes().first().copied().unwrap_or_default();
        if first.is_ascii_uppercase() {
            if self.message.is_none() && looks_like_error(text) {
                self.message = Some(text.to_owned());
            }
        } else if self.frame.is_none()
            && ((first == b'a' && text.starts_with("at "))
                || (first == b'/' && is_header_location(text)))
            && !is_third_party(text)
        {
            self.frame = Some(text.to_owned());
        }
    }

    /// Gives a file-level failure (`test failed`) the error it hides.
    fn explain(&self, failure: &mut Failure) {
        let message = unquote(failure.message.as_str());
        if message != "test failed" {
            return;
        }
        if let Some(crash) = &self.message {
            failure.set_message(crash);
            if let Some(frame) = &self.frame {
                failure.offer_frame(frame);
            }
        }
    }
}

/// `/work/project/broken.test.js:3`: the first line node prints when a
/// file does not compile.
fn is_header_location(text: &str) -> bool {
    text.rsplit_once(':').is_some_and(|(path, line)| {
        !path.contains(' ')
            && !path.starts_with("node:")
            && path.contains('.')
            && !line.is_empty()
            && line.chars().all(|c| c.is_ascii_digit())
    })
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Quoted YAML scalars lose their quotes.
fn unquote(value: &str) -> &str {
    ['\'', '"']
        .iter()
        .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
        .unwrap_or(value)
}

impl NodeTest {
    fn finish_tap(&mut self) {
        if let Some(mut failure) = self.tap.take()
            && !self.subtests_only
        {
            self.crash_before.explain(&mut failure);
            self.found.failures.push(failure);
        }
        self.block_key = None;
        self.subtests_only = false;
    }

    fn feed_tap(&mut self, trimmed: &str) -> bool {
        if let Some(rest) = trimmed.strip_prefix("not ok ") {
            self.finish_tap();
            self.crash_before = std::mem::take(&mut self.crash);
            let name = rest.split_once(" - ").map_or(rest, |(_, name)| name);
            let name = name.split(" # ").next().unwrap_or(name);
            self.tap = Some(Failure::new(name));
            return true;
        }
        if trimmed.starts_with("ok ") || trimmed == "..." {
            self.finish_tap();
            self.crash = Crash::default();
            return true;
        }
        let Some(failure) = self.tap.as_mut() else {
            if let Some(comment) = trimmed.strip_prefix("# ") {
                self.crash.note(comment.trim());
            }
            return false;
        };
        if let Some(key) = self.block_key {
            if trimmed.is_empty() {
                return true;
            }
            let is_new_key = trimmed
                .split_once(": ")
                .or_else(|| trimmed.split_once(':').filter(|(_, v)| v.is_empty()))
                .is_some_and(|(k, _)| k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
            if !is_new_key {
                match key {
                    "error" => failure.offer_message(trimmed),
                    _ => failure.offer_frame(trimmed),
                }
                self.block_key = None;
                return true;
            }
            self.block_key = None;
        }
        if let Some((key, value)) = trimmed.split_once(": ")
            && (key == "expected" || key == "actual")
            && !value.trim().is_empty()
        {
            // The assertion's values, when they fit on the line.
            failure.add_value(trimmed);
        } else if let Some(value) = trimmed.strip_prefix("error: ") {
            if value.starts_with('|') || value.starts_with('>') {
                self.block_key = Some("error");
            } else {
                failure.offer_message(unquote(value));
            }
        } else if trimmed.starts_with("stack: |") {
            self.block_key = Some("stack");
        } else if trimmed == "failureType: 'subtestsFailed'" {
            self.subtests_only = true;
        }
        true
    }

    fn feed_spec(&mut self, line: &str, trimmed: &str) {
        if let Some((mut failure, at)) = self.spec.take() {
            if trimmed.is_empty() {
                self.spec = Some((failure, at));
                return;
            }
            if indent(line) > at && !starts_with_mark(trimmed) {
                failure.offer_message(trimmed);
                self.crash_before.explain(&mut failure);
                let index = self.found.failures.push(failure);
                self.spec_frame_wanted = index;
                return;
            }
        }
        if let Some(index) = self.spec_frame_wanted {
            if let Some(f) = self.found.failures.get_mut(index)
                && f.offer_comparison(trimmed)
            {
                return;
            }
            if let Some(frame) = trimmed.strip_prefix("at ") {
                if let Some(f) = self.found.failures.get_mut(index) {
                    f.offer_frame(&format!("at {frame}"));
                }
                self.spec_frame_wanted = None;
            } else if starts_with_mark(trimmed) {
                self.spec_frame_wanted = None;
            }
        }
        if let Some(rest) = trimmed.strip_prefix("✖ ") {
            // `✖ name (2.8ms)`; `✖ failing tests:` has no duration.
            if let Some((name, _)) = rest.rsplit_once(" (").filter(|(_, d)| d.ends_with("ms)")) {
                self.spec = Some((Failure::new(name), indent(line)));
                self.crash_before = std::mem::take(&mut self.crash);
            }
        } else if trimmed.starts_with('✔') {
            self.crash = Crash::default();
        } else if !trimmed.is_empty() {
            self.crash.note(trimmed);
        }
    }
}

fn starts_with_mark(trimmed: &str) -> bool {
    ["✖", "✔", "▶", "ℹ", "﹣"]
        .iter()
        .any(|m| trimmed.starts_with(m))
}

impl Recognizer for NodeTest {
    fn runner(&self) -> &'static str {
        "node --test"
    }

    fn feed(&mut self, line: &str, trimmed: &str, number: u64) {
        if trimmed == "TAP version 13" {
            self.tap_seen = true;
        }
        if let Some(rest) = trimmed
            .strip_prefix("# ")
            .or_else(|| trimmed.strip_prefix("ℹ "))
        {
            if let Some((key, n)) = rest.split_once(' ')
                && let Some(at) = TALLIED.iter().position(|k| *k == key)
                && let (Ok(n), Some(slot)) = (n.parse::<u64>(), self.tally.get_mut(at))
            {
                *slot = n;
            }
            if let Some(count) = rest.strip_prefix("fail ") {
                match (count.parse::<u64>(), &self.pass_line) {
                    // On a green run `pass N` says more than `fail 0`.
                    (Ok(0), Some((pass, at))) => {
                        let (pass, at) = (pass.clone(), *at);
                        self.found.summarise(&pass, at);
                    }
                    (Ok(_), _) => self.found.summarise(trimmed, number),
                    (Err(_), _) => {}
                }
            } else if let Some(count) = rest.strip_prefix("pass ")
                && count.parse::<u64>().is_ok()
            {
                self.pass_line = Some((trimmed.to_owned(), number));
            }
        }
        if self.tap_seen && self.feed_tap(trimmed) {
            return;
        }
        if !self.tap_seen {
            self.feed_spec(line, trimmed);
        }
    }

    fn found(&self) -> &Found {
        &self.found
    }

    /// `# pass N`, `# fail N` (and `cancelled`: a test stopped by its
    /// timeout fails), `# skipped N`, `# todo N`.
    fn counts(&self) -> Option<Counts> {
        self.found.summary.as_ref()?;
        let [pass, fail, cancelled, skipped, todo] = self.tally;
        let failed = fail.saturating_add(cancelled);
        Some(Counts::tests(
            failed,
            pass.saturating_add(failed),
            skipped.saturating_add(todo),
        ))
    }
}
