//! The dry-run as a person meets it (issue 41): a file a step creates is
//! named with that step instead of counted as missing, the checks the real
//! start makes first are previewed with the start's own words, and the
//! verdict counts exactly the issues the tables show. Real binary, real
//! git repositories in temp dirs, driven through the commands a person
//! types.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::assert_schema;
use crate::common::repo::{commit_all, git, init, write};
use crate::trek::Repo;
use crate::trek_faults::text;

/// One step of a strict plan: its title, its Files line and its
/// manifest's expected_paths.
struct Step<'a> {
    title: &'a str,
    files: &'a str,
    expected: &'a [&'a str],
}

/// A plan_version 1.7 plan of `steps`, each verified by `true` and
/// committed with its own message, and a Verification that runs.
fn strict_plan(steps: &[Step<'_>]) -> String {
    let mut plan =
        String::from("---\nplan_version: 1.7\n---\n# Plan: demo\n\n## Implementation Plan\n\n");
    for (i, s) in steps.iter().enumerate() {
        let n = i + 1;
        plan.push_str(&format!(
            "### Step {n}: {title}\n- **Files:** {files}\n- **Changes:** {title}.\n- **Verify:** `true`\n- **On failure:** revert\n- **Checkpoint:** `git commit -m \"feat: step {n}\"`\n- **Manifest:**\n  ```yaml\n  expected_paths: [{expected}]\n  min_file_count: {count}\n  commit_message_pattern: \"^feat: step {n}$\"\n  bash_syntax_check: []\n  forbidden_paths: []\n  must_contain: []\n  ```\n\n",
            title = s.title,
            files = s.files,
            expected = s.expected.join(", "),
            count = s.expected.len(),
        ));
    }
    plan.push_str("## Verification\n\n- `test -f README.md` — the readme is there\n");
    plan
}

/// The sentence plan of the issue: step 1 writes `src/sentence.rs` (in its
/// manifest, not marked `(new)`), step 2 uses it.
fn sentence_plan() -> String {
    strict_plan(&[
        Step {
            title: "Add the sentence module",
            files: "`src/sentence.rs`, `src/lib.rs`",
            expected: &["src/sentence.rs", "src/lib.rs"],
        },
        Step {
            title: "Use it",
            files: "`src/lib.rs`, `src/sentence.rs`",
            expected: &["src/lib.rs"],
        },
    ])
}

/// A committed repository holding `plan` at plans/plan.md and a lib.rs.
fn repo_with(plan: &str) -> Repo {
    let repo = Repo::new(plan);
    repo.write(&[("src/lib.rs", "// lib\n")]);
    commit_all(repo.path(), "lib");
    repo
}

/// `plan dry-run [--json] PLAN` from the repository's top: the exit code
/// and stdout.
fn dry_run(dir: &Path, home: &Path, args: &[&str], plan: &str) -> (i32, String) {
    let out = crate::common::env::helper(dir, home)
        .args(["plan", "dry-run"])
        .args(args)
        .arg(plan)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// `trek start --dry-run PLAN`: the exit code and the reply's text.
fn trek_dry_run(repo: &Repo, extra: &[&str]) -> (i32, String) {
    let plan = repo.plan();
    let args: Vec<&str> = ["start", "--dry-run"]
        .iter()
        .copied()
        .chain(extra.iter().copied())
        .chain([plan.as_str()])
        .collect();
    let (code, reply) = repo.trek(&args);
    (code, text(&reply))
}

/// The pre-flight row named `check` of a JSON report.
fn row<'a>(report: &'a Value, check: &str) -> &'a Value {
    report["preflight"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["check"] == check)
        .unwrap_or_else(|| panic!("no {check} row in {report:#}"))
}

