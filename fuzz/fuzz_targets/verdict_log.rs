//! `verdict::runners::scan` over arbitrary logs, read whole and read through
//! a reader that hands out small pieces and `Interrupted` errors.
//!
//! Checked beyond "no panic", only what the code documents: at most 64
//! failures kept in full (`FailureList`), the rest counted; a name kept once
//! per message (compilers and linters list two errors at one position);
//! fields capped at 240 characters plus an ellipsis (`Failure`); lines, and so
//! the summary and the last line, cut at `MAX_LINE_BYTES` bytes (`lines`).
//! The result must not depend on how the reads were cut.

#![no_main]

use std::collections::HashSet;
use std::io::{self, Read};

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::verdict::{Findings, MAX_LINE_BYTES, scan};

/// `FailureList`'s `KEEP`: "How many failures are kept in full".
const KEPT_FAILURES: usize = 64;
/// `Failure`'s `MAX_FIELD_CHARS`, plus the `…` that marks a cut.
const MAX_FIELD_CHARS: usize = 240 + 1;

/// Hands out the log in pieces of 1 to 32 bytes, with an `Interrupted`
/// error now and then, all decided by a seed.
struct Choppy<'a> {
    data: &'a [u8],
    state: u32,
}

impl Choppy<'_> {
    fn next(&mut self) -> u32 {
        self.state = self.state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        self.state >> 16
    }
}

impl Read for Choppy<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let r = self.next();
        if r % 7 == 0 {
            return Err(io::Error::from(io::ErrorKind::Interrupted));
        }
        let n = (r as usize % 32 + 1).min(buf.len()).min(self.data.len());
        let (head, rest) = self.data.split_at(n);
        buf[..n].copy_from_slice(head);
        self.data = rest;
        Ok(n)
    }
}

fn check_bounds(f: &Findings) {
    let items = f.failures.items();
    assert!(
        items.len() <= KEPT_FAILURES,
        "{} failures kept",
        items.len()
    );
    assert!(f.failures.total() >= items.len());
    let mut names = HashSet::new();
    for failure in items {
        assert!(
            names.insert((&failure.name, &failure.message)),
            "{:?} kept twice",
            failure.name
        );
        assert!(failure.name.chars().count() <= MAX_FIELD_CHARS);
        assert!(failure.message.chars().count() <= MAX_FIELD_CHARS);
        if let Some(frame) = &failure.frame {
            assert!(!frame.is_empty());
            assert!(frame.chars().count() <= MAX_FIELD_CHARS);
        }
    }
    for line in [&f.summary, &f.last_line].into_iter().flatten() {
        assert!(line.chars().count() <= MAX_LINE_BYTES);
        assert!(!line.contains('\n'));
        assert!(!line.contains('\u{1b}'), "escape left in {line:?}");
    }
    if let Some(last) = &f.last_line {
        assert!(!last.trim().is_empty());
    }
}

fuzz_target!(|data: &[u8]| {
    let whole = match scan(data) {
        Ok(f) => f,
        Err(e) => panic!("reading a slice failed: {e}"),
    };
    check_bounds(&whole);

    let seed = data.first().copied().map_or(0, u32::from);
    let choppy = match scan(Choppy { data, state: seed }) {
        Ok(f) => f,
        Err(e) => panic!("reading in pieces failed: {e}"),
    };
    assert_eq!(whole.runner, choppy.runner);
    assert_eq!(whole.summary, choppy.summary);
    assert_eq!(whole.last_line, choppy.last_line);
    assert_eq!(whole.failures.items(), choppy.failures.items());
    assert_eq!(whole.failures.total(), choppy.failures.total());
});
