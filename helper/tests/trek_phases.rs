//! `/trekexecute` driven through `trek`'s phases as calls in this
//! process, with no command line and no child helper (issue 27, point 5):
//! a test per phase (start, step-begin, step-done, finish, release), each
//! on a plan held in this file, a multi-session start, and a whole run
//! through all of them (a
//! failed attempt retried, the finish and the main-merge gate). Each
//! phase's reply is checked as the agent reads it, and the run's files as
//! git and the progress file hold them.
//!
//! Every phase takes the directory it is called in: the tests never move
//! the process, so they can share it.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
// The process's environment is set once, before any test goes on, which
// is what `set_var` needs to be sound (see `environment`).
#![allow(unsafe_code)]

#[path = "common/mod.rs"]
mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::repo::{git, init};
use voyage_helper::internals::trek::{self, Replied};

/// A two-step plan: a script, then its test (the example plan's shape).
const PLAN: &str = r#"---
plan_version: 1.7
profile: economy
---
# Plan: a greeting script with a test

## Context

A tiny shell project: `greet.sh` prints a greeting, `tests/greet.sh` checks it.

## Implementation Plan

### Step 1: Add the greeting script
- **Files:** `greet.sh` (new)
- **Changes:** A bash script that prints `Hello, $1!` (default `world`).
- **Verify:** `bash -n greet.sh && test "$(bash greet.sh Ada)" = "Hello, Ada!"`
- **On failure:** retry — quote the argument
- **Checkpoint:** `git commit -m "feat(greet): add the greeting script"`
- **Manifest:**
  ```yaml
  expected_paths: [greet.sh]
  min_file_count: 1
  commit_message_pattern: "^feat\\(greet\\): add the greeting script$"
  bash_syntax_check: [greet.sh]
  forbidden_paths: [README.md]
  must_contain:
    - {path: greet.sh, pattern: "Hello"}
  ```

### Step 2: Test the default name
- **Files:** `tests/greet.sh` (new)
- **Changes:** A test script that fails unless `bash greet.sh` prints `Hello, world!`.
- **Verify:** `bash tests/greet.sh`
- **On failure:** escalate
- **Checkpoint:** `git commit -m "test(greet): check the default name"`
- **Manifest:**
  ```yaml
  expected_paths: [tests/greet.sh]
  min_file_count: 1
  commit_message_pattern: "^test\\(greet\\): check the default name$"
  bash_syntax_check: [tests/greet.sh]
  forbidden_paths: []
  must_contain:
    - {path: tests/greet.sh, pattern: "Hello, world!"}
  ```

## Verification

- `bash tests/greet.sh` — the default greeting is right
- `bash -n greet.sh` — the script parses
"#;

const GREET: &str = "#!/usr/bin/env bash\necho \"Hello, ${1:-world}!\"\n";
const GREET_TEST: &str =
    "#!/usr/bin/env bash\nset -e\ntest \"$(bash greet.sh)\" = \"Hello, world!\"\n";

/// The data directory every test's runs write to. The environment is set
/// here once, and every test calls this before anything else, so no test
/// reads the environment while it is written.
fn environment() -> &'static Path {
    static DATA: OnceLock<PathBuf> = OnceLock::new();
    DATA.get_or_init(|| {
        let data = tempfile::tempdir().unwrap().keep().join("data");
        // SAFETY: every test waits here before it does anything else, so
        // no other thread of this process reads the environment meanwhile.
        unsafe {
            std::env::set_var("CLAUDE_PLUGIN_DATA", &data);
            std::env::set_var("VOYAGE_DATA_DIR", &data);
            std::env::set_var("GIT_CONFIG_GLOBAL", "/dev/null");
            std::env::set_var("GIT_CONFIG_NOSYSTEM", "1");
            std::env::remove_var("CLAUDE_CODE_ENTRYPOINT");
        }
        data
    })
}

/// A repository holding [`PLAN`] at `plans/plan.md` and a README,
/// committed; the scratch directory is kept with it.
fn repository() -> (tempfile::TempDir, PathBuf) {
    environment();
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    fs::create_dir_all(repo.join("plans")).unwrap();
    fs::write(repo.join("plans/plan.md"), PLAN).unwrap();
    fs::write(repo.join("README.md"), "# greeting\n").unwrap();
    init(&repo);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    (work, repo)
}

/// [`repository`] with the run started, from a directory inside the work
/// tree (not its top), as a session may call it.
fn started() -> (tempfile::TempDir, PathBuf) {
    let (work, repo) = repository();
    let replied = trek::start(&repo.join("plans"), Path::new("plan.md"));
    assert_eq!(
        next(&replied),
        "NEXT: trek step-begin 1",
        "{}",
        replied.text
    );
    (work, repo)
}

fn next(replied: &Replied) -> &str {
    replied.text.lines().last().unwrap_or_default()
}