#[test]
fn a_file_step_1_creates_unmarked_is_named_with_its_step_and_ready() {
    let repo = repo_with(&sentence_plan());
    let (code, said) = trek_dry_run(&repo, &[]);
    assert_eq!(code, 0, "{said}");
    for needle in [
        "- src/sentence.rs: created by step 1 (in its manifest; mark it `(new)` in step 1's Files)",
        "| 1 | Add the sentence module | `true` | revert | feat: step 1 | none |",
        "| 2 | Use it | `true` | revert | feat: step 2 | none |",
        "### Verdict",
        "READY",
    ] {
        assert!(said.contains(needle), "missing {needle:?} in\n{said}");
    }
    assert!(!said.contains("NOT FOUND"), "{said}");
    // The JSON says the same, in the shape its schema gives.
    let (code, json) = dry_run(repo.path(), repo.home.path(), &["--json"], &repo.plan());
    assert_eq!(code, 0, "{json}");
    let report = assert_schema("plan-dry-run", &json);
    let sentence: Vec<&Value> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"] == "src/sentence.rs")
        .collect();
    assert_eq!(sentence.len(), 2, "{report:#}");
    for f in sentence {
        assert_eq!(f["created_by"], 1, "{f}");
        assert_eq!(f["created_how"], "manifest");
        assert_eq!(f["issue"], Value::Null);
    }
    assert_eq!(report["issues"], 0);
    assert_eq!(report["verdict"], "READY");
}

#[test]
fn a_file_step_1_needs_but_only_step_2_creates_is_an_issue() {
    let plan = strict_plan(&[
        Step {
            title: "Use the words",
            files: "`src/lib.rs`, `src/words.rs`",
            expected: &["src/lib.rs"],
        },
        Step {
            title: "Add the words",
            files: "`src/words.rs` (new)",
            expected: &["src/words.rs"],
        },
    ]);
    let repo = repo_with(&plan);
    let (code, said) = trek_dry_run(&repo, &[]);
    assert_eq!(code, 1, "{said}");
    for needle in [
        "- src/words.rs: NOT FOUND — needed by step 1, but created only by step 2, a later step (marked `(new)` there)",
        "| 1 | Use the words | `true` | revert | feat: step 1 | src/words.rs first created by later step 2 |",
        "| 2 | Add the words | `true` | revert | feat: step 2 | none |",
        "NEEDS ATTENTION — 1 issue found",
    ] {
        assert!(said.contains(needle), "missing {needle:?} in\n{said}");
    }
}

#[test]
fn a_dirty_tree_is_previewed_and_the_real_start_refuses_with_the_same_words() {
    let repo = repo_with(&sentence_plan());
    repo.write(&[("src/lib.rs", "// mine, not committed\n")]);
    let (code, json) = dry_run(repo.path(), repo.home.path(), &["--json"], &repo.plan());
    assert_eq!(code, 1, "{json}");
    let report = assert_schema("plan-dry-run", &json);
    let clean = row(&report, "clean working tree");
    assert_eq!(clean["outcome"], "fail", "{clean}");
    let words = clean["detail"].as_str().unwrap();
    assert!(words.contains("src/lib.rs"), "{words}");
    assert_eq!(report["issues"], 1, "{report:#}");
    let (code, said) = trek_dry_run(&repo, &[]);
    assert_eq!(code, 1);
    assert!(
        said.contains("| clean working tree | FAIL | Error: these step Files hold uncommitted changes that are not this run's: src/lib.rs."),
        "{said}"
    );
    // The real start stops with the words the preview showed.
    let (code, reply) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 1, "{reply}");
    let started = text(&reply);
    for line in words.lines() {
        assert!(started.contains(line), "{line:?} not in\n{started}");
    }
    assert!(started.contains("Nothing was started."), "{started}");
    assert!(!repo.progress().exists());
    // --allow-dirty makes it a warning, previewed as such: READY.
    let (code, said) = trek_dry_run(&repo, &["--allow-dirty"]);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("| clean working tree | WARN | warning: these step Files"),
        "{said}"
    );
}

#[test]
fn no_git_identity_is_previewed() {
    let repo = repo_with(&sentence_plan());
    git(repo.path(), &["config", "--unset", "user.name"]);
    git(repo.path(), &["config", "--unset", "user.email"]);
    git(repo.path(), &["config", "user.useConfigOnly", "true"]);
    let mut cmd = crate::common::env::helper(repo.path(), repo.home.path());
    cmd.args(["plan", "dry-run", "--json", &repo.plan()]);
    crate::common::env::without_git_identity(&mut cmd);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report = assert_schema("plan-dry-run", &String::from_utf8_lossy(&out.stdout));
    let identity = row(&report, "git identity");
    assert_eq!(identity["outcome"], "fail", "{identity}");
    let words = identity["detail"].as_str().unwrap();
    assert!(words.contains("no commit can be made"), "{words}");
    assert!(words.contains("git config user.name"), "{words}");
    assert_eq!(report["issues"], 1, "{report:#}");
    assert_eq!(report["verdict"], "NEEDS ATTENTION");
}

