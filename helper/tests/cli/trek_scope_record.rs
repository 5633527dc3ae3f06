//! Writes outside a step's Files stay on the record: what `trek
//! step-done`'s scope audit put back, attempt by attempt, is in the
//! progress file, the final report (text, `--json` and the brief report
//! `trek finish` hands back) and the run's stats record. The run is a real
//! one in a real git repository; the out-of-scope writes are made by a
//! program the hook never saw, as an agent's unseen write would be.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::schema::assert_schema;
use crate::trek::{GREET, Repo, TEST, example_plan, next};

/// Runs `script` with `sh` in the repository: a write no tool call shows.
fn unseen_write(repo: &Repo, script: &str) {
    let status = Command::new("sh")
        .args(["-c", script])
        .current_dir(repo.path())
        .status()
        .unwrap();
    assert!(status.success(), "{script}");
}

/// `voyage-helper report --progress FILE ARGS`: its stdout.
fn report(repo: &Repo, args: &[&str]) -> String {
    let out = crate::common::env::helper(repo.path(), repo.home.path())
        .arg("report")
        .arg("--progress")
        .arg(repo.progress())
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "a completed run's report");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Step 1's `step-done` after `script` wrote outside its Files: the
/// attempt fails and is retried, and the reply names the patch, which is
/// returned.
fn caught_and_retried(repo: &Repo, script: &str) -> String {
    repo.trek(&["step-begin", "1"]);
    repo.write(&[("greet.sh", GREET)]);
    unseen_write(repo, script);
    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(next(&done), ("begin-step", Some(1)), "a retry: {done}");
    assert!(done["lines"].to_string().contains("SCOPE VIOLATION"));
    let patch = done["scope"]["patch"].as_str().unwrap().to_owned();
    assert!(
        Path::new(&patch).starts_with(repo.path().join(".git/voyage-scope")),
        "{patch}"
    );
    patch
}

#[test]
fn what_the_scope_audit_put_back_is_in_the_progress_file_the_report_and_the_stats() {
    let repo = Repo::new(&example_plan());
    let (code, start) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    // Attempt 1 rewrites a tracked file and adds an untracked one; attempt
    // 2 appends to the tracked file again; attempt 3 keeps to its Files.
    let first = caught_and_retried(
        &repo,
        "echo hijacked > README.md && mkdir -p notes && echo later > notes/todo.txt",
    );
    let second = caught_and_retried(&repo, "echo again >> README.md");
    assert_ne!(first, second, "a patch per attempt");
    assert!(fs::read_to_string(&first).unwrap().contains("+hijacked"));
    assert!(fs::read_to_string(&second).unwrap().contains("+again"));
    assert_eq!(
        fs::read_to_string(repo.path().join("README.md")).unwrap(),
        "# demo\n",
        "put back"
    );
    assert!(!repo.path().join("notes/todo.txt").exists());

    repo.trek(&["step-begin", "1"]);
    let (_, passed) = repo.trek(&["step-done", "1"]);
    assert_eq!(next(&passed), ("begin-step", Some(2)), "{passed}");
    repo.trek(&["step-begin", "2"]);
    repo.write(&[("tests/greet.sh", TEST)]);
    repo.trek(&["step-done", "2"]);

    // The progress file: one entry per attempt that was caught, kept
    // through the attempt that passed.
    let expected = json!([
        {"attempt": 1, "restored": ["README.md", "notes/todo.txt"], "patch": first},
        {"attempt": 2, "restored": ["README.md"], "patch": second},
    ]);
    let progress = repo.progress_json();
    assert_eq!(progress["steps"]["1"]["status"], "completed", "{progress}");
    assert_eq!(progress["steps"]["1"]["attempts"], 3);
    assert_eq!(progress["steps"]["1"]["scope_violations"], expected);
    assert!(progress["steps"]["2"].get("scope_violations").is_none());
    assert_schema("progress", &progress.to_string());

    // The report `trek finish` hands back, and the stats record it writes.
    let line = format!(
        "- Step 1: attempt 1 put back README.md, notes/todo.txt — patch {first}; attempt 2 put back README.md — patch {second}"
    );
    repo.trek(&["finish"]);
    let (code, finished) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{finished}");
    let brief = finished["report"].as_str().unwrap();
    assert!(brief.contains("### Scope\n"), "{brief}");
    assert!(brief.lines().any(|l| l == line), "{brief}");

    let stats = fs::read_to_string(repo.home.path().join("data/trekexecute-stats.jsonl")).unwrap();
    let records: Vec<&str> = stats
        .lines()
        .filter(|l| l.contains("\"profile_source\""))
        .collect();
    assert_eq!(records.len(), 1, "{stats}");
    let record = assert_schema("stats-record", records[0]);
    assert_eq!(record["scope_put_back"], 3, "{record}");

    // `report`, as text and as JSON.
    let text = report(&repo, &[]);
    let section = text.split("### Scope\n").nth(1).expect(&text);
    assert!(
        section.starts_with(
            "\nWrites outside a step's Files, put back by its scope audit (`git apply PATCH` at the root brings them back):\n"
        ),
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| *l == line).count(), 1, "{text}");
    let data = assert_schema("summary", report(&repo, &["--json"]).trim());
    assert_eq!(data["steps"][0]["scope_violations"], expected, "{data}");
    assert!(data["steps"][1].get("scope_violations").is_none());
    let record: Value = serde_json::from_str(report(&repo, &["--stats-record"]).trim()).unwrap();
    assert_eq!(record["scope_put_back"], 3, "{record}");

    // The patches still bring the writes back.
    crate::common::repo::git(repo.path(), &["apply", &first]);
    assert_eq!(
        fs::read_to_string(repo.path().join("notes/todo.txt")).unwrap(),
        "later\n"
    );
}
