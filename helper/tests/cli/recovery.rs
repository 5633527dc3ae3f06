//! `recovery spec` (issue 13, point 8; Phase 7.6) on real git
//! repositories: the spec written at depth 0 and 1, refused at 2 with
//! RECOVERY_EXHAUSTED; only the missing steps, their manifests kept, Step 0
//! prepended and `## Recovery Metadata`; the spec itself passes `plan
//! validate` (a trekplan with gaps, a session spec, a legacy plan); the
//! dispatch recorded in the parent's progress file.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::repo::{commit_all, git, init, write};
use crate::common::{Case, Ran};

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"))
}

/// A repository holding `plan` (copied from the fixtures) as `name`, with
/// one commit.
fn repo(plan: &str, name: &str) -> Case {
    let case = Case::new(&[]);
    init(case.path());
    fs::copy(fixtures().join(plan), case.path().join(name)).unwrap();
    commit_all(case.path(), "chore: the plan");
    case
}

fn doc(case: &Case, rel: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(case.path().join(rel)).unwrap()).unwrap()
}

fn put(case: &Case, rel: &str, value: &Value) {
    fs::write(case.path().join(rel), value.to_string()).unwrap();
}

fn spec(case: &Case, plan: &str, json: bool) -> Ran {
    let mut args = vec![
        "recovery",
        "spec",
        "--plan",
        plan,
        "--progress",
        "p.json",
        "--out",
        "rec",
    ];
    if json {
        args.push("--json");
    }
    case.run_with(&args)
}

fn valid_reply(output: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/recovery-spec.schema.json");
    let schema: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let reply: Value = serde_json::from_str(output).unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&reply)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{reply}\n{}", errors.join("\n"));
    reply
}

/// `plan validate` on a written spec: READY, exit 0, no warning.
fn assert_validates(case: &Case, spec: &str) {
    let ran = case.run_with(&["plan", "validate", "--fail-on-warnings", "--json", spec]);
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        (ran.status, &report["status"]),
        (0, &json!("READY")),
        "{}\n{}",
        ran.stdout,
        fs::read_to_string(case.path().join(spec)).unwrap()
    );
}

/// The report fixture plan (Steps 0 to 3) with a progress file whose
/// session audit found steps 1 and 3 missing; step 2 is done.
fn drifted_trekplan() -> Case {
    let case = repo("report/plan.md", "plan.md");
    let mut p = doc_from_fixture("report/completed.json");
    p["status"] = json!("partial");
    p["steps"]["3"]["status"] = json!("failed");
    p["steps"]["3"]["attempts"] = json!(1);
    p["manifest_audit"] = json!({"status": "drift", "override": {"from": "completed", "to": "partial"}, "drift_details": [
        {"check": "expected_paths", "expected": "exists", "actual": "missing", "path": "src/store.rs", "step": 1},
        {"check": "forbidden_paths", "expected": "untouched", "actual": "changed", "path": "x", "step": 2}
    ]});
    put(&case, "p.json", &p);
    case
}

fn doc_from_fixture(rel: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(fixtures().join(rel)).unwrap()).unwrap()
}

