//! The rule table's examples (judge/src/rule.rs) through the real hook:
//! each is sent to `voyage-helper hook pre-tool-use` as Claude Code sends a
//! Bash call, and the reply is held to what its rule says, as the engine's
//! judgement is: a `block:` example is denied naming its rule, a `warn:`
//! one warned of it, an `allow:` one not reported by it, and the hook
//! agrees with the engine on every one (so a look-alike nothing reports
//! gets no reply at all). `scan rules --check` runs the same check in
//! process; this test runs the binary.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};
use voyage_helper::internals::scan::examples::{self, Outcome};
use voyage_helper::internals::scan::hook::{Answer, outcome};
use voyage_helper::internals::scan::{Context, judge_command};

use crate::common::assert_schema;
use crate::common::env::helper;

/// The hook's reply to a Bash call of `command`, from `cwd` with `home`
/// as `$HOME`, the kernel fence off as in the other hook tests.
fn hook_reply(cwd: &Path, home: &Path, command: &str) -> Answer {
    let input = json!({
        "session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": command}
    });
    let mut child = helper(cwd, home)
        .args(["hook", "pre-tool-use"])
        .env("VOYAGE_FENCE", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{command}: {stdout}");
    if stdout.is_empty() {
        return Answer::Silent;
    }
    let reply: Value = assert_schema("hook-pre-tool-use-output", &stdout);
    let specific = &reply["hookSpecificOutput"];
    match specific["permissionDecisionReason"].as_str() {
        Some(reason) => Answer::Deny(reason.to_owned()),
        None => Answer::Warn(specific["additionalContext"].as_str().unwrap().to_owned()),
    }
}

#[test]
fn every_rule_example_is_answered_by_the_hook_as_its_rule_says() {
    let dir = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(dir.path()).unwrap();
    let (work, home) = (top.join("work"), top.join("home"));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let ctx = Context {
        home: Some(home.display().to_string()),
    };
    let mut wrong = Vec::new();
    let mut count = 0;
    for example in examples::all() {
        count += 1;
        let engine = Outcome::of(&judge_command(example.command, &ctx));
        let hooked = outcome(&hook_reply(&work, &home, example.command));
        wrong.extend(example.fault(&engine).map(|m| format!("engine: {m}")));
        wrong.extend(example.fault(&hooked).map(|m| format!("hook: {m}")));
        if hooked.decision != engine.decision {
            wrong.push(format!(
                "`{}`: the hook says {}, the engine {}",
                example.command,
                hooked.describe(),
                engine.describe()
            ));
        }
    }
    assert!(count >= 4 * 30, "{count} examples");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The examples add to the corpus (tests/data/denylist.jsonl) instead of
/// repeating its lines.
#[test]
fn no_example_is_a_line_of_the_corpus() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/denylist.jsonl");
    let corpus: HashSet<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            v["command"].as_str().unwrap().to_owned()
        })
        .collect();
    let copied: Vec<&str> = examples::all()
        .map(|e| e.command)
        .filter(|c| corpus.contains(*c))
        .collect();
    assert!(copied.is_empty(), "{copied:?}");
}
