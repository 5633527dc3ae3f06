//! `voyage-helper verdict`: the executor skill's reply, end to end.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use crate::common::Case;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/verdict")
        .join(name)
}

fn verdict(args: &[&str], stdin: &str) -> crate::common::Ran {
    let mut all = vec!["verdict"];
    all.extend_from_slice(args);
    let ran = Case::new(&all).stdin(stdin).run();
    assert_eq!(ran.stderr, "");
    ran
}

#[test]
fn a_failing_cargo_test_run_from_flags() {
    let log = fixture("cargo-test/fail.log");
    let log = log.to_str().unwrap();
    let ran = verdict(
        &[
            "--log",
            log,
            "--exit",
            "101",
            "--duration",
            "3s",
            "--expect",
            "all green",
        ],
        "",
    );
    assert_eq!(ran.status, 1);
    assert_eq!(
        ran.lines(),
        [
            "VERDICT: FAIL (exit 101, 3s)",
            "EXPECT: not met - a pass was wanted; exit 101",
            "SUMMARY: test result: FAILED. 3 passed; 3 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
            "FAILURES:",
            "- tests::discount_over_100_is_capped - attempt to subtract with overflow",
            "    src/lib.rs:56:5",
            "- tests::parse_line_reads_fields - Error: \"bad price \\\"5O\\\": invalid digit found in string\"",
            "- tests::total_sums_price_times_qty - assertion `left == right` failed (left: 270; right: 280)",
            "    src/lib.rs:85:9",
            &format!("LOG: {log}"),
        ]
    );
}

#[test]
fn run_block_on_stdin_is_accepted_as_it_is() {
    let log = fixture("jest/pass.log");
    let block = format!(
        "RESULT: SUCCESS\nSTATUS: ok\nEXIT: 0\nDURATION: 2s\nLOG: {}\nLINES: 12\nTAIL: Ran all test suites.\nexpect: passes\n",
        log.display()
    );
    let ran = verdict(&[], &block);
    assert_eq!(ran.status, 0);
    assert_eq!(
        ran.lines(),
        [
            "VERDICT: PASS (exit 0, 2s)",
            "EXPECT: met - it passed (exit 0)",
            "SUMMARY: Tests:       6 passed, 6 total",
            &format!("LOG: {}", log.display()),
        ]
    );
}

/// The seam between the two commands: the block a real `run` printed, and
/// the skill's own labels for the same run, read by one label reader give
/// the same verdict; `run`, on the same reader with its exact spelling,
/// does not take `Command:` for `command:`.
#[test]
fn a_real_run_block_and_the_skills_labels_read_alike() {
    let case = Case::new(&["run"]).stdin(
        "Command: exit 9\ncommand: printf 'test result: FAILED. 1 passed; 2 failed\\n'; exit 3\n",
    );
    let block = case.run();
    assert_eq!(block.status, 0, "{}", block.stdout);
    assert_eq!(block.field("EXIT"), Some("3"));
    let log = block.field("LOG").unwrap().to_owned();
    let duration = block.field("DURATION").unwrap().to_owned();

    let from_block = case.run_with_stdin(&["verdict"], block.stdout.as_bytes());
    let skill = format!("log: {log}\nexit: 3\nduration: {duration}\n");
    let from_skill = case.run_with_stdin(&["verdict"], skill.as_bytes());
    assert_eq!(from_block.status, 1);
    assert_eq!(
        from_block.lines()[0],
        format!("VERDICT: FAIL (exit 3, {duration})")
    );
    assert!(
        from_block.lines().contains(&format!("LOG: {log}").as_str()),
        "{}",
        from_block.stdout
    );
    assert_eq!(from_block.stdout, from_skill.stdout);
    assert_eq!(from_block.status, from_skill.status);
}

#[test]
fn more_than_ten_failures_are_cut_with_a_count() {
    let log = fixture("pytest/many.log");
    let ran = verdict(&["--log", log.to_str().unwrap(), "--exit", "1"], "");
    let lines = ran.lines();
    assert!(lines.len() <= 40);
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("- tests/")).count(),
        10
    );
    assert_eq!(lines[lines.len() - 2], "- +5 more, see LOG");
    assert_eq!(lines[0], "VERDICT: FAIL (exit 1, -)");
}

