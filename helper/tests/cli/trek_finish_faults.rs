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
