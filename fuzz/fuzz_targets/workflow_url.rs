//! Remote workflow URLs: any text as a workflow URL and as a reference
//! read inside one (`workflow::remote`).
//!
//! Checked beyond "no panic": rewriting to raw is idempotent, and a
//! reference joined to an http(s) base is an http(s) URL (never a path on
//! the local disk) or refused.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::workflow::{join_url, raw_url, url_host};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (base, reference) = text.split_once('\n').unwrap_or((text, "child.yaml"));
    let raw = raw_url(base);
    assert_eq!(raw_url(&raw), raw, "raw twice is raw once");
    let _ = url_host(base);
    for base in [base.to_owned(), format!("https://h.example/{base}")] {
        let lower = base.to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            continue;
        }
        if let Some(joined) = join_url(&base, reference) {
            let joined = joined.to_ascii_lowercase();
            assert!(
                joined.starts_with("http://") || joined.starts_with("https://"),
                "{base:?} + {reference:?} gave {joined:?}"
            );
        }
    }
});
