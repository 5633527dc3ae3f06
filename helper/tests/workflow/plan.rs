//! `workflow plan` and `workflow refine` end to end, with the REAL `claude`
//! CLI against `mock_api` (the offline setup of `claude.rs`): each pass
//! (research, draft, review) is one scripted turn, the drafts and verdicts
//! arriving through the CLI's structured output tool. Three scripts for
//! each command: a draft that loads at once, one that needs a second
//! attempt, and drafts that never load, which write nothing.
//!
//! Without `claude` on `PATH` each test prints `SKIPPED: …` and passes,
//! except under `CI`.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::process::Command;

use crate::claude::{claude_or_skip, offline};
use crate::common::Dir;
use crate::mock_api::{MockApi, Request, Turn};
use serde_json::json;
use tempfile::TempDir;

const VALID: &str = "goal: Greet the team\nsteps:\n  - name: greet\n    command: echo hello\n";
const REFINED: &str = "goal: Greet the team\nsteps:\n  - name: greet\n    command: echo hello\n  - name: check\n    command: test -f README.md\n";
/// A step of no kind: the loader refuses it.
const NO_KIND: &str = "goal: Broken\nsteps:\n  - name: lost\n";
/// Not YAML at all.
const NOT_YAML: &str = "goal: [unclosed\nsteps: {";

fn research() -> Turn {
    Turn::text("Notes: the project has a README.md; `make test` runs its tests.")
}

fn draft(yaml: &str) -> Turn {
    Turn::tool(
        "StructuredOutput",
        json!({"yaml": yaml, "summary": "a draft"}),
    )
}

fn verdict(pass: bool, feedback: &str) -> Turn {
    Turn::tool(
        "StructuredOutput",
        json!({"pass": pass, "feedback": feedback}),
    )
}

/// What one `plan` or `refine` run gave.
struct Authored {
    status: i32,
    stdout: String,
    stderr: String,
    requests: Vec<Request>,
}

/// A project dir (with a README) and a fresh `HOME`.
struct Project {
    dir: Dir,
    home: TempDir,
}

impl Project {
    fn new() -> Self {
        let dir = Dir::new();
        dir.write("README.md", "# demo\n");
        Self {
            dir,
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// `voyage-helper workflow ARGS…` with the mock answering `turns`.
    fn author(&self, args: &[&str], turns: Vec<Turn>) -> Authored {
        let mock = MockApi::start(turns);
        let mut all = vec!["workflow"];
        all.extend_from_slice(args);
        let mut cmd: Command = self.dir.command(&all);
        offline(&mut cmd, &mock, self.home.path());
        let output = cmd.output().unwrap();
        Authored {
            status: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            requests: mock.main_requests(),
        }
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(rel)).unwrap()
    }

    /// `workflow validate FILE` passes.
    fn assert_valid(&self, rel: &str) {
        let ran = self.dir.plain(&["workflow", "validate", rel]);
        assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);
    }

    /// Nothing but the files named is in the dir (no temporary file left).
    fn assert_only(&self, names: &[&str]) {
        let mut found: Vec<String> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .collect();
        found.sort();
        let mut wanted: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        wanted.sort();
        assert_eq!(found, wanted);
    }
}

