//! `voyage-helper hook pre-tool-use` on input as it may really arrive
//! (issue 12, point 4): one test per kind of input that used to let
//! `rm -rf /` through unjudged, run through the real binary with the bytes
//! on stdin. The rule: the hook fails open only when there really is no
//! tool name, or another tool, or no command; a Bash call whose command
//! cannot be read is denied as `unscannable`.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use crate::common::{Case, Ran};
use serde_json::Value;

fn hook(input: impl AsRef<[u8]>) -> Ran {
    let ran = Case::new(&["hook", "pre-tool-use"]).stdin(input).run();
    assert_eq!(ran.stderr, "", "the hook writes nothing to stderr");
    assert_eq!(ran.status, 0, "the hook exits 0: {}", ran.stdout);
    ran
}

/// The deny reason, asserting the answer is a denial.
fn denied(ran: &Ran) -> String {
    let out: Value =
        serde_json::from_str(&ran.stdout).unwrap_or_else(|e| panic!("{e}: {:?}", ran.stdout));
    assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
    out["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A Bash call with `head` (JSON members, each followed by a comma) first
/// and `command` (a JSON string literal) as its command.
fn bash_call(head: &str, command: &str) -> String {
    format!(
        r#"{{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/p",{head}"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":{command},"description":"d"}},"tool_use_id":"toolu_01"}}"#
    )
}

#[test]
fn nesting_deeper_than_serde_json_reads_is_judged() {
    for depth in [127, 128, 129, 100_000] {
        let head = format!(r#""extra":{}{},"#, "[".repeat(depth), "]".repeat(depth));
        let reason = denied(&hook(bash_call(&head, r#""rm -rf /""#)));
        assert!(
            reason.starts_with("voyage: blocked rm-recursive-force"),
            "{depth}: {reason}"
        );
        let head = format!(
            r#""extra":{}1{},"#,
            r#"{"a":"#.repeat(depth),
            "}".repeat(depth)
        );
        assert_eq!(hook(bash_call(&head, r#""ls""#)).stdout, "", "{depth}");
    }
}

#[test]
fn lone_surrogates_are_replaced_not_refused() {
    let elsewhere = bash_call(
        r#""agent_id":"\ud800","agent_type":"\udfff x","#,
        r#""rm -rf /""#,
    );
    assert!(denied(&hook(elsewhere)).starts_with("voyage: blocked rm-recursive-force"));
    let in_command = bash_call("", r#""rm -rf / # \ud83d""#);
    assert!(denied(&hook(in_command)).starts_with("voyage: blocked rm-recursive-force"));
    // U+FFFD is what bash would be handed: `r<U+FFFD>m` is no `rm`.
    assert_eq!(hook(bash_call("", r#""r\udc00m -rf /""#)).stdout, "");
}

#[test]
fn raw_bytes_that_are_not_utf8_are_replaced() {
    let mut input = b"{\"cwd\":\"/p/\xff\",".to_vec();
    input.extend_from_slice(b"\"x\":\"\xc3\x28\xfe\",");
    input.extend_from_slice(br#""tool_name":"Bash","tool_input":{"command":"rm -rf / # "#);
    input.extend_from_slice(b"\xe2\x82\"}}");
    assert!(denied(&hook(input)).starts_with("voyage: blocked rm-recursive-force"));
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let mut input = b"\xef\xbb\xbf".to_vec();
    input.extend_from_slice(bash_call("", r#""rm -rf /""#).as_bytes());
    assert!(denied(&hook(input)).starts_with("voyage: blocked rm-recursive-force"));
}

#[test]
fn input_over_64_mib_is_denied_for_bash_and_silent_for_other_tools() {
    let big = |tool: &str| {
        let mut input = format!(
            r#"{{"hook_event_name":"PreToolUse","tool_name":"{tool}","tool_input":{{"command":"ls","file_path":"/p/a","description":""#
        )
        .into_bytes();
        input.resize((64 << 20) + 10, b'a');
        input.extend_from_slice(br#""}}"#);
        input
    };
    let reason = denied(&hook(big("Bash")));
    assert!(
        reason.starts_with("voyage: blocked unscannable") && reason.contains("larger than 64 MiB"),
        "{reason}"
    );
    assert!(denied(&hook(big("Write"))).starts_with("voyage: blocked unscannable"));
    assert_eq!(hook(big("Read")).stdout, "");
}

#[test]
fn a_nul_in_the_command_is_denied_as_unscannable() {
    for command in [r#""r\u0000m -rf /""#, r#""rm -rf /\u0000""#, r#""\u0000""#] {
        let reason = denied(&hook(bash_call("", command)));
        assert!(
            reason.starts_with("voyage: blocked unscannable") && reason.contains("NUL"),
            "{command}: {reason}"
        );
    }
}

#[test]
fn a_bash_call_cut_short_or_malformed_is_denied() {
    for input in [
        r#"{"tool_name": "Bash", "tool_input": {"command": "rm -rf /""#.to_owned(),
        r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}} {}"#.to_owned(),
        r#"{"session_id": "s", "tool_input": {"command": "rm -rf /"}, "#.to_owned(),
        bash_call(r#""x":"\q","#, r#""ls""#),
    ] {
        let reason = denied(&hook(&input));
        assert!(
            reason.starts_with("voyage: blocked unscannable") && reason.contains("not well-formed"),
            "{input}: {reason}"
        );
    }
}

#[test]
fn input_that_is_no_call_to_judge_stays_silent() {
    for input in [
        "",
        "not json",
        "[1, 2]",
        r#"{"hook_event_name": "PreToolUse", "tool_input": {"command": "rm -rf /"}}"#,
        r#"{"tool_name": "Bash", "tool_input": {"description": "no command"}}"#,
        r#"{"tool_name": "Bash", "tool_input": {"command": ["rm", "-rf", "/"]}}"#,
        r#"{"tool_name": "WebFetch", "tool_input": {"url": "x"#,
        r#"{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}"#,
    ] {
        assert_eq!(hook(input).stdout, "", "{input}");
    }
}
