//! `orders::ref_safe`, the plan slug made a branch-name component, on any
//! file name: never a panic, always a component git accepts, and stable.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::orders::ref_safe;

fuzz_target!(|data: &[u8]| {
    let slug = String::from_utf8_lossy(data);
    let out = ref_safe(&slug);
    assert!(!out.is_empty() && !out.starts_with('.') && !out.ends_with(".lock"));
    assert!(!out.contains("..") && !out.contains("@{") && !out.contains('/'));
    assert!(!out.chars().any(|c| c.is_control() || " ~^:?*[\\".contains(c)));
    assert_eq!(ref_safe(&out), out, "not stable");
});
