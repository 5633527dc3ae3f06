//! Writers the run's scope must know before anything runs (issue 38, "a
//! list of writers always has a tail"): programs that write a file their
//! flags name, git's own directory, a descriptor reopened through
//! `/dev/fd/N`, a physical `cd`, a prompt expansion. Each is refused with
//! the path it would write, during a step whose Files do not name it, and
//! the ordinary calls beside them stay allowed. The run is driven as a
//! user's is (`trek start`, `trek step-begin` in a real git repository),
//! and the hook is fed each call as Claude Code sends it.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::os::unix::fs::symlink;

use serde_json::json;

use crate::common::repo::commit_all;
use crate::common::schema::assert_schema;
use crate::trek::{Repo, next};

const PLAN: &str = r#"---
plan_version: 1.7
profile: economy
---
# Plan: one source file

## Context

A small library.

## Implementation Plan

### Step 1: Edit a
- **Files:** `src/a.rs`, `src/new.rs` (new)
- **Changes:** Edit a.
- **Verify:** `bash -n src/v.sh`
- **On failure:** escalate
- **Checkpoint:** `git commit -m "feat: a"`
- **Manifest:**
  ```yaml
  expected_paths: [src/a.rs]
  min_file_count: 1
  commit_message_pattern: "^feat: a$"
  bash_syntax_check: []
  forbidden_paths: []
  must_contain: []
  ```

## Verification

- `bash -n src/v.sh` — the script parses
"#;

