//! `audit checkpoint`: HEAD's subject against the step's pattern, matching
//! and not, recorded as `checkpoint_drift` without failing the step.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::json;

use super::repo::{PlanStep, Repo, plan, valid};

fn repo_with_plan() -> Repo {
    let repo = Repo::new();
    let manifest = |pattern: &'static str| {
        format!(
            "expected_paths: []\nmin_file_count: 0\ncommit_message_pattern: \"{pattern}\"\nbash_syntax_check: []\nforbidden_paths: []\nmust_contain: []"
        )
    };
    let (m1, m2) = (manifest("^feat\\\\(cli\\\\): add --json"), manifest(""));
    repo.write(
        "plan.md",
        &plan(&[
            PlanStep {
                number: 1,
                files: &[],
                subject: "feat(cli): add --json flag",
                manifest: &m1,
            },
            PlanStep {
                number: 2,
                files: &[],
                subject: "docs: x",
                manifest: &m2,
            },
        ]),
    );
    repo.commit("chore: plan");
    repo.run(&["progress", "init", "plan.md", "--file", "p.json"]);
    repo
}

#[test]
fn a_matching_subject_passes() {
    let repo = repo_with_plan();
    let sha = repo.commit("feat(cli): add --json flag");
    let ran = repo.run(&["audit", "checkpoint", "--plan", "plan.md", "--step", "1"]);
    assert_eq!(
        (ran.status, ran.stdout.as_str()),
        (
            0,
            "Checkpoint PASS for step 1: \"feat(cli): add --json flag\" matches \"^feat\\\\(cli\\\\): add --json\"\n"
        ),
        "{}",
        ran.stderr
    );
    let ran = repo.run(&[
        "audit",
        "checkpoint",
        "--plan",
        "plan.md",
        "--step",
        "1",
        "--json",
        "--record",
        "p.json",
    ]);
    let report = valid("audit-checkpoint", &ran.stdout);
    assert_eq!(ran.status, 0);
    assert_eq!(report["commit"], sha);
    assert_eq!(report["checkpoint_drift"], json!(null));
    assert!(
        repo.json("p.json")["steps"]["1"]
            .get("checkpoint_drift")
            .is_none()
    );
}

#[test]
fn a_mismatch_is_checkpoint_drift_and_never_fails_the_step() {
    let repo = repo_with_plan();
    for args in [
        ["progress", "step", "1", "--status", "in_progress"],
        ["progress", "step", "1", "--status", "completed"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--file", "p.json"]);
        assert_eq!(repo.run(&args).status, 0);
    }
    repo.commit("wip: did the flag");
    let ran = repo.run(&[
        "audit",
        "checkpoint",
        "--plan",
        "plan.md",
        "--step",
        "1",
        "--json",
        "--record",
        "p.json",
    ]);
    assert_eq!(ran.status, 1, "{}", ran.stderr);
    let report = valid("audit-checkpoint", &ran.stdout);
    let drift = json!({
        "expected_pattern": "^feat\\(cli\\): add --json",
        "actual_message": "wip: did the flag",
    });
    assert_eq!(report["status"], "drift");
    assert_eq!(report["checkpoint_drift"], drift);
    let p = repo.json("p.json");
    assert_eq!(p["steps"]["1"]["checkpoint_drift"], drift);
    assert_eq!(
        p["steps"]["1"]["status"], "completed",
        "the step stays passed"
    );
    assert_eq!(p["steps"]["1"]["manifest_audit"], "pass");
    assert_eq!(repo.run(&["progress", "validate", "p.json"]).status, 0);
    let ran = repo.run(&["audit", "checkpoint", "--plan", "plan.md", "--step", "1"]);
    assert!(
        ran.stdout
            .starts_with("checkpoint_drift for step 1: HEAD's subject \"wip: did the flag\""),
        "{}",
        ran.stdout
    );
    // Fixed by a later commit: a pass removes the record.
    repo.commit("feat(cli): add --json flag, again");
    let ran = repo.run(&[
        "audit",
        "checkpoint",
        "--plan",
        "plan.md",
        "--step",
        "1",
        "--record",
        "p.json",
    ]);
    assert_eq!(ran.status, 0);
    assert!(
        repo.json("p.json")["steps"]["1"]
            .get("checkpoint_drift")
            .is_none()
    );
}

#[test]
fn an_empty_pattern_declares_nothing() {
    let repo = repo_with_plan();
    repo.commit("anything at all");
    let ran = repo.run(&["audit", "checkpoint", "--plan", "plan.md", "--step", "2"]);
    assert_eq!(ran.status, 0, "{}", ran.stdout);
}
