//! Bugs found in the existing parts, each with the test that failed before
//! its fix (issue 13, point 10).

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;

use serde_json::Value;

use crate::common::Case;

/// A legacy plan with nothing wrong but its age: `--strict` is about
/// errors, and the seed calls such a plan READY with synthesised
/// manifests, so the legacy notice must not fail it (nor, since issue 24,
/// any other warning).
#[test]
fn strict_validation_passes_a_clean_legacy_plan() {
    let case = Case::new(&["plan", "validate", "--strict", "--json", "plan.md"]);
    fs::write(
        case.path().join("plan.md"),
        "# Plan\n\n## Implementation Plan\n\n### Step 1: Rename\n- **Files:** `src/a.rs`\n- **Changes:** rename\n- **Verify:** `cargo build`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"refactor: rename\"`\n\n## Verification\n\n- `cargo test` — all green\n",
    )
    .unwrap();
    let ran = case.run();
    assert_eq!(ran.status, 0, "{}", ran.stdout);
    let v: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(v["status"], "READY");
    assert_eq!(v["legacy_plan"], true);
    assert_eq!(v["warnings"][0]["code"], "PLAN_LEGACY");
    // Other warnings leave it READY too (Phase 2.3 fails only on errors,
    // issue 24); --fail-on-warnings is the way to fail on them. (The step
    // keeps its Checkpoint: without one it could never complete a run, an
    // error since issue 37.)
    fs::write(
        case.path().join("plan.md"),
        "# Plan\n\n## Implementation Plan\n\n### Step 1: Rename\n- **Files:** `src/a.rs`\n- **Changes:** rename\n- **Checkpoint:** `git commit -m \"refactor: rename\"`\n\n## Verification\n\n- `cargo test`\n",
    )
    .unwrap();
    assert_eq!(case.run().status, 0);
    let ran = case.run_with(&["plan", "validate", "--fail-on-warnings", "plan.md"]);
    assert_eq!(ran.status, 1, "{}", ran.stdout);
}

/// `brief validate --soft` is what the sequencing gate runs, and it halts
/// on BRIEF_V51_MISSING_SIGNALS in `errors`: soft must leave it there.
#[test]
fn soft_brief_validation_keeps_missing_signals_an_error() {
    let case = Case::new(&["brief", "validate", "--soft", "--json", "brief.md"]);
    fs::write(
        case.path().join("brief.md"),
        "---\nbrief_version: 2.1\n---\n# Brief\n",
    )
    .unwrap();
    let ran = case.run();
    assert_eq!(ran.status, 1, "{}", ran.stdout);
    let v: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(v["errors"][0]["code"], "BRIEF_V51_MISSING_SIGNALS");
    assert_eq!(v["warnings"], serde_json::json!([]));
}

fn gate(case: &Case, args: &[&str]) -> (String, String) {
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    let ran = case.run_with(&all);
    assert_eq!(ran.status, 0, "{args:?}: {}", ran.stderr);
    (
        ran.field("ACTION").unwrap().to_owned(),
        ran.field("NEXT").unwrap().to_owned(),
    )
}

/// Hard rule 1: a failed step is decided by the plan's On failure, never
/// by asking, also under the bare `--gates` flag; and every run, drifted
/// or not, reaches the main-merge gate.
#[test]
fn a_failed_step_never_pauses_and_every_run_reaches_the_main_merge_gate() {
    let case = Case::new(&[]);
    for gates in ["true", "closed", "adaptive", "open"] {
        assert_eq!(
            gate(
                &case,
                &[
                    "--state",
                    "executing",
                    "--event",
                    "step-failed",
                    "--gates",
                    gates
                ]
            ),
            ("continue".into(), "executing".into()),
            "--gates {gates}"
        );
    }
    for gates in ["open", "adaptive"] {
        assert_eq!(
            gate(
                &case,
                &[
                    "--state",
                    "auditing",
                    "--event",
                    "audit-drift",
                    "--gates",
                    gates
                ]
            ),
            ("pause".into(), "awaiting-main-merge".into()),
            "--gates {gates}"
        );
    }
    // Closed mode halts on drift first; approving goes on to the main-merge
    // gate, not back to executing (from where the run could never get there).
    assert_eq!(
        gate(
            &case,
            &[
                "--state",
                "auditing",
                "--event",
                "audit-drift",
                "--gates",
                "true"
            ]
        ),
        ("pause".into(), "awaiting-operator".into())
    );
    assert_eq!(
        gate(
            &case,
            &[
                "--state",
                "awaiting-operator",
                "--event",
                "approve",
                "--gates",
                "true"
            ]
        ),
        ("pause".into(), "awaiting-main-merge".into())
    );
}

/// Warnings are listed, not counted as issues; and one issue is "1 issue".
#[test]
fn dry_run_counts_issues_not_warnings() {
    let case = Case::new(&["plan", "dry-run", "plan.md"]);
    crate::common::repo::init(case.path());
    crate::common::repo::write(case.path(), &[("README.md", "# demo\n")]);
    crate::common::repo::commit_all(case.path(), "init");
    fs::write(
        case.path().join("plan.md"),
        "# Plan\n\n## Implementation Plan\n\n### Step 1: Add a\n- **Files:** `a.txt` (new)\n- **Changes:** add\n- **Verify:** `test -f a.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"feat: a\"`\n\n## Verification\n\n- `test -f a.txt`\n",
    )
    .unwrap();
    let ran = case.run();
    assert_eq!(ran.status, 0, "{}", ran.stdout);
    assert!(ran.stdout.contains("PLAN_LEGACY"), "{}", ran.stdout);
    assert!(
        ran.stdout.ends_with("### Verdict\n\nREADY\n"),
        "{}",
        ran.stdout
    );
    fs::write(
        case.path().join("plan.md"),
        "# Plan\n\n## Implementation Plan\n\n### Step 1: Edit a\n- **Files:** `a.txt`\n- **Changes:** edit\n- **Verify:** `test -f a.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"feat: a\"`\n\n## Verification\n\n- `test -f a.txt`\n",
    )
    .unwrap();
    let ran = case.run();
    assert_eq!(ran.status, 1);
    assert!(
        ran.stdout.ends_with("NEEDS ATTENTION — 1 issue found\n"),
        "{}",
        ran.stdout
    );
}

/// Phase 2.4's header names the step by its description.
#[test]
fn scan_plan_headers_carry_the_step_description() {
    let case = Case::new(&["scan", "plan", "plan.md"]);
    fs::write(
        case.path().join("plan.md"),
        "# Plan\n\n## Implementation Plan\n\n### Step 1: Clean the build\n- **Files:** `a`\n- **Verify:** `rm -rf build/ && make`\n- **On failure:** revert\n",
    )
    .unwrap();
    let ran = case.run();
    assert_eq!(ran.status, 1);
    assert_eq!(
        ran.lines()[0],
        "Security scan: Step 1 — Clean the build (Verify, line 7)"
    );
}