fn progress(repo: &Path) -> serde_json::Value {
    let text = fs::read_to_string(repo.join("plans/.trekexecute-progress-plan.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn start_sets_the_run_up_from_the_directory_it_is_given() {
    let (_work, repo) = repository();
    let replied = trek::start(&repo, Path::new("plans/plan.md"));
    assert_eq!(replied.exit, 0, "{}", replied.text);
    assert_eq!(replied.json["status"], "in_progress");
    assert_eq!(
        next(&replied),
        "NEXT: trek step-begin 1",
        "{}",
        replied.text
    );
    assert!(replied.text.contains("Steps: 2"), "{}", replied.text);
    // The marker names the plan as found from that directory.
    let marker: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(repo.join(".git/voyage-run.json")).unwrap())
            .unwrap();
    assert_eq!(
        Path::new(marker["plan"].as_str().unwrap()),
        repo.join("plans/plan.md")
    );
    assert_eq!(progress(&repo)["status"], "in_progress");
    // Outside a git work tree nothing is started.
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("plan.md"), PLAN).unwrap();
    let refused = trek::start(outside.path(), Path::new("plan.md"));
    assert_ne!(refused.exit, 0, "{}", refused.text);
    assert!(
        refused.text.contains("is not in a git work tree"),
        "{}",
        refused.text
    );
}

#[test]
fn step_begin_hands_the_step_over_and_holds_its_files() {
    let (_work, repo) = started();
    let begun = trek::step_begin(&repo, 1);
    assert_eq!(begun.exit, 0, "{}", begun.text);
    assert!(begun.text.contains("greet.sh"), "{}", begun.text);
    assert_eq!(begun.json["step"], 1);
    let marker: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(repo.join(".git/voyage-run.json")).unwrap())
            .unwrap();
    assert_eq!(marker["step"], 1);
    assert_eq!(marker["files"], serde_json::json!(["greet.sh"]));
    // A directory with no run in it has no step to begin.
    let elsewhere = tempfile::tempdir().unwrap();
    let refused = trek::step_begin(elsewhere.path(), 1);
    assert_eq!(refused.exit, 2, "{}", refused.text);
}

#[test]
fn step_done_checks_the_work_and_commits_it() {
    let (_work, repo) = started();
    trek::step_begin(&repo, 1);
    // Wrong first: the Verify fails and the attempt is counted.
    fs::write(repo.join("greet.sh"), "#!/usr/bin/env bash\necho Hi\n").unwrap();
    let failed = trek::step_done(&repo, 1);
    assert!(
        failed.text.contains("Attempt 1/3 failed"),
        "{}",
        failed.text
    );
    assert_eq!(progress(&repo)["steps"]["1"]["attempts"], 1);
    trek::step_begin(&repo, 1);
    fs::write(repo.join("greet.sh"), GREET).unwrap();
    let done = trek::step_done(&repo, 1);
    assert!(
        done.text.contains("Step 1: PASS (committed"),
        "{}",
        done.text
    );
    assert_eq!(next(&done), "NEXT: trek step-begin 2", "{}", done.text);
    assert_eq!(
        git(&repo, &["log", "-1", "--format=%s"]).trim(),
        "feat(greet): add the greeting script"
    );
}

#[test]
fn finish_asks_the_gate_and_release_ends_a_hold() {
    let (_work, repo) = started();
    for (n, path, text) in [(1, "greet.sh", GREET), (2, "tests/greet.sh", GREET_TEST)] {
        trek::step_begin(&repo, n);
        fs::create_dir_all(repo.join(path).parent().unwrap()).unwrap();
        fs::write(repo.join(path), text).unwrap();
        let done = trek::step_done(&repo, n);
        assert!(done.text.contains("PASS (committed"), "{}", done.text);
    }
    let asked = trek::finish(&repo, None);
    assert!(
        asked.text.contains("Manifest audit: PASS"),
        "{}",
        asked.text
    );
    assert_eq!(asked.json["next"], "ask-main-merge", "{}", asked.text);
    // The user walks away instead of answering: `trek release` ends the
    // hold and keeps the progress file for a resume.
    assert!(repo.join(".git/voyage-run.json").is_file());
    let released = trek::release(&repo);
    assert_eq!(released.json["status"], "released", "{}", released.text);
    assert!(!repo.join(".git/voyage-run.json").exists());
    assert_eq!(progress(&repo)["status"], "in_progress");
    let again = trek::release(&repo);
    assert_eq!(again.json["status"], "none", "{}", again.text);
}

#[test]
fn start_on_a_multi_session_plan_prepares_wave_one_from_the_directory_given() {
    environment();
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    fs::create_dir_all(repo.join("plans")).unwrap();
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans/valid/multi-session.md"),
        repo.join("plans/plan.md"),
    )
    .unwrap();
    init(&repo);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    let replied = trek::start(&repo, Path::new("plans/plan.md"));
    assert_eq!(replied.exit, 0, "{}", replied.text);
    assert_eq!(replied.json["status"], "handover", "{}", replied.text);
    assert!(
        replied.text.contains("/trekexecute --session"),
        "{}",
        replied.text
    );
    // The orders and worktrees are the repository's, not the process's.
    assert!(
        repo.join(".claude/trekplan-sessions/plan/orders/wave.json")
            .is_file()
    );
    assert!(!repo.join(".git/voyage-run.json").exists());
}

