//! A run marker as the PreToolUse hook reads it (`run_marker::read`), from
//! a real file in the git directory of a temporary repository, then the
//! hook's answer to a Write call in that repository.
//!
//! Checked beyond "no panic": a marker that reads back is the same after a
//! write and a second read (serde round trip); a marker that cannot be read
//! makes the hook deny the write as `run-marker-unreadable` (fail closed);
//! any answer is one the output schema allows.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::run_marker::{FILE_NAME, RunMarker, read};
use voyage_helper::internals::scan::Context;
use voyage_helper::internals::scan::hook::{Answer, answer};

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let git = dir.path().join(".git");
    if std::fs::create_dir(&git).is_err() {
        return;
    }
    let path = git.join(FILE_NAME);
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let read_back = read(&path);
    if let Ok(Some(marker)) = &read_back {
        let text = serde_json::to_vec(marker).unwrap_or_default();
        let again: Option<RunMarker> = serde_json::from_slice(&text).ok();
        assert_eq!(again.as_ref(), Some(marker));
        // Staleness reads the progress file the marker names: keep it here.
        let mut local = marker.clone();
        local.progress = dir.path().join("progress.json").display().to_string();
        assert!(local.stale_reason().is_some());
    }
    let input = serde_json::json!({
        "cwd": dir.path(), "hook_event_name": "PreToolUse", "tool_name": "Write",
        "tool_input": {"file_path": dir.path().join("src/a.rs")}
    });
    let ctx = Context {
        home: Some("/home/fuzz".into()),
    };
    let reply = answer(input.to_string().as_bytes(), &ctx);
    if read_back.is_err() {
        assert!(
            matches!(&reply, Answer::Deny(r) if r.starts_with("voyage: blocked run-marker-unreadable ")),
            "{reply:?}"
        );
    }
    match &reply {
        Answer::Silent => {}
        Answer::Deny(text) | Answer::Warn(text) => {
            assert!(!text.contains('\n') && text.chars().count() <= 2_000, "{text}");
        }
        // Only a Bash call is ever rewritten into the fence.
        Answer::Rewrite { .. } => panic!("a Write call was rewritten: {reply:?}"),
    }
});
