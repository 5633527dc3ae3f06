//! `ansi::clean`, the ANSI stripper every log line goes through.
//!
//! Checked beyond "no panic", as documented: no escape character and no
//! trailing whitespace is left, so cleaning twice changes nothing.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::ansi::clean;

fuzz_target!(|data: &[u8]| {
    let cleaned = clean(data);
    assert!(!cleaned.contains('\u{1b}'), "escape left in {cleaned:?}");
    assert_eq!(cleaned.trim_end(), cleaned, "trailing whitespace left");
    assert!(cleaned.chars().count() <= String::from_utf8_lossy(data).chars().count());
    assert_eq!(clean(cleaned.as_bytes()), cleaned, "cleaning twice differs");
});
