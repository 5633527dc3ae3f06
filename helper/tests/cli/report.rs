//! `report` and the completion gate (issue 13, point 9): the Phase 8 report
//! for each result word against the text expected in
//! `fixtures/report/WORD.expected`, `--json` and the report's own
//! `trekexecute_summary` block against `schemas/summary.schema.json`, the
//! Phase 9 `--stats-record`, and `progress finish --status completed`
//! overridden by each clause of the gate.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::Case;

const WORDS: [&str; 5] = ["completed", "partial", "blocked", "failed", "stopped"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report")
}

/// A temp dir holding the plans and every progress fixture.
fn case() -> Case {
    let case = Case::new(&[]);
    for entry in fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        let keep = path.extension().is_some_and(|e| e == "md" || e == "json");
        if keep {
            fs::copy(&path, case.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    case
}

fn validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/summary.schema.json");
    let schema: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema).unwrap()
}

fn assert_valid(validator: &jsonschema::Validator, doc: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{doc}\n{}", errors.join("\n"));
}

/// The ```json block that ends the text report.
fn summary_block(text: &str) -> Value {
    let start = text.rfind("```json\n").unwrap() + "```json\n".len();
    let end = text[start..].find("```").unwrap() + start;
    serde_json::from_str(&text[start..end]).unwrap()
}

#[test]
fn the_report_of_each_result_word_is_the_expected_text() {
    let case = case();
    for word in WORDS {
        let file = format!("{word}.json");
        let ran = case.run_with(&["report", "--progress", &file]);
        let expected = fs::read_to_string(fixtures().join(format!("{word}.expected"))).unwrap();
        assert_eq!(ran.stdout, expected, "{word}");
        assert_eq!(ran.stderr, "", "{word}");
        assert_eq!(ran.status, i32::from(word != "completed"), "{word}");
    }
}

#[test]
fn json_and_the_summary_block_validate_against_the_schema() {
    let case = case();
    let validator = validator();
    for word in WORDS {
        let file = format!("{word}.json");
        let ran = case.run_with(&["report", "--progress", &file, "--json"]);
        let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert_valid(&validator, &doc);
        assert_eq!(doc["result"], word);
        assert_eq!(doc["trekexecute_summary"]["result"], word);
        let text = case.run_with(&["report", "--progress", &file]);
        let block = summary_block(&text.stdout);
        assert_valid(&validator, &block);
        // The block is the same data the JSON carries.
        assert_eq!(block["trekexecute_summary"], doc["trekexecute_summary"]);
    }
    let bad = json!({"trekexecute_summary": {"result": "done"}});
    assert!(
        !validator.is_valid(&bad),
        "an unknown result word is not a summary"
    );
}

#[test]
fn the_stats_record_is_built_from_the_same_data_with_the_profile() {
    let case = case();
    let ran = case.run_with(&["report", "--progress", "blocked.json", "--stats-record"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(ran.stdout.lines().count(), 1);
    let mut record: Value = serde_json::from_str(&ran.stdout).unwrap();
    let keys: Vec<&String> = record.as_object().unwrap().keys().collect();
    assert_eq!(keys[0], "ts");
    record.as_object_mut().unwrap().remove("ts");
    assert_eq!(
        record,
        json!({
            "plan": "plan.md", "plan_type": "plan", "mode": "execute",
            // Phase 9's words: a blocked run is stopped.
            "result": "stopped",
            "steps_total": 4, "steps_passed": 0, "steps_failed": 0, "steps_skipped": 0,
            "failed_at_step": 0,
            "profile": "premium",
            "phase_models": {"brief": "opus", "execute": "opus", "plan": "opus", "research": "opus", "review": "opus"},
            "profile_source": "default"
        })
    );
    let ran = case.run_with(&[
        "report",
        "--progress",
        "failed.json",
        "--stats-record",
        "--profile",
        "economy",
    ]);
    let record: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        (
            &record["result"],
            &record["profile"],
            &record["profile_source"],
            &record["failed_at_step"]
        ),
        (
            &json!("failed"),
            &json!("economy"),
            &json!("flag"),
            &json!(2)
        )
    );
    // A caller that resolved the profile earlier says where it came from.
    for source in ["flag", "env", "inheritance", "default"] {
        let ran = case.run_with(&[
            "report",
            "--progress",
            "failed.json",
            "--stats-record",
            "--profile",
            "premium",
            "--profile-source",
            source,
        ]);
        assert_eq!(ran.status, 0, "{}", ran.stderr);
        let record: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert_eq!(record["profile_source"], source);
    }
    for refused in [
        &["--profile-source", "default"][..],
        &["--profile", "premium", "--profile-source", "guess"][..],
    ] {
        let mut args = vec!["report", "--progress", "failed.json", "--stats-record"];
        args.extend_from_slice(refused);
        let ran = case.run_with(&args);
        assert_eq!(ran.status, 2, "{refused:?}: {}", ran.stdout);
    }
    let case = case.env("VOYAGE_PROFILE", "balanced");
    let ran = case.run_with(&["report", "--progress", "completed.json", "--stats-record"]);
    let record: Value = serde_json::from_str(&ran.stdout).unwrap();
    crate::common::assert_schema("stats-record", &ran.stdout);
    assert_eq!(
        (&record["profile"], &record["profile_source"]),
        (&json!("balanced"), &json!("env"))
    );
    assert!(record["phase_models"]["execute"].is_string(), "{record}");
    // The record goes to `stats append` as it is.
    let ran = case.run_with_stdin(
        &["stats", "append", "trekexecute"],
        format!("{record}").as_bytes(),
    );
    assert_eq!(ran.status, 0, "{}", ran.stdout);
}

/// `completed.json` with `change` applied, written as `p.json`, then
/// `progress finish --status completed`.
fn finish_completed(
    change: impl FnOnce(&mut Value),
) -> (Case, std::process::ExitStatus, Value, String, String) {
    let case = case();
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(case.path().join("completed.json")).unwrap())
            .unwrap();
    doc["status"] = json!("in_progress");
    change(&mut doc);
    fs::write(case.path().join("p.json"), doc.to_string()).unwrap();
    let out = case
        .command_with(
            &[
                "progress",
                "finish",
                "--status",
                "completed",
                "--file",
                "p.json",
            ]
            .map(String::from),
            b"",
        )
        .output()
        .unwrap();
    let after: Value =
        serde_json::from_str(&fs::read_to_string(case.path().join("p.json")).unwrap()).unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    (case, out.status, after, stdout, stderr)
}