/// A repository with the multi-session fixture at plans/plan.md, left
/// as `commit_plan` says, and a bare `origin`.
fn multi_session(commit_plan: bool) -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let remote = tempfile::tempdir().unwrap();
    git(remote.path(), &["init", "-q", "--bare"]);
    init(dir.path());
    write(dir.path(), &[("README.md", "# demo\n")]);
    commit_all(dir.path(), "init");
    git(
        dir.path(),
        &[
            "remote",
            "add",
            "origin",
            &remote.path().display().to_string(),
        ],
    );
    let plan = dir.path().join("plans/plan.md");
    std::fs::create_dir_all(plan.parent().unwrap()).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans/valid/multi-session.md"),
        &plan,
    )
    .unwrap();
    if commit_plan {
        commit_all(dir.path(), "plan");
    }
    (dir, remote, plan)
}

#[test]
fn a_multi_session_plan_not_committed_is_previewed() {
    let (dir, _remote, plan) = multi_session(false);
    let plan = plan.display().to_string();
    let (code, json) = dry_run(dir.path(), dir.path(), &["--json"], &plan);
    let report = assert_schema("plan-dry-run", &json);
    // Untracked: the start commits it itself, and says so first.
    let committed = row(&report, "plan committed");
    assert_eq!(committed["outcome"], "warn", "{committed}");
    assert!(
        committed["detail"]
            .as_str()
            .unwrap()
            .contains("plan commit: plans/plan.md is untracked, so it is committed"),
        "{committed}"
    );
    assert_eq!(row(&report, "clean working tree")["outcome"], "pass");
    let push = row(&report, "push to a remote");
    assert!(
        push["detail"]
            .as_str()
            .unwrap()
            .contains("pushed to origin"),
        "{push}"
    );
    assert_eq!(code, 0, "{report:#}");
    // --no-push is previewed too.
    let out = crate::common::env::helper(dir.path(), dir.path())
        .args(["trek", "start", "--dry-run", "--no-push", &plan])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("| push to a remote | PASS | pushes are off (--no-push)"),
        "{said}"
    );

    // Committed, then edited: the wave's clean-tree check names it.
    commit_all(dir.path(), "plan");
    std::fs::write(&plan, std::fs::read_to_string(&plan).unwrap() + "\n").unwrap();
    let (code, json) = dry_run(dir.path(), dir.path(), &["--json"], &plan);
    assert_eq!(code, 1, "{json}");
    let report = assert_schema("plan-dry-run", &json);
    let clean = row(&report, "clean working tree");
    assert_eq!(clean["outcome"], "fail", "{clean}");
    assert!(
        clean["detail"]
            .as_str()
            .unwrap()
            .contains("working tree is not clean. Parallel execution requires a clean git state; uncommitted changes are invisible to worktrees and will be lost during merge. Untracked/modified files:  M plans/plan.md."),
        "{clean}"
    );
    assert_eq!(row(&report, "plan committed")["outcome"], "pass");
    assert_eq!(report["issues"], 1);
    // The real start refuses with the same words, before it makes the
    // run branch.
    let out = crate::common::env::helper(dir.path(), dir.path())
        .args(["trek", "start", &plan])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let started = String::from_utf8_lossy(&out.stdout);
    let words = clean["detail"].as_str().unwrap();
    assert!(started.contains(words), "{words:?} not in\n{started}");
    assert!(started.contains("Nothing was started."), "{started}");
    assert_eq!(git(dir.path(), &["branch", "--list", "trek/*"]), "");
}

/// The issues a text report shows: each entry of a step's Issues cell
/// (a cell that starts with `none` has none) and each failed pre-flight
/// row.
fn shown_issues(report: &str) -> usize {
    let mut shown = 0;
    let mut section = "";
    for line in report.lines() {
        if let Some(title) = line.strip_prefix("### ") {
            section = if title.starts_with("Step Validation") {
                "steps"
            } else if title.starts_with("Pre-flight") {
                "preflight"
            } else {
                ""
            };
            continue;
        }
        let cells: Vec<&str> = line.split(" | ").map(str::trim).collect();
        if !line.starts_with("| ") || cells.len() < 3 || cells[0] == "| Step" {
            continue;
        }
        match section {
            "steps" => {
                let issues = cells[cells.len() - 1].trim_end_matches(" |");
                if !issues.starts_with("none") && !issues.starts_with('-') {
                    shown += issues.split(", ").count();
                }
            }
            "preflight" if cells[1] == "FAIL" => shown += 1,
            _ => {}
        }
    }
    shown
}

