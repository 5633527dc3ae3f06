//! `fence::is_helper_call` on any command text: the hook lets such a call
//! run outside the kernel fence, so it must never accept a line that runs
//! anything more than the helper's own `trek` call.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::fence::{ExecutorCall, executor_call, is_helper_call, quote};

/// The text outside single quotes (which bash reads literally).
fn unquoted(line: &str) -> String {
    line.split('\'').step_by(2).collect()
}

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    let helper = Path::new("/data/voyage-helper");
    if is_helper_call(&line, Some("/plugin"), helper) {
        let line = line.trim();
        let body = line.strip_suffix("2>&1").unwrap_or(line);
        let bare = unquoted(body).replace("${CLAUDE_PLUGIN_ROOT}", "");
        assert!(
            !bare.chars().any(|c| "\n;|&<>`$".contains(c)),
            "accepted more than a plain call: {line:?}"
        );
        assert!(bare.contains("trek"), "{line:?}");
    }
    // The executor's calls: only the first line is shell; the fence's flag
    // goes in at a word boundary of it, before any here-document.
    if let Some(call) = executor_call(&line, Some("/plugin")) {
        let first = line.split('\n').next().unwrap_or_default();
        let bare = unquoted(first.split("<<").next().unwrap_or_default())
            .replace("${CLAUDE_PLUGIN_ROOT}", "");
        assert!(!bare.chars().any(|c| ";|&<>`$".contains(c)), "{line:?}");
        if let ExecutorCall::Runs { at } = call {
            assert!(at <= first.len() && first.is_char_boundary(at), "{line:?}");
        }
    }
    let quoted = quote(&line);
    assert!(quoted.starts_with('\'') && quoted.ends_with('\''));
    assert_eq!(quoted.matches('\'').count(), 2 + 3 * line.matches('\'').count());
});