#[test]
fn finish_completed_passes_the_gate_when_all_three_clauses_hold() {
    let (_, status, after, stdout, stderr) = finish_completed(|_| {});
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(after["status"], "completed");
    assert!(after.get("completion_gate").is_none());
    assert_eq!(
        stdout,
        "run in_progress -> completed: 4/4 steps completed\n"
    );
}

#[test]
fn a_failed_plan_verification_overrides_completed_to_failed() {
    let (case, status, after, stdout, stderr) = finish_completed(|d| {
        d["plan_verification"]["status"] = json!("failed");
    });
    assert_eq!(status.code(), Some(1));
    assert_eq!(after["status"], "failed");
    assert_eq!(after["completion_gate"]["from"], "completed");
    assert_eq!(after["completion_gate"]["to"], "failed");
    assert!(
        stderr.contains("error[PROGRESS_COMPLETION_GATE]"),
        "{stderr}"
    );
    assert_eq!(
        stdout,
        "run in_progress -> failed: 4/4 steps completed\n\
         completion gate: completed overridden to failed, because\n  \
         - plan verification (Phase 7) failed\n"
    );
    // The report agrees, and says why.
    let ran = case.run_with(&["report", "--progress", "p.json"]);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stdout.contains(
            "**Result:** FAILED (the completion gate overrode completed)\n\
             **Override:** completed -> failed: plan verification (Phase 7) failed\n"
        ),
        "{}",
        ran.stdout
    );
    assert_eq!(
        ran.stdout
            .matches("plan verification (Phase 7) failed")
            .count(),
        1,
        "the reason is said once: {}",
        ran.stdout
    );
}

#[test]
fn a_drifted_audit_overrides_completed_to_partial() {
    let (_, status, after, stdout, _) = finish_completed(|d| {
        d["manifest_audit"] = json!({"status": "drift", "override": null, "drift_details": [
            {"check": "expected_paths", "expected": "exists", "actual": "missing", "path": "README.md", "step": 3}
        ]});
    });
    assert_eq!(status.code(), Some(1));
    assert_eq!(after["status"], "partial");
    assert!(
        stdout.contains("  - the manifest audit (Phase 7.5) found drift (1 finding)\n"),
        "{stdout}"
    );
    // An audit that never ran is no pass either.
    let (_, status, after, stdout, _) = finish_completed(|d| {
        d.as_object_mut().unwrap().remove("manifest_audit");
    });
    assert_eq!(
        (status.code(), &after["status"]),
        (Some(1), &json!("partial"))
    );
    assert!(stdout.contains("has not run"), "{stdout}");
}