#[test]
fn timeout_uses_the_last_line_not_an_earlier_summary() {
    let case = Case::new(&["verdict"]);
    let log = case.path().join("t.log");
    std::fs::write(
        &log,
        "test result: ok. 3 passed; 0 failed\nrunning 40 tests\n\n",
    )
    .unwrap();
    let ran = Case::new(&[
        "verdict",
        "--log",
        log.to_str().unwrap(),
        "--exit",
        "124",
        "--status",
        "timeout",
        "--duration",
        "600s",
    ])
    .run();
    assert_eq!(ran.status, 1);
    assert_eq!(ran.lines()[0], "VERDICT: TIMEOUT (exit 124, 600s)");
    assert_eq!(ran.lines()[1], "SUMMARY: running 40 tests");
}

#[test]
fn error_status_reports_the_reason() {
    let case = Case::new(&["verdict"]);
    let log = case.path().join("e.log");
    std::fs::write(&log, "bash: line 1: nope: command not found\n").unwrap();
    let block = format!(
        "STATUS: error\nEXIT: 127\nDURATION: 0s\nLOG: {}\nREASON: command not found or not executable (exit 127)\n",
        log.display()
    );
    let ran = Case::new(&["verdict"]).stdin(block).run();
    assert_eq!(ran.status, 2);
    assert_eq!(
        ran.lines(),
        [
            "VERDICT: ERROR (exit 127, 0s)",
            "SUMMARY: command not found or not executable (exit 127)",
            &format!("LOG: {}", log.display()),
        ]
    );
}

#[test]
fn unrecognised_output_falls_back_to_the_last_non_empty_line() {
    let case = Case::new(&["verdict"]);
    let log = case.path().join("u.log");
    std::fs::write(&log, "compiling\nBuild succeeded\n\n   \n").unwrap();
    let ran = Case::new(&["verdict", "--log", log.to_str().unwrap(), "--exit", "0"]).run();
    assert_eq!(ran.lines()[1], "SUMMARY: Build succeeded");
    std::fs::write(&log, "").unwrap();
    let ran = Case::new(&["verdict", "--log", log.to_str().unwrap(), "--exit", "0"]).run();
    assert_eq!(ran.lines()[1], "SUMMARY: (the log is empty)");
}

#[test]
fn input_errors_read_nothing_and_print_no_log_line() {
    let cases: [(&[&str], &str, &str); 5] = [
        (&[], "", "missing log:"),
        (
            &["--log", "/no/such.log", "--exit", "1"],
            "",
            "log not found: /no/such.log",
        ),
        (&[], "log: /no/such.log\n", "log not found: /no/such.log"),
        (&["--exit", "1"], "", "missing log:"),
        (&["--log", "/", "--exit", "1"], "", "log is a directory: /"),
    ];
    for (args, stdin, summary) in cases {
        let ran = verdict(args, stdin);
        assert_eq!(ran.status, 2, "{args:?}");
        assert_eq!(
            ran.lines(),
            ["VERDICT: ERROR (exit -, -)", &format!("SUMMARY: {summary}")],
            "{args:?} {stdin:?}"
        );
    }
    let log = fixture("jest/pass.log");
    let log = log.to_str().unwrap();
    for (exit, summary) in [
        (None, "missing exit:"),
        (Some("x1"), "invalid exit: x1"),
        (Some(""), "missing exit:"),
    ] {
        let mut args = vec!["--log", log];
        if let Some(exit) = exit {
            args.extend(["--exit", exit]);
        }
        let ran = verdict(&args, "");
        assert_eq!(
            ran.lines(),
            ["VERDICT: ERROR (exit -, -)", &format!("SUMMARY: {summary}")]
        );
    }
    let ran = verdict(&["--log", log, "--exit", "0", "--status", "weird"], "");
    assert_eq!(
        ran.lines()[1],
        "SUMMARY: invalid status: weird (ok, timeout or error)"
    );
}

