//! `trek step-done` judges a Verify as the executor's verdict does, never
//! greener than its runner: failures the runner counts fail the step even
//! when a wrapper swallowed the exit code, and a Verify that ran no test
//! passes on its exit code with a warning that reaches the final report.
//! Real runs of Python's unittest in real git repositories.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::Path;

use serde_json::Value;

use crate::common::schema::assert_schema;
use crate::common::tool_or_skip;
use crate::trek::Repo;

/// A one-step plan whose Verify is `verify`, run on `test_cart.py`.
fn plan(verify: &str) -> String {
    format!(
        r#"---
plan_version: 1.7
profile: economy
---
# Plan: a cart test

## Context

A test file for the cart.

## Implementation Plan

### Step 1: Test the cart's total
- **Files:** `test_cart.py` (new)
- **Changes:** A unittest test case for the total.
- **Verify:** `{verify}`
- **On failure:** retry — fix the test
- **Checkpoint:** `git commit -m "test(cart): check the total"`
- **Manifest:**
  ```yaml
  expected_paths: [test_cart.py]
  min_file_count: 1
  commit_message_pattern: "^test\\(cart\\): check the total$"
  bash_syntax_check: []
  forbidden_paths: []
  must_contain:
    - {{path: test_cart.py, pattern: "unittest"}}
  ```

## Verification

- `python3 -m unittest test_cart` — the test passes
"#
    )
}

/// Two tests: one passes, one fails unless `fixed`.
fn test_file(fixed: bool) -> String {
    let want = if fixed { 270 } else { 280 };
    format!(
        "import unittest\n\n\nclass TestCart(unittest.TestCase):\n    def test_total(self):\n        self.assertEqual(50 * 3 + 120, {want})\n\n    def test_empty(self):\n        self.assertEqual(sum([]), 0)\n"
    )
}

/// `voyage-helper trek ARGS --json` in `repo`: the exit code and the
/// reply, checked against its schema.
fn trek(repo: &Repo, args: &[&str]) -> (i32, Value) {
    let out = crate::common::env::helper(repo.path(), repo.home.path())
        .arg("trek")
        .args(args)
        .arg("--json")
        .env("CLAUDE_PLUGIN_DATA", repo.home.path().join("data"))
        .output()
        .unwrap();
    let reply = assert_schema("trek-reply", String::from_utf8_lossy(&out.stdout).trim());
    (out.status.code().unwrap_or(-1), reply)
}

fn started(verify: &str) -> Option<Repo> {
    tool_or_skip("python3", "apt-get install python3")?;
    let repo = Repo::new(&plan(verify));
    let plan = repo.path().join("plans/plan.md");
    let (code, started) = trek(&repo, &["start", plan.to_str().unwrap()]);
    assert_eq!(code, 0, "{started}");
    let (_, begun) = trek(&repo, &["step-begin", "1"]);
    assert_eq!(begun["next"], "implement", "{begun}");
    Some(repo)
}

fn lines(reply: &Value) -> Vec<String> {
    reply["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_owned())
        .collect()
}

fn progress(repo: &Path) -> Value {
    let text = std::fs::read_to_string(repo.join("plans/.trekexecute-progress-plan.json"));
    serde_json::from_str(&text.unwrap()).unwrap()
}

#[test]
fn a_verify_whose_runner_counts_failures_fails_the_step_even_on_exit_0() {
    let Some(repo) = started("python3 -m unittest test_cart || true") else {
        return;
    };
    crate::common::repo::write(repo.path(), &[("test_cart.py", &test_file(false))]);
    let (_, done) = trek(&repo, &["step-done", "1"]);
    let said = lines(&done).join("\n");
    assert!(
        said.contains("Verify `python3 -m unittest test_cart || true`: FAIL (exit 0,"),
        "{said}"
    );
    assert!(
        said.contains("unittest reports 1 failed but exited 0"),
        "{said}"
    );
    assert!(said.contains("Attempt 1/3 failed"), "{said}");
    assert_eq!(done["next"], "begin-step", "a retry: {done}");
    assert_eq!(progress(repo.path())["steps"]["1"]["status"], "failed");

    // Fixed, the same Verify passes and the step is committed.
    trek(&repo, &["step-begin", "1"]);
    crate::common::repo::write(repo.path(), &[("test_cart.py", &test_file(true))]);
    let (_, done) = trek(&repo, &["step-done", "1"]);
    let said = lines(&done).join("\n");
    assert!(said.contains("Step 1: PASS (committed"), "{said}");
    assert!(!said.contains("warning:"), "{said}");
}

#[test]
fn a_verify_that_ran_no_test_passes_with_a_warning_the_report_repeats() {
    let Some(repo) = started("python3 -m unittest -k no_such_test test_cart") else {
        return;
    };
    crate::common::repo::write(repo.path(), &[("test_cart.py", &test_file(false))]);
    let (_, done) = trek(&repo, &["step-done", "1"]);
    let said = lines(&done);
    let warning = said
        .iter()
        .find(|l| l.starts_with("warning: the Verify ran no tests ("))
        .unwrap_or_else(|| panic!("no warning in {said:?}"));
    assert!(warning.contains("Ran 0 tests"), "{warning}");
    assert!(
        said.iter().any(|l| l.contains(": NO TESTS RAN (exit 0,")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|l| l.starts_with("Step 1: PASS (committed")),
        "{said:?}"
    );
    let recorded = &progress(repo.path())["steps"]["1"];
    assert_eq!(recorded["status"], "completed");
    assert!(
        recorded["verify_warning"]
            .as_str()
            .unwrap()
            .starts_with("the Verify ran no tests"),
        "{recorded}"
    );

    let (_, finish) = trek(&repo, &["finish"]);
    let report = finish["report"].as_str().unwrap_or_default();
    let advisories = report.split("### Advisories").nth(1).unwrap_or_default();
    assert!(
        advisories.contains("- Step 1: the Verify ran no tests (Ran 0 tests"),
        "{report}"
    );
}
