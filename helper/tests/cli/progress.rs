//! `voyage-helper progress …` on real files: every step transition, the
//! retry cap, the budget, resume, finish, validate on what the writers
//! produce and on hand-broken files, and bad input that must leave the file
//! as it was.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Case, Ran};
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/progress")
}

/// A case with `p.json` holding the fresh three-step fixture.
fn fresh() -> (Case, PathBuf) {
    with_file("valid-fresh.json")
}

fn with_file(fixture: &str) -> (Case, PathBuf) {
    let case = Case::new(&[]);
    let path = case.path().join("p.json");
    fs::copy(fixtures().join(fixture), &path).unwrap();
    (case, path)
}

fn doc(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn step(case: &Case, n: &str, status: &str, extra: &[&str]) -> Ran {
    let mut args = vec![
        "progress", "step", n, "--status", status, "--file", "p.json",
    ];
    args.extend_from_slice(extra);
    case.run_with(&args)
}

fn assert_valid(case: &Case) {
    let ran = case.run_with(&["progress", "validate", "p.json"]);
    assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);
}

#[test]
fn validate_passes_good_files_and_names_the_code_of_broken_ones() {
    let mut seen = 0;
    for entry in fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let ran = Case::new(&["progress", "validate", "--json", path.to_str().unwrap()]).run();
        let report: Value = serde_json::from_str(&ran.stdout).unwrap();
        if name.starts_with("valid-") {
            assert_eq!(ran.status, 0, "{name}: {}", ran.stdout);
            assert_eq!(report["valid"], true);
        } else {
            let code = name.split('.').next().unwrap();
            assert_eq!(ran.status, 1, "{name}: {}", ran.stdout);
            let codes: Vec<&str> = report["problems"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["code"].as_str().unwrap())
                .collect();
            assert!(codes.contains(&code), "{name}: {codes:?}");
            assert!(
                report["problems"][0]["file"]
                    .as_str()
                    .unwrap()
                    .ends_with(&name)
            );
        }
        seen += 1;
    }
    assert!(seen >= 15);
}

#[test]
fn validate_text_and_missing_files() {
    let (case, _) = with_file("PROGRESS_BAD_STATUS.step.json");
    let ran = case.run_with(&["progress", "validate", "p.json"]);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stdout.starts_with("error[PROGRESS_BAD_STATUS]: "),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("at /steps/2/status"), "{}", ran.stdout);
    assert!(
        ran.stdout.ends_with("p.json: 1 problem\n"),
        "{}",
        ran.stdout
    );
    let (case, _) = with_file("PROGRESS_NOT_JSON.json");
    let ran = case.run_with(&["progress", "validate", "p.json"]);
    assert!(
        ran.stdout.contains("p.json:2"),
        "a parse error has its line: {}",
        ran.stdout
    );
    let ran = case.run_with(&["progress", "validate", "nope.json"]);
    assert_eq!(ran.status, 2);
    assert!(ran.stdout.contains("PROGRESS_NOT_FOUND"));
}

/// Puts step 1 of a fresh file into `from` (through the CLI), returning
/// the case.
fn step_one_in(from: &str) -> (Case, PathBuf) {
    let (case, path) = fresh();
    let route: &[&str] = match from {
        "pending" => &[],
        "in_progress" => &["in_progress"],
        "completed" => &["in_progress", "completed"],
        "failed" => &["in_progress", "failed"],
        "blocked" => &["in_progress", "blocked"],
        "skipped" => &["skipped"],
        _ => unreachable!(),
    };
    for to in route {
        assert_eq!(step(&case, "1", to, &[]).status, 0, "{from} via {to}");
    }
    (case, path)
}

