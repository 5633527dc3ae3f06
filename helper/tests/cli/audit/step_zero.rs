//! Step 0, the sandbox pre-flight, and recovery in the models (issue 13,
//! point 7): a plan may open with `### Step 0`, its manifest may say
//! `sandbox_preflight` and `memory_write`, `progress init` records step
//! "0", `legacy_plan`, `recovery_depth` and `recovery_dispatched`, and a
//! blocked step stops the run.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{Value, json};

use super::repo::Repo;

/// A 1.7 plan whose first step is the sandbox pre-flight; its Verify is
/// `VERIFY0`.
pub(super) fn sandbox_plan(verify0: &str) -> String {
    format!(
        r#"---
plan_version: 1.7
---
# Plan: sandboxed

## Implementation Plan

### Step 0: Sandbox pre-flight
- **Files:** none
- **Changes:** none; check that the sandbox lets the run write.
- **Verify:** `{verify0}`
- **On failure:** escalate
- **Manifest:**
  ```yaml
  expected_paths: []
  min_file_count: 0
  commit_message_pattern: ""
  bash_syntax_check: []
  forbidden_paths: []
  must_contain: []
  sandbox_preflight: true
  ```

### Step 1: Add a
- **Files:** `a.txt` (new)
- **Changes:** write a.
- **Verify:** `test -f a.txt`
- **On failure:** retry
- **Checkpoint:** `git commit -m "feat: add a"`
- **Manifest:**
  ```yaml
  expected_paths: [a.txt]
  min_file_count: 1
  commit_message_pattern: "^feat: add a$"
  bash_syntax_check: []
  forbidden_paths: []
  must_contain: []
  memory_write: true
  ```

## Verification

- `test -f a.txt` — a exists
"#
    )
}

#[test]
fn a_plan_may_open_with_step_0_and_its_manifest_flags() {
    let repo = Repo::new();
    repo.write("plan.md", &sandbox_plan("exit 77"));
    let ran = repo.run(&["plan", "validate", "--json", "plan.md"]);
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        (ran.status, &report["status"]),
        (0, &json!("READY")),
        "{}",
        ran.stdout
    );
    assert_eq!(report["warnings"], json!([]), "{}", ran.stdout);
    let ran = repo.run(&["plan", "show", "--json", "plan.md"]);
    let plan: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(plan["steps"][0]["number"], 0);
    assert_eq!(plan["steps"][0]["manifest"]["sandbox_preflight"], true);
    assert_eq!(plan["steps"][1]["manifest"]["memory_write"], true);
    // A later step numbered 0 is still out of sequence.
    let moved = sandbox_plan("exit 77").replace("### Step 1: Add a", "### Step 2: Add a");
    repo.write("gap.md", &moved);
    let ran = repo.run(&["plan", "validate", "gap.md"]);
    assert_eq!(ran.status, 1);
    assert!(ran.stdout.contains("PLAN_STEP_SEQUENCE"), "{}", ran.stdout);
    // A flag that is not a boolean is the wrong type.
    repo.write(
        "bad.md",
        &sandbox_plan("exit 77").replace("sandbox_preflight: true", "sandbox_preflight: maybe"),
    );
    let ran = repo.run(&["plan", "validate", "bad.md"]);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stdout.contains("PLAN_MANIFEST_WRONG_TYPE"),
        "{}",
        ran.stdout
    );
}

#[test]
fn progress_init_records_step_0_legacy_and_recovery() {
    let repo = Repo::new();
    repo.write("plan.md", &sandbox_plan("exit 77"));
    let ran = repo.run(&["progress", "init", "plan.md", "--file", "p.json"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let p = repo.json("p.json");
    let steps: Vec<&String> = p["steps"].as_object().unwrap().keys().collect();
    assert_eq!(steps, ["0", "1"]);
    assert_eq!(p["total_steps"], 2);
    assert_eq!(
        (
            &p["legacy_plan"],
            &p["recovery_depth"],
            &p["recovery_dispatched"]
        ),
        (&json!(false), &json!(0), &json!(false))
    );
    let legacy = "# Plan: old\n\n## Implementation Plan\n\n### Step 1: Add a\n- **Files:** `a.txt`\n- **Verify:** `test -f a.txt`\n- **On failure:** skip\n- **Checkpoint:** `git commit -m \"feat: add a\"`\n";
    repo.write("legacy.md", legacy);
    let ran = repo.run(&["progress", "init", "legacy.md", "--file", "l.json"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(repo.json("l.json")["legacy_plan"], true);
    assert_eq!(repo.json("l.json")["plan_version"], "legacy");
    for file in ["p.json", "l.json"] {
        let ran = repo.run(&["progress", "validate", file]);
        assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);
    }
}

#[test]
fn a_blocked_step_stops_the_run() {
    let repo = Repo::new();
    repo.write("plan.md", &sandbox_plan("exit 77"));
    repo.run(&["progress", "init", "plan.md", "--file", "p.json"]);
    let step = |status: &str, extra: &[&str]| {
        let mut args = vec![
            "progress", "step", "0", "--status", status, "--file", "p.json",
        ];
        args.extend_from_slice(extra);
        repo.run(&args)
    };
    assert_eq!(step("in_progress", &[]).status, 0);
    let ran = step("blocked", &["--error", "sandbox-blocked: Verify exited 77"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let p = repo.json("p.json");
    assert_eq!(
        (&p["status"], &p["steps"]["0"]["status"]),
        (&json!("stopped"), &json!("blocked"))
    );
    // Starting it again (a retry) sets the run going again.
    assert_eq!(step("in_progress", &[]).status, 0);
    assert_eq!(repo.json("p.json")["status"], "in_progress");
}

#[test]
fn recovery_fields_and_step_0_are_checked_by_the_schema() {
    let repo = Repo::new();
    repo.write("plan.md", &sandbox_plan("exit 77"));
    repo.run(&["progress", "init", "plan.md", "--file", "p.json"]);
    let mut p = repo.json("p.json");
    for (key, bad) in [
        ("recovery_depth", json!(-1)),
        ("recovery_dispatched", json!("yes")),
        ("legacy_plan", json!(1)),
        ("manifest_audit", json!({"status": "fine"})),
    ] {
        let saved = p[key].clone();
        p[key] = bad;
        repo.write("bad.json", &p.to_string());
        let ran = repo.run(&["progress", "validate", "bad.json"]);
        assert_eq!(ran.status, 1, "{key}: {}{}", ran.stdout, ran.stderr);
        assert!(
            ran.stdout.contains("PROGRESS_BAD_VALUE"),
            "{key}: {}",
            ran.stdout
        );
        p[key] = saved;
    }
}
