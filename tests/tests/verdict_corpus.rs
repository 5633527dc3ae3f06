//! The verdict is never greener than the run: every log of the corpus in
//! `tests/data/verdict/` (exit codes swallowed by a wrapper, filters that
//! match nothing, collection errors, skipped-only runs, summaries followed
//! by a crash, failed assertions), given to the real `voyage-helper` the
//! two ways the executor skill does (`verdict` on the log, and `run
//! --reply` on a command that prints it and exits as the run did), gets
//! the verdict its manifest names, and the text it must hold. Then every
//! captured runner log of `helper/tests/fixtures/verdict/` that lists a
//! failure is given with exit 0, as `|| true` would leave it: none may
//! pass. Last, `trek step-done` runs each corpus case as a step's Verify
//! (`cat LOG; exit N`): none passes the step in silence.

// Test code: a panic here is a failed assertion (clippy.toml allows this
// inside #[test] fns, but not in the helpers they share).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use voyage_tests::{helper_binary, repo_root, run, sh_quote, text};

fn corpus() -> PathBuf {
    repo_root().join("tests/data/verdict")
}

/// One case of `manifest.json`.
struct Case {
    log: PathBuf,
    exit: i64,
    verdict: String,
    contains: Vec<String>,
}

fn cases() -> Vec<Case> {
    let manifest = corpus().join("manifest.json");
    let doc: Value = serde_json::from_str(&fs::read_to_string(&manifest).unwrap()).unwrap();
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            log: corpus().join(c["log"].as_str().unwrap()),
            exit: c["exit"].as_i64().unwrap(),
            verdict: c["verdict"].as_str().unwrap().to_owned(),
            contains: c["contains"]
                .as_array()
                .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
                .unwrap_or_default(),
        })
        .collect()
}

fn helper(args: &[&str], cwd: &Path) -> (String, Option<i32>) {
    let mut cmd = Command::new(helper_binary().unwrap());
    cmd.args(args).current_dir(cwd);
    let out = run(cmd, "");
    (text(&out.stdout), out.status.code())
}

/// `VERDICT: FAIL (exit 0, -) - note` → `FAIL`.
fn verdict_word(reply: &str) -> &str {
    let first = reply.lines().next().unwrap_or_default();
    let rest = first.strip_prefix("VERDICT: ").unwrap_or_default();
    rest.split(" (exit ").next().unwrap_or_default()
}

/// What a reply must never do when the run is not a pass: say PASS, or
/// say that "all green" was met.
fn greener_than(reply: &str, wanted: &str) -> Option<String> {
    let word = verdict_word(reply);
    if wanted != "PASS" && word == "PASS" {
        return Some(format!("PASS where {wanted} was wanted"));
    }
    if wanted != "PASS" && reply.contains("EXPECT: met") {
        return Some("EXPECT: met for \"all green\"".into());
    }
    None
}