#[test]
fn every_transition_through_the_cli() {
    let statuses = [
        "pending",
        "in_progress",
        "completed",
        "failed",
        "blocked",
        "skipped",
    ];
    let legal = [
        ("pending", "in_progress"),
        ("pending", "blocked"),
        ("pending", "skipped"),
        ("in_progress", "in_progress"),
        ("in_progress", "completed"),
        ("in_progress", "failed"),
        ("in_progress", "blocked"),
        ("in_progress", "skipped"),
        ("failed", "in_progress"),
        ("failed", "skipped"),
        ("blocked", "in_progress"),
        ("blocked", "skipped"),
        ("skipped", "in_progress"),
    ];
    for from in statuses {
        for to in statuses {
            let (case, path) = step_one_in(from);
            let before = fs::read(&path).unwrap();
            let ran = step(&case, "1", to, &["--json"]);
            let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
            if legal.contains(&(from, to)) {
                assert_eq!(ran.status, 0, "{from} -> {to}: {}", ran.stderr);
                assert_eq!(reply["ok"], true);
                assert_eq!(reply["previous_status"], from);
                let d = doc(&path);
                assert_eq!(d["steps"]["1"]["status"], to);
                assert_eq!(d["current_step"], 1);
                assert_valid(&case);
            } else {
                assert_eq!(ran.status, 1, "{from} -> {to} must be refused");
                assert_eq!(reply["ok"], false);
                assert_eq!(
                    reply["problem"]["code"], "PROGRESS_ILLEGAL_TRANSITION",
                    "{from} -> {to}"
                );
                assert!(ran.stderr.contains("error[PROGRESS_ILLEGAL_TRANSITION]"));
                assert_eq!(
                    fs::read(&path).unwrap(),
                    before,
                    "{from} -> {to} changed the file"
                );
            }
        }
    }
}

