//! Reading a log once, front to back, as cleaned lines of bounded length.
//!
//! A log may be a gigabyte, or one enormous line. Lines are cut at
//! [`MAX_LINE_BYTES`] (the rest of such a line is skipped, never buffered),
//! decoded lossily, stripped of ANSI escape sequences (runners forced into
//! colour still parse), of a trailing CR and of trailing whitespace. A NUL
//! byte anywhere marks the log as binary: text logs never hold one, and the
//! reply then says so rather than quote raw bytes.

use std::io::{self, Read};

use crate::ansi::clean;

/// The longest line kept, in bytes; recognisers never need more.
pub const MAX_LINE_BYTES: usize = 4096;

/// Calls `each` with every line of `reader`, cleaned, and its 1-based
/// number; returns whether the log held a NUL byte (is binary).
pub(super) fn for_each_line(
    mut reader: impl Read,
    mut each: impl FnMut(&str, u64),
) -> io::Result<bool> {
    let mut binary = false;
    let mut buf = vec![0u8; 64 * 1024];
    let mut line: Vec<u8> = Vec::with_capacity(256);
    let mut number = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let mut rest = buf.get(..n).unwrap_or_default();
        binary = binary || memchr::memchr(0, rest).is_some();
        while let Some(nl) = memchr::memchr(b'\n', rest) {
            push_bounded(&mut line, rest.get(..nl).unwrap_or_default());
            number += 1;
            each(&clean(&line), number);
            line.clear();
            rest = rest.get(nl + 1..).unwrap_or_default();
        }
        push_bounded(&mut line, rest);
    }
    if !line.is_empty() {
        number += 1;
        each(&clean(&line), number);
    }
    Ok(binary)
}

fn push_bounded(line: &mut Vec<u8>, bytes: &[u8]) {
    let room = MAX_LINE_BYTES.saturating_sub(line.len());
    line.extend(bytes.iter().take(room));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<(String, u64)> {
        let mut v = Vec::new();
        for_each_line(input, |l, n| v.push((l.to_owned(), n))).unwrap();
        v
    }

    #[test]
    fn splits_and_cleans() {
        assert_eq!(
            lines(b"a\r\n\x1b[31mred\x1b[0m  \nlast"),
            vec![("a".into(), 1), ("red".into(), 2), ("last".into(), 3)]
        );
        assert_eq!(lines(b""), vec![]);
        assert_eq!(lines(b"\n"), vec![(String::new(), 1)]);
        assert!(!for_each_line(&b"text\n"[..], |_, _| ()).unwrap());
        assert!(for_each_line(&b"ELF\0\x01\n"[..], |_, _| ()).unwrap());
    }

    #[test]
    fn long_lines_are_cut_not_buffered() {
        let mut input = vec![b'x'; 100_000];
        input.extend(b"\nnext\n");
        let got = lines(&input);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.len(), MAX_LINE_BYTES);
        assert_eq!(got[1].0, "next");
    }
}