impl Authored {
    #[track_caller]
    fn status_is(&self, code: i32) -> &Self {
        assert_eq!(
            self.status, code,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// The user text of request `n`, joined.
    fn asked(&self, n: usize) -> String {
        self.requests[n].user_texts().join("\n")
    }
}

// -------------------------------------------------------------------- plan

/// A draft that loads at once: research, one draft, one review; the file
/// is the draft, it validates, stdout says what was written and stderr
/// showed each pass as it ran. Each pass got the method note as its system
/// prompt; research and review could only read.
#[test]
fn plan_writes_a_draft_that_loads_at_once() {
    if claude_or_skip().is_none() {
        return;
    }
    let project = Project::new();
    let ran = project.author(
        &["plan", "Greet the team, then stop", "-o", "wf.yaml"],
        vec![research(), draft(VALID), verdict(true, "")],
    );
    ran.status_is(0);
    assert_eq!(project.read("wf.yaml"), VALID);
    project.assert_valid("wf.yaml");
    project.assert_only(&["README.md", "wf.yaml"]);
    assert!(
        ran.stdout
            .starts_with("plan: wrote wf.yaml (\"Greet the team\", 1 steps; 1 attempt, $"),
        "{}",
        ran.stdout
    );
    let progress: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|l| !l.starts_with("plan:   "))
        .collect();
    assert_eq!(
        progress,
        [
            "plan: researching the project with claude …",
            "plan: drafting the workflow (attempt 1 of 3) …",
            "plan: attempt 1 loads: \"Greet the team\", 1 steps",
            "plan: reviewing the draft …",
        ],
        "{}",
        ran.stderr
    );
    assert_eq!(ran.requests.len(), 3);
    for request in &ran.requests {
        assert!(
            request
                .system_text()
                .contains("You design workflows for voyage-helper"),
            "the method note is every pass's system prompt"
        );
    }
    assert!(ran.asked(0).contains("Greet the team, then stop"));
    for tool in ["Read", "Grep", "Glob"] {
        assert!(ran.requests[0].tool_names().iter().any(|t| t == tool));
    }
    assert!(
        !ran.requests[0]
            .tool_names()
            .iter()
            .any(|t| t == "Bash" || t == "Write")
    );
    let drafting = ran.asked(1);
    assert!(drafting.contains("Greet the team, then stop"), "{drafting}");
    assert!(
        drafting.contains("`make test` runs its tests"),
        "the notes: {drafting}"
    );
    assert!(drafting.contains("\"$schema\""), "the format's schema");
    assert_eq!(ran.requests[1].tool_names(), ["StructuredOutput"]);
    assert!(
        ran.asked(2).contains("echo hello"),
        "the review sees the draft"
    );
}

/// A first draft that does not load: its problems (the loader's, with
/// their code) and the draft go back to the second, which loads.
#[test]
fn plan_retries_a_draft_that_does_not_load() {
    if claude_or_skip().is_none() {
        return;
    }
    let project = Project::new();
    let ran = project.author(
        &["plan", "Greet the team", "--output", "wf.yaml"],
        vec![research(), draft(NO_KIND), draft(VALID), verdict(true, "")],
    );
    ran.status_is(0);
    assert_eq!(project.read("wf.yaml"), VALID);
    project.assert_valid("wf.yaml");
    assert!(ran.stdout.contains("; 2 attempts, $"), "{}", ran.stdout);
    assert!(
        ran.stderr
            .contains("plan: attempt 1 does not load: error[WORKFLOW_"),
        "{}",
        ran.stderr
    );
    assert_eq!(ran.requests.len(), 4);
    let second = ran.asked(2);
    assert!(second.contains("could not be loaded"), "{second}");
    assert!(second.contains("- error[WORKFLOW_"), "{second}");
    assert!(
        second.contains("name: lost"),
        "the rejected draft: {second}"
    );
}

/// Drafts that never load: exit 1 with the last one's problems, after
/// three attempts, and the file that was there is untouched.
#[test]
fn plan_that_never_loads_writes_nothing() {
    if claude_or_skip().is_none() {
        return;
    }
    let project = Project::new();
    project.dir.write("wf.yaml", "# mine, keep it\n");
    let ran = project.author(
        &["plan", "Greet the team", "-o", "wf.yaml"],
        vec![research(), draft(NO_KIND), draft(NOT_YAML), draft(NO_KIND)],
    );
    ran.status_is(1);
    assert_eq!(project.read("wf.yaml"), "# mine, keep it\n");
    project.assert_only(&["README.md", "wf.yaml"]);
    assert!(ran.stdout.is_empty(), "{}", ran.stdout);
    assert!(
        ran.stderr
            .contains("error[WORKFLOW_PLAN_INVALID]: no valid workflow after 3 attempts ($"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("wf.yaml is untouched"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("\n  error[WORKFLOW_"),
        "the problems: {}",
        ran.stderr
    );
    assert_eq!(
        ran.requests.len(),
        4,
        "research and three drafts, no review"
    );
}

/// Without `-o` the YAML goes to stdout; `--fast` is one call.
#[test]
fn plan_fast_prints_the_workflow() {
    if claude_or_skip().is_none() {
        return;
    }
    let project = Project::new();
    let ran = project.author(&["plan", "--fast", "Greet the team"], vec![draft(VALID)]);
    ran.status_is(0);
    assert_eq!(ran.stdout, VALID);
    assert_eq!(ran.requests.len(), 1);
    project.assert_only(&["README.md"]);
    let empty = project.author(&["plan", "  "], vec![]);
    empty.status_is(2);
    assert!(
        empty.stderr.contains("error[WORKFLOW_PLAN_EMPTY]"),
        "{}",
        empty.stderr
    );
    assert!(empty.requests.is_empty());
}

// ------------------------------------------------------------------ refine

/// Refine at once: the draft prompt holds the file and the instruction;
/// the file is replaced.
#[test]
fn refine_rewrites_the_file() {
    if claude_or_skip().is_none() {
        return;
    }
    let project = Project::new();
    project.dir.write("wf.yaml", VALID);
    let ran = project.author(
        &[
            "refine",
            "wf.yaml",
            "--instruction",
            "Also check the README exists",
        ],
        vec![research(), draft(REFINED), verdict(true, "")],
    );
    ran.status_is(0);
    assert_eq!(project.read("wf.yaml"), REFINED);
    project.assert_valid("wf.yaml");
    project.assert_only(&["README.md", "wf.yaml"]);
    assert!(
        ran.stdout
            .starts_with("refine: wrote wf.yaml (\"Greet the team\", 2 steps; 1 attempt, $"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stderr.starts_with("refine: researching"),
        "{}",
        ran.stderr
    );
    let drafting = ran.asked(1);
    assert!(
        drafting.contains("command: echo hello"),
        "the current file: {drafting}"
    );
    assert!(
        drafting.contains("Also check the README exists"),
        "{drafting}"
    );
}

/// A draft the review rejects goes round again with the objection; the
/// second passes.
#[test]
fn refine_retries_a_draft_the_review_rejects() {
    if claude_or_skip().is_none() {
        return;
    }
    let project = Project::new();
    project.dir.write("wf.yaml", VALID);
    let ran = project.author(
        &[
            "refine",
            "wf.yaml",
            "--instruction",
            "Also check the README exists",
        ],
        vec![
            research(),
            draft(VALID),
            verdict(false, "The README check is missing."),
            draft(REFINED),
            verdict(true, ""),
        ],
    );
    ran.status_is(0);
    assert_eq!(project.read("wf.yaml"), REFINED);
    assert!(ran.stdout.contains("; 2 attempts, $"), "{}", ran.stdout);
    assert!(
        ran.stderr
            .contains("refine: the review asks for changes: The README check is missing."),
        "{}",
        ran.stderr
    );
    let second = ran.asked(3);
    assert!(second.contains("The README check is missing."), "{second}");
}

/// Drafts that never load, and an agent that fails: the original file is
/// kept byte for byte.
#[test]
fn refine_keeps_the_original_on_any_failure() {
    if claude_or_skip().is_none() {
        return;
    }
    let project = Project::new();
    let original = format!("# hand-written\n{VALID}");
    project.dir.write("wf.yaml", &original);
    let ran = project.author(
        &["refine", "wf.yaml", "--instruction", "Break it"],
        vec![research(), draft(NOT_YAML), draft(NO_KIND), draft(NOT_YAML)],
    );
    ran.status_is(1);
    assert_eq!(project.read("wf.yaml"), original);
    project.assert_only(&["README.md", "wf.yaml"]);
    assert!(
        ran.stderr.contains("error[WORKFLOW_PLAN_INVALID]"),
        "{}",
        ran.stderr
    );

    let failed = project.author(
        &["refine", "wf.yaml", "--instruction", "Anything"],
        vec![Turn::error(400, "invalid_request_error", "mock: refused")],
    );
    failed.status_is(2);
    assert_eq!(project.read("wf.yaml"), original);
    assert!(
        failed.stderr.contains("error[WORKFLOW_AGENT_FAILED]"),
        "{}",
        failed.stderr
    );
    assert!(failed.stderr.contains("mock: refused"), "{}", failed.stderr);
    assert!(
        failed.stderr.contains("wf.yaml is untouched"),
        "{}",
        failed.stderr
    );

    let missing = project.author(&["refine", "gone.yaml", "--instruction", "x"], vec![]);
    missing.status_is(2);
    assert!(
        missing.stderr.contains("error[WORKFLOW_UNREADABLE]"),
        "{}",
        missing.stderr
    );
}