/// The repository (with `src/sub` a link to `../lib/inner`), the run
/// started and step 1 begun.
fn begun() -> Repo {
    let repo = Repo::new(PLAN);
    repo.write(&[
        ("src/a.rs", "fn a() {}\n"),
        ("src/v.sh", "true\n"),
        ("lib/a.rs", "fn lib() {}\n"),
        ("lib/inner/x.rs", "fn x() {}\n"),
    ]);
    symlink("../lib/inner", repo.path().join("src/sub")).unwrap();
    commit_all(repo.path(), "sources");
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

/// The hook's answer to a Bash call in the repository: `None` when it
/// lets the call through (fenced or not), else the reason it refuses it.
fn bash(repo: &Repo, command: &str) -> Option<String> {
    let reply = reply(repo, command)?;
    let specific = &reply["hookSpecificOutput"];
    match specific["permissionDecision"].as_str() {
        Some("deny") => Some(specific["permissionDecisionReason"].as_str()?.to_owned()),
        _ => None,
    }
}

/// The hook's whole reply to a Bash call (`None`: no output), checked
/// against its schema.
fn reply(repo: &Repo, command: &str) -> Option<serde_json::Value> {
    let input = json!({
        "session_id": "s", "transcript_path": "/dev/null", "cwd": repo.path(),
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": command}
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
    Some(assert_schema("hook-pre-tool-use-output", stdout.trim()))
}

/// Each command is refused before it runs, with a reason that names the
/// rule and what it would write.
fn refused(repo: &Repo, cases: &[(&str, &str, &str)]) {
    for (command, rule, names) in cases {
        let reason = bash(repo, command).unwrap_or_else(|| panic!("let through: {command}"));
        assert!(
            reason.contains(&format!("blocked {rule} ")) && reason.contains(names),
            "{command}: {reason}"
        );
    }
}

#[test]
fn writers_the_text_names_are_refused_with_what_they_write() {
    let repo = begun();
    let step = "run-outside-step";
    refused(
        &repo,
        &[
            ("script lib/ts", step, "lib/ts"),
            ("script -q -c 'echo hi'", step, "typescript"),
            ("script -q -O lib/out.log -c true", step, "lib/out.log"),
            ("ssh-keygen -q -N '' -f lib/key", step, "lib/key"),
            ("history -w lib/h", step, "lib/h"),
            ("HISTFILE=lib/h bash -c 'history -w'", step, "lib/h"),
            (
                "rsync --remove-source-files README.md src/a.rs",
                step,
                "touches README.md",
            ),
            ("gcc -o README.md src/a.c", step, "README.md"),
            ("tcpdump -w lib/cap.pcap", step, "lib/cap.pcap"),
            ("strace -o lib/trace true", step, "lib/trace"),
            ("chmod +x README.md", step, "README.md"),
            ("exec 3<README.md; echo x > /dev/fd/3", step, "README.md"),
            ("{ echo x > /dev/fd/3; } 3<README.md", step, "README.md"),
            ("set -P; cd src/..; echo x > README.md", step, "README.md"),
            ("cd lib; touch ../README.md", step, "README.md"),
            ("x='$(touch README.md)'; echo ${x@P}", step, "README.md"),
            ("pytest --junitxml=README.md", step, "README.md"),
            ("npm install lodash", step, "package.json"),
            ("cargo add serde", step, "Cargo.toml"),
        ],
    );
}

#[test]
fn git_writes_its_own_directory_and_config_files() {
    let repo = begun();
    let step = "run-outside-step";
    refused(
        &repo,
        &[
            (
                "git add -A",
                step,
                "`git add -A` writes the repository's git directory .git ",
            ),
            ("git commit -qm x", step, "git directory .git "),
            ("git stash", step, "git directory .git "),
            ("git tag v1", step, "git directory .git "),
            ("git branch topic", step, "git directory .git "),
            ("git checkout -- src/a.rs", step, "git directory .git "),
            ("git fetch", step, "git directory .git "),
            // The repository's git directory, found from where git runs.
            ("cd src && git add a.rs", step, "git directory .git "),
            (
                "git -C src restore --staged a.rs",
                step,
                "git directory .git ",
            ),
            ("git config user.name evil", step, "git directory .git "),
            ("git config set user.name evil", step, "git directory .git "),
            ("git config --file lib/x.cfg a.b c", step, "lib/x.cfg"),
            ("GIT_DIR=lib/g git config a.b c", step, "lib/g"),
            (
                "git config --global user.name evil",
                "run-outside-repo",
                ".gitconfig",
            ),
        ],
    );
}

#[test]
fn a_physical_cd_is_placed_where_the_file_system_leads() {
    let repo = begun();
    // `src/sub` is a link to `../lib/inner`: physically, `src/sub/..` is
    // `lib`, and `a.rs` there is not the step's.
    let physical = bash(&repo, "set -P; cd src/sub/.. && echo x > a.rs").unwrap();
    assert!(physical.contains("touches lib/a.rs"), "{physical}");
    let option = bash(&repo, "cd -P src/sub/.. && echo x > a.rs").unwrap();
    assert!(option.contains("touches lib/a.rs"), "{option}");
    // Logically it is `src`, and `src/a.rs` is the step's.
    assert_eq!(bash(&repo, "cd src/sub/.. && echo x > a.rs"), None);
}

#[test]
fn ordinary_calls_beside_them_stay_allowed() {
    let repo = begun();
    for command in [
        "git status",
        "git status --short && git diff",
        "git log --oneline -3",
        "git show --stat HEAD",
        "git branch",
        "git tag",
        "git stash list",
        "git config core.bare",
        "git config --list",
        "git remote -v",
        "cargo test",
        "npm test",
        "make",
        "pytest -q",
        "go test ./...",
        "gcc -c src/a.c",
        "echo x > src/a.rs",
        "cd src && echo x > a.rs",
        "chmod +x src/a.rs",
        "exec 3<README.md; cat <&3",
        "echo x > /dev/fd/1 2> /dev/fd/2",
        "set -P; cd src && echo x > new.rs",
        "history",
        "ssh-keygen -l -f README.md || true",
    ] {
        assert_eq!(bash(&repo, command), None, "{command}");
    }
}

/// A step file rewritten after a `cd` that may fail (`cd src; sed -i …`)
/// is the step's wherever the shell is: where the kernel fences the call,
/// its directory is opened for `sed`'s new file, as after `cd src &&`.
#[test]
fn a_rewrite_after_a_cd_in_doubt_opens_its_directory_in_the_fence() {
    let repo = begun();
    let answer = reply(&repo, "cd src; sed -i s/a/b/ a.rs");
    let Some(command) = answer
        .as_ref()
        .and_then(|a| a["hookSpecificOutput"]["updatedInput"]["command"].as_str())
    else {
        assert_eq!(bash(&repo, "cd src && sed -i s/a/b/ a.rs"), None);
        eprintln!("no kernel fence here: the rewrite is not checked");
        return;
    };
    assert!(command.contains("--dir 'src'"), "{command}");
}
