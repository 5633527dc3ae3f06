//! What the audits parse from outside: a manifest path (`paths::inside`, a
//! forbidden-path entry turned into a matcher, matched against a changed
//! path) and `git log -z` output (`git::parse_log`).
//!
//! Checked beyond "no panic": a path `inside` accepts never climbs out of
//! the root, and a plain entry (no wildcard) always matches itself.

#![no_main]

use std::path::{Component, Path};

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::audit::{Matcher, inside, parse_log};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (entry, path) = text.split_once('\n').unwrap_or((&text, ""));
    let matcher = Matcher::new(entry);
    let _ = matcher.matches(path);
    let plain = entry.trim().trim_start_matches("./").trim_end_matches('/');
    if !plain.is_empty() && !plain.contains(['*', '?', '[']) {
        assert!(matcher.matches(plain), "{entry:?} does not match itself");
    }
    if let Some(full) = inside(Path::new("/root-of-repo"), entry) {
        let rel = full.strip_prefix("/root-of-repo").unwrap_or(&full);
        assert!(rel
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir)));
    }
    for commit in parse_log(&text) {
        assert!(!commit.sha.is_empty());
    }
});
