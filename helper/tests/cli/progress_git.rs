//! `progress revert-step` and `progress escalate-commit` (Sub-step E) on
//! real git repositories: only the step's (or the completed steps') Files:
//! are touched, and every `--json` reply is checked against
//! `progress-git-reply`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;

use serde_json::Value;

use crate::common::assert_schema;
use crate::common::repo::{self, git};
use crate::common::{Case, Ran};

const PLAN: &str = "# Plan\n\n## Implementation Plan\n\n### Step 1: Core\n- **Files:** `src/core.txt`, `shared.txt`\n- **Changes:** core\n- **Verify:** `test -f src/core.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"feat: core\"`\n\n### Step 2: Feature\n- **Files:** `src/feature.txt`, `src/new.txt` (new), `notes.txt`\n- **Changes:** feature\n- **Verify:** `test -f src/feature.txt`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"feat: feature\"`\n\n### Step 3: Touches shared\n- **Files:** `shared.txt`, `src/feature.txt`\n- **Changes:** more\n- **Verify:** `test -f shared.txt`\n- **On failure:** escalate\n- **Checkpoint:** `git commit -m \"feat: more\"`\n\n## Verification\n\n- `test -f src/core.txt`\n";

/// A repository with the plan and a first commit, a progress file beside
/// the plan (ignored by git), and `statuses` recorded in it.
fn setup(statuses: &[(u32, &str)]) -> Case {
    let case = Case::new(&[]);
    repo::init(case.path());
    repo::write(
        case.path(),
        &[
            ("plan.md", PLAN),
            ("src/core.txt", "core v1\n"),
            ("shared.txt", "shared v1\n"),
            ("src/feature.txt", "feature v1\n"),
            (".gitignore", ".trekexecute-progress-*\n"),
        ],
    );
    repo::commit_all(case.path(), "chore: start");
    let init = case.run_with(&["progress", "init", "plan.md"]);
    assert_eq!(init.status, 0, "{}", init.stderr);
    for (step, status) in statuses {
        let n = step.to_string();
        for s in ["in_progress", status] {
            let ran = case.run_with(&["progress", "step", &n, "--status", s, "--plan", "plan.md"]);
            assert_eq!(ran.status, 0, "{}", ran.stderr);
        }
    }
    case
}

fn reply(ran: &Ran) -> Value {
    assert_schema("progress-git-reply", &ran.stdout)
}

fn read(case: &Case, path: &str) -> String {
    fs::read_to_string(case.path().join(path)).unwrap()
}