#[test]
fn what_each_outcome_records() {
    let (case, path) = fresh();
    let ran = step(&case, "2", "in_progress", &[]);
    assert_eq!(
        ran.stdout,
        "step 2: pending -> in_progress (attempt 1 of 3); 25 recovery/retry iterations left\n"
    );
    let ran = step(
        &case,
        "2",
        "failed",
        &[
            "--error",
            "cargo test: 2 failed",
            "--manifest-audit",
            "fail",
            "--drift",
            r#"[{"check":"expected_paths","reason":"src/a.rs missing"}]"#,
        ],
    );
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let d = doc(&path);
    assert_eq!(d["steps"]["2"]["error"], "cargo test: 2 failed");
    assert_eq!(d["steps"]["2"]["manifest_audit"], "fail");
    assert_eq!(
        d["steps"]["2"]["manifest_drift"][0]["check"],
        "expected_paths"
    );
    assert_eq!(d["status"], "in_progress");

    step(&case, "2", "in_progress", &[]);
    let ran = step(
        &case,
        "2",
        "completed",
        &[
            "--commit",
            "abc1234",
            "--checkpoint-drift",
            r#"{"expected_pattern":"^feat","actual_message":"wip"}"#,
        ],
    );
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let s = &doc(&path)["steps"]["2"];
    assert_eq!(s["status"], "completed");
    assert_eq!(s["commit"], "abc1234");
    assert_eq!(s["manifest_audit"], "pass");
    assert_eq!(s["error"], Value::Null, "a completed step carries no error");
    assert_eq!(s["manifest_drift"], Value::Null);
    assert_eq!(s["checkpoint_drift"]["actual_message"], "wip");
    assert!(s["completed_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(s["attempts"], 2);
    assert_valid(&case);
}

#[test]
fn the_fourth_attempt_is_refused() {
    let (case, path) = fresh();
    for attempt in 1..=3 {
        let ran = step(&case, "1", "in_progress", &["--json"]);
        let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert_eq!(reply["attempts"], attempt);
        assert_eq!(reply["retry"], attempt > 1);
        assert_eq!(reply["iterations_remaining"], 25 - (attempt - 1));
        assert_eq!(step(&case, "1", "failed", &[]).status, 0);
    }
    let before = fs::read(&path).unwrap();
    let ran = step(&case, "1", "in_progress", &[]);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stderr.contains("error[PROGRESS_RETRY_CAP]"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("3 attempts"));
    assert_eq!(fs::read(&path).unwrap(), before);
    // Skipping it is still possible, and the run goes on.
    assert_eq!(step(&case, "1", "skipped", &[]).status, 0);
    assert_eq!(step(&case, "2", "in_progress", &[]).status, 0);
    assert_eq!(doc(&path)["iterations_remaining"], 23);
}

#[test]
fn retries_stop_when_the_budget_is_spent() {
    let (case, path) = fresh();
    let mut d = doc(&path);
    d["iterations_remaining"] = json!(1);
    fs::write(&path, serde_json::to_vec(&d).unwrap()).unwrap();
    for args in [
        ["1", "in_progress"],
        ["1", "failed"],
        ["1", "in_progress"],
        ["1", "failed"],
    ] {
        assert_eq!(step(&case, args[0], args[1], &[]).status, 0);
    }
    assert_eq!(doc(&path)["iterations_remaining"], 0);
    let before = fs::read(&path).unwrap();
    let ran = step(&case, "1", "in_progress", &["--json"]);
    assert_eq!(ran.status, 1);
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(reply["problem"]["code"], "PROGRESS_BUDGET_EXHAUSTED");
    assert_eq!(fs::read(&path).unwrap(), before);
    // A first attempt spends nothing, so another step may still start...
    assert_eq!(step(&case, "2", "in_progress", &[]).status, 0);
    // ...but no step may retry.
    assert_eq!(step(&case, "2", "failed", &[]).status, 0);
    let ran = step(&case, "2", "in_progress", &[]);
    assert!(ran.stderr.contains("PROGRESS_BUDGET_EXHAUSTED"));
}

#[test]
fn resume_point_counts_legacy_passed_and_backfills_the_budget() {
    let (case, path) = with_file("valid-legacy.json");
    let case = case.env("TREKEXECUTE_MAX_RECOVERY_ITERATIONS", "7");
    let ran = case.run_with(&["progress", "resume-point", "--file", "p.json"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stdout,
        "Resuming from step 2. 1/3 steps already completed.\n"
    );
    assert!(ran.stderr.contains("seeded to 7"), "{}", ran.stderr);
    let d = doc(&path);
    assert_eq!(d["iterations_remaining"], 7);
    assert_eq!(
        d["recovery_dispatched"], false,
        "unknown keys survive a rewrite"
    );
    assert_eq!(d["steps"]["2"]["note"], "kept");
    assert_eq!(
        d["steps"]["1"]["status"], "passed",
        "legacy words are not rewritten"
    );
    // Second time: nothing to backfill, nothing written.
    let before = fs::read(&path).unwrap();
    let ran = case.run_with(&["progress", "resume-point", "--file", "p.json", "--json"]);
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(reply["step"], 2);
    assert_eq!(reply["backfilled"], false);
    assert_eq!(fs::read(&path).unwrap(), before);

    let (case, _) = with_file("valid-completed.json");
    let ran = case.run_with(&["progress", "resume-point", "--file", "p.json", "--json"]);
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(reply["step"], Value::Null);
    let ran = case.run_with(&["progress", "resume-point", "--file", "p.json"]);
    assert_eq!(ran.stdout, "All 3 steps completed.\n");
}

#[test]
fn a_bad_budget_variable_falls_back_to_the_default_with_a_warning() {
    let (case, path) = with_file("valid-legacy.json");
    let case = case.env("TREKEXECUTE_MAX_RECOVERY_ITERATIONS", "-3");
    let ran = case.run_with(&[
        "progress",
        "step",
        "2",
        "--status",
        "in_progress",
        "--file",
        "p.json",
    ]);
    assert_eq!(ran.status, 0);
    assert!(
        ran.stderr
            .contains("warning: TREKEXECUTE_MAX_RECOVERY_ITERATIONS=-3"),
        "{}",
        ran.stderr
    );
    assert_eq!(doc(&path)["iterations_remaining"], 25);
}

#[test]
fn finish_records_the_final_status() {
    let (case, path) = fresh();
    let ran = case.run_with(&[
        "progress",
        "finish",
        "--status",
        "completed",
        "--file",
        "p.json",
    ]);
    assert_eq!(ran.status, 1);
    assert!(ran.stderr.contains("PROGRESS_INCOMPLETE"));
    for n in ["1", "2"] {
        step(&case, n, "in_progress", &[]);
        step(&case, n, "completed", &["--commit", "c"]);
    }
    step(&case, "3", "skipped", &["--error", "optional step"]);
    // The completion gate needs the session audit's pass (Phase 7.5).
    let mut d = doc(&path);
    d["manifest_audit"] =
        serde_json::json!({"status": "pass", "drift_details": [], "override": null});
    fs::write(&path, serde_json::to_string_pretty(&d).unwrap()).unwrap();
    let ran = case.run_with(&[
        "progress",
        "finish",
        "--status",
        "completed",
        "--file",
        "p.json",
        "--summary",
        "2 completed, 1 skipped",
        "--plan-verification",
        r#"{"status":"passed","summary":"ok","failed_criteria":[]}"#,
    ]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stdout,
        "run in_progress -> completed: 2/3 steps completed\n"
    );
    let d = doc(&path);
    assert_eq!(d["status"], "completed");
    assert_eq!(d["summary"], "2 completed, 1 skipped");
    assert_eq!(d["plan_verification"]["status"], "passed");
    assert_valid(&case);
    for status in ["failed", "stopped", "partial"] {
        let (case, path) = fresh();
        let ran = case.run_with(&[
            "progress", "finish", "--status", status, "--file", "p.json", "--json",
        ]);
        assert_eq!(ran.status, 0);
        assert_eq!(doc(&path)["status"], status);
    }
}

#[test]
fn bad_input_is_coded_and_leaves_the_file_untouched() {
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &[
                "progress", "step", "1", "--status", "done", "--file", "p.json",
            ],
            1,
            "PROGRESS_BAD_STATUS",
        ),
        (
            &[
                "progress", "step", "1", "--status", "passed", "--file", "p.json",
            ],
            1,
            "PROGRESS_BAD_STATUS",
        ),
        (
            &[
                "progress",
                "step",
                "9",
                "--status",
                "in_progress",
                "--file",
                "p.json",
            ],
            1,
            "PROGRESS_NO_SUCH_STEP",
        ),
        (
            &[
                "progress",
                "step",
                "1",
                "--status",
                "completed",
                "--file",
                "p.json",
            ],
            1,
            "PROGRESS_ILLEGAL_TRANSITION",
        ),
        (
            &[
                "progress", "step", "1", "--status", "pending", "--file", "p.json",
            ],
            1,
            "PROGRESS_ILLEGAL_TRANSITION",
        ),
        (
            &[
                "progress", "step", "1", "--status", "skipped", "--commit", "abc", "--file",
                "p.json",
            ],
            1,
            "PROGRESS_FLAG_NOT_APPLICABLE",
        ),
        (
            &[
                "progress",
                "step",
                "1",
                "--status",
                "in_progress",
                "--error",
                "x",
                "--file",
                "p.json",
            ],
            1,
            "PROGRESS_FLAG_NOT_APPLICABLE",
        ),
        (
            &[
                "progress",
                "step",
                "1",
                "--status",
                "failed",
                "--drift",
                "{not json",
                "--file",
                "p.json",
            ],
            1,
            "PROGRESS_NOT_JSON",
        ),
        (
            &[
                "progress", "step", "1", "--status", "failed", "--drift", "{}", "--file", "p.json",
            ],
            1,
            "PROGRESS_NOT_JSON",
        ),
        (
            &[
                "progress",
                "step",
                "1",
                "--status",
                "completed",
                "--checkpoint-drift",
                "[]",
                "--file",
                "p.json",
            ],
            1,
            "PROGRESS_NOT_JSON",
        ),
        (
            &["progress", "finish", "--status", "done", "--file", "p.json"],
            1,
            "PROGRESS_BAD_STATUS",
        ),
        (
            &[
                "progress",
                "finish",
                "--status",
                "in_progress",
                "--file",
                "p.json",
            ],
            1,
            "PROGRESS_BAD_STATUS",
        ),
        (
            &[
                "progress",
                "finish",
                "--status",
                "failed",
                "--plan-verification",
                "[]",
                "--file",
                "p.json",
            ],
            1,
            "PROGRESS_NOT_JSON",
        ),
        (
            &[
                "progress",
                "finish",
                "--status",
                "failed",
                "--plan-verification",
                r#"{"status":"meh"}"#,
                "--file",
                "p.json",
            ],
            1,
            "PROGRESS_BAD_VALUE",
        ),
        (
            &[
                "progress",
                "step",
                "1",
                "--status",
                "in_progress",
                "--file",
                "missing.json",
            ],
            2,
            "PROGRESS_NOT_FOUND",
        ),
        (
            &["progress", "show", "--file", "missing.json"],
            2,
            "PROGRESS_NOT_FOUND",
        ),
        (
            &["progress", "step", "1", "--status", "in_progress"],
            2,
            "PROGRESS_NO_TARGET",
        ),
    ];
    for (args, status, code) in cases {
        let (case, path) = fresh();
        let before = fs::read(&path).unwrap();
        let ran = case.run_with(args);
        assert_eq!(ran.status, *status, "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains(&format!("error[{code}]")),
            "{args:?}: {}",
            ran.stderr
        );
        assert_eq!(
            fs::read(&path).unwrap(),
            before,
            "{args:?} changed the file"
        );
        assert_eq!(
            fs::read_dir(case.path()).unwrap().count(),
            1,
            "{args:?} left a file behind"
        );
    }
    // Step 0 is a step number like any other (the sandbox pre-flight);
    // this file has none.
    let (case, _) = fresh();
    let ran = step(&case, "0", "in_progress", &[]);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stderr.contains("error[PROGRESS_NO_SUCH_STEP]"),
        "{}",
        ran.stderr
    );
}