#[test]
fn json_reply() {
    let log = fixture("vitest/fail.log");
    let ran = verdict(
        &[
            "--log",
            log.to_str().unwrap(),
            "--exit",
            "1",
            "--json",
            "--expect",
            "test X fails because of Y",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(v["verdict"], "FAIL");
    assert_eq!(v["exit"], "1");
    assert_eq!(v["runner"], "vitest");
    assert_eq!(v["expect"]["outcome"], "undecided");
    assert_eq!(v["failures"].as_array().unwrap().len(), 3);
    assert_eq!(v["more_failures"], 0);
    assert_eq!(
        v["summary"],
        "Test Files  2 failed (2); Tests  3 failed | 3 passed (6)"
    );
}

#[test]
fn help_documents_the_output() {
    let ran = Case::new(&["verdict", "--help"]).run();
    assert_eq!(ran.status, 0);
    for needle in [
        "VERDICT:",
        "EXPECT:",
        "SUMMARY:",
        "FAILURES:",
        "LOG:",
        "Exit status: 0 PASS",
    ] {
        assert!(ran.stdout.contains(needle), "{needle}");
    }
    let ran = Case::new(&["run", "--help"]).run();
    for needle in [
        "RESULT: SUCCESS|DEVIATION",
        "TAIL:",
        "REASON:",
        "expect-exit:",
        "process group",
    ] {
        assert!(ran.stdout.contains(needle), "{needle}");
    }
}

/// A log of the corpus in `tests/data/verdict/` (real runs of each tool).
fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/verdict")
        .join(name)
}

#[test]
fn failures_the_runner_counts_outweigh_a_swallowed_exit_code() {
    let log = corpus("cargo-test/fail-swallowed.log");
    let log = log.to_str().unwrap();
    let ran = verdict(&["--log", log, "--exit", "0", "--expect", "all green"], "");
    assert_eq!(ran.status, 1);
    assert_eq!(
        &ran.lines()[..3],
        [
            "VERDICT: FAIL (exit 0, -) - cargo test reports 3 failed but exited 0",
            "EXPECT: not met - a pass was wanted; exit 0, but the tool counted 3 failed",
            "SUMMARY: test result: FAILED. 1 passed; 3 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
        ]
    );
    let json = verdict(&["--log", log, "--exit", "0", "--json"], "");
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["verdict"], "FAIL");
    assert_eq!(v["note"], "cargo test reports 3 failed but exited 0");
    assert_eq!(v["counts"]["failed"], 3);
    assert_eq!(v["counts"]["ran"], 4);
    assert_eq!(v["failures"][2]["values"][0], "left: 170");
}

#[test]
fn a_run_that_ran_no_test_is_no_tests_ran_never_a_pass() {
    for (name, exit, line) in [
        (
            "cargo-test/filter-nomatch.log",
            "0",
            "VERDICT: NO TESTS RAN (exit 0, -) - cargo test ran no tests (3 skipped or filtered out)",
        ),
        (
            "pytest/no-tests.log",
            "5",
            "VERDICT: NO TESTS RAN (exit 5, -) - pytest ran no tests and exited 5",
        ),
        (
            "jest/no-tests-pass.log",
            "0",
            "VERDICT: NO TESTS RAN (exit 0, -) - jest ran no tests",
        ),
    ] {
        let log = corpus(name);
        let ran = verdict(
            &[
                "--log",
                log.to_str().unwrap(),
                "--exit",
                exit,
                "--expect",
                "all green",
            ],
            "",
        );
        assert_eq!(ran.status, 1, "{name}");
        assert_eq!(ran.lines()[0], line);
        assert_eq!(
            ran.lines()[1],
            format!("EXPECT: not met - a pass was wanted; no tests ran, exit {exit}")
        );
    }
}

#[test]
fn a_crash_after_a_passing_summary_stays_a_failure() {
    let log = corpus("pytest/pass-then-crash-unbuffered.log");
    let ran = verdict(&["--log", log.to_str().unwrap(), "--exit", "134"], "");
    assert_eq!(ran.status, 1);
    assert_eq!(
        ran.lines()[0],
        "VERDICT: FAIL (exit 134, -) - pytest reports no failures but exited 134"
    );
}

#[test]
fn an_assertions_values_reach_the_excerpt() {
    let cases = [
        ("jest/assert-values.log", "(Expected: 270; Received: 170)"),
        (
            "pytest/assert-values.log",
            "AssertionError: total of one line is wrong (assert 10 == 20)",
        ),
        (
            "node-test/assert-values.log",
            "(expected: 270; actual: 170)",
        ),
        ("cargo-nextest/assert-values.log", "(left: 170; right: 270)"),
    ];
    for (name, needle) in cases {
        let log = corpus(name);
        let ran = verdict(&["--log", log.to_str().unwrap(), "--exit", "1"], "");
        assert!(ran.stdout.contains(needle), "{name}: {}", ran.stdout);
    }
}