/// The count the verdict line gives.
fn verdict_count(report: &str) -> usize {
    let verdict = report
        .rsplit("### Verdict")
        .next()
        .unwrap()
        .trim()
        .lines()
        .next()
        .unwrap();
    if verdict == "READY" {
        return 0;
    }
    verdict
        .strip_prefix("NEEDS ATTENTION — ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {verdict:?}"))
}

#[test]
fn the_verdict_and_the_tables_agree_over_many_plans() {
    let later = strict_plan(&[
        Step {
            title: "Use",
            files: "`src/lib.rs`, `src/words.rs`, `src/typo.rs`",
            expected: &["src/lib.rs"],
        },
        Step {
            title: "Add",
            files: "`src/words.rs` (new)",
            expected: &["src/words.rs"],
        },
    ]);
    // A legacy plan: a missing Checkpoint (an error of its step), a
    // missing Verify (a warning), a file no step creates, and a criterion
    // both the criteria screen and the security scan refuse.
    let legacy = "# Plan\n\n## Implementation Plan\n\n### Step 1: Edit\n- **Files:** `src/lib.rs`, `src/gone.rs`\n- **Changes:** edit\n- **On failure:** revert\n\n### Step 2: More\n- **Files:** `src/lib.rs`\n- **Changes:** more\n- **Verify:** `true`\n- **Checkpoint:** `git commit -m \"feat: more\"`\n\n## Verification\n\n- `rm -rf /` — refused\n- `test -f README.md`\n";
    let cases: Vec<(&str, String, bool)> = vec![
        ("ready", sentence_plan(), false),
        ("later and missing", later, false),
        ("legacy", legacy.to_owned(), false),
        ("dirty", sentence_plan(), true),
    ];
    let mut seen = Vec::new();
    for (name, plan, dirty) in cases {
        let repo = repo_with(&plan);
        if dirty {
            repo.write(&[("src/lib.rs", "// edited\n")]);
        }
        let (code, report) = dry_run(repo.path(), repo.home.path(), &[], &repo.plan());
        let counted = verdict_count(&report);
        assert_eq!(shown_issues(&report), counted, "{name}:\n{report}");
        assert_eq!(code == 0, counted == 0, "{name}: exit {code}\n{report}");
        // The JSON counts the same, and a row with no issue is `none`.
        let (_, json) = dry_run(repo.path(), repo.home.path(), &["--json"], &repo.plan());
        let v = assert_schema("plan-dry-run", &json);
        assert_eq!(v["issues"], counted, "{name}");
        for s in v["steps"].as_array().unwrap() {
            let issues = s["issues"].as_array().unwrap();
            let cell = format!("| {} | {} |", s["number"], s["title"].as_str().unwrap());
            let row = report.lines().find(|l| l.starts_with(&cell)).unwrap();
            let none = row.rsplit(" | ").next().unwrap().starts_with("none");
            assert_eq!(none, issues.is_empty(), "{name}: {row}");
        }
        seen.push((name, counted));
    }
    // The cases hold clean and failing plans alike.
    assert_eq!(
        seen,
        [
            ("ready", 0),
            ("later and missing", 2),
            ("legacy", 4),
            ("dirty", 1)
        ]
    );
}

#[test]
fn an_unfinished_earlier_run_is_previewed_as_the_start_refuses_it() {
    let repo = Repo::new(&crate::trek::example_plan());
    let (code, said) = trek_dry_run(&repo, &[]);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("| earlier run | PASS | no progress file at"),
        "{said}"
    );
    // A run started and its first step begun, then left.
    let (code, reply) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{reply}");
    repo.trek(&["step-begin", "1"]);
    let (code, json) = dry_run(repo.path(), repo.home.path(), &["--json"], &repo.plan());
    assert_eq!(code, 1, "{json}");
    let report = assert_schema("plan-dry-run", &json);
    let earlier = row(&report, "earlier run");
    assert_eq!(earlier["outcome"], "fail", "{earlier}");
    let words = earlier["detail"].as_str().unwrap();
    assert!(
        words.contains("It is not replaced. To continue it: /trekexecute --resume"),
        "{words}"
    );
    let (code, reply) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 1, "{reply}");
    let started = text(&reply);
    for line in words.lines() {
        assert!(started.contains(line), "{line:?} not in\n{started}");
    }
    // --fresh keeps the record aside first: previewed as a warning.
    let (code, said) = trek_dry_run(&repo, &["--fresh"]);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("| earlier run | WARN |") && said.contains("it is kept beside it as"),
        "{said}"
    );
}