#[test]
fn broken_files_are_refused_and_kept_as_they_are() {
    for fixture in [
        "PROGRESS_NOT_JSON.json",
        "PROGRESS_NOT_OBJECT.json",
        "PROGRESS_BAD_STATUS.step.json",
        "PROGRESS_BAD_BUDGET.negative.json",
        "PROGRESS_MISSING_KEY.steps.json",
    ] {
        let (case, path) = with_file(fixture);
        let before = fs::read(&path).unwrap();
        for args in [
            &[
                "progress",
                "step",
                "1",
                "--status",
                "in_progress",
                "--file",
                "p.json",
            ][..],
            &["progress", "resume-point", "--file", "p.json"],
            &[
                "progress", "finish", "--status", "failed", "--file", "p.json",
            ],
            &["progress", "show", "--file", "p.json"],
        ] {
            let ran = case.run_with(args);
            assert_eq!(ran.status, 2, "{fixture} {args:?}");
            assert!(
                ran.stderr.contains("error[PROGRESS_"),
                "{fixture}: {}",
                ran.stderr
            );
            assert_eq!(fs::read(&path).unwrap(), before, "{fixture} {args:?}");
        }
    }
}

#[test]
fn a_directory_in_the_way_is_exit_2() {
    let case = Case::new(&[]);
    fs::create_dir(case.path().join("p.json")).unwrap();
    let ran = step(&case, "1", "in_progress", &[]);
    assert_eq!(ran.status, 2);
    assert!(ran.stderr.contains("PROGRESS_NOT_A_FILE"), "{}", ran.stderr);
}