#[test]
fn depth_0_then_1_are_written_and_depth_2_is_exhausted() {
    let case = drifted_trekplan();
    let before = doc(&case, "p.json")["iterations_remaining"]
        .as_u64()
        .unwrap();

    // Depth 0: session-1-recovery-1.md.
    let ran = spec(&case, "plan.md", true);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let reply = valid_reply(&ran.stdout);
    assert_eq!(
        (
            &reply["status"],
            &reply["new_depth"],
            &reply["missing_steps"]
        ),
        (&json!("written"), &json!(1), &json!([1, 3]))
    );
    let head = git(case.path(), &["rev-parse", "HEAD"]).trim().to_owned();
    assert_eq!(reply["entry_sha"], json!(head));
    let written = fs::read_to_string(case.path().join("rec/session-1-recovery-1.md")).unwrap();
    assert_validates(&case, "rec/session-1-recovery-1.md");
    // Only the missing steps, after Step 0; their manifests kept.
    let zero = written.find("### Step 0: Sandbox pre-flight").unwrap();
    let one = written.find("### Step 1: Add the store").unwrap();
    let three = written.find("### Step 3: Document it").unwrap();
    assert!(zero < one && one < three, "{written}");
    assert!(!written.contains("### Step 2"), "{written}");
    assert!(
        written.contains("  commit_message_pattern: \"^feat\\\\(store\\\\): \"\n"),
        "{written}"
    );
    assert!(written.contains("  sandbox_preflight: true\n"), "{written}");
    for line in [
        "## Recovery Metadata",
        "recovery_of: \"plan.md\"",
        "recovery_depth: 1",
        "missing_steps: [1, 3]",
        &format!("entry_condition_override: \"previous partial session committed at {head}\""),
        "parent_progress_file: \"p.json\"",
        // A trekplan's Verification becomes the Exit Condition.
        "- [ ] `cargo test` — the whole suite passes",
    ] {
        assert!(written.contains(line), "{line}\n{written}");
    }
    let p = doc(&case, "p.json");
    assert_eq!(
        (
            &p["recovery_dispatched"],
            &p["recovery_depth"],
            &p["recovery_spec"]
        ),
        (
            &json!(true),
            &json!(1),
            &json!("rec/session-1-recovery-1.md")
        )
    );
    // One budget iteration spent, so the counter still reconciles.
    assert_eq!(p["iterations_remaining"].as_u64().unwrap(), before - 1);

    // Depth 1: session-1-recovery-2.md, in text.
    let ran = spec(&case, "plan.md", false);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.starts_with(
            "Recovery spec: rec/session-1-recovery-2.md (steps 1, 3)\n\nRecovery order: session 1, depth 2\n"
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("    /trekexecute --session 1 rec/session-1-recovery-2.md\n"),
        "{}",
        ran.stdout
    );
    assert_validates(&case, "rec/session-1-recovery-2.md");
    let written = fs::read_to_string(case.path().join("rec/session-1-recovery-2.md")).unwrap();
    assert!(written.contains("recovery_depth: 2\n"), "{written}");
    assert_eq!(doc(&case, "p.json")["recovery_depth"], 2);

    // Depth 2: no third recovery.
    let before = fs::read(case.path().join("p.json")).unwrap();
    let ran = spec(&case, "plan.md", false);
    assert_eq!(ran.status, 1);
    assert_eq!(
        ran.stdout,
        "RECOVERY EXHAUSTED: session 1 drifted after 2 recovery attempts.\n\
         Missing: step 1 (Add the store), step 3 (Document it)\n\
         Status: partial (recovery_depth=2, escalated to user)\n"
    );
    assert!(
        ran.stderr.contains("error[RECOVERY_EXHAUSTED]"),
        "{}",
        ran.stderr
    );
    assert!(!case.path().join("rec/session-1-recovery-3.md").exists());
    assert_eq!(fs::read(case.path().join("p.json")).unwrap(), before);
    let ran = spec(&case, "plan.md", true);
    let reply = valid_reply(&ran.stdout);
    assert_eq!(
        (&reply["status"], &reply["problem"]["code"]),
        (&json!("exhausted"), &json!("RECOVERY_EXHAUSTED"))
    );
}

