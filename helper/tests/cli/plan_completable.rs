//! A plan a run could never complete does not validate (issue 37, point 6),
//! and the messages around reading a plan name their cause and the next
//! step (point 8): real plan files through `plan validate`, `plan dry-run`
//! and `trek start` in real git repositories, and the one form of a step
//! that commits nothing, the sandbox pre-flight, run to a completed run.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;

use serde_json::Value;

use crate::common::Case;
use crate::trek::{GREET, Repo, example_plan, next};

/// The example plan (two steps, plan_version 1.7) with `from` replaced by
/// `to`, which must be there.
fn example_with(from: &str, to: &str) -> String {
    let plan = example_plan();
    assert!(plan.contains(from), "{from}");
    plan.replacen(from, to, 1)
}

/// `plan validate --json` on `text`: the exit code and each problem as
/// (code, line, message).
fn validate(text: &str) -> (i32, Vec<(String, u64, String)>) {
    let case = Case::new(&["plan", "validate", "--json", "plan.md"]);
    fs::write(case.path().join("plan.md"), text).unwrap();
    let ran = case.run();
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    let problems = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .chain(report["warnings"].as_array().unwrap())
        .map(|p| {
            (
                p["code"].as_str().unwrap().to_owned(),
                p["line"].as_u64().unwrap_or(0),
                p["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (ran.status, problems)
}

/// The line of the example plan that holds `text`.
fn line_of(plan: &str, text: &str) -> u64 {
    let at = plan.lines().position(|l| l.contains(text)).unwrap();
    u64::try_from(at + 1).unwrap()
}

const STEP_2_CHECKPOINT: &str =
    "- **Checkpoint:** `git commit -m \"test(greet): check the default name\"`\n";

#[test]
fn a_step_without_a_checkpoint_fails_with_its_line_and_the_field_to_add() {
    let plan = example_with(STEP_2_CHECKPOINT, "");
    let (status, problems) = validate(&plan);
    assert_eq!(status, 1, "{problems:?}");
    let [(code, line, message)] = &problems[..] else {
        panic!("{problems:?}")
    };
    assert_eq!(code, "PLAN_MISSING_CHECKPOINT");
    assert_eq!(*line, line_of(&plan, "### Step 2:"));
    assert!(message.starts_with("step 2 has no Checkpoint"), "{message}");
    // The fix is the field as plans write it.
    assert!(
        message.contains("add `- **Checkpoint:** `git commit -m \"…\"``"),
        "{message}"
    );
}

#[test]
fn a_step_without_files_fails_and_one_that_only_checks_is_sent_to_verification() {
    let no_files = example_with("- **Files:** `tests/greet.sh` (new)\n", "");
    let (status, problems) = validate(&no_files);
    assert_eq!(status, 1);
    let codes: Vec<&str> = problems.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(codes, ["PLAN_MISSING_FILES"]);
    assert!(problems[0].2.contains("- **Files:**"), "{problems:?}");
    // `Files: none` names no file either.
    let none = example_with("`tests/greet.sh` (new)", "none");
    assert_eq!(validate(&none).1.len(), 1);

    let only_checks = no_files.replacen(STEP_2_CHECKPOINT, "", 1);
    let (status, problems) = validate(&only_checks);
    assert_eq!(status, 1);
    let codes: Vec<&str> = problems.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(codes, ["PLAN_MISSING_CHECKPOINT", "PLAN_MISSING_FILES"]);
    assert!(
        problems
            .iter()
            .all(|p| p.2.contains("belongs in `## Verification`")),
        "{problems:?}"
    );
}

#[test]
fn paths_outside_the_repository_fail_wherever_the_step_names_them() {
    for outside in ["../x.txt", "/tmp/x.txt", "~/x.txt", "tests/../../x.txt"] {
        let plan = example_with(
            "`tests/greet.sh` (new)",
            &format!("`tests/greet.sh` (new), `{outside}`"),
        );
        let (status, problems) = validate(&plan);
        assert_eq!(status, 1, "{outside}");
        let [(code, line, message)] = &problems[..] else {
            panic!("{outside}: {problems:?}")
        };
        assert_eq!(code, "PLAN_PATH_OUTSIDE_REPOSITORY");
        assert_eq!(*line, line_of(&plan, outside));
        assert!(
            message.contains(&format!("`{outside}`, outside the repository")),
            "{message}"
        );
    }
    // A path that goes down again stays inside.
    let inside = example_with(
        "`tests/greet.sh` (new)",
        "`tests/greet.sh` (new), `./x.txt`",
    );
    assert_eq!(validate(&inside), (0, vec![]));
    // In the manifest too: what the audits would report as drift.
    let manifest = example_with(
        "expected_paths: [tests/greet.sh]",
        "expected_paths: [tests/greet.sh, ../x.txt]",
    );
    let (status, problems) = validate(&manifest);
    assert_eq!(status, 1);
    assert_eq!(problems[0].0, "PLAN_PATH_OUTSIDE_REPOSITORY");
    assert!(problems[0].2.contains("`expected_paths`"), "{problems:?}");
}

#[test]
fn a_count_or_a_message_the_audits_never_accept_fails() {
    let plan = example_with("min_file_count: 1", "min_file_count: 2");
    let (status, problems) = validate(&plan);
    assert_eq!(status, 1);
    assert_eq!(problems[0].0, "PLAN_MIN_FILE_COUNT_UNREACHABLE");
    assert!(problems[0].2.contains("at most"), "{problems:?}");

    let plan = example_with(
        "git commit -m \"test(greet): check the default name\"",
        "git commit -m \"test: greet\"",
    );
    let (status, problems) = validate(&plan);
    assert_eq!(status, 1);
    assert_eq!(problems[0].0, "PLAN_CHECKPOINT_MESSAGE_MISMATCH");
    assert_eq!(problems[0].1, line_of(&plan, "test: greet"));
}

#[test]
fn legacy_plans_are_held_to_the_same_and_a_complete_one_stays_ready() {
    let legacy = example_plan()
        .replacen("plan_version: 1.7\n", "", 1)
        .replacen(STEP_2_CHECKPOINT, "", 1);
    let (status, problems) = validate(&legacy);
    assert_eq!(status, 1);
    let codes: Vec<&str> = problems.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(codes, ["PLAN_MISSING_CHECKPOINT", "PLAN_LEGACY"]);
    let complete = example_plan().replacen("plan_version: 1.7\n", "", 1);
    let (status, problems) = validate(&complete);
    assert_eq!(status, 0, "{problems:?}");
}

#[test]
fn trek_start_refuses_such_a_plan_and_the_dry_run_names_it() {
    let repo = Repo::new(&example_with(STEP_2_CHECKPOINT, ""));
    let (code, reply) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(reply["status"], "fail");
    let lines = reply["lines"].to_string();
    assert!(lines.contains("PLAN_MISSING_CHECKPOINT"), "{lines}");
    assert!(lines.contains("The plan is not executable"), "{lines}");
    assert!(!repo.marker().exists() && !repo.progress().exists());

    let (code, reply) = repo.trek(&["start", "--dry-run", &repo.plan()]);
    assert_eq!(code, 1, "{reply}");
    assert!(
        reply["lines"]
            .to_string()
            .contains("error PLAN_MISSING_CHECKPOINT"),
        "{reply}"
    );
}

#[test]
fn the_dry_run_never_looks_up_a_path_outside_the_repository() {
    let plan = example_with(
        "`tests/greet.sh` (new)",
        "`tests/greet.sh` (new), `/etc/hostname`",
    );
    let case = Case::new(&["plan", "dry-run", "--json", "plan.md"]);
    crate::common::repo::init(case.path());
    fs::write(case.path().join("plan.md"), &plan).unwrap();
    crate::common::repo::commit_all(case.path(), "init");
    let ran = case.run();
    assert_eq!(ran.status, 1);
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    let file = &report["files"][2];
    assert_eq!(file["path"], "/etc/hostname");
    assert_eq!(
        (&file["outside"], &file["exists"]),
        (&Value::Bool(true), &Value::Bool(false))
    );
    // One issue: the error, not a missing file besides.
    assert_eq!(report["issues"], 1, "{report}");
    let text = case.run_with(&["plan", "dry-run", "plan.md"]);
    assert!(
        text.stdout
            .contains("- /etc/hostname: OUTSIDE THE REPOSITORY (not looked up)"),
        "{}",
        text.stdout
    );
}

/// The sandbox pre-flight, a Step 0 with no Files and no Checkpoint.
const PREFLIGHT: &str = "### Step 0: Sandbox pre-flight
- **Files:** none
- **Changes:** none: check that the sandbox lets the run write.
- **Verify:** `touch .voyage-preflight && rm .voyage-preflight || exit 77`
- **On failure:** escalate
- **Manifest:**
  ```yaml
  expected_paths: []
  min_file_count: 0
  commit_message_pattern: \"\"
  bash_syntax_check: []
  forbidden_paths: []
  must_contain: []
  sandbox_preflight: true
  ```

";

/// The step of a plan that commits nothing is the sandbox pre-flight: it
/// validates, and a run of it ends completed with the audit's count agreeing.
#[test]
fn a_run_with_the_sandbox_preflight_completes_as_the_validator_said() {
    let plan = example_with("### Step 1:", &format!("{PREFLIGHT}### Step 1:"));
    assert_eq!(validate(&plan), (0, vec![]));
    // The same step with a Checkpoint would commit one time too many.
    let committing = plan.replacen(
        "- **On failure:** escalate\n- **Manifest:**\n  ```yaml\n  expected_paths: []",
        "- **On failure:** escalate\n- **Checkpoint:** `git commit -m \"chore: preflight\"`\n- **Manifest:**\n  ```yaml\n  expected_paths: []",
        1,
    );
    let (status, problems) = validate(&committing);
    assert_eq!(status, 1);
    assert_eq!(problems[0].0, "PLAN_PREFLIGHT_CHECKPOINT", "{problems:?}");

    let repo = Repo::new(&plan);
    let (code, start) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    assert_eq!(next(&start), ("begin-step", Some(0)));
    repo.trek(&["step-begin", "0"]);
    let (code, done) = repo.trek(&["step-done", "0"]);
    assert_eq!(code, 0, "{done}");
    for (n, file, text) in [
        ("1", "greet.sh", GREET),
        ("2", "tests/greet.sh", crate::trek::TEST),
    ] {
        repo.trek(&["step-begin", n]);
        repo.write(&[(file, text)]);
        let (code, done) = repo.trek(&["step-done", n]);
        assert_eq!(code, 0, "{done}");
    }
    repo.trek(&["finish"]);
    let (code, last) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{last}");
    assert_eq!(last["summary"]["result"], "completed", "{last}");
    let progress = repo.progress_json();
    assert_eq!(progress["manifest_audit"]["status"], "pass", "{progress}");
    assert_eq!(repo.subjects().len(), 3, "two commits over init");
}

#[test]
fn a_tab_in_a_manifest_is_named_with_its_line_and_the_fix() {
    // In a list item's fence, where the Markdown reader turns the tab into
    // spaces before the YAML reader sees it.
    let plan = example_with("\n  min_file_count: 1\n", "\n\tmin_file_count: 1\n");
    let (status, problems) = validate(&plan);
    assert_eq!(status, 1);
    let [(code, line, message)] = &problems[..] else {
        panic!("{problems:?}")
    };
    assert_eq!(code, "PLAN_MALFORMED_YAML");
    assert_eq!(*line, line_of(&plan, "\tmin_file_count"));
    assert!(
        message.ends_with(&format!(
            "line {line} column 1: a tab indents this line, and YAML allows only spaces in indentation; indent it with spaces"
        )),
        "{message}"
    );
    // In the front matter, read as written.
    let plan = example_with("profile: economy\n", "profile: economy\n\tname: x\n");
    let (_, problems) = validate(&plan);
    assert_eq!(problems[0].0, "PLAN_FRONT_MATTER");
    assert!(
        problems[0].2.contains("line 4 column 1: a tab indents"),
        "{problems:?}"
    );
}

#[test]
fn a_plan_that_starts_past_step_1_says_so() {
    let plan = example_with("### Step 1:", "### Step 2:").replacen(
        "### Step 2: Test",
        "### Step 3: Test",
        1,
    );
    let (status, problems) = validate(&plan);
    assert_eq!(status, 1);
    assert_eq!(
        problems[0].2,
        "the first step is numbered 2; number the steps from 1 in order (a plan may open with step 0, the sandbox pre-flight)"
    );
    assert!(
        problems.iter().all(|p| !p.2.contains("step 0;")),
        "{problems:?}"
    );
}

#[test]
fn trek_start_on_a_directory_or_a_fifo_says_what_it_is_and_never_waits() {
    let repo = Repo::new(&example_plan());
    let dir = repo.path().join("plans");
    let (code, reply) = repo.trek(&["start", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{reply}");
    let lines = reply["lines"].to_string();
    assert!(
        lines.contains(&format!(
            "error[PLAN_NOT_A_FILE]: {} is a directory, not a plan file",
            dir.display()
        )),
        "{lines}"
    );
    assert!(
        lines.contains("plan.md"),
        "it names the plan inside: {lines}"
    );
    // Nobody writes to the FIFO: opening it for reading would wait forever.
    let fifo = repo.path().join("plan.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let (code, reply) = repo.trek(&["start", fifo.to_str().unwrap()]);
    assert_eq!(code, 2, "{reply}");
    assert!(
        reply["lines"]
            .to_string()
            .contains("is a FIFO, not a plan file"),
        "{reply}"
    );
    assert!(!repo.marker().exists());
    // A missing file is still told as missing.
    let (_, text) = repo.trek_text(&["start", "no-such-plan.md"]);
    assert!(text.contains("Error: file not found:"), "{text}");
}
