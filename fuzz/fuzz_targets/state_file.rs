//! `state validate`'s two parsers: a `.session-state.local.json` text
//! (`state::check::validate_text`) and the prompt's front matter against a
//! valid record (`state::check::check_prompt`). The input is split at the
//! first NUL byte: state text before, prompt text after.
//!
//! Checked beyond "no panic": every problem has a `STATE_` code.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::state::{check_prompt, validate_text};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (state, prompt) = text.split_once('\0').unwrap_or((&text, ""));
    for p in validate_text(state) {
        assert!(p.code.starts_with("STATE_"), "{p:?}");
    }
    let record = serde_json::json!({
        "schema_version": 1, "project": "p", "next_session_brief_path": "b.md",
        "next_session_label": "Complete", "status": "completed",
        "updated_at": "2026-11-30T10:15:00Z"
    });
    for p in check_prompt(&record, prompt) {
        assert!(p.code.starts_with("STATE_"), "{p:?}");
    }
});
