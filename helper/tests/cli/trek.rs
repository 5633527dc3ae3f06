//! `trek`: whole runs of the façade `/trekexecute` calls, in real git
//! repositories, with the agent's edits scripted between the calls. Every
//! `--json` reply is checked against the `trek-reply` schema; what the run
//! did is checked in git, the progress file and the report, never in the
//! replies alone.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tempfile::TempDir;

use crate::common::repo::{commit_all, git, init, write};
use crate::common::schema::assert_schema;

/// The two-step shell plan of `examples/trek/`.
fn example_plan() -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/trek/plan.md"))
        .unwrap()
}

const GREET: &str = "#!/usr/bin/env bash\necho \"Hello, ${1:-world}!\"\n";
const TEST: &str = "#!/usr/bin/env bash\nset -e\ntest \"$(bash greet.sh)\" = \"Hello, world!\"\n";

/// A repository holding `plans/plan.md`, committed, and a home and data dir
/// of its own.
struct Repo {
    dir: TempDir,
    home: TempDir,
}

impl Repo {
    fn new(plan: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        init(dir.path());
        write(
            dir.path(),
            &[("README.md", "# demo\n"), ("plans/plan.md", plan)],
        );
        commit_all(dir.path(), "init");
        Self {
            dir,
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn plan(&self) -> String {
        self.path().join("plans/plan.md").display().to_string()
    }

    fn progress(&self) -> PathBuf {
        self.path().join("plans/.trekexecute-progress-plan.json")
    }

    fn data(&self) -> PathBuf {
        self.home.path().join("data")
    }

    /// `voyage-helper trek ARGS --json`: the exit code and the reply,
    /// checked against its schema.
    fn trek(&self, args: &[&str]) -> (i32, Value) {
        let out = crate::common::env::helper(self.path(), self.home.path())
            .arg("trek")
            .args(args)
            .arg("--json")
            .env("CLAUDE_PLUGIN_DATA", self.data())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let reply = assert_schema("trek-reply", stdout.trim());
        (out.status.code().unwrap_or(-1), reply)
    }

    fn write(&self, files: &[(&str, &str)]) {
        write(self.path(), files);
    }

    fn subjects(&self) -> Vec<String> {
        git(self.path(), &["log", "--format=%s"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn progress_json(&self) -> Value {
        serde_json::from_str(&fs::read_to_string(self.progress()).unwrap()).unwrap()
    }

    fn marker(&self) -> PathBuf {
        self.path().join(".git/voyage-run.json")
    }
}

fn next(reply: &Value) -> (&str, Option<u64>) {
    (reply["next"].as_str().unwrap(), reply["step"].as_u64())
}

#[test]
fn a_two_step_plan_runs_to_completed_with_two_checkpoints() {
    let repo = Repo::new(&example_plan());
    let plan = repo.plan();

    let (code, start) = repo.trek(&["start", &plan]);
    assert_eq!(code, 0, "{start}");
    assert_eq!(next(&start), ("begin-step", Some(1)));
    let marker: Value = serde_json::from_str(&fs::read_to_string(repo.marker()).unwrap()).unwrap();
    assert_schema("run-marker", &marker.to_string());
    assert_eq!(marker["step"], Value::Null);

    let (_, begin) = repo.trek(&["step-begin", "1"]);
    assert_eq!(next(&begin), ("implement", Some(1)));
    assert_eq!(begin["task"]["files"][0]["path"], "greet.sh");
    assert_eq!(begin["task"]["attempt"], 1);
    let marker: Value = serde_json::from_str(&fs::read_to_string(repo.marker()).unwrap()).unwrap();
    assert_eq!(marker["step"], 1);
    assert_eq!(marker["files"], serde_json::json!(["greet.sh"]));

    repo.write(&[("greet.sh", GREET)]);
    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(next(&done), ("begin-step", Some(2)));

    repo.trek(&["step-begin", "2"]);
    repo.write(&[("tests/greet.sh", TEST)]);
    let (_, done) = repo.trek(&["step-done", "2"]);
    assert_eq!(next(&done), ("finish", None));

    let (code, finish) = repo.trek(&["finish"]);
    assert_eq!(code, 0, "{finish}");
    assert_eq!(next(&finish), ("ask-main-merge", None));
    assert!(repo.marker().exists(), "the gate is still ahead");

    let (code, last) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{last}");
    assert_eq!(next(&last), ("stop", None));
    assert_eq!(last["summary"]["result"], "completed");
    assert_eq!(last["summary"]["steps_passed"], 2);
    assert!(
        last["report"]
            .as_str()
            .unwrap()
            .contains("**Result:** COMPLETED")
    );
    assert_eq!(
        repo.subjects(),
        [
            "test(greet): check the default name",
            "feat(greet): add the greeting script",
            "init"
        ]
    );
    let progress = repo.progress_json();
    assert_eq!(progress["status"], "completed");
    assert_eq!(progress["plan_verification"]["status"], "passed");
    assert_eq!(progress["manifest_audit"]["status"], "pass");
    assert!(!repo.marker().exists(), "finish removes the marker");
    let stats = fs::read_to_string(repo.data().join("trekexecute-stats.jsonl")).unwrap();
    assert!(stats.contains("\"main-merge-gate\""), "{stats}");
    assert!(stats.contains("\"main-merge-approved\""), "{stats}");
    assert!(stats.contains("\"result\":\"completed\""), "{stats}");
}

#[test]
fn a_failed_verify_is_retried_and_the_budget_is_spent() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.trek(&["step-begin", "1"]);
    repo.write(&[("greet.sh", "#!/usr/bin/env bash\necho hi\n")]);
    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "a retry is the run going on: {done}");
    assert_eq!(next(&done), ("begin-step", Some(1)));
    let lines = done["lines"].to_string();
    assert!(lines.contains("Attempt 1/3 failed"), "{lines}");
    assert!(
        lines.contains("quote the argument"),
        "the plan's alternative: {lines}"
    );
    assert_eq!(repo.subjects(), ["init"], "no commit for a failed step");

    let (_, again) = repo.trek(&["step-begin", "1"]);
    assert_eq!(again["task"]["attempt"], 2);
    assert!(
        again["task"]["previous_error"]
            .as_str()
            .unwrap()
            .contains("exited 1")
    );
    repo.write(&[("greet.sh", GREET)]);
    let (_, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(next(&done), ("begin-step", Some(2)));
    let progress = repo.progress_json();
    assert_eq!(progress["steps"]["1"]["attempts"], 2);
    assert_eq!(progress["iterations_remaining"], 24);
}

#[test]
fn three_failed_attempts_revert_the_step_and_fail_the_run() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    for attempt in 1..=3 {
        let (_, begin) = repo.trek(&["step-begin", "1"]);
        assert_eq!(begin["task"]["attempt"], attempt);
        repo.write(&[("greet.sh", "echo wrong\n")]);
        let (_, done) = repo.trek(&["step-done", "1"]);
        if attempt < 3 {
            assert_eq!(next(&done), ("begin-step", Some(1)));
        } else {
            assert_eq!(next(&done), ("finish", None), "{done}");
            assert_eq!(done["status"], "failed");
        }
    }
    assert!(
        !repo.path().join("greet.sh").exists(),
        "the new file is reverted"
    );
    let (code, finish) = repo.trek(&["finish"]);
    assert_eq!(code, 1, "{finish}");
    assert_eq!(next(&finish), ("stop", None), "no gate after a failure");
    assert_eq!(finish["summary"]["result"], "failed");
    assert_eq!(finish["summary"]["failed_at_step"], 1);
    assert!(!repo.marker().exists());
}

#[test]
fn claiming_done_with_a_step_left_is_partial() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.trek(&["step-begin", "1"]);
    repo.write(&[("greet.sh", GREET)]);
    repo.trek(&["step-done", "1"]);
    // The agent "knows" it is done and goes straight to the end.
    let (code, finish) = repo.trek(&["finish"]);
    assert_eq!(code, 1, "{finish}");
    assert_eq!(finish["summary"]["result"], "partial");
    assert_eq!(finish["summary"]["steps_not_reached"], 1);
    assert!(
        finish["report"]
            .as_str()
            .unwrap()
            .contains("/trekexecute --resume")
    );
}

#[test]
fn an_escalation_stops_the_run_and_resume_continues_at_that_step() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.trek(&["step-begin", "1"]);
    repo.write(&[("greet.sh", GREET)]);
    repo.trek(&["step-done", "1"]);
    repo.trek(&["step-begin", "2"]);
    repo.write(&[("tests/greet.sh", "exit 1\n")]);
    let (_, done) = repo.trek(&["step-done", "2"]);
    assert_eq!(next(&done), ("finish", None));
    assert_eq!(done["status"], "stopped");
    assert!(done["lines"].to_string().contains("ESCALATED"));
    let (code, finish) = repo.trek(&["finish"]);
    assert_eq!(code, 1);
    assert_eq!(finish["summary"]["result"], "stopped");
    assert!(!repo.marker().exists());

    let (code, start) = repo.trek(&["start", "--resume", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    assert_eq!(next(&start), ("begin-step", Some(2)), "{start}");
    let (_, begin) = repo.trek(&["step-begin", "2"]);
    assert_eq!(begin["task"]["attempt"], 2);
    repo.write(&[("tests/greet.sh", TEST)]);
    let (_, done) = repo.trek(&["step-done", "2"]);
    assert_eq!(next(&done), ("finish", None), "{done}");
    repo.trek(&["finish"]);
    let (code, last) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{last}");
    assert_eq!(last["summary"]["result"], "completed");
}

#[test]
fn declining_the_gate_records_partial() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    for (n, file, text) in [("1", "greet.sh", GREET), ("2", "tests/greet.sh", TEST)] {
        repo.trek(&["step-begin", n]);
        repo.write(&[(file, text)]);
        repo.trek(&["step-done", n]);
    }
    repo.trek(&["finish"]);
    let (code, last) = repo.trek(&["finish", "--gate", "decline"]);
    assert_eq!(code, 1);
    assert_eq!(last["summary"]["result"], "partial");
    let stats = fs::read_to_string(repo.data().join("trekexecute-stats.jsonl")).unwrap();
    assert!(stats.contains("hold-for-review"), "{stats}");
}

#[test]
fn step_calls_out_of_order_are_refused() {
    let repo = Repo::new(&example_plan());
    let (code, reply) = repo.trek(&["step-begin", "1"]);
    assert_eq!(code, 2, "no run yet: {reply}");
    assert!(reply["lines"].to_string().contains("TREK_NO_RUN"));
    repo.trek(&["start", &repo.plan()]);
    let (code, reply) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 2);
    assert!(
        reply["lines"].to_string().contains("TREK_STEP_STATE"),
        "{reply}"
    );
    let (code, reply) = repo.trek(&["step-begin", "9"]);
    assert_eq!(code, 2);
    assert!(reply["lines"].to_string().contains("TREK_NO_SUCH_STEP"));
    let (code, _) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 2, "no gate is pending before the steps ran");
}