#[test]
fn a_reset_retry_counter_overrides_completed_to_partial() {
    // Step 2 took two attempts: one iteration spent, 24 left. A counter
    // put back to 25 does not reconcile.
    let (case, status, after, stdout, stderr) = finish_completed(|d| {
        d["iterations_remaining"] = json!(25);
    });
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(after["status"], "partial");
    assert!(
        stdout.contains("iterations_remaining is 25, expected 24"),
        "{stdout}"
    );
    assert_eq!(
        after["completion_gate"]["reasons"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // --json says the same, and validates.
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(case.path().join("completed.json")).unwrap())
            .unwrap();
    doc["status"] = json!("in_progress");
    doc["iterations_remaining"] = json!(25);
    fs::write(case.path().join("q.json"), doc.to_string()).unwrap();
    let ran = case.run_with(&[
        "progress",
        "finish",
        "--status",
        "completed",
        "--file",
        "q.json",
        "--json",
    ]);
    assert_eq!(ran.status, 1);
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        (
            &reply["ok"],
            &reply["status"],
            &reply["completion_gate"]["status"]
        ),
        (&json!(false), &json!("partial"), &json!("partial"))
    );
    assert_eq!(reply["problem"]["code"], "PROGRESS_COMPLETION_GATE");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/progress-reply.schema.json");
    let schema: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    assert!(
        jsonschema::draft202012::new(&schema)
            .unwrap()
            .is_valid(&reply),
        "{reply}"
    );
    // The budget variable sets the cap: with 26, 25 left reconciles.
    let case = case.env("TREKEXECUTE_MAX_RECOVERY_ITERATIONS", "26");
    fs::write(case.path().join("q.json"), doc.to_string()).unwrap();
    let ran = case.run_with(&[
        "progress",
        "finish",
        "--status",
        "completed",
        "--file",
        "q.json",
    ]);
    assert_eq!(ran.status, 0, "{}", ran.stdout);
}

