//! `LineTally` fed arbitrary output in arbitrary chunks.
//!
//! Input: one byte `n`, then `n % 16` chunk sizes (one byte each, 0 feeds an
//! empty chunk), then the output, fed in those sizes over and over. Checked:
//! `lines()` is the number of newline bytes, `tail()` has at most
//! `TAIL_MAX_CHARS` characters, and the result is the same however the
//! output is cut and equal to the rules of the run contract's §7
//! (docs/maintainer/run-contract.md) applied to the whole
//! output at once.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::run::{LineTally, TAIL_MAX_CHARS};

/// Splits off the chunk sizes; the rest is the output.
fn split(data: &[u8]) -> (&[u8], &[u8]) {
    let Some((&n, rest)) = data.split_first() else {
        return (&[], &[]);
    };
    rest.split_at(usize::from(n % 16).min(rest.len()))
}

fn feed_in_chunks(output: &[u8], sizes: &[u8]) -> LineTally {
    let mut tally = LineTally::new();
    let mut rest = output;
    let mut empty_in_a_row = 0;
    for &size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        if size == 0 {
            tally.feed(&[]);
            empty_in_a_row += 1;
            if empty_in_a_row > sizes.len() {
                break;
            }
            continue;
        }
        empty_in_a_row = 0;
        let (head, tail) = rest.split_at(usize::from(size).min(rest.len()));
        tally.feed(head);
        rest = tail;
    }
    tally.feed(rest);
    tally
}

/// run contract §7 on the whole output: the last line with content once one
/// trailing CR and then trailing spaces and tabs are gone, capped.
fn reference_tail(output: &[u8]) -> Option<String> {
    output
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let end = line.iter().rposition(|&b| b != b' ' && b != b'\t')?;
            line.get(..=end)
        })
        .next_back()
        .map(|line| {
            String::from_utf8_lossy(line)
                .chars()
                .take(TAIL_MAX_CHARS)
                .collect()
        })
}

fuzz_target!(|data: &[u8]| {
    let (sizes, output) = split(data);
    let chunked = feed_in_chunks(output, sizes);

    let newlines = output.iter().filter(|&&b| b == b'\n').count() as u64;
    assert_eq!(chunked.lines(), newlines);
    let tail = chunked.tail();
    if let Some(t) = &tail {
        assert!(t.chars().count() <= TAIL_MAX_CHARS, "tail too long");
        assert!(!t.is_empty(), "a tail with no content");
    }

    let mut whole = LineTally::new();
    whole.feed(output);
    assert_eq!(whole.lines(), newlines);
    assert_eq!(whole.tail(), tail, "chunking changed the tail");
    assert_eq!(tail, reference_tail(output), "tail differs from run contract §7");
});
