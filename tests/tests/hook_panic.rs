//! A panic inside the PreToolUse hook blocks the call, and so do an
//! allocation that fails and an abort (a fatal signal), on the main thread
//! or the scan thread, in the binary as it ships: built by
//! `scripts/build-helper.sh` with the release profile (`panic = "abort"`,
//! static where the toolchain allows) and run through the plugin's
//! launcher. The failure comes from the `fault-injection` feature
//! ([`voyage_tests::faulty_helper`]), which only the fault tests enable.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use voyage_tests::{faulty_helper, launcher};

/// Runs the hook through the launcher with `input` on stdin.
fn hook(fault: Option<&str>, input: &str) -> Output {
    let mut command = Command::new(launcher());
    command
        .args(["hook", "pre-tool-use"])
        .env("VOYAGE_HELPER", faulty_helper().unwrap())
        .env_remove("VOYAGE_FAULT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(place) = fault {
        command.env("VOYAGE_FAULT", place);
    }
    let mut child = command.spawn().unwrap();
    // A hook that panics before it reads stdin closes the pipe first.
    let written = child.stdin.take().unwrap().write_all(input.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

const HARMLESS: &str =
    r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;

fn assert_blocked(out: &Output, place: &str) {
    assert_eq!(
        out.status.code(),
        Some(2),
        "a panic at {place} must exit 2 (a blocking error), got {:?}; stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
    let reason = reply["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(
        reason.starts_with("voyage: blocked unscannable"),
        "{reason}"
    );
    let stderr = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(stderr.trim_end(), reason, "the reason is on stderr too");
}

#[test]
fn a_panic_on_the_main_thread_blocks_the_call() {
    assert_blocked(&hook(Some("hook"), HARMLESS), "the hook's start");
}

#[test]
fn a_panic_in_the_scan_thread_blocks_the_call() {
    assert_blocked(&hook(Some("scan"), HARMLESS), "the scan thread");
}

#[test]
fn an_allocation_that_fails_blocks_the_call_on_either_thread() {
    for place in ["alloc:hook", "alloc:scan"] {
        let out = hook(Some(place), HARMLESS);
        assert_blocked(&out, place);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("ran out of memory"),
            "{place}"
        );
    }
}

#[test]
fn an_abort_blocks_the_call_on_either_thread() {
    for place in ["abort:hook", "abort:scan"] {
        let out = hook(Some(place), HARMLESS);
        assert_blocked(&out, place);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("the check crashed"),
            "{place}"
        );
    }
}

#[test]
fn without_a_fault_the_same_binary_answers_as_usual() {
    let out = hook(None, HARMLESS);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "ls is allowed: no output");
    let out = hook(
        None,
        r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#,
    );
    assert_eq!(out.status.code(), Some(0));
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(reply["hookSpecificOutput"]["permissionDecision"], "deny");
}
