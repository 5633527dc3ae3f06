//! `audit session` (Phase 7.5): a real run of a three-step plan in a
//! repository, then each check broken on its own, the counter tampered
//! with, a sandbox Step 0, and every row of the override table.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{Value, json};

use super::repo::{PlanStep, Repo, plan, valid};
use super::step_zero::sandbox_plan;

fn manifest(paths: &str, n: u32) -> String {
    format!(
        "expected_paths: [{paths}]\nmin_file_count: 1\ncommit_message_pattern: \"^feat: step {n}$\"\nbash_syntax_check: []\nforbidden_paths: [locked.txt]\nmust_contain: []"
    )
}

/// A repository where the plan's three steps ran and committed, as the
/// executor runs them; the start commit.
fn ran() -> (Repo, String) {
    let repo = Repo::new();
    let (m1, m2, m3) = (
        manifest("a.txt", 1),
        manifest("b.txt, scripts/s.sh", 2),
        manifest("c.txt", 3),
    );
    repo.write(
        "plan.md",
        &plan(&[
            PlanStep {
                number: 1,
                files: &["a.txt"],
                subject: "feat: step 1",
                manifest: &m1,
            },
            PlanStep {
                number: 2,
                files: &["b.txt", "scripts/s.sh"],
                subject: "feat: step 2",
                manifest: &m2,
            },
            PlanStep {
                number: 3,
                files: &["c.txt"],
                subject: "feat: step 3",
                manifest: &m3,
            },
        ]),
    );
    repo.write("locked.txt", "do not touch\n");
    let start = repo.commit("chore: the plan");
    assert_eq!(
        repo.run(&["progress", "init", "plan.md", "--file", "p.json"])
            .status,
        0
    );
    for (n, files) in [
        (1, &["a.txt"][..]),
        (2, &["b.txt", "scripts/s.sh"]),
        (3, &["c.txt"]),
    ] {
        step(&repo, n, "in_progress");
        for f in files {
            repo.write(f, "echo done\n");
        }
        step(&repo, n, "completed");
        repo.commit(&format!("feat: step {n}"));
    }
    (repo, start)
}