#[test]
fn a_session_spec_recovery_keeps_its_fence_and_exit_condition_and_its_entry_is_decided() {
    let case = repo("plans/valid/session-spec.md", "s2.md");
    let helper = |args: &[&str]| {
        let ran = case.run_with(args);
        assert!(ran.status <= 1, "{args:?}: {}", ran.stderr);
        ran
    };
    helper(&["progress", "init", "s2.md", "--file", "p.json"]);
    helper(&[
        "progress",
        "step",
        "4",
        "--status",
        "in_progress",
        "--file",
        "p.json",
    ]);
    helper(&[
        "progress",
        "step",
        "4",
        "--status",
        "completed",
        "--file",
        "p.json",
    ]);
    // The executor says done; nothing was written or committed.
    let start = git(case.path(), &["rev-parse", "HEAD"]).trim().to_owned();
    let audit = helper(&[
        "audit",
        "session",
        "--plan",
        "s2.md",
        "--progress",
        "p.json",
        "--start",
        &start,
        "--record",
    ]);
    assert_eq!(audit.status, 1, "{}", audit.stdout);
    let ran = spec(&case, "s2.md", false);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let file = "rec/session-2-recovery-1.md";
    assert_validates(&case, file);
    let written = fs::read_to_string(case.path().join(file)).unwrap();
    for line in [
        "# Session 2: HTTP layer (recovery 1)\n",
        "- Touch: `src/http/`, `tests/http.rs`\n",
        "- Never touch: `src/store/`, `migrations/`\n",
        "## Session Manifest\n\n```yaml\nexpected_paths: [src/http/mod.rs, tests/http.rs]\n",
        "### Step 4: Add the router\n",
        "    - {path: src/http/mod.rs, pattern: \"/health\"}\n",
        "## Exit Condition\n\n- [ ] `cargo test --test http` passes\n",
    ] {
        assert!(written.contains(line), "{line}\n{written}");
    }
    let ran = case.run_with(&["entry", "check", "--plan", file]);
    assert_eq!(ran.status, 0, "{}", ran.stdout);
    // The spec's own progress file starts from it like any session spec.
    let ran = case.run_with(&["progress", "init", file, "--file", "r.json"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let steps: Vec<String> = doc(&case, "r.json")["steps"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(steps, ["0", "4"]);
    // It runs at depth 1, one iteration spent, so its own gate reconciles.
    let r = doc(&case, "r.json");
    assert_eq!(
        (&r["recovery_depth"], &r["iterations_remaining"]),
        (&json!(1), &json!(24))
    );
    let ran = case.run_with(&["plan", "show", "--json", file]);
    let shown: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(shown["session"]["recovery_depth"], 1);
}

#[test]
fn a_legacy_step_gets_its_synthesised_manifest_written_out() {
    let case = repo("plans/valid/legacy.md", "legacy.md");
    let ran = case.run_with(&["progress", "init", "legacy.md", "--file", "p.json"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let mut p = doc(&case, "p.json");
    p["status"] = json!("partial");
    p["steps"]["2"]["status"] = json!("completed");
    p["manifest_audit"] = json!({"status": "drift", "drift_details": [], "override": null});
    put(&case, "p.json", &p);
    let ran = spec(&case, "legacy.md", false);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let file = "rec/session-1-recovery-1.md";
    assert_validates(&case, file);
    let written = fs::read_to_string(case.path().join(file)).unwrap();
    assert!(
        written.starts_with("---\nplan_version: 1.7\n---\n"),
        "{written}"
    );
    assert!(
        written.contains("  expected_paths: [\"src/config.rs\", \"src/settings.rs\"]\n"),
        "{written}"
    );
}

#[test]
fn nothing_to_recover_is_refused() {
    let case = drifted_trekplan();
    let mut p = doc(&case, "p.json");
    p["manifest_audit"]["status"] = json!("pass");
    put(&case, "p.json", &p);
    let ran = spec(&case, "plan.md", true);
    assert_eq!(ran.status, 1);
    assert_eq!(
        valid_reply(&ran.stdout)["problem"]["code"],
        "RECOVERY_NO_DRIFT"
    );
    // Drift that no rerun repairs names no step.
    p["manifest_audit"] = json!({"status": "drift", "override": null, "drift_details": [
        {"check": "forbidden_paths", "expected": "untouched", "actual": "changed", "path": "x"}
    ]});
    p["steps"]["3"]["status"] = json!("completed");
    put(&case, "p.json", &p);
    let ran = spec(&case, "plan.md", false);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stderr.contains("RECOVERY_NOTHING_MISSING"),
        "{}",
        ran.stderr
    );
    // A spent budget.
    p["steps"]["3"]["status"] = json!("failed");
    p["iterations_remaining"] = json!(0);
    put(&case, "p.json", &p);
    let ran = spec(&case, "plan.md", false);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stderr.contains("RECOVERY_BUDGET_SPENT"),
        "{}",
        ran.stderr
    );
    assert!(!case.path().join("rec").exists());
    // Unreadable inputs: exit 2.
    let ran = spec(&case, "missing.md", false);
    assert_eq!(ran.status, 2);
    write(case.path(), &[("p.json", "{")]);
    let ran = spec(&case, "plan.md", true);
    assert_eq!(ran.status, 2);
    assert_eq!(valid_reply(&ran.stdout)["status"], "error");
}

#[test]
fn only_a_recovery_spec_may_skip_step_numbers() {
    let case = repo("plans/valid/session-spec.md", "s2.md");
    let text = fs::read_to_string(case.path().join("s2.md")).unwrap();
    let step = text
        .split("### Step 4: Add the router")
        .nth(1)
        .unwrap()
        .split("## Exit Condition")
        .next()
        .unwrap()
        .to_owned();
    let with_gap = text.replace(
        "## Exit Condition",
        &format!("### Step 6: Again{step}## Exit Condition"),
    );
    write(case.path(), &[("gap.md", &with_gap)]);
    let ran = case.run_with(&["plan", "validate", "gap.md"]);
    assert_eq!(ran.status, 1, "{}", ran.stdout);
    assert!(ran.stdout.contains("PLAN_STEP_SEQUENCE"), "{}", ran.stdout);
    let recovery = with_gap.replace(
        "## Session Manifest",
        "## Recovery Metadata\n\n```yaml\nrecovery_depth: 1\n```\n\n## Session Manifest",
    );
    write(case.path(), &[("gap.md", &recovery)]);
    let ran = case.run_with(&["plan", "validate", "gap.md"]);
    assert_eq!(ran.status, 0, "{}", ran.stdout);
    // Rising, never falling or repeated.
    let falling = recovery.replace("### Step 6: Again", "### Step 3: Again");
    write(case.path(), &[("gap.md", &falling)]);
    let ran = case.run_with(&["plan", "validate", "gap.md"]);
    assert_eq!(ran.status, 1, "{}", ran.stdout);
}
