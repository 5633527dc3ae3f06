//! The denylist engine on arbitrary text: `scan::judge_command`, then the
//! `scan command` renderings and the PreToolUse hook's answer for the same
//! text as a Bash command.
//!
//! Checked beyond "no panic": the engine never reports an internal error (a
//! panic caught on its thread); a judgement is the same twice; findings carry
//! a rule and an excerpt of at most 200 characters; the JSON is one line; the
//! hook answers nothing exactly when the decision is allow, and otherwise one
//! JSON line. The same text after 4 KiB of blank lines (long enough for the
//! one-pass parser of plain lines to take it when it can) is judged the same:
//! the two parsers agree.

#![no_main]

use libfuzzer_sys::fuzz_target;
use voyage_helper::internals::scan::hook::{self, Answer};
use voyage_helper::internals::scan::{
    Context, Decision, MAX_EXCERPT_CHARS, judge_command, render_json, render_text,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let ctx = Context {
        home: Some("/home/fuzz".into()),
    };
    let judgement = judge_command(&text, &ctx);
    for finding in &judgement.findings {
        assert!(!finding.detail.contains("internal error"), "engine panicked");
        assert!(finding.command.chars().count() <= MAX_EXCERPT_CHARS);
    }
    assert_eq!(judgement, judge_command(&text, &ctx), "not deterministic");
    let padded = format!("{}{text}", "\n".repeat(4096));
    assert_eq!(
        judgement.decision(),
        judge_command(&padded, &ctx).decision(),
        "blank lines changed the decision"
    );

    let mut out = Vec::new();
    render_text(&judgement, &mut out).expect("rendering into a Vec");
    let mut json = Vec::new();
    render_json(&text, &judgement, &mut json).expect("rendering into a Vec");
    assert_eq!(json.iter().filter(|&&b| b == b'\n').count(), 1);

    let input = serde_json::json!({
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": text},
    })
    .to_string();
    let answer = hook::answer(input.as_bytes(), &ctx);
    assert_eq!(answer == Answer::Silent, judgement.decision() == Decision::Allow);
    let mut printed = Vec::new();
    hook::render(&answer, &mut printed).expect("rendering into a Vec");
    assert!(printed.is_empty() || printed.iter().filter(|&&b| b == b'\n').count() == 1);
});