#[test]
fn the_file_is_found_from_a_project_or_a_plan() {
    let case = Case::new(&[]);
    let fresh = fs::read(fixtures().join("valid-fresh.json")).unwrap();
    fs::create_dir_all(case.path().join("proj")).unwrap();
    fs::create_dir_all(case.path().join("plans")).unwrap();
    for file in [
        "proj/progress.json",
        "proj/progress-session-2.json",
        "plans/.trekexecute-progress-auth.json",
        "plans/.trekexecute-progress-auth-session-3.json",
    ] {
        fs::write(case.path().join(file), &fresh).unwrap();
    }
    for (args, file) in [
        (&["--project", "proj"][..], "proj/progress.json"),
        (
            &["--project", "proj/", "--session", "2"],
            "proj/progress-session-2.json",
        ),
        (
            &["--project", "proj", "--plan", "plans/auth.md"],
            "proj/progress.json",
        ),
        (
            &["--plan", "plans/auth.md"],
            "plans/.trekexecute-progress-auth.json",
        ),
        (
            &["--plan", "plans/auth.md", "--session", "3"],
            "plans/.trekexecute-progress-auth-session-3.json",
        ),
    ] {
        let mut all = vec!["progress", "step", "1", "--status", "in_progress", "--json"];
        all.extend_from_slice(args);
        let ran = case.run_with(&all);
        assert_eq!(ran.status, 0, "{args:?}: {}", ran.stderr);
        let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert!(
            reply["path"].as_str().unwrap().ends_with(
                file.trim_start_matches("proj/")
                    .trim_start_matches("plans/")
            ),
            "{args:?}: {}",
            reply["path"]
        );
        assert_eq!(
            doc(&case.path().join(file))["steps"]["1"]["status"],
            "in_progress"
        );
    }
}

