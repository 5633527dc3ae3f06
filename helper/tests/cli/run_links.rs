//! Links in a step's Files during a `/trekexecute` run (issue 38, point 4):
//! a link the step names is the step's file, not what it points to. The
//! run is driven as a user's is (`trek start`, `trek step-begin` in a real
//! git repository), and the hook is fed each call as Claude Code sends it;
//! every reply is checked against its schema.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::repo::commit_all;
use crate::common::schema::assert_schema;
use crate::trek::{Repo, next};

/// One step whose Files hold a committed link out of them (`src/a.sh ->
/// ../README.md`), a committed link to another of them (`src/c.sh ->
/// b.sh`), a plain file, a new file, and a file under a linked directory
/// (`pkg -> lib`).
const PLAN: &str = r#"---
plan_version: 1.7
profile: economy
---
# Plan: scripts, some of them links

## Context

Shell scripts under `src/`; some are symbolic links.

## Implementation Plan

### Step 1: Rewrite the scripts
- **Files:** `src/a.sh`, `src/b.sh`, `src/c.sh`, `src/new.sh` (new), `pkg/x.sh`
- **Changes:** Rewrite the scripts.
- **Verify:** `bash -n src/b.sh`
- **On failure:** escalate
- **Checkpoint:** `git commit -m "feat: scripts"`
- **Manifest:**
  ```yaml
  expected_paths: [src/b.sh]
  min_file_count: 1
  commit_message_pattern: "^feat: scripts$"
  bash_syntax_check: [src/b.sh]
  forbidden_paths: [README.md]
  must_contain: []
  ```

## Verification

- `bash -n src/b.sh` — the script parses
"#;

/// The repository with its links committed, the run started and step 1
/// begun.
fn begun() -> Repo {
    let repo = Repo::new(PLAN);
    repo.write(&[
        ("src/b.sh", "echo b\n"),
        ("lib/x.sh", "echo x\n"),
        ("tools/mklink.sh", "ln -s ../README.md src/new.sh\n"),
    ]);
    symlink("../README.md", repo.path().join("src/a.sh")).unwrap();
    symlink("b.sh", repo.path().join("src/c.sh")).unwrap();
    symlink("lib", repo.path().join("pkg")).unwrap();
    commit_all(repo.path(), "scripts");
    let (code, started) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(
        (code, next(&started)),
        (0, ("begin-step", Some(1))),
        "{started}"
    );
    let (_, begun) = repo.trek(&["step-begin", "1"]);
    assert_eq!(next(&begun).0, "implement", "{begun}");
    repo
}

/// The hook's answer to one tool call in the repository: `None` when it
/// lets the call through, else the reason it refuses it.
fn hook(repo: &Repo, tool: &str, tool_input: &Value) -> Option<String> {
    let input = json!({
        "session_id": "s", "transcript_path": "/dev/null", "cwd": repo.path(),
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": tool_input
    });
    let out =
        assert_cmd::Command::from_std(crate::common::env::helper(repo.path(), repo.home.path()))
            .args(["hook", "pre-tool-use"])
            .write_stdin(input.to_string())
            .output()
            .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    if stdout.is_empty() {
        return None;
    }
    let reply = assert_schema("hook-pre-tool-use-output", stdout.trim());
    let specific = &reply["hookSpecificOutput"];
    match specific["permissionDecision"].as_str() {
        Some("deny") => Some(specific["permissionDecisionReason"].as_str()?.to_owned()),
        _ => None,
    }
}

fn bash(repo: &Repo, command: &str) -> Option<String> {
    hook(repo, "Bash", &json!({"command": command}))
}

/// Write, then Edit, of `rel`: both answers.
fn file_tools(repo: &Repo, rel: &str) -> [Option<String>; 2] {
    let path = repo.path().join(rel);
    [
        hook(repo, "Write", &json!({"file_path": path, "content": "x\n"})),
        hook(
            repo,
            "Edit",
            &json!({"file_path": path, "old_string": "echo", "new_string": "printf"}),
        ),
    ]
}

/// Fails unless `reply` refuses the call as outside the step, naming
/// `lands` as where it would write.
fn outside_step(reply: Option<String>, call: &str, lands: &str) {
    let reason = reply.unwrap_or_else(|| panic!("{call}: let through"));
    assert!(
        reason.starts_with("voyage: blocked run-outside-step ")
            && reason.contains(&format!("touches {lands},")),
        "{call}: {reason}"
    );
}