#[test]
fn a_run_goes_through_every_phase_in_process() {
    let (_work, repo) = repository();

    // Phases 1 to 4.
    let started = trek::start(&repo, Path::new("plans/plan.md"));
    assert_eq!(started.exit, 0, "{}", started.text);
    assert_eq!(
        next(&started),
        "NEXT: trek step-begin 1",
        "{}",
        started.text
    );
    assert_eq!(started.json["status"], "in_progress");
    assert!(repo.join(".git/voyage-run.json").is_file());

    // Step 1, first attempt wrong: the Verify fails and the step is retried.
    let begun = trek::step_begin(&repo, 1);
    assert_eq!(begun.exit, 0, "{}", begun.text);
    assert!(begun.text.contains("greet.sh"), "{}", begun.text);
    fs::write(repo.join("greet.sh"), "#!/usr/bin/env bash\necho Hi\n").unwrap();
    let failed = trek::step_done(&repo, 1);
    assert!(
        failed.text.contains("Attempt 1/3 failed"),
        "{}",
        failed.text
    );
    assert_eq!(next(&failed), "NEXT: trek step-begin 1", "{}", failed.text);

    // The retry passes and is committed.
    trek::step_begin(&repo, 1);
    fs::write(
        repo.join("greet.sh"),
        "#!/usr/bin/env bash\necho \"Hello, ${1:-world}!\"\n",
    )
    .unwrap();
    let done = trek::step_done(&repo, 1);
    assert!(
        done.text.contains("Step 1: PASS (committed"),
        "{}",
        done.text
    );
    assert_eq!(next(&done), "NEXT: trek step-begin 2", "{}", done.text);

    // Step 2.
    trek::step_begin(&repo, 2);
    fs::create_dir_all(repo.join("tests")).unwrap();
    fs::write(
        repo.join("tests/greet.sh"),
        "#!/usr/bin/env bash\nset -e\ntest \"$(bash greet.sh)\" = \"Hello, world!\"\n",
    )
    .unwrap();
    let done = trek::step_done(&repo, 2);
    assert!(
        done.text.contains("Step 2: PASS (committed"),
        "{}",
        done.text
    );
    assert_eq!(next(&done), "NEXT: trek finish", "{}", done.text);

    // Phases 7 and 8: the checks pass, the gate is asked, then confirmed.
    let asked = trek::finish(&repo, None);
    assert!(
        asked.text.contains("Manifest audit: PASS"),
        "{}",
        asked.text
    );
    assert_eq!(asked.json["next"], "ask-main-merge", "{}", asked.text);
    let confirmed = trek::finish(&repo, Some(true));
    assert_eq!(confirmed.exit, 0, "{}", confirmed.text);
    assert_eq!(confirmed.json["status"], "completed", "{}", confirmed.text);
    assert!(
        confirmed.json["report"]
            .as_str()
            .unwrap_or_default()
            .contains("**Result:** COMPLETED"),
        "{}",
        confirmed.text
    );

    // What the run left: two checkpoint commits, a clean tree, no marker.
    let log = git(&repo, &["log", "--format=%s"]);
    assert_eq!(
        log.lines().collect::<Vec<_>>(),
        [
            "test(greet): check the default name",
            "feat(greet): add the greeting script",
            "init"
        ]
    );
    assert_eq!(git(&repo, &["status", "--porcelain"]), "");
    assert!(!repo.join(".git/voyage-run.json").exists());
    let progress: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(repo.join("plans/.trekexecute-progress-plan.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(progress["status"], "completed");
    assert_eq!(progress["steps"]["1"]["attempts"], 2);
    // The events and the Phase 9 record went to the data dir, once each.
    // Other tests of this process write there too: this run's lines carry
    // its run id, which its events give with its plan's path.
    let stats = fs::read_to_string(environment().join("trekexecute-stats.jsonl")).unwrap();
    let all: Vec<serde_json::Value> = stats
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let plan = repo.join("plans/plan.md").display().to_string();
    let run_id = &all
        .iter()
        .find(|r| r["payload"]["plan"] == plan.as_str())
        .unwrap()["payload"]["run_id"];
    let records: Vec<&serde_json::Value> = all
        .iter()
        .filter(|r| &r["run_id"] == run_id || &r["payload"]["run_id"] == run_id)
        .collect();
    assert_eq!(
        records.iter().filter(|r| r.get("event").is_none()).count(),
        1,
        "{stats}"
    );
    assert!(
        records.iter().any(|r| r["event"] == "main-merge-approved"),
        "{stats}"
    );
}