#[test]
fn a_live_run_that_reached_no_step_is_previewed_as_the_start_refuses_it() {
    let repo = Repo::new(&crate::trek::example_plan());
    let (code, reply) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{reply}");
    let (code, said) = trek_dry_run(&repo, &[]);
    assert_eq!(code, 1, "{said}");
    let (_, json) = dry_run(repo.path(), repo.home.path(), &["--json"], &repo.plan());
    let report = assert_schema("plan-dry-run", &json);
    let live = row(&report, "run in progress");
    assert_eq!(live["outcome"], "fail", "{live}");
    let words = live["detail"].as_str().unwrap();
    assert!(words.contains("already in progress"), "{words}");
    let (code, reply) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 1, "{reply}");
    let started = text(&reply);
    for line in words.lines() {
        assert!(started.contains(line), "{line:?} not in\n{started}");
    }
}

#[test]
fn a_run_branch_left_with_work_is_previewed_as_the_start_refuses_it() {
    let repo = Repo::new(&crate::trek::example_plan());
    let (_, said) = trek_dry_run(&repo, &[]);
    assert!(
        said.contains("| run branch | PASS | trek/plan/run is made from main and checked out |"),
        "{said}"
    );
    // A branch of the run's name holding a commit main does not have.
    git(repo.path(), &["checkout", "-q", "-b", "trek/plan/run"]);
    repo.write(&[("notes.txt", "kept\n")]);
    commit_all(repo.path(), "work of an earlier run");
    git(repo.path(), &["checkout", "-q", "main"]);
    let (code, json) = dry_run(repo.path(), repo.home.path(), &["--json"], &repo.plan());
    assert_eq!(code, 1, "{json}");
    let report = assert_schema("plan-dry-run", &json);
    let branch = row(&report, "run branch");
    assert_eq!(branch["outcome"], "fail", "{branch}");
    let words = branch["detail"].as_str().unwrap();
    assert!(words.contains("is left from an earlier run"), "{words}");
    let (code, reply) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 1, "{reply}");
    let started = text(&reply);
    for line in words.lines() {
        assert!(started.contains(line), "{line:?} not in\n{started}");
    }
    // --in-place makes no branch: nothing in the way.
    let (code, said) = trek_dry_run(&repo, &["--in-place"]);
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("| run branch | PASS | none (--in-place)"),
        "{said}"
    );
}

/// A Cargo project whose `target/` git does not ignore: a step that builds
/// would leave it untracked outside the step's Files. The dry-run warns
/// (READY still), the real start says the same words, and once `/target/`
/// is ignored the row passes.
#[test]
fn build_output_git_does_not_ignore_is_a_warning_previewed_and_said() {
    let repo = repo_with(&sentence_plan());
    repo.write(&[(
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
    )]);
    commit_all(repo.path(), "cargo");
    let (code, json) = dry_run(repo.path(), repo.home.path(), &["--json"], &repo.plan());
    assert_eq!(code, 0, "{json}");
    let report = assert_schema("plan-dry-run", &json);
    let build = row(&report, "build output");
    assert_eq!(build["outcome"], "warn", "{build}");
    let words = build["detail"].as_str().unwrap().to_owned();
    assert!(
        words.contains("git does not ignore target/ (Cargo.toml)"),
        "{words}"
    );
    assert!(words.contains("Add /target/ to .gitignore"), "{words}");
    assert_eq!(report["issues"], 0, "a warning is no issue: {report:#}");

    let plan = repo.plan();
    let (_, reply) = repo.trek(&["start", &plan]);
    assert!(text(&reply).contains(&words), "{}", text(&reply));

    let repo = repo_with(&sentence_plan());
    repo.write(&[
        (
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
        ),
        (".gitignore", "/target/\n"),
    ]);
    commit_all(repo.path(), "cargo");
    let (_, json) = dry_run(repo.path(), repo.home.path(), &["--json"], &repo.plan());
    let report = assert_schema("plan-dry-run", &json);
    assert_eq!(
        row(&report, "build output")["outcome"],
        "pass",
        "{report:#}"
    );
}
