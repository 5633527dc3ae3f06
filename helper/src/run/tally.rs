//! `LINES:` and `TAIL:` computed while the output streams to the log.
//!
//! The original counted lines with `wc -l` and found the tail with `awk`
//! after the run, reading the whole log twice more. Here every chunk is seen
//! once, as it is copied: newlines are counted with `memchr`, and only the
//! first bytes of the line in progress are kept, so memory stays constant
//! whatever the output's size or line length.
//!
//! Rules (docs/maintainer/run-contract.md §7): LINES is the number of
//! newline bytes. TAIL is the last
//! line that still has content once one trailing CR and then trailing spaces
//! and tabs are removed, printed in that stripped form; Voyage caps it at
//! [`TAIL_MAX_CHARS`] characters.

/// The longest `TAIL:` printed, in characters.
pub const TAIL_MAX_CHARS: usize = 400;

/// Bytes of a line kept for its tail: enough for the capped tail even when
/// every character takes four bytes.
const KEPT_BYTES: usize = TAIL_MAX_CHARS * 4;

/// Line count and tail of everything fed so far.
#[derive(Debug, Default, Clone)]
pub struct LineTally {
    lines: u64,
    /// The stripped, capped bytes of the last complete line with content.
    tail: Option<Vec<u8>>,
    open: OpenLine,
}

/// What is known of the line still being written.
#[derive(Debug, Default, Clone)]
struct OpenLine {
    kept: Vec<u8>,
    len: usize,
    /// End of the last byte that is neither a space nor a tab.
    content_end: usize,
    /// The same, not counting the last byte (used when that byte is a CR).
    content_end_before_last: usize,
    last: Option<u8>,
}

fn is_blank(b: &u8) -> bool {
    *b == b' ' || *b == b'\t'
}

/// Length of `line` once one trailing CR and then trailing blanks are gone.
fn stripped_len(line: &[u8]) -> usize {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.iter().rposition(|b| !is_blank(b)).map_or(0, |i| i + 1)
}

impl OpenLine {
    fn extend(&mut self, bytes: &[u8]) {
        let Some((&last, before_last)) = bytes.split_last() else {
            return;
        };
        if self.kept.len() < KEPT_BYTES {
            let room = KEPT_BYTES - self.kept.len();
            self.kept.extend(bytes.iter().take(room));
        }
        self.content_end_before_last = match before_last.iter().rposition(|b| !is_blank(b)) {
            Some(i) => self.len + i + 1,
            None => self.content_end,
        };
        self.len += bytes.len();
        if !is_blank(&last) {
            self.content_end = self.len;
        } else {
            self.content_end = self.content_end_before_last;
        }
        self.last = Some(last);
    }

    /// The stripped content of the finished line, if it has any.
    fn finish(&mut self) -> Option<Vec<u8>> {
        let end = if self.last == Some(b'\r') {
            self.content_end_before_last
        } else {
            self.content_end
        };
        let line = std::mem::take(self);
        (end > 0).then(|| {
            let mut kept = line.kept;
            kept.truncate(end);
            kept
        })
    }
}

impl LineTally {
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes in the next chunk of output.
    pub fn feed(&mut self, chunk: &[u8]) {
        let Some(first_nl) = memchr::memchr(b'\n', chunk) else {
            self.open.extend(chunk);
            return;
        };
        let last_nl = memchr::memrchr(b'\n', chunk).unwrap_or(first_nl);
        self.lines += memchr::memchr_iter(b'\n', chunk).count() as u64;

        // The line that was open when the chunk began ends at the first newline.
        self.open.extend(chunk.get(..first_nl).unwrap_or_default());
        if let Some(line) = self.open.finish() {
            self.tail = Some(line);
        }
        // Of the lines wholly inside the chunk only the last one with content
        // matters, so look from the end.
        let mut end = last_nl;
        while end > first_nl {
            let start =
                memchr::memrchr(b'\n', chunk.get(..end).unwrap_or_default()).map_or(0, |i| i + 1);
            let line = chunk.get(start..end).unwrap_or_default();
            let len = stripped_len(line);
            if len > 0 {
                let keep = len.min(KEPT_BYTES);
                self.tail = Some(line.get(..keep).unwrap_or_default().to_vec());
                break;
            }
            end = start.saturating_sub(1);
        }
        self.open
            .extend(chunk.get(last_nl + 1..).unwrap_or_default());
    }

