//! Workflow files written into a fresh temp dir, the real `voyage-helper`
//! binary run on them with the real `sh`, and every `--ci` line checked
//! against `schemas/event.schema.json`.
//!
//! [`collect`] is the one place a `--ci` run's stdout is read: each line must
//! be a JSON object that validates against the event schema, or the test
//! fails there. [`Dir::ci`] (and the tests that spawn the binary themselves)
//! go through it, so no run's stream escapes the check.
//!
//! [`brief`] turns an event into a short line (`start 0 build`,
//! `text 0 hello`, `info $ echo hello`) so that a test can compare a whole
//! stream, in order, with `assert_eq!`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

/// A temp dir holding workflow files; runs happen with it as the current
/// directory unless a test says otherwise.
pub struct Dir {
    pub tmp: TempDir,
}

/// One finished run.
#[derive(Debug)]
pub struct Run {
    pub status: i32,
    /// The `--ci` events, each already validated against the schema (empty
    /// for a run without `--ci`).
    pub events: Vec<Value>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Default for Dir {
    fn default() -> Self {
        Self::new()
    }
}

impl Dir {
    pub fn new() -> Self {
        Self {
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Writes `text` to `rel` below the dir (parents created).
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A `PATH` value holding only `sh`: commands still run, and a prompt
    /// step finds no `claude` (so no test reaches a real agent by accident).
    pub fn path_without_agents(&self) -> String {
        let bin = self.path().join(".no-agents");
        if !bin.exists() {
            std::fs::create_dir_all(&bin).unwrap();
            std::os::unix::fs::symlink("/bin/sh", bin.join("sh")).unwrap();
        }
        bin.display().to_string()
    }

    /// Copies every file of `tests/fixtures/workflows/<sub>` into the dir.
    pub fn copy_fixtures(&self, sub: &str) {
        let from = fixtures().join(sub);
        for entry in std::fs::read_dir(&from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                std::fs::copy(entry.path(), self.path().join(entry.file_name())).unwrap();
            }
        }
    }

    /// The binary with `args`, in this dir ([`super::env::helper`]: nothing
    /// of the developer's environment, `HOME` in the dir), with logging and
    /// the failure retrospective off (their tests turn them back on).
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = super::env::helper(self.path(), self.path());
        cmd.env("VOYAGE_LOG", "0")
            // A failed agent run would start an analysis; the tests of it
            // turn it back on.
            .env("VOYAGE_RETROSPECTIVE", "0")
            .args(args);
        cmd
    }

    /// `workflow run --ci FILE ARGS…`: the validated events.
    pub fn ci(&self, file: &str, args: &[&str]) -> Run {
        self.ci_env(file, args, &[])
    }

    /// [`Dir::ci`] with extra environment variables.
    pub fn ci_env(&self, file: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.ci_command(file, args);
        cmd.envs(env.iter().copied());
        let start = Instant::now();
        let output = cmd.output().unwrap();
        collect(&output, start.elapsed())
    }

    /// The `workflow run --ci` command, for tests that spawn it themselves
    /// (its output must still go through [`collect`]).
    pub fn ci_command(&self, file: &str, args: &[&str]) -> Command {
        let mut all = vec!["workflow", "run", "--ci"];
        all.extend_from_slice(args);
        all.push(file);
        self.command(&all)
    }

    /// Any other invocation (`workflow validate`, a run without `--ci`).
    pub fn plain(&self, args: &[&str]) -> Run {
        self.plain_env(args, &[])
    }

    pub fn plain_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let start = Instant::now();
        let output = self
            .command(args)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        Run {
            status: output.status.code().unwrap_or(-1),
            events: Vec::new(),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            elapsed: start.elapsed(),
        }
    }
}

/// `tests/fixtures/workflows`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/workflows")
}

/// `examples/workflows` of the repository.
pub fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/workflows")
}

/// Copies the example workflow files into `dir` (they refer to each other
/// by relative path). Files only: a run of an example (`scripts/demo.sh`)
/// leaves its log directory beside them.
pub fn copy_examples(dir: &Path) {
    for entry in std::fs::read_dir(examples()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
}

fn event_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| super::schema::validator("event"))
}