#[test]
fn a_plan_that_cannot_be_read_is_said_or_refused() {
    let case = case();
    fs::remove_file(case.path().join("plan.md")).unwrap();
    let ran = case.run_with(&["report", "--progress", "completed.json"]);
    assert_eq!(ran.status, 0);
    assert!(
        ran.stdout.contains("Note: the plan was not read"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("| 1 | — | PASS |"), "{}", ran.stdout);
    let ran = case.run_with(&[
        "report",
        "--progress",
        "completed.json",
        "--plan",
        "plan.md",
    ]);
    assert_eq!(ran.status, 2);
    assert!(ran.stderr.contains("error["), "{}", ran.stderr);
    let ran = case.run_with(&["report", "--progress", "missing.json"]);
    assert_eq!(ran.status, 2);
    assert_eq!(ran.stdout, "");
}

#[test]
fn an_unfinished_run_is_partial_and_a_session_spec_shows_its_exit_condition() {
    let case = case();
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(case.path().join("completed.json")).unwrap())
            .unwrap();
    doc["status"] = json!("in_progress");
    doc["steps"]["3"]["status"] = json!("in_progress");
    fs::write(case.path().join("p.json"), doc.to_string()).unwrap();
    let ran = case.run_with(&["report", "--progress", "p.json", "--json"]);
    assert_eq!(ran.status, 1);
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(report["result"], "partial");
    assert_eq!(report["completion_gate"]["override"]["from"], "in_progress");
    assert_eq!(report["trekexecute_summary"]["steps_not_reached"], 1);
    // A file that says completed over an open step is no completed run.
    doc["status"] = json!("completed");
    fs::write(case.path().join("p.json"), doc.to_string()).unwrap();
    let ran = case.run_with(&["report", "--progress", "p.json", "--json"]);
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(report["result"], "partial", "{report}");

    // A session spec: its Exit Condition, not a plan verification.
    let spec =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans/valid/session-spec.md");
    fs::copy(spec, case.path().join("s2.md")).unwrap();
    let ran = case.run_with(&["progress", "init", "s2.md", "--file", "s.json"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let mut s: Value =
        serde_json::from_str(&fs::read_to_string(case.path().join("s.json")).unwrap()).unwrap();
    s["status"] = json!("completed");
    s["steps"]["4"]["status"] = json!("completed");
    s["manifest_audit"] = json!({"status": "pass", "drift_details": [], "override": null});
    s["exit_condition_checked"] = json!(true);
    s["exit_condition"] = json!({"status": "passed", "summary": {"total": 2, "passed": 2, "failed": 0, "blocked": 0, "unrunnable": 0}, "failed_criteria": []});
    fs::write(case.path().join("s.json"), s.to_string()).unwrap();
    let ran = case.run_with(&["report", "--progress", "s.json"]);
    assert_eq!(ran.status, 0, "{}", ran.stdout);
    assert!(
        ran.stdout.contains(
            "### Exit Condition (Phase 7, session specs)\n\n- **Status:** passed\n- **Criteria:** 2/2 passed, 0 failed, 0 blocked, 0 not run\n"
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("All steps completed. Exit condition: PASS. Plan verification: N/A.\n"),
        "{}",
        ran.stdout
    );
    let block = summary_block(&ran.stdout);
    assert_eq!(block["trekexecute_summary"]["exit_condition"], "pass");
    assert_eq!(block["trekexecute_summary"]["plan_verification"], "n/a");
}

/// A one-step 1.7 plan whose Verification checks `check`.
fn one_step_plan(check: &str) -> String {
    format!(
        "---\nplan_version: 1.7\n---\n# Plan: e2e\n\n## Implementation Plan\n\n### Step 1: Add a\n\
         - **Files:** `a.txt` (new)\n- **Changes:** write a.\n- **Verify:** `test -f a.txt`\n\
         - **On failure:** retry\n- **Checkpoint:** `git commit -m \"feat: add a\"`\n- **Manifest:**\n  ```yaml\n  \
         expected_paths: [a.txt]\n  min_file_count: 1\n  commit_message_pattern: \"^feat: add a$\"\n  \
         bash_syntax_check: []\n  forbidden_paths: []\n  must_contain: []\n  ```\n\n\
         ## Verification\n\n- `{check}` — the check\n"
    )
}

/// The run of `one_step_plan(check)` in a real repository, every record
/// written by the helper itself; then `progress finish --status completed`
/// and `report`.
fn real_run(check: &str) -> (Case, crate::common::Ran, crate::common::Ran) {
    use crate::common::repo::{commit_all, git, init, write};
    let case = Case::new(&[]);
    let dir = case.path();
    init(dir);
    write(
        dir,
        &[
            ("plan.md", &one_step_plan(check)),
            (".gitignore", "p.json\n"),
        ],
    );
    commit_all(dir, "chore: the plan");
    let start = git(dir, &["rev-parse", "HEAD"]).trim().to_owned();
    let run = |args: &[&str]| {
        let ran = case.run_with(args);
        assert!(ran.status <= 1, "{args:?}: {}", ran.stderr);
        ran
    };
    run(&["progress", "init", "plan.md", "--file", "p.json"]);
    run(&[
        "progress",
        "step",
        "1",
        "--status",
        "in_progress",
        "--file",
        "p.json",
    ]);
    write(dir, &[("a.txt", "a\n")]);
    assert_eq!(
        run(&[
            "audit", "step", "--plan", "plan.md", "--step", "1", "--record", "p.json"
        ])
        .status,
        0
    );
    commit_all(dir, "feat: add a");
    let head = git(dir, &["rev-parse", "HEAD"]).trim().to_owned();
    run(&[
        "progress",
        "step",
        "1",
        "--status",
        "completed",
        "--commit",
        &head,
        "--file",
        "p.json",
    ]);
    run(&[
        "audit",
        "checkpoint",
        "--plan",
        "plan.md",
        "--step",
        "1",
        "--record",
        "p.json",
    ]);
    let audit = run(&[
        "audit",
        "session",
        "--plan",
        "plan.md",
        "--progress",
        "p.json",
        "--start",
        &start,
        "--record",
    ]);
    assert_eq!(audit.status, 0, "{}", audit.stdout);
    run(&["criteria", "run", "--plan", "plan.md", "--record", "p.json"]);
    let finish = case.run_with(&[
        "progress",
        "finish",
        "--status",
        "completed",
        "--file",
        "p.json",
    ]);
    let report = case.run_with(&["report", "--progress", "p.json"]);
    (case, finish, report)
}

#[test]
fn a_real_run_is_completed_only_through_the_gate() {
    let (_, finish, report) = real_run("test -f a.txt");
    assert_eq!(finish.status, 0, "{}", finish.stderr);
    assert_eq!(report.status, 0, "{}", report.stdout);
    assert!(
        report.stdout.contains("**Result:** COMPLETED\n"),
        "{}",
        report.stdout
    );
    assert_eq!(
        summary_block(&report.stdout)["trekexecute_summary"]["result"],
        "completed"
    );

    let (case, finish, report) = real_run("test -f b.txt");
    assert_eq!(finish.status, 1, "{}", finish.stdout);
    assert!(
        finish.stdout.contains("completed overridden to failed"),
        "{}",
        finish.stdout
    );
    assert_eq!(report.status, 1);
    let block = summary_block(&report.stdout);
    assert_eq!(
        (
            &block["trekexecute_summary"]["result"],
            &block["trekexecute_summary"]["plan_verification"]
        ),
        (&json!("failed"), &json!("failed"))
    );
    assert!(
        report
            .stdout
            .contains("  - the check: `test -f b.txt` (exit 1)\n"),
        "{}",
        report.stdout
    );
    let p: Value =
        serde_json::from_str(&fs::read_to_string(case.path().join("p.json")).unwrap()).unwrap();
    assert_eq!(p["status"], "failed");
}