    /// Number of newline bytes seen.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// The tail as it would be printed: the last line with content (an
    /// unterminated last line included), stripped and capped, invalid UTF-8
    /// replaced. `None` when no line has content.
    pub fn tail(&self) -> Option<String> {
        let mut open = self.open.clone();
        let bytes = open.finish().or_else(|| self.tail.clone())?;
        let text = String::from_utf8_lossy(&bytes);
        Some(text.chars().take(TAIL_MAX_CHARS).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The rules applied to the whole output at once, as the original did.
    fn reference(output: &[u8]) -> (u64, Option<String>) {
        let lines = output.iter().filter(|&&b| b == b'\n').count() as u64;
        let tail = output
            .split(|&b| b == b'\n')
            .filter_map(|line| {
                let len = stripped_len(line);
                (len > 0).then(|| line.get(..len).unwrap().to_vec())
            })
            .next_back()
            .map(|b| {
                String::from_utf8_lossy(&b[..b.len().min(KEPT_BYTES)])
                    .chars()
                    .take(TAIL_MAX_CHARS)
                    .collect()
            });
        (lines, tail)
    }

    fn tally_in_chunks(output: &[u8], cuts: &[usize]) -> (u64, Option<String>) {
        let mut t = LineTally::new();
        let mut rest = output;
        for &cut in cuts {
            let at = cut.min(rest.len());
            let (head, tail) = rest.split_at(at);
            t.feed(head);
            rest = tail;
        }
        t.feed(rest);
        (t.lines(), t.tail())
    }

    #[test]
    fn contract_examples() {
        assert_eq!(tally_in_chunks(b"abc", &[]), (0, Some("abc".into())));
        assert_eq!(tally_in_chunks(b"", &[]), (0, None));
        assert_eq!(tally_in_chunks(b"  \n\t\n", &[]), (2, None));
        assert_eq!(tally_in_chunks(b"ok\n\n  \n", &[]), (3, Some("ok".into())));
        assert_eq!(tally_in_chunks(b"a  \r\n", &[]), (1, Some("a".into())));
        // only one trailing CR goes, inner CRs stay raw
        assert_eq!(
            tally_in_chunks(b"50%\r100%\r\r\n", &[]),
            (1, Some("50%\r100%\r".into()))
        );
        assert_eq!(
            tally_in_chunks(b"  lead\n", &[]),
            (1, Some("  lead".into()))
        );
    }

    #[test]
    fn tail_is_capped() {
        let long = format!("{}\n", "x".repeat(5000));
        let (_, tail) = tally_in_chunks(long.as_bytes(), &[7, 100, 3000]);
        assert_eq!(tail.unwrap().len(), TAIL_MAX_CHARS);
    }

    #[test]
    fn long_blank_suffix_after_content_across_chunks() {
        let mut s = b"word".to_vec();
        s.extend(std::iter::repeat_n(b' ', 3000));
        s.extend(b"\r\n");
        assert_eq!(
            tally_in_chunks(&s, &[2, 1000, 2002, 3003]),
            (1, Some("word".into()))
        );
    }

    proptest! {
        #[test]
        fn streaming_matches_whole_output(
            output in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'\r'), Just(b' '), Just(b'\t'), Just(b'a'), Just(0xC3u8), Just(0xA9u8), any::<u8>()],
                0..600),
            cuts in proptest::collection::vec(0usize..80, 0..12),
        ) {
            prop_assert_eq!(tally_in_chunks(&output, &cuts), reference(&output));
        }
    }
}
