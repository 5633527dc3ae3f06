//! The seam between reading a log and knowing a runner's output format.
//!
//! Every recogniser sees every line once, in order, and keeps what it finds:
//! its runner's aggregate line and its failures. After the last line the
//! [`pick`] function chooses whose findings the reply uses.

use super::failure::FailureList;
use super::lines::MAX_LINE_BYTES;

/// An aggregate line and where it stood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Summary {
    pub text: String,
    pub line: u64,
}

/// What a recogniser has found so far.
#[derive(Debug, Default, Clone)]
pub(super) struct Found {
    /// The aggregate line, once seen.
    pub summary: Option<Summary>,
    pub failures: FailureList,
}

impl Found {
    /// Records `line` (trimmed) as the aggregate line.
    pub(super) fn summarise(&mut self, line: &str, number: u64) {
        self.summary = Some(Summary {
            text: line.trim().to_owned(),
            line: number,
        });
    }

    /// Records the aggregate `first; second` for runners that print their
    /// totals over two lines (files, then tests), each trimmed.
    /// Like any line, the result is at most [`MAX_LINE_BYTES`] long.
    pub(super) fn summarise_two(&mut self, first: &str, second: &str, number: u64) {
        let mut text = format!("{}; {}", first.trim(), second.trim());
        cut(&mut text);
        self.summary = Some(Summary { text, line: number });
    }

    /// Appends `; line` to the aggregate line already recorded.
    pub(super) fn extend_summary(&mut self, line: &str) {
        if let Some(summary) = self.summary.as_mut() {
            summary.text.push_str("; ");
            summary.text.push_str(line.trim());
            cut(&mut summary.text);
        }
    }
}

/// Cuts `text` to [`MAX_LINE_BYTES`] at a character boundary.
fn cut(text: &mut String) {
    if text.len() > MAX_LINE_BYTES {
        let mut at = MAX_LINE_BYTES;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
    }
}

/// A runner's output format, learnt line by line.
pub(super) trait Recognizer {
    /// The runner's name, for `--json` and tests (e.g. `cargo test`).
    fn runner(&self) -> &'static str;
    /// Takes in the next cleaned line (see [`super::lines`]) and the same
    /// line without its indentation (lines come without trailing
    /// whitespace), trimmed once for all recognisers.
    fn feed(&mut self, line: &str, trimmed: &str, number: u64);
    fn found(&self) -> &Found;

    /// Called once after the last line: settles what was still pending.
    fn finish(&mut self) {}

    fn summary(&self) -> Option<&Summary> {
        self.found().summary.as_ref()
    }

    fn failures(&self) -> &FailureList {
        &self.found().failures
    }
}

/// Chooses the recogniser whose findings describe the log: the one whose
/// aggregate line came last (a wrapper's own summary after a tool's wins
/// over it), or, where none saw an aggregate line, the one with the most
/// failures. Ties go to the earlier, more specific recogniser.
pub(super) fn pick(recognizers: &[Box<dyn Recognizer>]) -> Option<&dyn Recognizer> {
    let with_summary = recognizers
        .iter()
        .filter_map(|r| r.summary().map(|s| (s.line, r)))
        .fold(
            None::<(u64, &Box<dyn Recognizer>)>,
            |best, (line, r)| match best {
                Some((best_line, _)) if best_line >= line => best,
                _ => Some((line, r)),
            },
        );
    if let Some((_, r)) = with_summary {
        return Some(r.as_ref());
    }
    recognizers
        .iter()
        .filter(|r| !r.failures().is_empty())
        .fold(None::<&Box<dyn Recognizer>>, |best, r| match best {
            Some(b) if b.failures().total() >= r.failures().total() => Some(b),
            _ => Some(r),
        })
        .map(AsRef::as_ref)
}