#[test]
fn show_prints_a_table_and_the_json_document() {
    let (case, path) = fresh();
    step(&case, "1", "in_progress", &[]);
    step(&case, "1", "completed", &["--commit", "0123456789abcdef"]);
    step(&case, "2", "in_progress", &[]);
    step(
        &case,
        "2",
        "failed",
        &["--error", "verify failed\nsecond line"],
    );
    let ran = case.run_with(&["progress", "show", "--file", "p.json"]);
    assert_eq!(ran.status, 0);
    let lines = ran.lines();
    assert_eq!(lines[0], "progress  p.json");
    assert_eq!(
        lines[1],
        "plan      .claude/plans/auth.md (plan, version 1.7)"
    );
    assert_eq!(
        lines[2],
        "run       in_progress, mode execute, current step 2"
    );
    assert_eq!(
        lines[3],
        "steps     1 of 3 completed, 1 failed, 0 skipped, 0 blocked, 0 in progress, 1 pending"
    );
    assert_eq!(lines[4], "budget    25 recovery/retry iterations left");
    let row1 = lines
        .iter()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap();
    assert!(
        row1.contains("completed") && row1.contains("1/3") && row1.contains("0123456789"),
        "{row1}"
    );
    let row2 = lines
        .iter()
        .find(|l| l.trim_start().starts_with("2 "))
        .unwrap();
    assert!(row2.ends_with("verify failed"), "{row2}");
    let ran = case.run_with(&["progress", "show", "--file", "p.json", "--json"]);
    let shown: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(shown, doc(&path));
}

fn plan_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/plans/valid")
        .join(name)
}

#[test]
fn init_from_each_kind_of_plan() {
    for (plan, plan_type, version, steps) in [
        ("v17-single.md", "plan", "1.7", 3),
        ("legacy.md", "plan", "legacy", 2),
        ("session-spec.md", "session-spec", "1.7", 1),
        ("multi-session.md", "plan", "1.7", 4),
    ] {
        let case = Case::new(&[]).env("TREKEXECUTE_MAX_RECOVERY_ITERATIONS", "9");
        fs::create_dir(case.path().join("plans")).unwrap();
        fs::copy(plan_fixture(plan), case.path().join("plans").join(plan)).unwrap();
        let plan_arg = format!("plans/{plan}");
        let ran = case.run_with(&["progress", "init", "--plan", &plan_arg]);
        assert_eq!(ran.status, 0, "{plan}: {}", ran.stderr);
        let slug = plan.trim_end_matches(".md");
        let file = case
            .path()
            .join(format!("plans/.trekexecute-progress-{slug}.json"));
        assert_eq!(
            ran.stdout,
            format!(
                "created plans/.trekexecute-progress-{slug}.json: {steps} steps pending, 9 recovery/retry iterations\n"
            )
        );
        let d = doc(&file);
        assert_eq!(d["plan"], plan_arg);
        assert_eq!(d["plan_type"], plan_type, "{plan}");
        assert_eq!(d["plan_version"], version, "{plan}");
        assert_eq!(d["mode"], "execute");
        assert_eq!(d["status"], "in_progress");
        assert_eq!(d["total_steps"], steps);
        assert_eq!(d["iterations_remaining"], 9);
        assert_eq!(d["steps"].as_object().unwrap().len(), steps);
        for record in d["steps"].as_object().unwrap().values() {
            assert_eq!(record["status"], "pending");
            assert_eq!(record["attempts"], 0);
        }
        let ran = case.run_with(&["progress", "validate", file.to_str().unwrap()]);
        assert_eq!(ran.status, 0, "{plan}: {}", ran.stdout);
    }
}

