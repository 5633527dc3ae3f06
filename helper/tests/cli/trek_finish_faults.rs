//! How a run ends when something around it is not the agent's doing: a
//! message hook of the repository that rewrites the checkpoints' subjects,
//! a finished multi-session run asked for its gate again, an early finish
//! of a very long plan. Each is the user's situation for real (a real git
//! repository, real hooks, the real binary) and checks what git and the
//! run's files hold, not only what the reply says.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::assert_schema;
use crate::common::repo::git;
use crate::trek_faults::{Trek, example, text};

/// A commit-msg hook that puts a ticket in front of every subject, as
/// many teams' hooks do.
fn ticket_hook(root: &Path) -> std::path::PathBuf {
    let hook = root.join(".git/hooks/commit-msg");
    fs::create_dir_all(hook.parent().unwrap()).unwrap();
    fs::write(
        &hook,
        "#!/bin/sh\nprintf '[JIRA-1] %s\\n' \"$(cat \"$1\")\" > \"$1.new\" && mv \"$1.new\" \"$1\"\n",
    )
    .unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    hook
}

#[test]
fn a_hook_that_rewrites_the_subjects_is_said_and_the_run_completes() {
    let trek = Trek::new(example);
    let hook = ticket_hook(trek.path());
    let (code, start) = trek.trek(&["start", &trek.plan()]);
    assert_eq!(code, 0, "{start}");
    let said = text(&start);
    assert!(
        said.contains(&format!("the commit-msg hook {}", hook.display())),
        "{said}"
    );
    assert!(said.contains("commit_message_pattern"), "{said}");

    trek.both_steps();
    let subjects = git(trek.path(), &["log", "-2", "--format=%s"]);
    assert_eq!(
        subjects.trim(),
        "[JIRA-1] test(greet): check the default name\n[JIRA-1] feat(greet): add the greeting script"
    );
    let drift = &trek.step(1)["checkpoint_drift"];
    assert_eq!(drift["rewritten_by_hook"], hook.display().to_string());
    assert_eq!(
        drift["planned_message"],
        "feat(greet): add the greeting script"
    );
    assert_eq!(
        drift["actual_message"],
        "[JIRA-1] feat(greet): add the greeting script"
    );

    // The audit on its own accepts both commits, and lists them.
    let start_sha = trek.progress()["trek"]["start_sha"]
        .as_str()
        .unwrap()
        .to_owned();
    let progress = trek.path().join("plans/.trekexecute-progress-plan.json");
    let out = trek
        .helper()
        .args(["audit", "session", "--plan", &trek.plan(), "--progress"])
        .arg(&progress)
        .args(["--start", &start_sha, "--json"])
        .output()
        .unwrap();
    let audit = assert_schema("audit-session", String::from_utf8_lossy(&out.stdout).trim());
    assert_eq!(audit["status"], "pass", "{audit}");
    assert_eq!(audit["accepted"].as_array().unwrap().len(), 2, "{audit}");

    let (code, finish) = trek.trek(&["finish"]);
    assert_eq!(code, 0, "{finish}");
    assert_eq!(finish["next"], "ask-main-merge", "{finish}");
    let said = text(&finish);
    assert!(said.contains("Manifest audit: PASS"), "{said}");
    assert!(
        said.contains("- accepted: commit_message_pattern (step 1)"),
        "{said}"
    );
    let (code, done) = trek.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(done["status"], "completed");
    let report = done["report"].as_str().unwrap();
    assert!(report.contains("**Result:** COMPLETED"), "{report}");
    assert!(
        report.contains("rewrote the checkpoint's subject: \"feat(greet): add the greeting script\" became \"[JIRA-1] feat(greet): add the greeting script\""),
        "{report}"
    );
    assert_eq!(trek.progress()["status"], "completed");
}

#[test]
fn a_subject_the_plan_did_not_write_itself_stays_drift() {
    // The message is built by the shell: the plan's own words are not
    // known for certain, so the hook's rewrite is not accepted.
    let trek = Trek::new(|p| {
        example(p).replace(
            r#"`git commit -m "feat(greet): add the greeting script"`"#,
            r#"`git commit -m "feat(greet): add the greeting $(echo script)"`"#,
        )
    });
    ticket_hook(trek.path());
    assert_eq!(trek.trek(&["start", &trek.plan()]).0, 0);
    trek.both_steps();
    let step = trek.step(1);
    assert!(
        step["checkpoint_drift"]["rewritten_by_hook"].is_null(),
        "{step}"
    );
    assert!(!trek.step(2)["checkpoint_drift"]["rewritten_by_hook"].is_null());
    let (code, finish) = trek.trek(&["finish"]);
    assert_eq!(code, 1, "{finish}");
    assert_eq!(finish["status"], "partial", "{finish}");
    let said = text(&finish);
    assert!(said.contains("Manifest audit: DRIFT, 1 finding"), "{said}");
    assert!(
        said.contains("found [JIRA-1] feat(greet): add the greeting script"),
        "{said}"
    );
    assert!(
        said.contains("- accepted: commit_message_pattern (step 2)"),
        "{said}"
    );
}