fn step(repo: &Repo, n: u32, status: &str) {
    let n = n.to_string();
    let ran = repo.run(&[
        "progress", "step", &n, "--status", status, "--file", "p.json",
    ]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
}

/// The run's status as an executor claims it. `completed` is written into
/// the file directly: `progress finish --status completed` applies the
/// completion gate, which needs the very audit these tests run after it.
fn finish(repo: &Repo, status: &str) {
    if status == "completed" {
        let mut p = repo.json("p.json");
        p["status"] = Value::from(status);
        repo.write("p.json", &serde_json::to_string_pretty(&p).unwrap());
        return;
    }
    let ran = repo.run(&["progress", "finish", "--status", status, "--file", "p.json"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
}

fn audit(repo: &Repo, start: &str, record: bool) -> (i32, Value) {
    let mut args = vec![
        "audit",
        "session",
        "--plan",
        "plan.md",
        "--progress",
        "p.json",
        "--start",
        start,
        "--json",
    ];
    if record {
        args.push("--record");
    }
    let ran = repo.run(&args);
    assert!(ran.stderr.is_empty(), "{}", ran.stderr);
    (ran.status, valid("audit-session", &ran.stdout))
}

/// The `check` words of the findings.
fn checks(report: &Value) -> Vec<&str> {
    report["drift_details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["check"].as_str().unwrap())
        .collect()
}

#[test]
fn a_run_done_right_passes_and_stays_completed() {
    let (repo, start) = ran();
    finish(&repo, "completed");
    let (status, report) = audit(&repo, &start, true);
    assert_eq!(status, 0, "{report}");
    assert_eq!(
        (&report["status"], &report["override"], &report["claimed"]),
        (&json!("pass"), &json!(null), &json!("completed"))
    );
    assert_eq!(
        (
            &report["commits"],
            &report["committing_steps"],
            &report["expected_paths"],
            &report["scripts"]
        ),
        (&json!(3), &json!(3), &json!(4), &json!(1))
    );
    assert_eq!(
        report["counter"],
        json!({"cap": 25, "recovery_depth": 0, "retries": 0, "expected": 25, "actual": 25})
    );
    let p = repo.json("p.json");
    assert_eq!(p["status"], "completed");
    assert_eq!(
        p["manifest_audit"],
        json!({"status": "pass", "drift_details": [], "override": null})
    );
    assert_eq!(repo.run(&["progress", "validate", "p.json"]).status, 0);
    let text = repo.run(&[
        "audit",
        "session",
        "--plan",
        "plan.md",
        "--progress",
        "p.json",
        "--start",
        &start,
    ]);
    assert_eq!(
        text.stdout,
        "Manifest audit: PASS (4 expected paths, 3 commits for 3 committing steps, 1 scripts, iterations_remaining 25 of 25)\n"
    );
}

#[test]
fn drift_over_completed_is_overridden_to_partial() {
    let (repo, start) = ran();
    finish(&repo, "completed");
    std::fs::remove_file(repo.path().join("c.txt")).unwrap();
    let (status, report) = audit(&repo, &start, true);
    assert_eq!(status, 1);
    assert_eq!(checks(&report), ["expected_paths"]);
    assert_eq!(
        report["drift_details"][0],
        json!({"check": "expected_paths", "expected": "exists", "actual": "missing", "path": "c.txt", "step": 3})
    );
    assert_eq!(
        report["override"],
        json!({"from": "completed", "to": "partial"})
    );
    let p = repo.json("p.json");
    assert_eq!(p["status"], "partial");
    assert_eq!(p["manifest_audit"]["status"], "drift");
    assert_eq!(
        p["manifest_audit"]["drift_details"],
        report["drift_details"]
    );
    assert_eq!(p["manifest_audit"]["override"], report["override"]);
    assert_eq!(repo.run(&["progress", "validate", "p.json"]).status, 0);
    // A run still in_progress with every step done claims completed.
    let (repo, start) = ran();
    std::fs::remove_file(repo.path().join("a.txt")).unwrap();
    let (_, report) = audit(&repo, &start, false);
    assert_eq!(report["claimed"], "completed");
    assert_eq!(
        report["override"],
        json!({"from": "completed", "to": "partial"})
    );
    let text = repo.run(&[
        "audit",
        "session",
        "--plan",
        "plan.md",
        "--progress",
        "p.json",
        "--start",
        &start,
    ]);
    assert!(
        text.stdout.ends_with(
            "Override: completed -> partial (the audit wins over the executor's report)\n"
        ),
        "{}",
        text.stdout
    );
}

#[test]
fn failed_and_stopped_runs_keep_their_status() {
    for status in ["failed", "stopped"] {
        let (repo, start) = ran();
        finish(&repo, status);
        std::fs::remove_file(repo.path().join("c.txt")).unwrap();
        let (code, report) = audit(&repo, &start, true);
        assert_eq!(code, 1, "{status}");
        assert_eq!(
            (&report["override"], &report["claimed"]),
            (&json!(null), &json!(status))
        );
        let p = repo.json("p.json");
        assert_eq!(p["status"], status, "the drift is informational");
        assert_eq!(p["manifest_audit"]["status"], "drift");
        let text = repo.run(&[
            "audit",
            "session",
            "--plan",
            "plan.md",
            "--progress",
            "p.json",
            "--start",
            &start,
        ]);
        assert!(
            text.stdout.ends_with(&format!(
                "Status stays {status}: the drift is informational\n"
            )),
            "{}",
            text.stdout
        );
    }
}

#[test]
fn a_commit_with_a_subject_no_pattern_declares() {
    let (repo, start) = ran();
    repo.write("a.txt", "more\n");
    let sha = repo.commit("fixup whatever");
    let (status, report) = audit(&repo, &start, false);
    assert_eq!(status, 1);
    assert_eq!(checks(&report), ["commit_count", "commit_message_pattern"]);
    assert_eq!(report["drift_details"][0]["expected"], 3);
    assert_eq!(report["drift_details"][0]["actual"], 4);
    assert_eq!(report["drift_details"][1]["actual"], "fixup whatever");
    assert_eq!(report["drift_details"][1]["commit"], sha);
}

#[test]
fn fewer_commits_than_completed_steps() {
    let (repo, start) = ran();
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    let (_, report) = audit(&repo, &start, false);
    assert_eq!(checks(&report), ["commit_count"]);
    assert_eq!(report["drift_details"][0]["actual"], 2);
}

#[test]
fn a_broken_script_and_a_forbidden_path_since_the_start() {
    let (repo, start) = ran();
    repo.write("scripts/s.sh", "case x in\n");
    repo.write("locked.txt", "touched\n");
    repo.git(&["commit", "-q", "--amend", "-a", "--no-edit"]);
    let (status, report) = audit(&repo, &start, false);
    assert_eq!(status, 1);
    assert_eq!(checks(&report), ["bash_syntax_check", "forbidden_paths"]);
    assert_eq!(report["drift_details"][0]["path"], "scripts/s.sh");
    assert_eq!(report["drift_details"][1]["path"], "locked.txt");
}

#[test]
fn a_tampered_iterations_remaining_fails_the_reconciliation() {
    let (repo, start) = ran();
    // Step 2 is retried once: one iteration spent, honestly.
    let ran_once = {
        let mut p = repo.json("p.json");
        p["steps"]["2"]["attempts"] = json!(2);
        p["iterations_remaining"] = json!(24);
        p
    };
    repo.write("p.json", &ran_once.to_string());
    finish(&repo, "completed");
    let (status, report) = audit(&repo, &start, false);
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["counter"]["retries"], 1);
    // The counter reset by hand: the retry is still there to count.
    let mut p = repo.json("p.json");
    p["iterations_remaining"] = json!(25);
    repo.write("p.json", &p.to_string());
    let (status, report) = audit(&repo, &start, true);
    assert_eq!(status, 1);
    assert_eq!(checks(&report), ["iterations_remaining"]);
    assert_eq!(
        (
            &report["drift_details"][0]["expected"],
            &report["drift_details"][0]["actual"]
        ),
        (&json!(24), &json!(25))
    );
    assert_eq!(repo.json("p.json")["status"], "partial");
    // A recovery level counts too; a missing counter is drift.
    let mut p = repo.json("p.json");
    p["recovery_depth"] = json!(1);
    p["iterations_remaining"] = json!(23);
    repo.write("p.json", &p.to_string());
    assert_eq!(audit(&repo, &start, false).0, 0);
    p.as_object_mut().unwrap().remove("iterations_remaining");
    repo.write("p.json", &p.to_string());
    let (_, report) = audit(&repo, &start, false);
    assert_eq!(report["drift_details"][0]["actual"], json!(null));
    // The cap comes from the environment, as the budget does.
    let mut p = repo.json("p.json");
    p["iterations_remaining"] = json!(8);
    repo.write("p.json", &p.to_string());
    let mut cmd = repo.case.command_with(
        &[
            "audit",
            "session",
            "--plan",
            "plan.md",
            "--progress",
            "p.json",
            "--start",
            &start,
        ]
        .map(String::from),
        b"",
    );
    let out = cmd
        .env("TREKEXECUTE_MAX_RECOVERY_ITERATIONS", "10")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_sandbox_step_0_commits_nothing_and_is_not_counted() {
    let repo = Repo::new();
    repo.write("plan.md", &sandbox_plan("true"));
    let start = repo.commit("chore: plan");
    repo.run(&["progress", "init", "plan.md", "--file", "p.json"]);
    for (n, status) in [(0, "in_progress"), (0, "completed"), (1, "in_progress")] {
        step(&repo, n, status);
    }
    repo.write("a.txt", "a\n");
    step(&repo, 1, "completed");
    repo.commit("feat: add a");
    finish(&repo, "completed");
    let (status, report) = audit(&repo, &start, false);
    assert_eq!(status, 0, "{report}");
    assert_eq!(
        (&report["commits"], &report["committing_steps"]),
        (&json!(1), &json!(1))
    );
}

#[test]
fn a_path_one_step_forbids_and_another_owns_is_not_drift() {
    let repo = Repo::new();
    let (m1, m2) = (
        "expected_paths: [a.txt]\nmin_file_count: 1\ncommit_message_pattern: \"^feat\"\nbash_syntax_check: []\nforbidden_paths: [shared.txt]\nmust_contain: []",
        "expected_paths: [shared.txt]\nmin_file_count: 1\ncommit_message_pattern: \"^feat\"\nbash_syntax_check: []\nforbidden_paths: []\nmust_contain: []",
    );
    repo.write(
        "plan.md",
        &plan(&[
            PlanStep {
                number: 1,
                files: &["a.txt"],
                subject: "feat: a",
                manifest: m1,
            },
            PlanStep {
                number: 2,
                files: &["shared.txt"],
                subject: "feat: shared",
                manifest: m2,
            },
        ]),
    );
    let start = repo.commit("chore: plan");
    repo.run(&["progress", "init", "plan.md", "--file", "p.json"]);
    for (n, file) in [(1, "a.txt"), (2, "shared.txt")] {
        step(&repo, n, "in_progress");
        repo.write(file, "x\n");
        step(&repo, n, "completed");
        repo.commit(&format!("feat: {n}"));
    }
    let (status, report) = audit(&repo, &start, false);
    assert_eq!(status, 0, "{report}");
}

#[test]
fn what_it_cannot_check_is_exit_2() {
    let (repo, start) = ran();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--progress", "p.json", "--start", "nope"],
            "AUDIT_BAD_REVISION",
        ),
        (
            &["--progress", "missing.json", "--start", &start],
            "PROGRESS_NOT_FOUND",
        ),
    ];
    for (extra, code) in cases {
        let mut args = vec!["audit", "session", "--plan", "plan.md"];
        args.extend_from_slice(extra);
        let ran = repo.run(&args);
        assert_eq!(ran.status, 2, "{extra:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains(&format!("error[{code}]")),
            "{extra:?}: {}",
            ran.stderr
        );
    }
}

/// [`ran`], then step 3 undone as `progress revert-step` undoes a failed
/// step: its commit dropped, its record `failed`, the run still
/// `in_progress` (as `trek finish` audits it, before it finalises).
/// `reverted` is written into the record when `with_record`.
fn third_step_failed(with_record: bool) -> (Repo, String) {
    let (repo, start) = ran();
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    assert!(!repo.path().join("c.txt").exists());
    let mut p = repo.json("p.json");
    p["steps"]["3"]["status"] = json!("failed");
    if with_record {
        p["steps"]["3"]["reverted"] =
            json!({"restored": [], "removed": ["c.txt"], "removed_dirs": []});
    }
    repo.write("p.json", &serde_json::to_string_pretty(&p).unwrap());
    (repo, start)
}

#[test]
fn a_step_the_run_reverted_is_not_asked_for_its_expected_paths() {
    let (repo, start) = third_step_failed(true);
    let (code, report) = audit(&repo, &start, false);
    assert_eq!(
        (code, report["status"].clone()),
        (0, json!("pass")),
        "{report}"
    );

    // Without the record the missing path is drift, and the status line
    // of a run still in progress does not claim what it will end as.
    let (repo, start) = third_step_failed(false);
    let (code, report) = audit(&repo, &start, false);
    assert_eq!(code, 1);
    assert_eq!(checks(&report), ["expected_paths"]);
    assert_eq!(report["claimed"], "in_progress");
    let text = repo.run(&[
        "audit",
        "session",
        "--plan",
        "plan.md",
        "--progress",
        "p.json",
        "--start",
        &start,
    ]);
    assert!(
        text.stdout.ends_with(
            "No override: the run does not claim completed, so the drift is informational\n"
        ),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("Status stays"), "{}", text.stdout);
}

#[test]
fn a_completed_step_is_checked_whatever_an_old_revert_record_says() {
    let (repo, start) = ran();
    let mut p = repo.json("p.json");
    p["steps"]["3"]["reverted"] = json!({"removed": ["c.txt"]});
    repo.write("p.json", &serde_json::to_string_pretty(&p).unwrap());
    std::fs::remove_file(repo.path().join("c.txt")).unwrap();
    let (code, report) = audit(&repo, &start, false);
    assert_eq!(code, 1);
    assert_eq!(checks(&report), ["expected_paths"], "{report}");
}