#[test]
fn validate_and_dry_run_report_and_touch_nothing() {
    let repo = Repo::new(&example_plan());
    let (code, reply) = repo.trek(&["start", "--validate", &repo.plan()]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["status"], "ready");
    assert!(reply["lines"].to_string().contains("READY"));
    let (code, reply) = repo.trek(&["start", "--dry-run", &repo.plan()]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(next(&reply), ("stop", None));
    assert!(!repo.progress().exists());
    assert!(!repo.marker().exists());
}

#[test]
fn a_blocked_verify_stops_the_run_before_it_starts() {
    let plan = example_plan().replace(
        "`bash tests/greet.sh`\n- **On failure:** escalate",
        "`rm -rf / && bash tests/greet.sh`\n- **On failure:** escalate",
    );
    let repo = Repo::new(&plan);
    let (code, reply) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(next(&reply), ("stop", None));
    assert!(reply["lines"].to_string().contains("SECURITY SCAN FAILED"));
    assert!(!repo.progress().exists());
}

#[test]
fn bad_arguments_get_the_usage() {
    let repo = Repo::new(&example_plan());
    for args in [
        vec!["start"],
        vec!["start", "--fg", "--resume", "plans/plan.md"],
        vec!["start", "--step", "0", "plans/plan.md"],
        vec!["start", "plans/missing.md"],
        vec!["start", "--project", "nowhere"],
    ] {
        let (code, reply) = repo.trek(&args);
        assert_eq!(code, 2, "{args:?}: {reply}");
        assert_eq!(next(&reply), ("stop", None));
        assert!(
            reply["lines"][0].as_str().unwrap().starts_with("Error:"),
            "{reply}"
        );
    }
}

#[test]
fn a_never_touch_file_in_a_step_escalates_at_step_begin() {
    let spec = "---\nplan_version: 1.7\n---\n# Session 1: store\n\n## Dependencies\n\nEntry condition: none\n\n## Scope Fence\n\n- Touch: `src/`\n- Never touch: `src/legacy/`\n\n### Step 1: Edit legacy\n- **Files:** `src/legacy/old.sh`\n- **Changes:** touch it.\n- **Verify:** `bash -n src/legacy/old.sh`\n- **On failure:** retry\n- **Checkpoint:** `git commit -m \"feat: legacy\"`\n- **Manifest:**\n  ```yaml\n  expected_paths: [src/legacy/old.sh]\n  min_file_count: 1\n  commit_message_pattern: \"^feat: legacy$\"\n  bash_syntax_check: []\n  forbidden_paths: []\n  must_contain: []\n  ```\n\n## Exit Condition\n\n- [ ] `bash -n src/legacy/old.sh` passes\n";
    let repo = Repo::new(spec);
    let (code, start) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    assert!(start["lines"].to_string().contains("Entry condition: PASS"));
    let marker: Value = serde_json::from_str(&fs::read_to_string(repo.marker()).unwrap()).unwrap();
    assert_eq!(marker["never_touch"], serde_json::json!(["src/legacy/"]));
    let (_, begin) = repo.trek(&["step-begin", "1"]);
    assert_eq!(next(&begin), ("finish", None), "{begin}");
    assert!(begin["lines"].to_string().contains("SCOPE VIOLATION"));
    let (_, finish) = repo.trek(&["finish"]);
    assert_eq!(finish["summary"]["result"], "stopped");
}

#[test]
fn an_unmet_entry_condition_stops_with_the_state_pair() {
    let spec = "---\nplan_version: 1.7\n---\n# Session 2: http\n\n## Dependencies\n\nEntry condition: Session 1 committed (`git log --oneline` shows \"feat(store):\")\n\n## Scope Fence\n\n- Touch: `src/`\n- Never touch: `vendor/`\n\n### Step 1: Add\n- **Files:** `src/a.sh`\n- **Changes:** add.\n- **Verify:** `bash -n src/a.sh`\n- **On failure:** escalate\n- **Checkpoint:** `git commit -m \"feat(http): a\"`\n- **Manifest:**\n  ```yaml\n  expected_paths: [src/a.sh]\n  min_file_count: 1\n  commit_message_pattern: \"^feat\\\\(http\\\\): a$\"\n  bash_syntax_check: []\n  forbidden_paths: []\n  must_contain: []\n  ```\n\n## Exit Condition\n\n- [ ] `bash -n src/a.sh` passes\n";
    let repo = Repo::new("placeholder\n");
    let project = repo.path().join("proj");
    write(&project, &[("plan.md", spec), ("brief.md", "# brief\n")]);
    let (code, reply) = repo.trek(&["start", "--project", &project.display().to_string()]);
    assert_eq!(code, 1, "{reply}");
    assert!(
        reply["lines"]
            .to_string()
            .contains("Entry condition FAILED")
    );
    let progress: Value =
        serde_json::from_str(&fs::read_to_string(project.join("progress.json")).unwrap()).unwrap();
    assert_eq!(progress["status"], "stopped");
    let state = fs::read_to_string(project.join(".session-state.local.json")).unwrap();
    assert!(state.contains("\"stopped\""), "{state}");
    assert!(project.join("NEXT-SESSION-PROMPT.local.md").exists());
    assert!(!repo.marker().exists());
}

#[test]
fn a_multi_session_plan_writes_wave_one_orders_and_hands_over() {
    let plan = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans/valid/multi-session.md"),
    )
    .unwrap();
    let repo = Repo::new(&plan);
    let (code, reply) = repo.trek(&["start", "plans/plan.md"]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["status"], "handover", "{reply}");
    assert_eq!(next(&reply), ("stop", None));
    let orders = repo.path().join(".claude/trekplan-sessions/plan/orders");
    assert!(orders.join("wave.json").exists(), "{reply}");
    assert!(
        reply["lines"]
            .to_string()
            .contains("/trekexecute --session"),
        "{reply}"
    );
    assert!(!repo.marker().exists(), "the parent run holds no marker");
}

#[test]
fn a_checkpoint_message_off_its_pattern_is_recorded_as_drift_not_a_failure() {
    let plan = example_plan().replace(
        "`git commit -m \"feat(greet): add the greeting script\"`",
        "`git commit -m \"add greeting\"`",
    );
    let repo = Repo::new(&plan);
    repo.trek(&["start", &repo.plan()]);
    repo.trek(&["step-begin", "1"]);
    repo.write(&[("greet.sh", GREET)]);
    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(next(&done), ("begin-step", Some(2)));
    assert!(
        done["lines"].to_string().contains("checkpoint_drift"),
        "{done}"
    );
    let step = &repo.progress_json()["steps"]["1"];
    assert_eq!(step["status"], "completed");
    assert_eq!(step["manifest_audit"], "pass");
    assert_eq!(
        step["checkpoint_drift"]["actual_message"], "add greeting",
        "{step}"
    );
    assert_eq!(repo.subjects()[0], "add greeting");
}
