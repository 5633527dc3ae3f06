//! What moving each area's command line beside its code changed on purpose
//! (issue 11, point 4): `progress init PLAN` takes the plan as its argument
//! (`--plan PLAN` still works, both at once is a usage error), and
//! `VOYAGE_PROFILE` is `--profile`'s clap `env`, still reported as its own
//! source.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::path::Path;

use crate::common::Case;
use serde_json::Value;

fn with_plan() -> Case {
    let case = Case::new(&[]);
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans/valid/v17-single.md"),
        case.path().join("plan.md"),
    )
    .unwrap();
    case
}

#[test]
fn progress_init_takes_the_plan_as_its_argument() {
    let created = "created ./.trekexecute-progress-plan.json: 3 steps pending, 25 recovery/retry iterations\n";
    let case = with_plan();
    let ran = case.run_with(&["progress", "init", "plan.md"]);
    assert_eq!(
        (ran.status, ran.stdout.as_str()),
        (0, created),
        "{}",
        ran.stderr
    );
    let case = with_plan();
    let ran = case.run_with(&["progress", "init", "--plan", "plan.md"]);
    assert_eq!(
        (ran.status, ran.stdout.as_str()),
        (0, created),
        "{}",
        ran.stderr
    );
}

#[test]
fn progress_init_refuses_two_plans() {
    let case = with_plan();
    let out = case
        .command_with(
            &["progress", "init", "plan.md", "--plan", "plan.md"].map(String::from),
            b"",
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
    assert!(!case.path().join(".trekexecute-progress-plan.json").exists());
}

#[test]
fn progress_init_without_a_plan_says_how_to_give_one() {
    let case = Case::new(&[]);
    let out = case
        .command_with(&["progress", "init"].map(String::from), b"")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("PROGRESS_NO_TARGET"), "{stderr}");
    assert!(
        stderr.contains("PLAN, --plan PLAN or --project DIR"),
        "{stderr}"
    );
}

#[test]
fn an_empty_voyage_profile_counts_as_unset() {
    let case = Case::new(&["profile", "resolve", "--phase", "execute", "--json"])
        .env("VOYAGE_PROFILE", "");
    let r: Value = serde_json::from_str(&case.run().stdout).unwrap();
    assert_eq!(r["profile"]["name"], "premium");
    assert_eq!(r["profile"]["source"], "default");
}

#[test]
fn the_profile_help_names_its_variable() {
    let ran = Case::new(&["profile", "resolve", "--help"]).run();
    assert_eq!(ran.status, 0);
    assert!(
        ran.stdout.contains("[env: VOYAGE_PROFILE="),
        "{}",
        ran.stdout
    );
}