/// The events of a `--ci` run: every stdout line parsed as JSON and
/// validated against `schemas/event.schema.json`; any line that is not
/// valid fails the test with the line and the schema's complaints.
pub fn collect(output: &Output, elapsed: Duration) -> Run {
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let validator = event_validator();
    let mut events = Vec::new();
    for (n, line) in stdout.lines().enumerate() {
        let event: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("stdout line {} is not JSON ({e}): {line}", n + 1));
        let errors: Vec<String> = validator
            .iter_errors(&event)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "stdout line {} does not match schemas/event.schema.json:\n{line}\n{}\nstderr: {stderr}",
            n + 1,
            errors.join("\n")
        );
        events.push(event);
    }
    Run {
        status: output.status.code().unwrap_or(-1),
        events,
        stdout,
        stderr,
        elapsed,
    }
}

impl Run {
    /// The events as short lines, in order (see [`brief`]).
    pub fn briefs(&self) -> Vec<String> {
        self.events.iter().map(brief).collect()
    }

    /// The events of one type.
    pub fn of(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == kind).collect()
    }

    /// The text of every `output:text` event, in order.
    pub fn texts(&self) -> Vec<String> {
        self.of("output:text")
            .iter()
            .map(|e| e["text"].as_str().unwrap().to_owned())
            .collect()
    }

    pub fn last(&self) -> &Value {
        self.events.last().expect("at least one event")
    }

    /// Asserts the exit status, showing the run when it differs.
    #[track_caller]
    pub fn status_is(&self, code: i32) -> &Self {
        assert_eq!(
            self.status,
            code,
            "exit status\nstdout:\n{}\nstderr:\n{}",
            self.briefs().join("\n"),
            self.stderr
        );
        self
    }
}

/// An event as one short line holding its type and key fields:
///
/// | event | line |
/// |---|---|
/// | `workflow:*` | the type alone |
/// | `step:start` / `step:complete` / `step:skip` | `start 0 name` / `complete 0 name` / `skip 0 name` |
/// | `step:error` | `error 0 name: message` |
/// | `step:iteration` | `iteration 0 2/3 item` |
/// | `step:inner` | `inner 0 it2 1/3 name` (0-based inner index) |
/// | `step:iteration-complete` | `iteration-complete 0 2 complete` or `… error: message` |
/// | `output:text` | `text 0 the text` (a duration in `✓ name (0s)` becomes `(…)`) |
/// | `log` | `info the text`, `warn …`, `error …` |
pub fn brief(event: &Value) -> String {
    let kind = event["type"].as_str().unwrap();
    let s = |key: &str| match &event[key] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match kind {
        "step:start" => format!("start {} {}", s("index"), s("name")),
        "step:complete" => format!("complete {} {}", s("index"), s("name")),
        "step:skip" => format!("skip {} {}", s("index"), s("name")),
        "step:error" => format!(
            "error {} {}: {}",
            s("index"),
            s("name"),
            event["error"]["message"].as_str().unwrap()
        ),
        "step:iteration" => format!(
            "iteration {} {}/{} {}",
            s("index"),
            s("iteration"),
            s("total"),
            s("item")
        ),
        "step:inner" => format!(
            "inner {} it{} {}/{} {}",
            s("index"),
            s("iteration"),
            s("innerIndex"),
            s("innerTotal"),
            s("name")
        ),
        "step:iteration-complete" => {
            let mut line = format!(
                "iteration-complete {} {} {}",
                s("index"),
                s("iteration"),
                s("status")
            );
            if let Some(error) = event["error"].as_str() {
                line.push_str(": ");
                line.push_str(error);
            }
            line
        }
        "output:text" => format!("text {} {}", s("index"), elide_duration(&s("text"))),
        "log" => format!("{} {}", s("level"), s("text")),
        other => other.to_owned(),
    }
}

/// `✓ build (3s)` → `✓ build (…)`: how long a nested step took is not part
/// of the contract a test can pin.
pub fn elide_duration(text: &str) -> String {
    if let (Some(rest), Some(open)) = (text.strip_prefix("✓ "), text.rfind(" ("))
        && text.ends_with(')')
        && open >= 2
        && !rest.is_empty()
    {
        return format!("{} (…)", &text[..open]);
    }
    text.to_owned()
}