#[test]
fn a_committed_link_in_the_files_opens_the_link_not_its_target() {
    let repo = begun();
    // The target, written directly: closed, whichever tool writes it.
    for command in ["echo x > README.md", "rm README.md", "git rm -q README.md"] {
        outside_step(bash(&repo, command), command, "README.md");
    }
    for reply in file_tools(&repo, "README.md") {
        outside_step(reply, "Write/Edit README.md", "README.md");
    }
    // Through the link: the write lands on the target.
    for command in [
        "echo x > src/a.sh",
        "echo x >> src/a.sh",
        "cp /dev/null src/a.sh",
        "cd src && echo x > a.sh",
    ] {
        outside_step(bash(&repo, command), command, "README.md");
    }
    for reply in file_tools(&repo, "src/a.sh") {
        outside_step(reply, "Write/Edit src/a.sh", "README.md");
    }
    // The link itself is the step's: removed, or pointed at a step file.
    assert_eq!(bash(&repo, "rm src/a.sh"), None);
    assert_eq!(bash(&repo, "ln -sf b.sh src/a.sh"), None);
    outside_step(
        bash(&repo, "ln -sf ../README.md src/a.sh"),
        "ln -sf ../README.md src/a.sh",
        "README.md",
    );
}

#[test]
fn a_link_between_two_step_files_and_a_linked_directory_stay_open() {
    let repo = begun();
    for command in ["echo x > src/c.sh", "echo x > src/b.sh", "rm src/c.sh"] {
        assert_eq!(bash(&repo, command), None, "{command}");
    }
    assert_eq!(file_tools(&repo, "src/c.sh"), [None, None]);
    // `pkg/x.sh` with `pkg -> lib`: the directory above the entry is
    // followed, so the file is the step's by either name.
    for command in ["echo x > pkg/x.sh", "echo x > lib/x.sh"] {
        assert_eq!(bash(&repo, command), None, "{command}");
    }
    assert_eq!(file_tools(&repo, "lib/x.sh"), [None, None]);
    outside_step(bash(&repo, "echo x > lib/y.sh"), "lib/y.sh", "lib/y.sh");
}

#[test]
fn a_link_planted_during_the_step_is_judged_by_what_it_points_to() {
    let repo = begun();
    // Made by a command the hook reads: refused before it runs.
    for command in [
        "ln -s ../README.md src/new.sh",
        "ln -sr README.md src/new.sh",
        "ln README.md src/new.sh",
        "link README.md src/new.sh",
        "cd src && cp -s ../README.md new.sh",
        "cp -l README.md src/new.sh",
        "python3 -c \"import os; os.symlink('../README.md', 'src/new.sh')\"",
        "node -e \"require('fs').symlinkSync('../README.md', 'src/new.sh')\"",
    ] {
        outside_step(bash(&repo, command), command, "README.md");
    }
    // A link to a step file is an ordinary write of the link's path.
    for command in [
        "ln -s b.sh src/new.sh",
        "ln -sr src/b.sh src/new.sh",
        "python3 -c \"import os; os.symlink('b.sh', 'src/new.sh')\"",
    ] {
        assert_eq!(bash(&repo, command), None, "{command}");
    }
    // Made by a program whose text the hook cannot see: the link is made,
    // and every write through it is refused.
    let script = "bash tools/mklink.sh";
    assert_eq!(bash(&repo, script), None, "the script's text is not read");
    run(repo.path(), script);
    assert!(
        std::fs::symlink_metadata(repo.path().join("src/new.sh"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    for command in ["echo x > src/new.sh", "printf x | tee src/new.sh"] {
        outside_step(bash(&repo, command), command, "README.md");
    }
    for reply in file_tools(&repo, "src/new.sh") {
        outside_step(reply, "Write/Edit src/new.sh", "README.md");
    }
    outside_step(bash(&repo, "echo x > README.md"), "README.md", "README.md");
    // Taking the planted link away is the step's.
    assert_eq!(bash(&repo, "rm src/new.sh"), None);
}

/// `command` run by the real bash in `dir`; fails the test when it fails.
fn run(dir: &Path, command: &str) {
    let out = Command::new("bash")
        .args(["-c", command])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
