//! Every reader of outside files on what is not a regular file of a sane
//! size: a directory, a FIFO nobody writes to, `/dev/zero`, a file past the
//! reader's limit (issue 12, point 5). Each must refuse with its code and
//! exit 2 at once; before, the FIFO and the device hung while memory grew.
//! Each run has a deadline, so a regression fails instead of hanging.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::common::env::helper;

/// Far more than any refusal needs, even in a debug build on a busy machine.
const DEADLINE: Duration = Duration::from_secs(10);

struct Ran {
    status: i32,
    stdout: String,
    stderr: String,
}

/// Runs the helper in `dir` with `args` and stdin closed; kills it and fails
/// the test when it outlives [`DEADLINE`].
fn run(dir: &Path, args: &[&str]) -> Ran {
    let mut child = helper(dir, dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    Ran {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A temp dir with a directory `dir`, a FIFO `fifo` and files of `size`
/// bytes (sparse: nothing is written) named `big`.
struct Inputs {
    tmp: TempDir,
}

impl Inputs {
    fn new(big: u64) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("dir")).unwrap();
        nix::unistd::mkfifo(&tmp.path().join("fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let file = std::fs::File::create(tmp.path().join("big")).unwrap();
        file.set_len(big).unwrap();
        Self { tmp }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }

    /// `args` with `{}` replaced by each of `/dev/zero`, the FIFO, the
    /// directory and the over-size file; each must name `not_a_file` (the
    /// first three) or `too_large` in its output and exit 2.
    fn refuse(&self, args: &[&str], not_a_file: &str, too_large: &str) {
        let cases = [
            (PathBuf::from("/dev/zero"), not_a_file),
            (self.path("fifo"), not_a_file),
            (self.path("dir"), not_a_file),
            (self.path("big"), too_large),
        ];
        for (path, code) in cases {
            let path = path.to_str().unwrap();
            let args: Vec<&str> = args
                .iter()
                .map(|a| if *a == "{}" { path } else { a })
                .collect();
            let ran = run(self.tmp.path(), &args);
            assert_eq!(ran.status, 2, "{args:?}: {}{}", ran.stdout, ran.stderr);
            let all = format!("{}{}", ran.stdout, ran.stderr);
            assert!(all.contains(code), "{args:?}: {all}");
        }
    }
}

const MIB: u64 = 1024 * 1024;

#[test]
fn plan_readers_refuse() {
    let inputs = Inputs::new(16 * MIB + 1);
    inputs.refuse(
        &["plan", "validate", "{}"],
        "PLAN_NOT_A_FILE",
        "PLAN_TOO_LARGE",
    );
    inputs.refuse(
        &["plan", "validate", "--json", "{}"],
        "\"PLAN_NOT_A_FILE\"",
        "\"PLAN_TOO_LARGE\"",
    );
    inputs.refuse(&["plan", "show", "{}"], "PLAN_NOT_A_FILE", "PLAN_TOO_LARGE");
    inputs.refuse(&["scan", "plan", "{}"], "PLAN_NOT_A_FILE", "PLAN_TOO_LARGE");
    let ran = run(inputs.tmp.path(), &["plan", "validate", "dir"]);
    assert!(ran.stderr.contains("is a directory"), "{}", ran.stderr);
}

#[test]
fn progress_validate_refuses() {
    let inputs = Inputs::new(16 * MIB + 1);
    inputs.refuse(
        &["progress", "validate", "{}"],
        "PROGRESS_NOT_A_FILE",
        "PROGRESS_TOO_LARGE",
    );
}

#[test]
fn workflow_validate_refuses() {
    let inputs = Inputs::new(16 * MIB + 1);
    inputs.refuse(
        &["workflow", "validate", "{}"],
        "WORKFLOW_NOT_A_FILE",
        "WORKFLOW_TOO_LARGE",
    );
}

/// A reference is checked to be a file before it is read (and read through
/// the same reader, should it be swapped in between).
#[test]
fn a_nested_workflow_reference_is_refused_too() {
    let inputs = Inputs::new(0);
    std::fs::write(
        inputs.path("wf.yaml"),
        "goal: g\nsteps:\n  - name: inner\n    workflow: fifo\n",
    )
    .unwrap();
    let ran = run(inputs.tmp.path(), &["workflow", "validate", "wf.yaml"]);
    assert_eq!(ran.status, 2, "{}{}", ran.stdout, ran.stderr);
    assert!(
        format!("{}{}", ran.stdout, ran.stderr)
            .contains("WORKFLOW_REFERENCE_NOT_FOUND]: step \"inner\", field `workflow`: \"fifo\" is not a file"),
        "{}{}",
        ran.stdout,
        ran.stderr
    );
}

#[test]
fn brief_and_state_readers_refuse() {
    let inputs = Inputs::new(16 * MIB + 1);
    inputs.refuse(
        &["brief", "validate", "{}"],
        "BRIEF_NOT_A_FILE",
        "BRIEF_TOO_LARGE",
    );
    inputs.refuse(
        &["profile", "resolve", "--phase", "plan", "--brief", "{}"],
        "PROFILE_BRIEF_UNREADABLE",
        "PROFILE_BRIEF_UNREADABLE",
    );
    let inputs = Inputs::new(64 * MIB + 1);
    inputs.refuse(
        &["state", "validate", "{}"],
        "STATE_NOT_A_FILE",
        "STATE_TOO_LARGE",
    );
}

#[test]
fn verdict_names_what_the_log_is() {
    let inputs = Inputs::new(0);
    let fifo = inputs.path("fifo");
    let dir = inputs.path("dir");
    for (log, summary) in [
        (
            "/dev/zero".to_owned(),
            "SUMMARY: log is a character device, not a regular file: /dev/zero".to_owned(),
        ),
        (
            fifo.to_str().unwrap().to_owned(),
            format!(
                "SUMMARY: log is a FIFO, not a regular file: {}",
                fifo.display()
            ),
        ),
        (
            dir.to_str().unwrap().to_owned(),
            format!("SUMMARY: log is a directory: {}", dir.display()),
        ),
    ] {
        let ran = run(
            inputs.tmp.path(),
            &["verdict", "--log", &log, "--exit", "0"],
        );
        assert_eq!(ran.status, 2, "{log}: {}", ran.stdout);
        assert_eq!(
            ran.stdout.lines().collect::<Vec<_>>(),
            ["VERDICT: ERROR (exit -, -)", summary.as_str()],
            "{log}"
        );
    }
}

#[test]
fn a_binary_log_is_summarised_as_binary() {
    let inputs = Inputs::new(0);
    let log = inputs.path("bin.log");
    std::fs::write(&log, b"\x7fELF\x02\x01\x01\0\0\0\0\x03\x00>\x00\xff\xfe").unwrap();
    let ran = run(
        inputs.tmp.path(),
        &["verdict", "--log", log.to_str().unwrap(), "--exit", "1"],
    );
    assert_eq!(ran.status, 1, "{}", ran.stdout);
    assert_eq!(
        ran.stdout.lines().nth(1),
        Some("SUMMARY: (the log is binary, not text)")
    );
}
