//! Every side effect said before and when it happens (issue 40): the
//! dry-run and the pre-flight list the run branch, the plan commit, the
//! worktrees and the pushes; the collect names each push and its result;
//! `--no-push` and `VOYAGE_NO_PUSH=1` keep the remote empty across the
//! starts of a run; with no remote one line says so; a refused push is
//! named with git's reason and the wave still merges. Each test has a real
//! bare remote (`git init --bare`) in its temp dir.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::World;
use crate::common::repo;

/// A bare repository beside the work tree, added as its `origin`.
pub(super) fn with_origin(w: &World) -> PathBuf {
    let remote = w.case.path().join("origin.git");
    repo::git(
        w.case.path(),
        &["init", "-q", "--bare", &remote.display().to_string()],
    );
    w.git(&["remote", "add", "origin", &remote.display().to_string()]);
    remote
}

/// The branches the remote holds.
pub(super) fn remote_branches(remote: &Path) -> String {
    repo::git(remote, &["for-each-ref", "--format=%(refname:short)"])
}

/// `trek start ARGS PLAN --json` in the main checkout with `env`; its
/// reply checked against the schema, its lines joined.
fn start(w: &World, args: &[&str], env: &[(&str, &str)]) -> (i32, Value, String) {
    let out = crate::common::env::helper(&w.root, w.case.path())
        .arg("trek")
        .arg("start")
        .args(args)
        .arg(&w.plan)
        .arg("--json")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let reply = crate::common::assert_schema("trek-reply", &stdout);
    let text = reply["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    (out.status.code().unwrap_or(-1), reply, text)
}

fn wave_record(w: &World) -> Value {
    serde_json::from_str(&fs::read_to_string(w.orders().join("wave.json")).unwrap()).unwrap()
}

#[test]
fn the_pushes_are_listed_before_and_named_when_made() {
    let w = World::new();
    let remote = with_origin(&w);

    // Before anything: the dry-run lists every branch the run will push.
    // (Its verdict is not the point: the example plan names a file that
    // does not exist yet.)
    let (_, _, dry) = start(&w, &["--dry-run"], &[]);
    let listed = "pushed to origin as a safety copy: trek/split/session-1, trek/split/session-2, trek/split/session-3";
    assert!(dry.contains(listed), "{dry}");
    assert!(
        dry.contains("- run branch: trek/split/run, created from main"),
        "{dry}"
    );
    assert!(
        dry.contains("- plan commit: none (.claude/plans/split.md is tracked)"),
        "{dry}"
    );
    assert!(
        dry.contains("- wave 1: worktrees session-1, session-2 in .claude/trekplan-sessions/split/worktrees/, on new branches trek/split/session-1, trek/split/session-2"),
        "{dry}"
    );
    assert_eq!(remote_branches(&remote), "", "a dry-run pushes nothing");

    // The first start: the pre-flight lists it again, and the hand-over
    // says what the collect will push.
    let (code, reply, first) = start(&w, &[], &[]);
    assert_eq!(
        (code, reply["status"].as_str()),
        (0, Some("handover")),
        "{first}"
    );
    assert!(first.contains(listed), "{first}");
    assert!(
        first.contains("When the wave is collected: pushes (Hard rule 19): before its merge, each session branch is pushed to origin as a safety copy: trek/split/session-1, trek/split/session-2;"),
        "{first}"
    );
    assert!(wave_record(&w).get("no_push").is_none());

    // The start that collects names each push, before its merge.
    w.wave_one_done();
    let (code, _, second) = start(&w, &[], &[]);
    assert_eq!(code, 0, "{second}");
    assert!(
        second.contains("pushed trek/split/session-1 to origin\nMERGED session 1\npushed trek/split/session-2 to origin\nMERGED session 2\n"),
        "{second}"
    );
    let there = remote_branches(&remote);
    assert!(
        there.contains("trek/split/session-1") && there.contains("trek/split/session-2"),
        "{there}"
    );
}

/// A run started with `--no-push` (or the variable) pushes nothing in
/// any later start, and each reply says the pushes are off and why.
fn pushes_stay_off(args: &[&str], env: &[(&str, &str)], how: &str) {
    let w = World::new();
    let remote = with_origin(&w);
    let (_, _, dry) = start(&w, &[&["--dry-run"], args].concat(), env);
    assert!(
        dry.contains(&format!("- pushes are off ({how}): nothing is pushed")),
        "{dry}"
    );

    let (code, _, first) = start(&w, args, env);
    assert_eq!(code, 0, "{first}");
    assert!(
        first.contains(&format!("pushes are off ({how})")),
        "{first}"
    );
    assert!(
        first.contains(&format!(
            "When the wave is collected: pushes are off ({how}, kept for this run in wave.json)"
        )),
        "{first}"
    );
    assert_eq!(wave_record(&w)["no_push"], how);

    // The next start has neither the flag nor the variable: the record
    // keeps the pushes off, and the wave after it keeps them off too.
    w.wave_one_done();
    let (code, _, second) = start(&w, &[], &[]);
    assert_eq!(code, 0, "{second}");
    assert!(
        second.contains(&format!(
            "pushes are off ({how}, kept for this run in wave.json): nothing is pushed to any remote\nMERGED session 1"
        )),
        "{second}"
    );
    assert!(!second.contains("pushed trek/"), "{second}");
    assert_eq!(wave_record(&w)["no_push"], how, "wave 2 keeps the choice");
    assert_eq!(remote_branches(&remote), "", "the remote holds nothing");
}

#[test]
fn no_push_keeps_the_remote_empty_for_the_whole_run() {
    pushes_stay_off(&["--no-push"], &[], "--no-push");
}

#[test]
fn the_environment_variable_turns_the_pushes_off_too() {
    pushes_stay_off(&[], &[("VOYAGE_NO_PUSH", "1")], "VOYAGE_NO_PUSH=1");
}

#[test]
fn without_a_remote_one_line_says_nothing_is_pushed() {
    let w = World::new();
    let (_, _, dry) = start(&w, &["--dry-run"], &[]);
    assert!(
        dry.contains("- no remote: nothing is pushed (no remote named origin)"),
        "{dry}"
    );
    let (code, _, first) = start(&w, &[], &[]);
    assert_eq!(code, 0, "{first}");
    assert_eq!(first.matches("push").count(), 1, "one line: {first}");
    w.wave_one_done();
    let ran = w.wave(&["wave", "collect"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stdout.matches("push").count(),
        1,
        "one line, nothing attempted: {}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("no remote: nothing is pushed (no remote named origin)\nMERGED session 1\n"),
        "{}",
        ran.stdout
    );
    // The JSON form of another such wave says the same.
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.wave_one_done();
    let (_, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(reply["pushes"], serde_json::json!({"state": "no-remote"}));
    assert_eq!(reply["merges"][0]["pushed"], false);
}

#[test]
fn a_refused_push_is_named_with_gits_reason_and_the_wave_still_merges() {
    let w = World::new();
    let remote = with_origin(&w);
    let hook = remote.join("hooks/pre-receive");
    fs::write(
        &hook,
        "#!/bin/sh\necho 'this remote takes no pushes' >&2\nexit 1\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.wave_one_done();
    let ran = w.wave(&["wave", "collect"]);
    assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains(
            "push of trek/split/session-1 to origin failed: remote: this remote takes no pushes"
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("pre-receive hook declined"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("; the branch stays local\nMERGED session 1\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("Wave 1: 2 sessions merged."),
        "{}",
        ran.stdout
    );
    assert!(
        !ran.stdout.contains(&remote.display().to_string()),
        "the URL is never shown"
    );
    assert_eq!(remote_branches(&remote), "");
    assert!(
        w.root.join("src/store/memory.rs").is_file(),
        "the wave merged"
    );
}

#[test]
fn an_untracked_plan_is_listed_then_its_commit_named_with_its_hash() {
    let w = World::with("repo", super::PLAN, false);
    let (_, _, dry) = start(&w, &["--dry-run"], &[]);
    assert!(
        dry.contains("- plan commit: .claude/plans/split.md is untracked, so it is committed (\"chore: track plan file for parallel execution\")"),
        "{dry}"
    );
    let before = w.git(&["rev-parse", "HEAD"]);
    assert_eq!(
        w.git(&["rev-parse", "HEAD"]),
        before,
        "a dry-run commits nothing"
    );
    let (code, pre) = w.wave_json("wave-preflight", &["wave", "preflight"]);
    assert_eq!(code, 0, "{pre}");
    let head = w.git(&["rev-parse", "HEAD"]).trim().to_owned();
    assert_ne!(head, before.trim());
    assert_eq!(pre["plan_commit"]["sha"], head);
    assert_eq!(
        pre["plan_commit"]["message"],
        "chore: track plan file for parallel execution"
    );
    assert_eq!(
        w.git(&["log", "-1", "--format=%s"]).trim(),
        "chore: track plan file for parallel execution"
    );
    let effects = pre["effects"].as_array().unwrap();
    assert!(
        effects.iter().any(|l| l
            .as_str()
            .unwrap()
            .starts_with("- plan commit: .claude/plans/split.md is untracked")),
        "{pre}"
    );
}

#[test]
fn the_plan_commit_is_named_in_the_reply_of_the_start_that_makes_it() {
    let w = World::with("repo", super::PLAN, false);
    let (code, _, first) = start(&w, &[], &[]);
    assert_eq!(code, 0, "{first}");
    let head = w.git(&["rev-parse", "HEAD"]);
    let listed = first
        .find("- plan commit: .claude/plans/split.md is untracked")
        .unwrap();
    let made = first
        .find(&format!(
            "Plan file committed for worktree visibility: {} \"chore: track plan file for parallel execution\"",
            &head[..12]
        ))
        .unwrap_or_else(|| panic!("{first}"));
    assert!(listed < made, "said before it is made: {first}");
}

#[test]
fn a_single_session_dry_run_lists_the_run_branch_and_no_pushes() {
    let w = World::of_plan(
        "repo",
        "plans/one.md",
        "# Plan\n\n## Implementation Plan\n\n### Step 1: x\n- **Files:** `a.txt`\n- **Changes:** x\n- **Verify:** `true`\n- **On failure:** retry\n- **Checkpoint:** `git commit -m \"feat: a\"`\n\n### Step 2: y\n- **Files:** `b.txt`\n- **Changes:** y\n- **Verify:** `true`\n- **On failure:** retry\n- **Checkpoint:** `git commit -m \"feat: b\"`\n",
        true,
    );
    with_origin(&w);
    let (_, _, dry) = start(&w, &["--dry-run"], &[]);
    assert!(
        dry.contains("- run branch: trek/one/run, created from main; every step's checkpoint commit is made there"),
        "{dry}"
    );
    assert!(
        dry.contains("- checkpoint commits: one per step that passes (2 steps)"),
        "{dry}"
    );
    assert!(
        dry.contains("- pushes: none (a single-session run pushes nothing)"),
        "{dry}"
    );
    assert!(!dry.contains("wave 1"), "{dry}");
}

#[test]
fn no_push_given_to_a_later_collect_holds_for_the_rest_of_the_run() {
    let w = World::new();
    let remote = with_origin(&w);
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    assert!(wave_record(&w).get("no_push").is_none());
    w.wave_one_done();
    let ran = w.wave(&["wave", "collect", "--no-push"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert!(
        ran.stdout
            .starts_with("session 1: completed (completed)\nsession 2: completed (completed)\npushes are off (--no-push): nothing is pushed to any remote\n"),
        "{}",
        ran.stdout
    );
    let merged: Value =
        serde_json::from_str(&fs::read_to_string(w.orders().join("merged-waves.json")).unwrap())
            .unwrap();
    assert_eq!(merged["no_push"], "--no-push");
    // The next wave, prepared without the flag, keeps the pushes off.
    let ran = w.wave(&["wave", "prepare"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains(
            "When the wave is collected: pushes are off (--no-push, kept for this run in wave.json)"
        ),
        "{}",
        ran.stdout
    );
    assert_eq!(wave_record(&w)["no_push"], "--no-push");
    assert_eq!(remote_branches(&remote), "");
}
