//! The output pane's memory: the running step's last lines, at most
//! [`CAPACITY`] of them and each at most [`LINE_CHARS`] characters, so that
//! a step printing millions of lines (or one endless line) costs the view a
//! few megabytes at most. The count of every line pushed is kept, so the
//! pane can say how far up it is scrolled even after old lines were dropped.

use std::collections::VecDeque;

/// Lines kept for the pane (the log file keeps them all).
pub(super) const CAPACITY: usize = 4096;
/// Characters kept of one line: wider than any terminal.
pub(super) const LINE_CHARS: usize = 512;

#[derive(Debug, Clone, Default)]
pub(super) struct Ring {
    lines: VecDeque<String>,
    /// Lines pushed since the last [`Ring::clear`], dropped ones included.
    total: u64,
}

impl Ring {
    /// Keeps `line` as it can be drawn: no escape sequences or other
    /// control characters, tabs as spaces, cut at [`LINE_CHARS`].
    pub(super) fn push(&mut self, line: &str) {
        if self.lines.len() >= CAPACITY {
            self.lines.pop_front();
        }
        self.lines.push_back(printable(line));
        self.total = self.total.saturating_add(1);
    }

    pub(super) fn clear(&mut self) {
        self.lines.clear();
        self.total = 0;
    }

    pub(super) fn len(&self) -> usize {
        self.lines.len()
    }

    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Every line pushed since the last clear, dropped ones included.
    pub(super) fn total(&self) -> u64 {
        self.total
    }

    /// `count` lines ending `back` lines before the newest (fewer when the
    /// ring holds fewer).
    pub(super) fn window(&self, back: usize, count: usize) -> impl Iterator<Item = &str> {
        let end = self.lines.len().saturating_sub(back);
        let start = end.saturating_sub(count);
        self.lines.range(start..end).map(String::as_str)
    }

    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().map(String::as_str)
    }
}

/// `line` without what a terminal would act on rather than show.
fn printable(line: &str) -> String {
    let cleaned = crate::ansi::clean(line.as_bytes());
    cleaned
        .chars()
        .filter(|c| !c.is_control() || *c == '\t')
        .map(|c| if c == '\t' { ' ' } else { c })
        .take(LINE_CHARS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_is_bounded_and_counts_what_it_dropped() {
        let mut ring = Ring::default();
        for i in 0..CAPACITY + 10 {
            ring.push(&format!("l{i}"));
        }
        assert_eq!(ring.len(), CAPACITY);
        assert_eq!(ring.total(), (CAPACITY + 10) as u64);
        assert_eq!(ring.iter().next(), Some("l10"));
        let last: Vec<&str> = ring.window(0, 2).collect();
        assert_eq!(
            last,
            [format!("l{}", CAPACITY + 8), format!("l{}", CAPACITY + 9)]
        );
        let earlier: Vec<&str> = ring.window(1, 2).collect();
        assert_eq!(earlier[1], format!("l{}", CAPACITY + 8));
        assert_eq!(ring.window(CAPACITY + 50, 3).count(), 0);
        ring.clear();
        assert!(ring.is_empty());
        assert_eq!(ring.total(), 0);
    }

    #[test]
    fn lines_are_made_printable_and_cut() {
        let mut ring = Ring::default();
        ring.push("\x1b[31mred\x1b[0m\tand\x07 bell");
        ring.push(&"x".repeat(LINE_CHARS * 3));
        let lines: Vec<&str> = ring.iter().collect();
        assert_eq!(lines[0], "red and bell");
        assert_eq!(lines[1].chars().count(), LINE_CHARS);
    }
}
