//! Output that cannot be written (issue 11, point 5): a `--json` reply on a
//! full disk exits 2 with `error: cannot write output: …` instead of 0, and
//! a reader that closed the pipe early (`| head -c1`) gets a quiet exit 0,
//! as ripgrep does. `helper/src/output.rs` holds the rule.
//!
//! Every case is one whose normal exit status is 0, so that the 2 can only
//! come from the failed write. `/dev/full` fails every write with ENOSPC; a
//! pipe whose read end is closed before the helper writes fails with EPIPE
//! whatever the output's size.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const MESSAGE: &str = "error: cannot write output: ";

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The helper with a clean environment whose data directory is `data`.
fn helper(args: &[&str], data: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("voyage-helper"));
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if ["VOYAGE_", "CLAUDE_", "EXECUTANT_", "TREKEXECUTE_"]
            .iter()
            .any(|p| key.starts_with(p))
        {
            cmd.env_remove(&key);
        }
    }
    cmd.args(args)
        .env("CLAUDE_PLUGIN_DATA", data)
        .env("HOME", data)
        .stdin(Stdio::null());
    cmd
}

/// Runs with stdout on `/dev/full`.
fn to_full_disk(mut cmd: Command) -> Output {
    cmd.stdout(File::create("/dev/full").unwrap())
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// Runs with stdout on a pipe nobody reads: its read end is closed before
/// the helper has started, so its first write fails with EPIPE.
fn to_closed_pipe(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Commands that print a JSON reply and exit 0 when it is written.
fn json_replies(dir: &Path) -> Vec<Vec<String>> {
    let plan = fixture("tests/fixtures/plans/valid/v17-single.md");
    let progress = fixture("tests/fixtures/progress/valid-completed.json");
    let workflow = dir.join("hello.yaml");
    fs::write(
        &workflow,
        "goal: hello\nsteps:\n  - name: greet\n    command: echo hi\n",
    )
    .unwrap();
    let path = |p: &Path| p.display().to_string();
    let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    vec![
        args(&["progress", "validate", "--json", &path(&progress)]),
        args(&["plan", "validate", "--json", &path(&plan)]),
        args(&["plan", "show", "--json", &path(&plan)]),
        args(&["stats", "show", "--json"]),
        args(&["workflow", "validate", "--json", &path(&workflow)]),
        args(&["schema", "workflow"]),
    ]
}

#[test]
fn the_cases_exit_0_when_their_output_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for args in json_replies(dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = helper(&args, dir.path()).output().unwrap();
        assert_eq!(
            ran.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&ran.stderr)
        );
        assert!(!ran.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_full_disk_exits_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    for args in json_replies(dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = to_full_disk(helper(&args, dir.path()));
        assert_eq!(ran.status.code(), Some(2), "{args:?}");
        let stderr = text(&ran.stderr);
        assert!(
            stderr.starts_with(MESSAGE) && stderr.ends_with('\n') && stderr.lines().count() == 1,
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_closed_pipe_exits_0_quietly() {
    let dir = tempfile::tempdir().unwrap();
    for args in json_replies(dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = to_closed_pipe(helper(&args, dir.path()));
        assert_eq!(ran.status.code(), Some(0), "{args:?}");
        assert_eq!(text(&ran.stderr), "", "{args:?}");
    }
}

#[test]
fn help_that_cannot_be_written_is_a_write_error_too() {
    let dir = tempfile::tempdir().unwrap();
    let ran = to_full_disk(helper(&["--help"], dir.path()));
    assert_eq!(ran.status.code(), Some(2));
    assert!(text(&ran.stderr).starts_with(MESSAGE));
    let ran = to_closed_pipe(helper(&["plan", "--help"], dir.path()));
    assert_eq!(ran.status.code(), Some(0));
    assert_eq!(text(&ran.stderr), "");
}

/// A completion script is longer than a pipe holds, so a reader that
/// stops after its first line (`| head -1`, for real) makes the helper's
/// write fail: a quiet 0, as anywhere else; it used to panic in
/// clap_complete (exit 134). A full disk is a write error like any other.
#[test]
fn completions_into_head_exit_0_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let helper_path = assert_cmd::cargo::cargo_bin("voyage-helper");
    let ran = Command::new("bash")
        .arg("-c")
        .arg(r#""$0" completions bash | head -1 >/dev/null; exit "${PIPESTATUS[0]}""#)
        .arg(&helper_path)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    assert_eq!(text(&ran.stderr), "");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let ran = to_closed_pipe(helper(&["completions", shell], dir.path()));
        assert_eq!(ran.status.code(), Some(0), "{shell}: {}", text(&ran.stderr));
        assert_eq!(text(&ran.stderr), "", "{shell}");
        let ran = to_full_disk(helper(&["completions", shell], dir.path()));
        assert_eq!(ran.status.code(), Some(2), "{shell}");
        assert!(text(&ran.stderr).starts_with(MESSAGE), "{shell}");
    }
}

/// `run` and `verdict` keep their own codes for what they report, and a
/// write error is exit 2 like anywhere else.
#[test]
fn run_and_verdict_report_a_write_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut run = helper(&["run", "--json", "--", "true"], dir.path());
    run.current_dir(dir.path());
    let ran = to_full_disk(run);
    assert_eq!(ran.status.code(), Some(2));
    assert!(text(&ran.stderr).starts_with(MESSAGE));
    let log = dir.path().join("pass.log");
    fs::write(&log, "test result: ok. 3 passed; 0 failed\n").unwrap();
    let log = log.display().to_string();
    let verdict = ["verdict", "--log", &log, "--exit", "0"];
    let ran = helper(&verdict, dir.path()).output().unwrap();
    assert_eq!(ran.status.code(), Some(0));
    let ran = to_full_disk(helper(&verdict, dir.path()));
    assert_eq!(ran.status.code(), Some(2));
    assert!(text(&ran.stderr).starts_with(MESSAGE));
}

/// The hook answers through its exit status when its answer cannot be
/// written: a denial still blocks (exit 2, Claude Code's blocking error, the
/// reason on stderr); a warning becomes no decision (exit 0, silent); it
/// never exits 1, a non-blocking hook error.
#[test]
fn a_hook_answer_that_cannot_be_written_still_blocks_a_denied_call() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("call.json");
    for (command, code) in [("rm -rf /", 2), ("git push -f", 0), ("ls", 0)] {
        fs::write(
            &input,
            format!(r#"{{"tool_name":"Bash","tool_input":{{"command":"{command}"}}}}"#),
        )
        .unwrap();
        let mut cmd = helper(&["hook", "pre-tool-use"], dir.path());
        cmd.stdin(File::open(&input).unwrap());
        let ran = to_full_disk(cmd);
        assert_eq!(ran.status.code(), Some(code), "{command}");
        let stderr = text(&ran.stderr);
        if code == 2 {
            assert!(
                stderr.starts_with("voyage: blocked rm-recursive-force"),
                "{stderr}"
            );
        } else {
            assert_eq!(stderr, "", "{command}");
        }
    }
}

/// `workflow run --ci` whose event stream cannot be written stops the run
/// (no further step starts) and exits 2 with the message; a closed pipe
/// stops it too, quietly, with 0.
#[test]
fn a_workflow_run_stops_when_its_stream_cannot_be_written() {
    for (closed, code) in [(false, 2), (true, 0)] {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("second-step-ran");
        let workflow = dir.path().join("two.yaml");
        fs::write(
            &workflow,
            format!(
                "goal: two steps\nsteps:\n  - name: first\n    command: sleep 1\n  - name: second\n    command: touch '{}'\n",
                marker.display()
            ),
        )
        .unwrap();
        let wf = workflow.display().to_string();
        let mut cmd = helper(&["workflow", "run", "--ci", &wf], dir.path());
        cmd.env("VOYAGE_LOG", "0");
        let ran = if closed {
            to_closed_pipe(cmd)
        } else {
            to_full_disk(cmd)
        };
        let stderr = text(&ran.stderr);
        assert_eq!(ran.status.code(), Some(code), "closed {closed}: {stderr}");
        assert!(!marker.exists(), "closed {closed}: the second step ran");
        if closed {
            assert_eq!(stderr, "");
        } else {
            assert!(stderr.contains(MESSAGE), "{stderr}");
        }
    }
}