#[test]
fn revert_step_restores_only_that_steps_files() {
    let case = setup(&[(1, "completed"), (2, "failed")]);
    repo::write(
        case.path(),
        &[
            ("src/feature.txt", "feature broken\n"),
            ("src/new.txt", "half done\n"),
            ("src/core.txt", "core v2, completed work\n"),
            ("other.txt", "unrelated\n"),
        ],
    );
    git(case.path(), &["add", "src/feature.txt"]);
    let ran = case.run_with(&["progress", "revert-step", "2", "--plan", "plan.md"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stdout,
        "step 2 reverted: restored src/feature.txt; removed src/new.txt; kept notes.txt\n"
    );
    assert_eq!(read(&case, "src/feature.txt"), "feature v1\n");
    assert!(!case.path().join("src/new.txt").exists());
    assert_eq!(read(&case, "src/core.txt"), "core v2, completed work\n");
    assert_eq!(read(&case, "other.txt"), "unrelated\n");
    assert_eq!(
        git(case.path(), &["status", "--porcelain"]),
        " M src/core.txt\n?? other.txt\n"
    );
}

/// Step 1 creates `a/b/c/new.sh` three directories deep.
const DEEP_PLAN: &str = "# Plan\n\n## Implementation Plan\n\n### Step 1: Deep\n- **Files:** `a/b/c/new.sh` (new), `top.sh` (new)\n- **Changes:** deep\n- **Verify:** `false`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"feat: deep\"`\n\n## Verification\n\n- `true`\n";

/// A repository holding [`DEEP_PLAN`] with `files` committed, step 1
/// failed, and the step's new files written.
fn deep(committed: &[(&str, &str)]) -> Case {
    let case = Case::new(&[]);
    repo::init(case.path());
    let mut files = vec![
        ("plan.md", DEEP_PLAN),
        (".gitignore", ".trekexecute-progress-*\n"),
    ];
    files.extend_from_slice(committed);
    repo::write(case.path(), &files);
    repo::commit_all(case.path(), "chore: start");
    assert_eq!(case.run_with(&["progress", "init", "plan.md"]).status, 0);
    for s in ["in_progress", "failed"] {
        let ran = case.run_with(&["progress", "step", "1", "--status", s, "--plan", "plan.md"]);
        assert_eq!(ran.status, 0, "{}", ran.stderr);
    }
    repo::write(
        case.path(),
        &[("a/b/c/new.sh", "echo half\n"), ("top.sh", "echo top\n")],
    );
    case
}

#[test]
fn revert_step_removes_the_directories_its_removal_emptied() {
    let case = deep(&[]);
    let ran = case.run_with(&[
        "progress",
        "revert-step",
        "1",
        "--plan",
        "plan.md",
        "--json",
    ]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let v = reply(&ran);
    assert_eq!(v["removed_dirs"], serde_json::json!(["a/b/c", "a/b", "a"]));
    assert!(!case.path().join("a").exists());
    assert!(case.path().join("plan.md").is_file(), "the root stays");
    let progress: Value =
        serde_json::from_str(&read(&case, ".trekexecute-progress-plan.json")).unwrap();
    assert_eq!(
        progress["steps"]["1"]["reverted"],
        serde_json::json!({
            "restored": [],
            "removed": ["a/b/c/new.sh", "top.sh"],
            "removed_dirs": ["a/b/c", "a/b", "a"]
        })
    );
    assert_schema("progress", &progress.to_string());
}

#[test]
fn revert_step_keeps_a_directory_that_still_holds_something() {
    // A tracked file two levels up, an untracked one and an empty
    // directory one level up: each keeps its directory.
    for (keep, dirs) in [
        ("a/kept.txt", &["a/b/c", "a/b"][..]),
        ("a/b/untracked.txt", &["a/b/c"][..]),
        ("a/b/empty/", &["a/b/c"][..]),
    ] {
        let case = deep(if keep == "a/kept.txt" {
            &[("a/kept.txt", "kept\n")]
        } else {
            &[]
        });
        if keep == "a/b/untracked.txt" {
            repo::write(case.path(), &[(keep, "mine\n")]);
        }
        if keep.ends_with('/') {
            fs::create_dir_all(case.path().join(keep)).unwrap();
        }
        let ran = case.run_with(&[
            "progress",
            "revert-step",
            "1",
            "--plan",
            "plan.md",
            "--json",
        ]);
        assert_eq!(ran.status, 0, "{keep}: {}", ran.stderr);
        assert_eq!(
            reply(&ran)["removed_dirs"],
            serde_json::json!(dirs),
            "{keep}"
        );
        assert!(case.path().join(keep).exists(), "{keep}");
        assert!(!case.path().join("a/b/c").exists(), "{keep}");
    }
}

#[test]
fn revert_step_of_a_step_that_starts_again_forgets_the_revert() {
    let case = deep(&[]);
    assert_eq!(
        case.run_with(&["progress", "revert-step", "1", "--plan", "plan.md"])
            .status,
        0
    );
    let ran = case.run_with(&[
        "progress",
        "step",
        "1",
        "--status",
        "in_progress",
        "--plan",
        "plan.md",
    ]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let progress: Value =
        serde_json::from_str(&read(&case, ".trekexecute-progress-plan.json")).unwrap();
    assert!(
        progress["steps"]["1"].get("reverted").is_none(),
        "{progress}"
    );
}

#[test]
fn revert_step_refuses_when_a_file_belongs_to_a_completed_step() {
    let case = setup(&[(1, "completed"), (2, "completed"), (3, "failed")]);
    repo::write(
        case.path(),
        &[
            ("shared.txt", "shared v2\n"),
            ("src/feature.txt", "feature v2\n"),
        ],
    );
    let ran = case.run_with(&[
        "progress",
        "revert-step",
        "3",
        "--plan",
        "plan.md",
        "--json",
    ]);
    assert_eq!(ran.status, 1);
    let v = reply(&ran);
    assert_eq!(v["ok"], false);
    assert_eq!(v["problem"]["code"], "PROGRESS_SHARED_FILE");
    let message = v["problem"]["message"].as_str().unwrap();
    assert!(
        message.contains("shared.txt (step 1)") && message.contains("src/feature.txt (step 2)"),
        "{message}"
    );
    assert!(
        ran.stderr
            .starts_with("error[PROGRESS_SHARED_FILE]: step 3 reverted only in part")
    );
    assert_eq!(
        read(&case, "shared.txt"),
        "shared v2\n",
        "nothing is touched"
    );
    assert_eq!(read(&case, "src/feature.txt"), "feature v2\n");
}

#[test]
fn revert_step_reverts_what_is_its_own_and_names_what_a_completed_step_shares() {
    // Step 2 failed; step 3 (completed) also lists src/feature.txt.
    let case = setup(&[(1, "completed"), (3, "completed"), (2, "failed")]);
    repo::write(
        case.path(),
        &[
            ("src/feature.txt", "feature broken\n"),
            ("src/new.txt", "new\n"),
        ],
    );
    let ran = case.run_with(&[
        "progress",
        "revert-step",
        "2",
        "--plan",
        "plan.md",
        "--json",
    ]);
    assert_eq!(ran.status, 1, "a revert done in part is not a revert");
    let v = reply(&ran);
    assert_eq!(v["ok"], false);
    assert_eq!(v["problem"]["code"], "PROGRESS_SHARED_FILE");
    assert!(
        v["problem"]["message"]
            .as_str()
            .unwrap()
            .contains("src/feature.txt (step 3)"),
        "{v}"
    );
    assert_eq!(v["removed"], serde_json::json!(["src/new.txt"]));
    assert_eq!(v["left"][0]["path"], "src/feature.txt");
    assert!(
        !case.path().join("src/new.txt").exists(),
        "its own file goes"
    );
    assert_eq!(read(&case, "src/feature.txt"), "feature broken\n");
    let progress: Value =
        serde_json::from_str(&read(&case, ".trekexecute-progress-plan.json")).unwrap();
    let left = &progress["steps"]["2"]["reverted"]["left"];
    let paths: Vec<&str> = left
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["src/feature.txt", "notes.txt"], "{progress}");

    // Without --json, stdout says the same.
    repo::write(case.path(), &[("src/new.txt", "new\n")]);
    let ran = case.run_with(&["progress", "revert-step", "2", "--plan", "plan.md"]);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stdout
            .starts_with("step 2 reverted in part: removed src/new.txt")
            && ran
                .stdout
                .contains("left src/feature.txt (also in the Files of completed step 3"),
        "{}",
        ran.stdout
    );
}

#[test]
fn revert_step_refuses_a_completed_step() {
    let case = setup(&[(1, "completed")]);
    let ran = case.run_with(&[
        "progress",
        "revert-step",
        "1",
        "--plan",
        "plan.md",
        "--json",
    ]);
    assert_eq!(ran.status, 1);
    assert_eq!(reply(&ran)["problem"]["code"], "PROGRESS_REVERT_COMPLETED");
    let ran = case.run_with(&[
        "progress",
        "revert-step",
        "9",
        "--plan",
        "plan.md",
        "--json",
    ]);
    assert_eq!(ran.status, 1);
    assert_eq!(reply(&ran)["problem"]["code"], "PROGRESS_NO_SUCH_STEP");
}

#[test]
fn escalate_commit_stages_only_the_completed_steps_files() {
    let case = setup(&[(1, "completed"), (2, "completed"), (3, "failed")]);
    repo::write(
        case.path(),
        &[
            ("src/core.txt", "core v2\n"),
            ("src/new.txt", "new file of step 2\n"),
            ("other.txt", "unrelated, untracked\n"),
            (".env", "SECRET=1\n"),
        ],
    );
    // Unrelated work already staged must stay out of the commit.
    repo::write(case.path(), &[("staged.txt", "staged elsewhere\n")]);
    git(case.path(), &["add", "staged.txt"]);
    let ran = case.run_with(&[
        "progress",
        "escalate-commit",
        "3",
        "--plan",
        "plan.md",
        "--json",
    ]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let v = reply(&ran);
    assert_eq!(
        v["committed"],
        serde_json::json!(["src/core.txt", "src/new.txt"])
    );
    let sha = v["commit"].as_str().unwrap();
    assert_eq!(git(case.path(), &["rev-parse", "HEAD"]).trim(), sha);
    assert_eq!(
        git(case.path(), &["log", "-1", "--format=%s"]),
        "wip: trekexecute stopped at step 3 — escalation needed\n"
    );
    assert_eq!(
        git(case.path(), &["show", "--name-only", "--format=", "HEAD"]),
        "src/core.txt\nsrc/new.txt\n"
    );
    assert_eq!(
        git(case.path(), &["status", "--porcelain"]),
        "A  staged.txt\n?? .env\n?? other.txt\n"
    );
    let again = case.run_with(&["progress", "escalate-commit", "3", "--plan", "plan.md"]);
    assert_eq!(again.status, 0);
    assert_eq!(
        again.stdout,
        "nothing to commit: the completed steps' files have no changes\n"
    );
}

#[test]
fn outside_a_repository_nothing_runs() {
    let case = Case::new(&[]);
    repo::write(case.path(), &[("plan.md", PLAN)]);
    case.run_with(&["progress", "init", "plan.md"]);
    let ran = case.run_with(&[
        "progress",
        "escalate-commit",
        "1",
        "--plan",
        "plan.md",
        "--json",
    ]);
    assert_eq!(ran.status, 2);
    assert_eq!(reply(&ran)["problem"]["code"], "PROGRESS_NOT_A_REPO");
}