/// A plan of `steps` one-file steps, each escalating on failure.
fn long_plan(steps: u32) -> String {
    let mut plan = String::from(
        "---\nplan_version: 1.7\n---\n# Plan: many files\n\n## Implementation Plan\n\n",
    );
    for n in 1..=steps {
        plan.push_str(&format!(
            "### Step {n}: Add f{n}\n- **Files:** `f{n}.txt` (new)\n- **Changes:** Write f{n}.txt.\n- **Verify:** `test -f f{n}.txt`\n- **On failure:** escalate\n- **Checkpoint:** `git commit -m \"feat: add f{n}\"`\n- **Manifest:**\n  ```yaml\n  expected_paths: [f{n}.txt]\n  min_file_count: 1\n  commit_message_pattern: \"^feat: add f{n}$\"\n  bash_syntax_check: []\n  forbidden_paths: []\n  must_contain: []\n  ```\n\n"
        ));
    }
    plan.push_str("## Verification\n\n- `test -f f1.txt` — the first file is there\n");
    plan
}

/// Step 1 of a `steps`-step plan escalates, then `trek finish` (text, as
/// the agent reads it): the reply, and the run.
fn early_finish(steps: u32) -> (String, Trek) {
    let trek = Trek::new(|_| long_plan(steps));
    assert_eq!(trek.trek(&["start", &trek.plan()]).0, 0);
    trek.trek(&["step-begin", "1"]);
    let (_, done) = trek.trek(&["step-done", "1"]);
    assert_eq!(done["status"], "stopped", "{done}");
    let out = trek.helper().args(["trek", "finish"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    (String::from_utf8(out.stdout).unwrap(), trek)
}

#[test]
fn an_early_finish_of_a_long_plan_summarises_and_the_full_report_stays_at_hand() {
    let (short, _) = early_finish(100);
    let (reply, trek) = early_finish(300);
    // The reply's size does not grow with the plan: only the numbers
    // differ between 100 and 300 steps.
    assert!(reply.len() < 8_000, "{} bytes:\n{reply}", reply.len());
    assert!(
        reply.len().abs_diff(short.len()) < 200,
        "{short}\n---\n{reply}"
    );
    // What matters is there: the failed step alone, the rest as a range,
    // the counts, the first findings and where all of them are.
    assert!(reply.contains("| 1 | Add f1 | FAIL | 1 |"), "{reply}");
    assert!(reply.contains("| 2–300 | 299 steps | — | 0 |"), "{reply}");
    assert!(
        reply.contains("2. Steps 2–300: 299 steps (pending)"),
        "{reply}"
    );
    assert!(reply.contains("- Not reached: 299"), "{reply}");
    assert!(reply.contains("… and 290 more drift items"), "{reply}");
    assert!(reply.contains("\"drift_details_omitted\":290"), "{reply}");
    let progress = trek.path().join("plans/.trekexecute-progress-plan.json");
    let full_call = format!("voyage-helper report --progress {}", progress.display());
    assert!(reply.contains(&full_call), "{reply}");
    assert!(
        !reply.contains("Add f2 "),
        "no row of its own for step 2: {reply}"
    );
    // The report's JSON block still reads as the summary schema says.
    let block = reply
        .lines()
        .find(|l| l.starts_with("{\"trekexecute_summary\""))
        .unwrap();
    assert_schema("summary", block);

    // The progress file keeps every record, and `report` prints them all.
    let recorded = trek.progress()["manifest_audit"]["drift_details"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(recorded, 300);
    let out = trek
        .helper()
        .args(["report", "--progress"])
        .arg(&progress)
        .output()
        .unwrap();
    let full = String::from_utf8(out.stdout).unwrap();
    assert!(full.contains("| 300 | Add f300 | — | 0 |"), "{full}");
    assert!(full.contains("300. Step 300: Add f300 (pending)"), "{full}");
    assert!(!full.contains("more drift items"), "{full}");
}

#[test]
fn a_short_plans_early_finish_lists_every_step_as_before() {
    let (reply, _) = early_finish(3);
    assert!(!reply.contains("summarises"), "{reply}");
    for n in 2..=3 {
        assert!(
            reply.contains(&format!("| {n} | Add f{n} | — | 0 |")),
            "{reply}"
        );
        assert!(
            reply.contains(&format!("- expected_paths (step {n}): f{n}.txt")),
            "{reply}"
        );
    }
    assert!(!reply.contains("drift_details_omitted"), "{reply}");
}
