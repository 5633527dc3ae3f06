//! `plan validate`, `plan show`, `plan dry-run` and `brief validate` through
//! the CLI: the text reports, exit codes and the file system checks.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::Case;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn run(args: &[&str]) -> crate::common::Ran {
    Case::new(args).run()
}

#[test]
fn validate_ready_report() {
    let plan = fixture("plans/valid/v17-single.md");
    let ran = run(&["plan", "validate", plan.to_str().unwrap()]);
    assert_eq!(ran.status, 0);
    assert_eq!(ran.stderr, "");
    let expected = format!(
        "=== Schema Validation: READY ===\nFile: {p}\nType: plan\nplan_version: 1.7\nSteps: 3\nManifests: 3 valid\nWarnings: 0\n\nPlan is schema-compliant. Safe to run:\n  /trekexecute {p}\n",
        p = plan.display()
    );
    assert_eq!(ran.stdout, expected);
}

#[test]
fn validate_fail_report_names_code_line_and_fix() {
    let plan = fixture("plans/invalid/missing-manifest.md");
    let ran = run(&["plan", "validate", plan.to_str().unwrap()]);
    assert_eq!(ran.status, 1);
    assert!(
        ran.stdout.starts_with("=== Schema Validation: FAIL ===\n"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains(&format!(
        "- PLAN_MISSING_MANIFEST {}:23: step 2 has no Manifest",
        plan.display()
    )));
    assert!(ran.stdout.contains(
        "\nFix: write the missing Manifest keys of every step from its Files and Checkpoint (voyage-helper plan fill PLAN)"
    ));
}

/// The v1.7 fixture with `from` replaced by `to` (which must be there).
fn v17_with(from: &str, to: &str) -> String {
    let text = fs::read_to_string(fixture("plans/valid/v17-single.md")).unwrap();
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

/// Plans of each class Phase 2.3 tells apart: the codes expected among
/// the warnings (READY) or the errors (FAIL).
fn verdict_classes() -> Vec<(&'static str, String, bool, &'static str)> {
    let read = |rel: &str| fs::read_to_string(fixture(rel)).unwrap();
    vec![
        // (name, plan, ready, a code the report must name)
        ("legacy", read("plans/valid/legacy.md"), true, "PLAN_LEGACY"),
        (
            "no Verify",
            v17_with("- **Verify:** `cargo test --test format`\n", ""),
            true,
            "PLAN_MISSING_VERIFY",
        ),
        (
            "invalid regex",
            v17_with(r#""^docs: document --json$""#, r#""^docs: (document""#),
            false,
            "PLAN_INVALID_REGEX",
        ),
        (
            "malformed manifest YAML",
            v17_with("expected_paths: [README.md]", "expected_paths: [README.md"),
            false,
            "PLAN_MALFORMED_YAML",
        ),
        (
            "missing Manifest (strict)",
            read("plans/invalid/missing-manifest.md"),
            false,
            "PLAN_MISSING_MANIFEST",
        ),
        (
            "unrecognised format",
            read("plans/invalid/wrong-heading.md"),
            false,
            "PLAN_UNRECOGNIZED_FORMAT",
        ),
    ]
}

#[test]
fn warnings_leave_a_plan_ready_and_only_fatal_errors_fail_it() {
    for (name, text, ready, code) in verdict_classes() {
        let case = Case::new(&[]);
        fs::write(case.path().join("plan.md"), &text).unwrap();
        for strict in [&[][..], &["--strict"][..]] {
            let mut args = vec!["plan", "validate"];
            args.extend_from_slice(strict);
            let ran = case.run_with(&[&args[..], &["plan.md"]].concat());
            let banner = if ready { "READY" } else { "FAIL" };
            assert_eq!(
                ran.status,
                i32::from(!ready),
                "{name} {strict:?}: {}",
                ran.stdout
            );
            assert!(
                ran.stdout
                    .starts_with(&format!("=== Schema Validation: {banner} ===\n")),
                "{name}: {}",
                ran.stdout
            );
            assert!(
                ran.stdout.contains(&format!("- {code} ")),
                "{name}: {}",
                ran.stdout
            );
            if ready {
                assert!(
                    !ran.stdout.contains("Warnings: 0\n"),
                    "{name}: {}",
                    ran.stdout
                );
                assert!(ran.stdout.contains("Safe to run"), "{name}: {}", ran.stdout);
            }
            let ran = case.run_with(&[&args[..], &["--json", "plan.md"]].concat());
            let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
            assert_eq!(
                (v["status"].as_str(), v["valid"].as_bool()),
                (Some(banner), Some(ready)),
                "{name}"
            );
            let list = if ready { "warnings" } else { "errors" };
            assert!(
                v[list]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|p| p["code"] == code),
                "{name}: {v}"
            );
            if ready {
                assert_eq!(v["errors"], serde_json::json!([]), "{name}");
            }
        }
    }
}

#[test]
fn fail_on_warnings_makes_any_warning_fail() {
    for (name, text, ready, code) in verdict_classes() {
        let case = Case::new(&[]);
        fs::write(case.path().join("plan.md"), &text).unwrap();
        let ran = case.run_with(&["plan", "validate", "--fail-on-warnings", "plan.md"]);
        assert_eq!(ran.status, 1, "{name}: {}", ran.stdout);
        assert!(
            ran.stdout.starts_with("=== Schema Validation: FAIL ===\n"),
            "{name}"
        );
        if ready {
            // The warning is the reason, and the fix says how to pass.
            assert!(ran.stdout.contains("\nReason: "), "{}", ran.stdout);
            assert!(ran.stdout.contains(&format!("- {code} ")), "{}", ran.stdout);
            assert!(ran.stdout.contains("--fail-on-warnings"), "{}", ran.stdout);
        }
    }
    // A plan without a warning passes it.
    let plan = fixture("plans/valid/v17-single.md");
    let ran = run(&[
        "plan",
        "validate",
        "--fail-on-warnings",
        plan.to_str().unwrap(),
    ]);
    assert_eq!(ran.status, 0, "{}", ran.stdout);
}

#[test]
fn unreadable_plan_exits_2() {
    let ran = run(&["plan", "validate", "/no/such/plan.md"]);
    assert_eq!(ran.status, 2);
    assert!(ran.stderr.contains("PLAN_UNREADABLE"), "{}", ran.stderr);
    let ran = run(&["plan", "validate", "--json", "/no/such/plan.md"]);
    assert_eq!(ran.status, 2);
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(v["errors"][0]["code"], "PLAN_UNREADABLE");
}

#[test]
fn show_text_summary() {
    let ran = run(&[
        "plan",
        "show",
        fixture("plans/valid/multi-session.md").to_str().unwrap(),
    ]);
    assert_eq!(ran.status, 0);
    assert_eq!(
        ran.stdout,
        "Type: plan\nSteps: 4\nExecution Strategy: 3 sessions across 2 waves\n"
    );
    let ran = run(&[
        "plan",
        "show",
        fixture("plans/valid/session-spec.md").to_str().unwrap(),
    ]);
    assert!(ran.stdout.contains("Type: session-spec\n"));
    assert!(ran.stdout.contains("Scope fence: 2 touch, 2 never-touch\n"));
}

#[test]
fn dry_run_checks_files_below_the_repository_root() {
    let case = Case::new(&["plan", "dry-run", ".claude/plans/plan.md"]);
    let root = case.path();
    crate::common::repo::init(root);
    fs::create_dir_all(root.join(".claude/plans")).unwrap();
    fs::copy(
        fixture("plans/valid/multi-session.md"),
        root.join(".claude/plans/plan.md"),
    )
    .unwrap();
    // Step 4's file exists; the others are marked new.
    fs::create_dir_all(root.join("web/src")).unwrap();
    fs::write(root.join("web/src/app.rs"), "").unwrap();
    crate::common::repo::commit_all(root, "init");
    let ran = case.run();
    assert_eq!(ran.stderr, "");
    assert_eq!(ran.status, 0, "{}", ran.stdout);
    for needle in [
        "## Dry Run Report: plan.md",
        "| 1 | Store trait | `cargo build` | revert | feat(store): add trait | none |",
        "- src/store/mod.rs: NOT FOUND (marked as new file)",
        "- web/src/app.rs: EXISTS",
        "**Sessions:** 3 across 2 waves",
        "| 2 | Session 3: Integration | 4 | S1, S2 | `/trekexecute --session 3 .claude/plans/plan.md` |",
        "| clean working tree | PASS |",
        "| plan committed | PASS | plan commit: none (.claude/plans/plan.md is tracked) |",
        "### Verdict\n\nREADY\n",
    ] {
        assert!(
            ran.stdout.contains(needle),
            "missing {needle:?} in\n{}",
            ran.stdout
        );
    }
    // Without the file (its removal committed): step 4's own manifest
    // expects it, so step 4 creates it; not an issue, but it should be
    // marked `(new)`.
    crate::common::repo::git(root, &["rm", "-q", "web/src/app.rs"]);
    crate::common::repo::commit_all(root, "no app");
    let ran = case.run();
    assert_eq!(ran.status, 0, "{}", ran.stdout);
    assert!(
        ran.stdout.contains(
            "- web/src/app.rs: created by step 4 (in its manifest; mark it `(new)` in step 4's Files)"
        ),
        "{}",
        ran.stdout
    );
}

#[test]
fn dry_run_of_a_session_spec_lists_its_conditions() {
    let ran = run(&[
        "plan",
        "dry-run",
        "--json",
        fixture("plans/valid/session-spec.md").to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(v["type"], "session-spec");
    assert_eq!(
        v["exit_conditions"],
        serde_json::json!(["cargo test --test http", "cargo clippy -- -D warnings"])
    );
    assert!(
        v["entry_condition"]
            .as_str()
            .unwrap()
            .starts_with("Session 1 committed")
    );
}

#[test]
fn brief_validation() {
    let ok = run(&[
        "brief",
        "validate",
        fixture("briefs/brief-v21.md").to_str().unwrap(),
    ]);
    assert_eq!(ok.status, 0, "{}", ok.stdout);
    let missing = fixture("briefs/brief-v21-missing-signals.md");
    let ran = run(&["brief", "validate", "--json", missing.to_str().unwrap()]);
    assert_eq!(ran.status, 1);
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(v["errors"][0]["code"], "BRIEF_V51_MISSING_SIGNALS");
    assert_eq!(v["errors"][0]["line"], 2);
    // --soft keeps it an error: the sequencing gate halts on it (issue 13).
    let soft = run(&["brief", "validate", "--soft", missing.to_str().unwrap()]);
    assert_eq!(soft.status, 1);
    assert!(soft.stdout.contains("error BRIEF_V51_MISSING_SIGNALS"));
}

#[test]
fn brief_with_a_bad_effort() {
    let case = Case::new(&["brief", "validate", "b.md"]);
    fs::write(
        case.path().join("b.md"),
        "---\nbrief_version: 2.1\nphase_signals:\n  plan:\n    effort: extreme\n---\n# B\n",
    )
    .unwrap();
    let ran = case.run();
    assert_eq!(ran.status, 1);
    assert!(
        ran.stdout.contains("BRIEF_INVALID_EFFORT"),
        "{}",
        ran.stdout
    );
}

/// The mistakes a first plan makes most (issue 41's blind plans), each named
/// with the fix that clears it: a pattern written as its message with its
/// regex characters bare, a regex escape YAML refuses, a step under a `##`
/// heading (named once, not again as a gap in the numbering), a check in
/// `## Verification` without backticks, and a Manifest a legacy plan does
/// not read.
#[test]
fn first_plan_mistakes_are_named_with_their_fix() {
    let dir = tempfile::tempdir().unwrap();
    let step = |n: u32, heading: &str, message: &str, pattern: &str| {
        format!(
            "{heading} Step {n}: S{n}\n- **Files:** `s{n}.py` (new)\n- **Verify:** `python3 -m pytest -q`\n- **On failure:** retry\n- **Checkpoint:** `git commit -m \"{message}\"`\n- **Manifest:**\n  ```yaml\n  expected_paths: [s{n}.py]\n  min_file_count: 1\n  commit_message_pattern: \"{pattern}\"\n  bash_syntax_check: []\n  forbidden_paths: []\n  must_contain: []\n  ```\n\n"
        )
    };
    let plan = format!(
        "---\nplan_version: 1.7\n---\n# Plan\n\n## Implementation Plan\n\n{}{}{}## Verification\n\n- `python3 -m pytest -q` — tests pass\n- ruff check .\n",
        step(1, "###", "feat: add to_dict()", "^feat: add to_dict()$"),
        step(2, "##", "feat: two", "^feat: two$"),
        step(3, "###", "feat(c): add c", r"^feat\(c\): add c$"),
    );
    let path = dir.path().join("plan.md");
    fs::write(&path, &plan).unwrap();
    let ran = run(&["plan", "validate", path.to_str().unwrap()]);
    assert_eq!(ran.status, 1, "{}", ran.stdout);
    let out = &ran.stdout;
    assert!(
        out.contains("`(` `)` are regex characters in it: put a backslash before each"),
        "{out}"
    );
    assert!(
        out.contains(
            "unknown escape character; inside YAML double quotes a backslash is written twice"
        ),
        "{out}"
    );
    assert!(out.contains("PLAN_FORBIDDEN_HEADING"), "{out}");
    assert!(!out.contains("PLAN_STEP_SEQUENCE"), "{out}");
    let unread = plan.lines().position(|l| l == "- ruff check .").unwrap() + 1;
    assert!(
        out.contains(&format!(
            "- PLAN_VERIFICATION_ITEM_UNREAD {}:{unread}:",
            path.display()
        )),
        "{out}"
    );

    // The same steps, well written, without plan_version: their Manifests
    // are not read, and the warning says so.
    let legacy = format!(
        "# Plan\n\n## Implementation Plan\n\n{}{}## Verification\n\n- `python3 -m pytest -q` — tests pass\n",
        step(1, "###", "feat: one", "^feat: one$"),
        step(2, "###", "feat: two", "^feat: two$"),
    );
    fs::write(&path, legacy).unwrap();
    let ran = run(&["plan", "validate", path.to_str().unwrap()]);
    assert_eq!(ran.status, 0, "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("the Manifest written in 2 of 2 steps is not read"),
        "{}",
        ran.stdout
    );
}