#[test]
fn every_corpus_log_gets_its_verdict_and_none_is_greener() {
    let cases = cases();
    assert!(cases.len() >= 80, "{} cases", cases.len());
    let scratch = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    let mut greens = 0;
    for case in &cases {
        assert!(case.log.is_file(), "{} is missing", case.log.display());
        let log = case.log.to_str().unwrap();
        let exit = case.exit.to_string();
        let name = log.rsplit("verdict/").next().unwrap_or(log);

        let (reply, code) = helper(
            &[
                "verdict",
                "--log",
                log,
                "--exit",
                &exit,
                "--expect",
                "all green",
            ],
            scratch.path(),
        );
        // The same log, from a run: a command that prints it and exits so.
        let command = format!("cat {}; exit {}", sh_quote(log), case.exit);
        let (from_run, run_code) = helper(
            &["run", "--reply", "--expect", "all green", "--", &command],
            scratch.path(),
        );

        for (how, reply, code) in [
            ("verdict", &reply, code),
            ("run --reply", &from_run, run_code),
        ] {
            let word = verdict_word(reply);
            if word != case.verdict {
                problems.push(format!("{name} ({how}): {word}, wanted {}", case.verdict));
            }
            if let Some(why) = greener_than(reply, &case.verdict) {
                greens += 1;
                problems.push(format!("{name} ({how}): false green: {why}"));
            }
            let wanted_code = if case.verdict == "PASS" { 0 } else { 1 };
            if code != Some(wanted_code) {
                problems.push(format!(
                    "{name} ({how}): exit {code:?}, wanted {wanted_code}"
                ));
            }
            for needle in &case.contains {
                if !reply.contains(needle.as_str()) {
                    problems.push(format!("{name} ({how}): no {needle:?} in\n{reply}"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems ({greens} false greens):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn no_captured_failing_log_passes_when_the_exit_code_is_swallowed() {
    let fixtures = repo_root().join("helper/tests/fixtures/verdict");
    let scratch = tempfile::tempdir().unwrap();
    let mut checked = 0;
    let mut problems = Vec::new();
    for runner in fs::read_dir(&fixtures).unwrap() {
        let runner = runner.unwrap().path();
        if !runner.is_dir() {
            continue;
        }
        for entry in fs::read_dir(&runner).unwrap() {
            let expected = entry.unwrap().path();
            let Some(stem) = expected
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".expected.json"))
            else {
                continue;
            };
            let want: Value =
                serde_json::from_str(&fs::read_to_string(&expected).unwrap()).unwrap();
            let failures = want["failures"].as_array().map_or(0, Vec::len);
            let log = runner.join(format!("{stem}.log"));
            let log = log.to_str().unwrap();
            let recorded = want["exit"].as_i64().unwrap().to_string();
            if failures > 0 {
                checked += 1;
                let (reply, _) = helper(&["verdict", "--log", log, "--exit", "0"], scratch.path());
                if verdict_word(&reply) == "PASS" {
                    problems.push(format!("{log}: {failures} failures, exit 0: {reply}"));
                }
            } else if recorded == "0" {
                // A green run stays green: no false red either.
                let (reply, _) = helper(&["verdict", "--log", log, "--exit", "0"], scratch.path());
                if verdict_word(&reply) != "PASS" {
                    problems.push(format!("{log}: a green run, yet {reply}"));
                }
            }
        }
    }
    assert!(checked >= 80, "only {checked} failing fixtures found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A one-step plan whose Verify prints `log` and exits `exit`, as the
/// run that wrote it did.
fn replay_plan(log: &str, exit: i64) -> String {
    format!(
        r#"---
plan_version: 1.7
profile: economy
---
# Plan: replay a log

## Context

The Verify replays a captured run.

## Implementation Plan

### Step 1: Write the note
- **Files:** `note.txt` (new)
- **Changes:** A note.
- **Verify:** `cat {}; exit {exit}`
- **On failure:** escalate
- **Checkpoint:** `git commit -m "docs: add the note"`
- **Manifest:**
  ```yaml
  expected_paths: [note.txt]
  min_file_count: 1
  commit_message_pattern: "^docs: add the note$"
  bash_syntax_check: []
  forbidden_paths: []
  must_contain:
    - {{path: note.txt, pattern: "note"}}
  ```

## Verification

- `test -f note.txt` — the note is there
"#,
        sh_quote(log)
    )
}

/// `trek step-done` judges a Verify the same way: over the corpus, no
/// Verify whose run is not green passes the step in silence. A FAIL (or a
/// failing exit) fails it; a run that tested nothing with exit 0 passes
/// with `warning: the Verify ran no tests`; only a green run passes clean.
#[test]
fn trek_step_done_is_never_greener_than_the_corpus() {
    use voyage_tests::repo::{commit_all, init, write};
    let helper = helper_binary().unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    for case in cases() {
        let dir = tempfile::tempdir().unwrap();
        init(dir.path());
        let plan = replay_plan(case.log.to_str().unwrap(), case.exit);
        write(dir.path(), &[("plans/plan.md", &plan)]);
        commit_all(dir.path(), "init");
        let trek = |args: &[&str]| -> Value {
            let mut cmd = Command::new(&helper);
            cmd.arg("trek")
                .args(args)
                .arg("--json")
                .current_dir(dir.path())
                .env("HOME", home.path())
                .env("CLAUDE_PLUGIN_DATA", home.path().join("data"));
            // Nothing of the developer's own run reaches this one.
            for (key, _) in std::env::vars_os() {
                let key = key.to_string_lossy().into_owned();
                let theirs = ["VOYAGE_", "CLAUDE_", "TREKEXECUTE_", "EXECUTANT_"]
                    .iter()
                    .any(|p| key.starts_with(p));
                if theirs && key != "CLAUDE_PLUGIN_DATA" {
                    cmd.env_remove(&key);
                }
            }
            serde_json::from_slice(&run(cmd, "").stdout).unwrap_or(Value::Null)
        };
        let started = trek(&["start", "plans/plan.md"]);
        assert_eq!(started["next"], "begin-step", "{started}");
        trek(&["step-begin", "1"]);
        write(dir.path(), &[("note.txt", "a note\n")]);
        let done = trek(&["step-done", "1"]);
        let said: Vec<&str> = done["lines"]
            .as_array()
            .map(|l| l.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let passed = said.iter().any(|l| l.starts_with("Step 1: PASS"));
        let warned = said
            .iter()
            .any(|l| l.starts_with("warning: the Verify ran no tests ("));
        let name = case.log.display().to_string();
        let name = name.rsplit("verdict/").next().unwrap_or(&name);
        let wanted = match (case.verdict.as_str(), case.exit) {
            ("PASS", 0) => (true, false),
            ("NO TESTS RAN", 0) => (true, true),
            _ => (false, false),
        };
        if (passed, warned) != wanted {
            problems.push(format!(
                "{name} (exit {}, {}): passed {passed}, warned {warned}:\n  {}",
                case.exit,
                case.verdict,
                said.join("\n  ")
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