#[test]
fn init_for_a_project_and_a_session() {
    let case = Case::new(&[]);
    fs::create_dir(case.path().join("proj")).unwrap();
    fs::copy(
        plan_fixture("multi-session.md"),
        case.path().join("proj/plan.md"),
    )
    .unwrap();
    let ran = case.run_with(&["progress", "init", "--project", "proj"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert!(case.path().join("proj/progress.json").is_file());
    let ran = case.run_with(&[
        "progress",
        "init",
        "--project",
        "proj",
        "--session",
        "2",
        "--json",
    ]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let reply: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert!(
        reply["path"]
            .as_str()
            .unwrap()
            .ends_with("proj/progress-session-2.json")
    );
    let d = doc(&case.path().join("proj/progress-session-2.json"));
    assert_eq!(d["mode"], "session");
    let session_steps: Vec<&String> = d["steps"].as_object().unwrap().keys().collect();
    assert!(
        !session_steps.is_empty() && session_steps.len() < 4,
        "{session_steps:?}"
    );
    let ran = case.run_with(&["progress", "init", "--project", "proj", "--session", "9"]);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stderr.contains("PROGRESS_NO_SUCH_SESSION"),
        "{}",
        ran.stderr
    );
    assert!(!case.path().join("proj/progress-session-9.json").exists());
}

#[test]
fn init_over_an_existing_file_follows_the_mode() {
    let case = Case::new(&[]);
    fs::create_dir(case.path().join("proj")).unwrap();
    fs::copy(
        plan_fixture("v17-single.md"),
        case.path().join("proj/plan.md"),
    )
    .unwrap();
    let file = case.path().join("proj/progress.json");
    assert_eq!(
        case.run_with(&["progress", "init", "--project", "proj"])
            .status,
        0
    );
    let step1 = [
        "progress",
        "step",
        "1",
        "--status",
        "in_progress",
        "--project",
        "proj",
    ];
    assert_eq!(case.run_with(&step1).status, 0);
    let started = fs::read(&file).unwrap();
    // resume and step keep an existing file as it is.
    for mode in ["resume", "step"] {
        let ran = case.run_with(&["progress", "init", "--project", "proj", "--mode", mode]);
        assert_eq!(ran.status, 0);
        assert_eq!(
            ran.stdout,
            format!("kept proj/progress.json ({mode}): 0/3 steps completed\n")
        );
        assert_eq!(fs::read(&file).unwrap(), started);
    }
    // A fresh execute over an unfinished run warns, then starts fresh.
    let ran = case.run_with(&["progress", "init", "--project", "proj"]);
    assert_eq!(ran.status, 0);
    assert!(
        ran.stdout
            .starts_with("replaced proj/progress.json: 3 steps pending")
    );
    assert!(
        ran.stderr
            .contains("unfinished run (in_progress, 0/3 steps completed); --resume continues it"),
        "{}",
        ran.stderr
    );
    assert_eq!(doc(&file)["steps"]["1"]["status"], "pending");
    // A broken file: execute replaces it (with a warning); resume refuses
    // and keeps it.
    fs::write(&file, "{ broken").unwrap();
    let ran = case.run_with(&["progress", "init", "--project", "proj", "--mode", "resume"]);
    assert_eq!(ran.status, 2);
    assert!(ran.stderr.contains("PROGRESS_NOT_JSON"));
    assert_eq!(fs::read_to_string(&file).unwrap(), "{ broken");
    let ran = case.run_with(&["progress", "init", "--project", "proj"]);
    assert_eq!(ran.status, 0);
    assert!(ran.stderr.contains("not a valid progress file"));
    assert_valid_file(&case, &file);
}

fn assert_valid_file(case: &Case, file: &Path) {
    let ran = case.run_with(&["progress", "validate", file.to_str().unwrap()]);
    assert_eq!(ran.status, 0, "{}", ran.stdout);
}

#[test]
fn init_refuses_what_is_not_a_plan() {
    let case = Case::new(&[]);
    fs::write(
        case.path().join("notes.md"),
        "# Just notes\n\nNothing to run.\n",
    )
    .unwrap();
    for (args, status, code) in [
        (
            &["progress", "init", "--plan", "notes.md"][..],
            1,
            "PLAN_UNRECOGNIZED_FORMAT",
        ),
        (
            &["progress", "init", "--plan", "missing.md"],
            2,
            "PLAN_UNREADABLE",
        ),
        (
            &["progress", "init", "--project", "nowhere"],
            2,
            "PLAN_UNREADABLE",
        ),
        (&["progress", "init"], 2, "PROGRESS_NO_TARGET"),
        (
            &[
                "progress",
                "init",
                "--plan",
                "notes.md",
                "--mode",
                "sometimes",
            ],
            2,
            "PROGRESS_BAD_MODE",
        ),
    ] {
        let ran = case.run_with(args);
        assert_eq!(ran.status, status, "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains(code), "{args:?}: {}", ran.stderr);
    }
    assert_eq!(
        fs::read_dir(case.path()).unwrap().count(),
        1,
        "nothing written"
    );
}
