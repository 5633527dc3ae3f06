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
pub(crate) fn example_plan() -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/trek/plan.md"))
        .unwrap()
}

pub(crate) const GREET: &str = "#!/usr/bin/env bash\necho \"Hello, ${1:-world}!\"\n";
pub(crate) const TEST: &str =
    "#!/usr/bin/env bash\nset -e\ntest \"$(bash greet.sh)\" = \"Hello, world!\"\n";

/// A repository holding `plans/plan.md`, committed, and a home and data dir
/// of its own.
pub(crate) struct Repo {
    dir: TempDir,
    pub(crate) home: TempDir,
}

impl Repo {
    pub(crate) fn new(plan: &str) -> Self {
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

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn plan(&self) -> String {
        self.path().join("plans/plan.md").display().to_string()
    }

    pub(crate) fn progress(&self) -> PathBuf {
        self.path().join("plans/.trekexecute-progress-plan.json")
    }

    fn data(&self) -> PathBuf {
        self.home.path().join("data")
    }

    /// `voyage-helper trek ARGS --json`: the exit code and the reply,
    /// checked against its schema.
    pub(crate) fn trek(&self, args: &[&str]) -> (i32, Value) {
        self.trek_env(args, &[])
    }

    /// `voyage-helper trek ARGS` as the agent reads it: the exit code and
    /// the text.
    pub(crate) fn trek_text(&self, args: &[&str]) -> (i32, String) {
        let (code, stdout, _) = self.trek_streams(args);
        (code, stdout)
    }

    /// [`Self::trek_text`] with stderr.
    fn trek_streams(&self, args: &[&str]) -> (i32, String, String) {
        let out = crate::common::env::helper(self.path(), self.home.path())
            .arg("trek")
            .args(args)
            .env("CLAUDE_PLUGIN_DATA", self.data())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// A run of the example plan started and its step 1 begun and
    /// implemented (greet.sh written), before its `step-done`.
    fn step_one_written() -> Self {
        let repo = Self::new(&example_plan());
        repo.trek(&["start", &repo.plan()]);
        repo.trek(&["step-begin", "1"]);
        repo.write(&[("greet.sh", GREET)]);
        repo
    }

    /// The example plan's two steps begun, implemented as the agent would
    /// and done, in a run already started.
    pub(crate) fn both_steps_done(&self) {
        for (n, file, text) in [("1", "greet.sh", GREET), ("2", "tests/greet.sh", TEST)] {
            self.trek(&["step-begin", n]);
            self.write(&[(file, text)]);
            self.trek(&["step-done", n]);
        }
    }

    /// [`Self::trek`] with extra environment variables.
    fn trek_env(&self, args: &[&str], env: &[(&str, &str)]) -> (i32, Value) {
        let out = crate::common::env::helper(self.path(), self.home.path())
            .arg("trek")
            .args(args)
            .arg("--json")
            .env("CLAUDE_PLUGIN_DATA", self.data())
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let reply = assert_schema("trek-reply", stdout.trim());
        (out.status.code().unwrap_or(-1), reply)
    }

    pub(crate) fn write(&self, files: &[(&str, &str)]) {
        write(self.path(), files);
    }

    pub(crate) fn subjects(&self) -> Vec<String> {
        git(self.path(), &["log", "--format=%s"])
            .lines()
            .map(str::to_owned)
            .collect()
    }

    pub(crate) fn progress_json(&self) -> Value {
        serde_json::from_str(&fs::read_to_string(self.progress()).unwrap()).unwrap()
    }

    pub(crate) fn marker(&self) -> PathBuf {
        self.path().join(".git/voyage-run.json")
    }
}

pub(crate) fn next(reply: &Value) -> (&str, Option<u64>) {
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

/// The example plan run to the confirmed gate, `trek start` given `start`
/// (and `env`, which the later calls do not see): the run's Phase 9 record.
fn stats_record_of_a_run(plan: &str, start: &[&str], env: &[(&str, &str)]) -> Value {
    let repo = Repo::new(plan);
    let plan = repo.plan();
    let mut args = vec!["start"];
    args.extend_from_slice(start);
    args.push(&plan);
    let (code, reply) = repo.trek_env(&args, env);
    assert_eq!(code, 0, "{reply}");
    repo.both_steps_done();
    repo.trek(&["finish"]);
    let (code, last) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{last}");
    let stats = fs::read_to_string(repo.data().join("trekexecute-stats.jsonl")).unwrap();
    let records: Vec<Value> = stats
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &Value| r.get("profile_source").is_some())
        .collect();
    assert_eq!(records.len(), 1, "{stats}");
    // A run that kept to its steps' Files writes the record it always did.
    assert!(records[0].get("scope_put_back").is_none(), "{stats}");
    records[0].clone()
}

#[test]
fn the_stats_record_says_where_the_profile_came_from() {
    let without = example_plan().replace("profile: economy\n", "");
    assert_ne!(without, example_plan());
    let defaulted = stats_record_of_a_run(&without, &[], &[]);
    assert_eq!(defaulted["profile_source"], "default", "{defaulted}");
    assert_eq!(defaulted["profile"], "premium");

    let flagged = stats_record_of_a_run(&without, &["--profile", "balanced"], &[]);
    assert_eq!(flagged["profile_source"], "flag", "{flagged}");
    assert_eq!(flagged["profile"], "balanced");

    let inherited = stats_record_of_a_run(&example_plan(), &[], &[]);
    assert_eq!(inherited["profile_source"], "inheritance", "{inherited}");
    assert_eq!(inherited["profile"], "economy");

    // The variable was seen at the start only (the gate answered from
    // another shell): the record keeps what the start resolved.
    let from_env = stats_record_of_a_run(&example_plan(), &[], &[("VOYAGE_PROFILE", "fable")]);
    assert_eq!(from_env["profile_source"], "env", "{from_env}");
    assert_eq!(from_env["profile"], "fable");
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
    // The failure names its log, which holds the command's whole output.
    let log = done["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|l| l.as_str().unwrap().strip_prefix("Log: "))
        .unwrap_or_else(|| panic!("no Log: line in {lines}"));
    assert!(Path::new(log).is_file(), "{log}");
    assert!(
        lines.contains("quote the argument"),
        "the plan's alternative: {lines}"
    );
    assert_eq!(repo.subjects(), ["init"], "no commit for a failed step");

    let (_, again) = repo.trek(&["step-begin", "1"]);
    assert_eq!(again["task"]["attempt"], 2);
    // Said briefly: the step-done reply above had the whole failure.
    let previous = again["task"]["previous_error"].as_str().unwrap();
    assert!(previous.starts_with("Verify `"), "{previous}");
    assert!(previous.contains("FAIL (exit 1"), "{previous}");
    assert!(!previous.contains('\n'), "{previous}");
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

/// One step that creates a script three directories deep and whose Verify
/// the scripted agent never satisfies; On failure: revert.
const DEEP: &str = r#"---
plan_version: 1.7
---
# Plan: a deep script

## Implementation Plan

### Step 1: Add the deep script
- **Files:** `src/deep/dir/file.sh` (new)
- **Changes:** A script that prints ok.
- **Verify:** `test "$(bash src/deep/dir/file.sh)" = ok`
- **On failure:** revert
- **Checkpoint:** `git commit -m "feat: add the deep script"`
- **Manifest:**
  ```yaml
  expected_paths: [src/deep/dir/file.sh]
  min_file_count: 1
  commit_message_pattern: "^feat: add the deep script$"
  bash_syntax_check: [src/deep/dir/file.sh]
  forbidden_paths: []
  must_contain: []
  ```

## Verification

- `bash -n src/deep/dir/file.sh`
"#;

#[test]
fn start_stops_before_the_run_on_a_criterion_the_runner_would_refuse() {
    let plan = example_plan().replace(
        "## Verification\n",
        "## Verification\n\n- `./deploy.sh --everywhere` — shipped\n",
    );
    assert!(plan.contains("`./deploy.sh --everywhere`"));
    let repo = Repo::new(&plan);
    let (code, reply) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(reply["status"], "fail");
    let lines = reply["lines"].to_string();
    assert!(lines.contains("CRITERION_UNRUNNABLE"), "{lines}");
    assert!(lines.contains("`./deploy.sh --everywhere`"), "{lines}");
    assert!(lines.contains(".voyage/criteria-allow"), "{lines}");
    assert!(!repo.progress().exists(), "a progress file was created");
    assert!(!repo.marker().exists(), "a run marker was created");
}

#[test]
fn the_helpers_own_revert_is_not_drift_and_leaves_no_empty_directory() {
    let repo = Repo::new(DEEP);
    repo.write(&[("src/README.md", "sources\n")]);
    commit_all(repo.path(), "src");
    repo.trek(&["start", &repo.plan()]);
    let mut last = Value::Null;
    for _ in 1..=3 {
        repo.trek(&["step-begin", "1"]);
        repo.write(&[("src/deep/dir/file.sh", "echo wrong\n")]);
        last = repo.trek(&["step-done", "1"]).1;
    }
    assert_eq!(last["status"], "failed", "{last}");
    assert!(!repo.path().join("src/deep").exists(), "{last}");
    assert!(
        repo.path().join("src/README.md").is_file(),
        "a directory holding something stays"
    );
    let record = &repo.progress_json()["steps"]["1"]["reverted"];
    assert_eq!(
        record["removed"],
        serde_json::json!(["src/deep/dir/file.sh"])
    );
    assert_eq!(
        record["removed_dirs"],
        serde_json::json!(["src/deep/dir", "src/deep"])
    );

    let (code, finish) = repo.trek(&["finish"]);
    assert_eq!(code, 1, "{finish}");
    assert_eq!(finish["summary"]["result"], "failed");
    let lines = finish["lines"].to_string();
    assert!(!lines.contains("expected_paths"), "{lines}");
    assert!(!lines.contains("src/deep/dir/file.sh"), "{lines}");
    assert!(!lines.contains("Status stays"), "{lines}");
    assert!(lines.contains("Manifest audit: PASS"), "{lines}");
    let progress = repo.progress_json();
    assert_eq!(progress["status"], "failed");
    assert_eq!(progress["manifest_audit"]["status"], "pass", "{progress}");
}

/// One step whose test exists before it (so trek runs it red first) and
/// prints a counted aggregate line.
const COUNTED: &str = r#"# Plan: a counted check

## Implementation Plan

### Step 1: Make the check pass
- **Files:** `lib.sh`
- **Changes:** Make `lib.sh` print ok.
- **Test first:** `tests/check.sh` — fails until lib.sh prints ok
- **Verify:** `bash tests/check.sh`
- **On failure:** retry
- **Checkpoint:** `git commit -m "feat: ok"`
"#;

const CHECK: &str = "test \"$(bash lib.sh)\" = ok || { echo 'FAILED check_ok'; echo '0 passed, 1 failed'; exit 1; }\necho '1 passed, 0 failed'\n";

#[test]
fn each_step_reply_says_what_the_next_action_needs_once() {
    let repo = Repo::new(COUNTED);
    repo.write(&[("lib.sh", "echo no\n"), ("tests/check.sh", CHECK)]);
    commit_all(repo.path(), "the check");
    repo.trek(&["start", &repo.plan()]);

    let (_, begin) = repo.trek_text(&["step-begin", "1"]);
    let test_first: Vec<&str> = begin.lines().filter(|l| l.contains("Test first")).collect();
    assert_eq!(test_first.len(), 1, "stated once: {begin}");
    assert!(
        test_first[0]
            .contains("trek ran `bash tests/check.sh`: it fails as expected (RED, exit 1)"),
        "who ran the red check and what it gave: {begin}"
    );

    repo.write(&[("lib.sh", "echo nope\n")]);
    let (_, done) = repo.trek_text(&["step-done", "1"]);
    assert!(
        done.contains("Verify `bash tests/check.sh`: FAIL (exit 1, "),
        "{done}"
    );
    assert!(
        done.contains("0 passed, 1 failed"),
        "the runner's own line: {done}"
    );
    let log = done
        .lines()
        .find_map(|l| l.strip_prefix("Log: "))
        .unwrap_or_else(|| panic!("a failure names its log: {done}"));
    assert!(fs::read_to_string(log).unwrap().contains("FAILED check_ok"));

    let (_, again) = repo.trek_text(&["step-begin", "1"]);
    assert!(
        !again.contains("Test first"),
        "not again on a retry: {again}"
    );
    assert!(
        !again.contains("FAILED check_ok"),
        "the failure is not repeated: {again}"
    );
    let previous = again
        .lines()
        .find(|l| l.starts_with("Previous attempt failed: "))
        .unwrap_or_else(|| panic!("{again}"));
    assert!(previous.contains("FAIL (exit 1"), "{previous}");

    repo.write(&[("lib.sh", "echo ok\n")]);
    let (code, done) = repo.trek_text(&["step-done", "1"]);
    assert_eq!(code, 0, "{done}");
    assert!(
        done.contains("Verify `bash tests/check.sh`: PASS (exit 0, "),
        "{done}"
    );
    assert!(
        done.contains("s) — 1 passed, 0 failed"),
        "duration and count: {done}"
    );
}

/// Step 2 shares `a.txt` with step 1 and has `b.txt` to itself; its
/// Verify never passes.
const SHARED: &str = r#"# Plan: a shared file

## Implementation Plan

### Step 1: Add a
- **Files:** `a.txt`
- **Changes:** Write a.
- **Verify:** `test -f a.txt`
- **On failure:** revert
- **Checkpoint:** `git commit -m "feat: add a"`

### Step 2: Extend a, change b
- **Files:** `a.txt`, `b.txt`
- **Changes:** Extend a and b.
- **Verify:** `test -f never.txt`
- **On failure:** revert
- **Checkpoint:** `git commit -m "feat: extend a"`

## Verification

- `test -f a.txt`
"#;

#[test]
fn a_revert_refused_for_a_shared_file_says_so_in_the_reply_the_exit_and_the_report() {
    let repo = Repo::new(SHARED);
    repo.write(&[("b.txt", "b v1\n")]);
    commit_all(repo.path(), "b");
    repo.trek(&["start", &repo.plan()]);
    repo.trek(&["step-begin", "1"]);
    repo.write(&[("a.txt", "a v1\n")]);
    let (_, one) = repo.trek(&["step-done", "1"]);
    assert_eq!(next(&one), ("begin-step", Some(2)), "{one}");
    let mut last = (0, Value::Null);
    for _ in 1..=3 {
        repo.trek(&["step-begin", "2"]);
        repo.write(&[("a.txt", "a v2\n"), ("b.txt", "b v2\n")]);
        last = repo.trek(&["step-done", "2"]);
    }
    let (code, done) = last;
    assert_eq!(code, 1, "a revert left undone is not exit 0: {done}");
    assert_eq!(done["status"], "failed");
    let lines: Vec<&str> = done["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let text = lines.join("\n");
    assert!(!text.contains("reverting its Files"), "{text}");
    assert!(text.contains("NOT all reverted"), "{text}");
    assert!(text.contains("Reverted: restored b.txt"), "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("- a.txt: also in the Files of completed step 1")),
        "{text}"
    );
    assert!(text.contains("git checkout HEAD -- a.txt"), "{text}");
    // What the reply says is what the tree holds.
    assert_eq!(
        fs::read_to_string(repo.path().join("b.txt")).unwrap(),
        "b v1\n"
    );
    assert_eq!(
        fs::read_to_string(repo.path().join("a.txt")).unwrap(),
        "a v2\n"
    );
    let record = &repo.progress_json()["steps"]["2"]["reverted"];
    assert_eq!(record["restored"], serde_json::json!(["b.txt"]));
    assert_eq!(record["left"][0]["path"], "a.txt", "{record}");

    let (code, finish) = repo.trek(&["finish"]);
    assert_eq!(code, 1, "{finish}");
    let report = finish["report"].as_str().unwrap();
    let details = report.split("### Failure Details").nth(1).unwrap();
    assert!(
        details.contains(
            "Not reverted (left modified):\n  - a.txt: also in the Files of completed step 1"
        ),
        "{report}"
    );
}

/// The records `trek start` kept beside the progress file.
fn kept_records(repo: &Repo) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(repo.path().join("plans"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with(".trekexecute-progress-plan.")
                && name != ".trekexecute-progress-plan.json"
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_completed_run_is_kept_and_named_before_a_fresh_start() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.both_steps_done();
    repo.trek(&["finish"]);
    let (code, _) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0);
    let finished = repo.progress_json();
    assert_eq!(finished["status"], "completed");

    let (code, again) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{again}");
    let lines = again["lines"].to_string();
    assert!(
        lines.contains(
            "holds an earlier run (status completed): 2/2 steps completed, last updated 20"
        ),
        "{lines}"
    );
    let kept = kept_records(&repo);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let name = kept[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(".trekexecute-progress-plan.completed-"),
        "{name}"
    );
    assert!(lines.contains(&name), "the reply says where: {lines}");
    let record: Value = serde_json::from_str(&fs::read_to_string(&kept[0]).unwrap()).unwrap();
    assert_eq!(record, finished, "the finished record is kept whole");
    assert_eq!(repo.progress_json()["steps"]["1"]["status"], "pending");
    let status = git(repo.path(), &["status", "--porcelain"]);
    assert!(
        !status.contains(&name),
        "the kept record stays out of git status: {status}"
    );
}

#[test]
fn an_unfinished_run_is_not_replaced_without_fresh() {
    let repo = Repo::step_one_written();
    repo.trek(&["step-done", "1"]);
    let before = repo.progress_json();

    let (code, again) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 1, "{again}");
    assert_eq!(next(&again), ("stop", None));
    assert_eq!(again["status"], "stopped");
    let lines = again["lines"].to_string();
    assert!(
        lines.contains("holds an earlier run (status in_progress): 1/2 steps completed"),
        "{lines}"
    );
    assert!(lines.contains("/trekexecute --resume "), "{lines}");
    assert!(lines.contains("/trekexecute --fresh "), "{lines}");
    assert_eq!(
        repo.progress_json(),
        before,
        "the run's record is untouched"
    );
    assert!(kept_records(&repo).is_empty());

    let (code, fresh) = repo.trek(&["start", "--fresh", &repo.plan()]);
    assert_eq!(code, 0, "{fresh}");
    assert_eq!(next(&fresh), ("begin-step", Some(1)));
    let kept = kept_records(&repo);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let record: Value = serde_json::from_str(&fs::read_to_string(&kept[0]).unwrap()).unwrap();
    assert_eq!(record["steps"]["1"]["status"], "completed");
    assert!(fresh["lines"].to_string().contains("is kept as"), "{fresh}");
    assert_eq!(repo.progress_json()["steps"]["1"]["status"], "pending");
}

#[test]
fn claiming_done_with_a_step_left_is_partial() {
    let repo = Repo::step_one_written();
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
    let repo = Repo::step_one_written();
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
    let report = last["report"].as_str().unwrap();
    assert!(report.contains("**Mode:** resume\n"), "{report}");
}

/// A session that ended between `step-begin` and `step-done`: the next one
/// resumes the run, and the step goes on with the same attempt.
fn interrupted_in_step_one() -> Repo {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    let (_, begin) = repo.trek(&["step-begin", "1"]);
    assert_eq!(begin["task"]["attempt"], 1);
    repo.write(&[("greet.sh", "#!/usr/bin/env bash\necho half\n")]);
    let (code, start) = repo.trek(&["start", "--resume", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    assert_eq!(next(&start), ("begin-step", Some(1)), "{start}");
    repo
}

#[test]
fn an_interrupted_attempt_goes_on_without_spending_budget_and_names_its_files() {
    let repo = interrupted_in_step_one();
    let (code, begin) = repo.trek(&["step-begin", "1"]);
    assert_eq!(code, 0, "{begin}");
    assert_eq!(begin["task"]["attempt"], 1, "{begin}");
    assert_eq!(begin["task"]["previous_error"], Value::Null);
    let lines = begin["lines"].to_string();
    assert!(lines.contains("no attempt is spent"), "{lines}");
    assert!(
        lines.contains("uncommitted changes: greet.sh"),
        "the Files the attempt left are named: {lines}"
    );
    let progress = repo.progress_json();
    assert_eq!(progress["steps"]["1"]["attempts"], 1);
    assert_eq!(progress["iterations_remaining"], 25, "no budget spent");

    repo.write(&[("greet.sh", GREET)]);
    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(next(&done), ("begin-step", Some(2)), "{done}");
    let progress = repo.progress_json();
    assert_eq!(progress["steps"]["1"]["status"], "completed");
    assert_eq!(progress["steps"]["1"]["attempts"], 1);
}

#[test]
fn a_change_outside_the_step_before_the_interruption_is_still_caught() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.trek(&["step-begin", "1"]);
    // Written past the hook by the attempt the session lost.
    repo.write(&[("greet.sh", GREET), ("README.md", "# changed\n")]);
    repo.trek(&["start", "--resume", &repo.plan()]);
    let (_, begin) = repo.trek(&["step-begin", "1"]);
    assert_eq!(begin["task"]["attempt"], 1, "{begin}");
    let (_, done) = repo.trek(&["step-done", "1"]);
    let changes = done["scope"]["changes"].to_string();
    assert!(changes.contains("README.md"), "{done}");
    assert_eq!(
        fs::read_to_string(repo.path().join("README.md")).unwrap(),
        "# demo\n",
        "put back as it was when the step began"
    );
}

#[test]
fn an_interrupted_attempt_with_clean_files_is_told_to_start_the_step_over() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.trek(&["step-begin", "1"]);
    repo.trek(&["start", "--resume", &repo.plan()]);
    let (_, begin) = repo.trek(&["step-begin", "1"]);
    let lines = begin["lines"].to_string();
    assert!(lines.contains("hold no uncommitted change"), "{lines}");
    assert_eq!(repo.progress_json()["steps"]["1"]["attempts"], 1);
}

#[test]
fn declining_the_gate_records_partial() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.both_steps_done();
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
fn validate_is_ready_with_warnings_and_fails_only_on_fatal_errors() {
    let plan = example_plan();
    let with = |from: &str, to: &str| {
        assert!(plan.contains(from), "{from}");
        plan.replacen(from, to, 1)
    };
    let manifest_start = plan.find("- **Manifest:**").unwrap();
    let manifest_end = plan[manifest_start..].find("```\n\n").unwrap() + manifest_start + 4;
    let cases = [
        (
            "legacy",
            with("plan_version: 1.7\n", ""),
            true,
            "PLAN_LEGACY",
        ),
        (
            "no Verify",
            with("- **Verify:** `bash tests/greet.sh`\n", ""),
            true,
            "PLAN_MISSING_VERIFY",
        ),
        (
            "invalid regex",
            with("^test\\\\(greet\\\\)", "^test("),
            false,
            "PLAN_INVALID_REGEX",
        ),
        (
            "malformed manifest YAML",
            with("expected_paths: [greet.sh]", "expected_paths: [greet.sh"),
            false,
            "PLAN_MALFORMED_YAML",
        ),
        (
            "missing Manifest",
            format!("{}{}", &plan[..manifest_start], &plan[manifest_end..]),
            false,
            "PLAN_MISSING_MANIFEST",
        ),
    ];
    for (name, text, ready, code) in cases {
        let repo = Repo::new(&text);
        let (exit, reply) = repo.trek(&["start", "--validate", &repo.plan()]);
        let lines = reply["lines"].to_string();
        assert_eq!(exit, i32::from(!ready), "{name}: {lines}");
        assert_eq!(
            reply["status"],
            if ready { "ready" } else { "fail" },
            "{name}"
        );
        let banner = if ready { "READY" } else { "FAIL" };
        assert!(
            lines.contains(&format!("Schema Validation: {banner}")),
            "{name}: {lines}"
        );
        assert!(lines.contains(code), "{name}: {lines}");
        assert!(
            !repo.progress().exists() && !repo.marker().exists(),
            "{name}"
        );
    }
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

/// A project folder's messages name the commands this plugin ships:
/// `/trekplan --project DIR` for a missing plan.md, and for a brief
/// without phase signals the keys to add by hand (there is no /trekbrief).
#[test]
fn a_project_without_its_plan_or_signals_is_told_what_to_do_with_this_plugin() {
    let repo = Repo::new(&example_plan());
    let project = repo.path().join("proj");
    fs::create_dir_all(&project).unwrap();
    let dir = project.display().to_string();
    let (code, reply) = repo.trek(&["start", "--project", &dir]);
    assert_eq!(code, 2, "{reply}");
    let lines = reply["lines"].to_string();
    assert!(
        lines.contains(&format!("/trekplan --project {dir} <what to build>")),
        "{lines}"
    );

    let brief = project.join("brief.md");
    write(
        &project,
        &[
            ("plan.md", &example_plan()),
            ("brief.md", "---\nbrief_version: 2.1\n---\n# brief\n"),
        ],
    );
    let (code, reply) = repo.trek(&["start", "--project", &dir]);
    assert_eq!(next(&reply), ("stop", None), "{reply}");
    assert_ne!(code, 0, "{reply}");
    let lines = reply["lines"].to_string();
    assert!(!lines.contains("/trekbrief"), "{lines}");
    assert!(
        lines.contains("phase_signals_partial: true") && lines.contains("brief validate"),
        "{lines}"
    );
    // The advice, followed, lets the start past the brief.
    write(
        &project,
        &[(
            "brief.md",
            "---\nbrief_version: 2.1\nphase_signals:\n  execute: {effort: standard}\n---\n# brief\n",
        )],
    );
    let out = crate::common::env::helper(repo.path(), repo.home.path())
        .args(["brief", "validate"])
        .arg(&brief)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let (_, reply) = repo.trek(&["start", "--project", &dir]);
    assert!(
        !reply["lines"].to_string().contains("phase_signals"),
        "{reply}"
    );
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
    // A message written out in the plan is checked against the pattern
    // before the run (PLAN_CHECKPOINT_MESSAGE_MISMATCH); one the shell
    // makes at run time is known only after the commit.
    let plan = example_plan().replace(
        "`git commit -m \"feat(greet): add the greeting script\"`",
        "`git commit -m \"add ${GREETING:-greeting}\"`",
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

// --- the scope audit of `trek step-done` (issue 23, point 7) ---------------
//
// Each case: step 1 of the example plan is begun, its own file written, and
// one change made outside its Files the way the hook cannot see (a
// formatter, git itself, a direct write standing in for an MCP tool, a
// write from a nested repository). step-done must fail the attempt, say
// what changed, put those paths back, and keep them in a patch that
// `git apply` turns back into the agent's tree, byte for byte.

/// Every file of the work tree but the run's own (git directories, the
/// runner's logs, the progress file), with its bytes.
fn tree(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if path.file_name().unwrap() == ".git"
                || rel == ".temp"
                || rel.ends_with(".trekexecute-progress-plan.json")
            {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(root, root, &mut out);
    out
}

const BINARY: &[u8] = b"\x00\x01\xffbinary\x00\xfe\r\n";

/// The example plan's repository with a few committed files outside step
/// 1's Files, the run started and step 1 begun.
fn begun() -> Repo {
    let repo = Repo::new(&example_plan());
    repo.write(&[("a.txt", "one  two\n"), ("docs/b.md", "# b\n")]);
    fs::write(repo.path().join("bin.dat"), BINARY).unwrap();
    commit_all(repo.path(), "more files");
    let (code, start) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    repo.trek(&["step-begin", "1"]);
    repo
}

/// step-done: the attempt fails with exactly `expected` (path, change,
/// from) outside the Files, recorded as failed; greet.sh stays; the patch
/// is named and kept out of the work tree.
fn caught(repo: &Repo, expected: &[(&str, &str, Option<&str>)]) -> Value {
    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "{done}");
    let lines = done["lines"].to_string();
    assert!(lines.contains("SCOPE VIOLATION"), "{lines}");
    let changes: Vec<(String, String, Option<String>)> = done["scope"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_owned(),
                c["change"].as_str().unwrap().to_owned(),
                c["from"].as_str().map(str::to_owned),
            )
        })
        .collect();
    let want: Vec<(String, String, Option<String>)> = expected
        .iter()
        .map(|(p, c, f)| ((*p).to_owned(), (*c).to_owned(), f.map(str::to_owned)))
        .collect();
    assert_eq!(changes, want, "{done}");
    assert_eq!(repo.progress_json()["steps"]["1"]["status"], "failed");
    assert!(
        repo.progress_json()["steps"]["1"]["error"]
            .as_str()
            .unwrap()
            .contains("SCOPE VIOLATION")
    );
    assert_eq!(
        fs::read_to_string(repo.path().join("greet.sh")).unwrap(),
        GREET
    );
    let patch = done["scope"]["patch"].as_str().unwrap().to_owned();
    assert!(lines.contains(&format!("git apply {patch}")), "{lines}");
    assert!(
        Path::new(&patch).starts_with(repo.path().join(".git")),
        "kept out of the work tree: {patch}"
    );
    done
}

/// The patch applied at the root gives back the agent's tree exactly.
fn applies_back(repo: &Repo, done: &Value, agent: &std::collections::BTreeMap<String, Vec<u8>>) {
    let patch = done["scope"]["patch"].as_str().unwrap();
    git(repo.path(), &["apply", patch]);
    assert_eq!(&tree(repo.path()), agent, "the patch restores every byte");
}

/// The tree the step began from, plus the step's own file.
fn started_with_greet(repo: &Repo) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut t = tree(repo.path());
    t.insert("greet.sh".into(), GREET.as_bytes().to_vec());
    t
}

#[test]
fn a_formatter_rewriting_an_out_of_scope_file_is_caught_and_kept() {
    let repo = begun();
    let start = started_with_greet(&repo);
    repo.write(&[("greet.sh", GREET), ("a.txt", "one two\n")]);
    let agent = tree(repo.path());
    // `audit scope` sees the same, and changes nothing.
    let out = crate::common::env::helper(repo.path(), repo.home.path())
        .args([
            "audit",
            "scope",
            "--plan",
            &repo.plan(),
            "--step",
            "1",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let audit = assert_schema("audit-scope", String::from_utf8_lossy(&out.stdout).trim());
    assert_eq!(
        audit["changes"],
        serde_json::json!([{"path": "a.txt", "change": "modified"}])
    );
    assert_eq!(audit["in_scope"], serde_json::json!(["greet.sh"]));
    assert_eq!(tree(repo.path()), agent);
    let done = caught(&repo, &[("a.txt", "modified", None)]);
    assert_eq!(next(&done), ("begin-step", Some(1)), "a retry: {done}");
    assert_eq!(tree(repo.path()), start, "a.txt is back, greet.sh stays");
    assert_eq!(done["scope"]["restored"], serde_json::json!(["a.txt"]));
    applies_back(&repo, &done, &agent);

    // The retry, with the out-of-scope change gone, passes as ever.
    git(repo.path(), &["checkout", "--", "a.txt"]);
    repo.trek(&["step-begin", "1"]);
    let (_, again) = repo.trek(&["step-done", "1"]);
    assert_eq!(next(&again), ("begin-step", Some(2)), "{again}");
    assert!(again.get("scope").is_none());
}

#[test]
fn git_checkout_of_an_older_version_is_caught_and_the_index_put_back() {
    let repo = Repo::new(&example_plan());
    repo.write(&[("a.txt", "old\n")]);
    commit_all(repo.path(), "a old");
    repo.write(&[("a.txt", "new\n")]);
    commit_all(repo.path(), "a new");
    repo.trek(&["start", &repo.plan()]);
    repo.trek(&["step-begin", "1"]);
    let start = started_with_greet(&repo);
    repo.write(&[("greet.sh", GREET)]);
    // Reverts the earlier commit's change, in the index and the tree.
    git(repo.path(), &["checkout", "HEAD~1", "--", "a.txt"]);
    let agent = tree(repo.path());
    let done = caught(&repo, &[("a.txt", "modified", None)]);
    assert_eq!(tree(repo.path()), start);
    assert_eq!(
        git(repo.path(), &["diff", "--cached", "--name-only"]),
        "",
        "the index is put back too"
    );
    applies_back(&repo, &done, &agent);
}

#[test]
fn a_deleted_and_a_renamed_file_are_caught_with_both_names() {
    let repo = begun();
    let start = started_with_greet(&repo);
    repo.write(&[("greet.sh", GREET)]);
    fs::remove_file(repo.path().join("a.txt")).unwrap();
    git(repo.path(), &["mv", "docs/b.md", "docs/c.md"]);
    let agent = tree(repo.path());
    let done = caught(
        &repo,
        &[
            ("a.txt", "deleted", None),
            ("docs/c.md", "renamed", Some("docs/b.md")),
        ],
    );
    assert!(
        done["lines"]
            .to_string()
            .contains("docs/b.md -> docs/c.md (renamed)")
    );
    assert_eq!(tree(repo.path()), start);
    assert_eq!(
        git(repo.path(), &["status", "--porcelain", "--", "docs"]),
        ""
    );
    applies_back(&repo, &done, &agent);
}

#[test]
fn an_untracked_file_and_a_direct_write_are_caught() {
    let repo = begun();
    let start = started_with_greet(&repo);
    repo.write(&[("greet.sh", GREET), ("notes/todo.txt", "later\n")]);
    // What an MCP filesystem server's write tool does: the file system,
    // no tool call the hook sees.
    fs::write(repo.path().join("README.md"), "# hijacked\n").unwrap();
    let agent = tree(repo.path());
    let done = caught(
        &repo,
        &[
            ("README.md", "modified", None),
            ("notes/todo.txt", "untracked", None),
        ],
    );
    assert_eq!(tree(repo.path()), start);
    applies_back(&repo, &done, &agent);
}

#[test]
fn a_binary_file_out_of_scope_round_trips_through_the_patch() {
    let repo = begun();
    let start = started_with_greet(&repo);
    repo.write(&[("greet.sh", GREET)]);
    fs::write(repo.path().join("bin.dat"), b"\x00\xff\x00changed\x80").unwrap();
    fs::write(repo.path().join("new.bin"), b"\x89PNG\r\n\x1a\n\x00\x00").unwrap();
    let agent = tree(repo.path());
    let done = caught(
        &repo,
        &[
            ("bin.dat", "modified", None),
            ("new.bin", "untracked", None),
        ],
    );
    assert_eq!(tree(repo.path()), start);
    assert_eq!(fs::read(repo.path().join("bin.dat")).unwrap(), BINARY);
    applies_back(&repo, &done, &agent);
}

#[test]
fn a_write_from_inside_a_nested_repository_is_caught() {
    let repo = begun();
    let start = started_with_greet(&repo);
    repo.write(&[("greet.sh", GREET)]);
    // The agent makes itself a nested repository (the hook finds no run
    // from a cwd inside it) and writes the parent's file from there.
    let nested = repo.path().join("nested");
    fs::create_dir(&nested).unwrap();
    init(&nested);
    write(&nested, &[("inner.txt", "inner\n")]);
    let out = std::process::Command::new("bash")
        .args(["-c", "echo escaped > ../a.txt"])
        .current_dir(&nested)
        .output()
        .unwrap();
    assert!(out.status.success());
    let agent = tree(repo.path());
    let done = caught(
        &repo,
        &[
            ("a.txt", "modified", None),
            ("nested/", "nested_repository", None),
        ],
    );
    // The repository is another repository's content: left in place, and a
    // person decides (the step is escalated).
    assert_eq!(next(&done), ("finish", None), "{done}");
    assert_eq!(done["status"], "stopped");
    assert_eq!(done["scope"]["kept"], serde_json::json!(["nested/"]));
    assert_eq!(
        fs::read_to_string(nested.join("inner.txt")).unwrap(),
        "inner\n"
    );
    let mut expected = start.clone();
    expected.insert("nested/inner.txt".into(), b"inner\n".to_vec());
    assert_eq!(tree(repo.path()), expected, "a.txt is back");
    applies_back(&repo, &done, &agent);
}

#[test]
fn what_the_tree_held_before_the_step_is_not_the_steps_doing() {
    // Work left from before the run (tracked and untracked, and a nested
    // repository) is the step's base: an in-scope step passes and leaves it
    // alone; a change on top of it is caught and put back to that base.
    let repo = Repo::new(&example_plan());
    repo.write(&[("a.txt", "one\n")]);
    commit_all(repo.path(), "a");
    repo.write(&[("a.txt", "user's edit\n"), ("scratch.txt", "mine\n")]);
    let nested = repo.path().join("vendor");
    fs::create_dir(&nested).unwrap();
    init(&nested);
    repo.trek(&["start", &repo.plan()]);
    repo.trek(&["step-begin", "1"]);
    let start = started_with_greet(&repo);
    repo.write(&[("greet.sh", GREET), ("a.txt", "agent's edit\n")]);
    // From inside the pre-existing nested repository.
    let out = std::process::Command::new("bash")
        .args(["-c", "echo more >> ../scratch.txt"])
        .current_dir(&nested)
        .output()
        .unwrap();
    assert!(out.status.success());
    let agent = tree(repo.path());
    let done = caught(
        &repo,
        &[
            ("a.txt", "modified", None),
            ("scratch.txt", "modified", None),
        ],
    );
    assert_eq!(next(&done), ("begin-step", Some(1)));
    assert_eq!(tree(repo.path()), start, "back to the user's own edits");
    applies_back(&repo, &done, &agent);

    git(
        repo.path(),
        &["apply", "-R", done["scope"]["patch"].as_str().unwrap()],
    );
    repo.trek(&["step-begin", "1"]);
    let (_, again) = repo.trek(&["step-done", "1"]);
    assert_eq!(next(&again), ("begin-step", Some(2)), "{again}");
    assert_eq!(
        fs::read_to_string(repo.path().join("a.txt")).unwrap(),
        "user's edit\n"
    );
    assert_eq!(
        fs::read_to_string(repo.path().join("scratch.txt")).unwrap(),
        "mine\n"
    );
    assert_eq!(
        git(repo.path(), &["show", "--name-only", "--format=", "HEAD"]),
        "greet.sh\n",
        "the checkpoint holds the step's file alone"
    );
}

#[test]
fn an_out_of_scope_change_the_agent_committed_is_caught_and_undone_in_the_tree() {
    let repo = begun();
    let start = started_with_greet(&repo);
    repo.write(&[
        ("greet.sh", GREET),
        ("a.txt", "committed behind the step's back\n"),
    ]);
    git(repo.path(), &["commit", "-q", "-am", "sneak"]);
    let agent = tree(repo.path());
    let done = caught(&repo, &[("a.txt", "modified", None)]);
    assert_eq!(tree(repo.path()), start);
    // The commit stays; the index and the tree undo its out-of-scope path,
    // so the step's next commit takes it back out.
    assert_eq!(
        git(repo.path(), &["diff", "--cached", "--name-only"]),
        "a.txt\n"
    );
    applies_back(&repo, &done, &agent);
}

/// The seam between `trek` and the hook (issue 23, point 3), driven the way
/// a run goes: the marker `trek start` and `step-begin` leave holds the
/// agent to the step; the progress file cannot be written through the
/// hook; when something the hook cannot see changes it all the same, every
/// write is refused, until the user's `trek release`.
#[test]
fn the_hook_holds_a_run_trek_started_until_the_user_releases_it() {
    let repo = begun();
    let hook = |command: &str| -> String {
        let mut cmd = crate::common::env::helper(repo.path(), repo.home.path());
        cmd.args(["hook", "pre-tool-use"]);
        let input = serde_json::json!({
            "cwd": repo.path(), "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}
        });
        let out = assert_cmd::Command::from_std(cmd)
            .write_stdin(input.to_string())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(hook("echo x > README.md").contains("run-outside-step"));
    // Let through: as it is, or, where the kernel can fence it, rewritten
    // to run inside the step's fence (scope_fence tests what that does).
    let allowed = hook("echo '#!/bin/sh' > greet.sh");
    assert!(
        allowed.is_empty() || (allowed.contains("updatedInput") && !allowed.contains("deny")),
        "{allowed}"
    );
    let progress = repo.progress().display().to_string();
    for command in [
        format!("sed -i s/in_progress/completed/ {progress}"),
        format!("rm {progress}"),
        format!("echo x >& {}", repo.plan()),
    ] {
        assert!(hook(&command).contains("run-marker-write"), "{command}");
    }
    // What the hook cannot see (another process) flips the status: the
    // guard fails closed instead of going stale.
    let text = fs::read_to_string(repo.progress()).unwrap();
    fs::write(repo.progress(), text.replace("in_progress", "completed")).unwrap();
    assert!(hook("echo x > greet.sh").contains("run-marker-unreadable"));
    // The agent cannot end it either (the untrusted run speaks first).
    assert!(hook("voyage-helper trek release").contains("\"permissionDecision\":\"deny\""));
    let (code, released) = repo.trek(&["release"]);
    assert_eq!((code, released["status"].as_str()), (0, Some("released")));
    assert!(!repo.marker().exists());
    assert!(repo.progress().exists());
    assert_eq!(hook("echo x > README.md"), "");
}

// --- Phase 7.6: a drifted session spec's recovery order --------------------

/// A session spec whose step 2 deletes step 1's file: its own Verify and
/// manifest pass, but the session audit finds step 1's expected path gone.
const DRIFTING_SPEC: &str = "---\nplan_version: 1.7\n---\n# Session 1: scripts\n\n## Dependencies\n\nEntry condition: none\n\n## Scope Fence\n\n- Touch: `src/`\n- Never touch: `vendor/`\n\n### Step 1: First script\n- **Files:** `src/a.sh` (new)\n- **Changes:** a script that prints a.\n- **Verify:** `bash -n src/a.sh`\n- **On failure:** escalate\n- **Checkpoint:** `git commit -m \"feat: a\"`\n- **Manifest:**\n  ```yaml\n  expected_paths: [src/a.sh]\n  min_file_count: 1\n  commit_message_pattern: \"^feat: a$\"\n  bash_syntax_check: [src/a.sh]\n  forbidden_paths: []\n  must_contain: []\n  ```\n\n### Step 2: Second script\n- **Files:** `src/b.sh` (new), `src/a.sh`\n- **Changes:** a script that prints b; the first one goes.\n- **Verify:** `bash src/b.sh`\n- **On failure:** escalate\n- **Checkpoint:** `git commit -m \"feat: b\"`\n- **Manifest:**\n  ```yaml\n  expected_paths: [src/b.sh]\n  min_file_count: 1\n  commit_message_pattern: \"^feat: b$\"\n  bash_syntax_check: [src/b.sh]\n  forbidden_paths: []\n  must_contain: []\n  ```\n\n## Exit Condition\n\n- [ ] `bash -n src/b.sh` passes\n";

impl Repo {
    /// Runs every step `start` hands over, writing `files(step)`, and
    /// returns `trek finish`. `drop` deletes `src/a.sh` (a later change
    /// undoing step 1): `Before(n)` as part of step n's work, `After(n)`
    /// once step n is done (the user's change, outside any step).
    fn run_steps(
        &self,
        start: &[&str],
        files: impl Fn(u64) -> Vec<(&'static str, &'static str)>,
        drop: Undo,
    ) -> (i32, Value) {
        let (code, mut reply) = self.trek(start);
        assert_eq!(code, 0, "{reply}");
        while next(&reply).0 == "begin-step" {
            let step = reply["step"].as_u64().unwrap();
            let n = step.to_string();
            let (_, begun) = self.trek(&["step-begin", &n]);
            assert_eq!(next(&begun).0, "implement", "{begun}");
            self.write(&files(step));
            let a = self.path().join("src/a.sh");
            if drop == Undo::Before(step) {
                fs::remove_file(&a).unwrap();
            }
            reply = self.trek(&["step-done", &n]).1;
            assert!(matches!(next(&reply).0, "begin-step" | "finish"), "{reply}");
            if drop == Undo::After(step) {
                fs::remove_file(&a).unwrap();
            }
        }
        self.trek(&["finish"])
    }
}

/// When [`Repo::run_steps`] deletes step 1's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Undo {
    Never,
    Before(u64),
    After(u64),
}

fn scripts(step: u64) -> Vec<(&'static str, &'static str)> {
    match step {
        1 => vec![("src/a.sh", "echo a\n")],
        2 => vec![("src/b.sh", "echo b\n")],
        _ => Vec::new(),
    }
}

#[test]
fn a_drifted_session_spec_hands_over_a_recovery_order_its_session_completes() {
    let repo = Repo::new(DRIFTING_SPEC);
    let (code, done) = repo.run_steps(&["start", &repo.plan()], scripts, Undo::Before(2));
    assert_eq!(code, 1, "{done}");
    // The order is handed over and the run stops: no gate is asked.
    assert_eq!(
        (done["status"].as_str(), next(&done).0),
        (Some("partial"), "stop"),
        "{done}"
    );
    let text = done["lines"].to_string();
    assert!(
        text.contains("Recovery order: session 1, depth 1"),
        "{text}"
    );
    assert!(!text.contains("Question:"), "{text}");
    let spec = repo.path().join("plans/session-1-recovery-1.md");
    let starter = format!("/trekexecute --session 1 {}", spec.display());
    assert!(text.contains(&starter), "{text}");
    let parent = repo.progress_json();
    assert_eq!(parent["status"], "partial");
    assert_eq!(parent["recovery_dispatched"], true);
    assert!(!repo.marker().exists());

    // The recovery session, as its order says: the missing step 1 again.
    let spec_arg = spec.display().to_string();
    let (code, done) = repo.run_steps(
        &["start", "--session", "1", &spec_arg],
        scripts,
        Undo::Never,
    );
    assert_eq!(code, 0, "{done}");
    assert!(!done["lines"].to_string().contains("warning"), "{done}");
    assert_eq!(next(&done).0, "ask-main-merge", "{done}");
    let (code, confirmed) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(
        (code, confirmed["status"].as_str()),
        (0, Some("completed")),
        "{confirmed}"
    );
    assert!(repo.path().join("src/a.sh").is_file() && repo.path().join("src/b.sh").is_file());
    let recovery: Value = serde_json::from_str(
        &fs::read_to_string(
            repo.path()
                .join("plans/.trekexecute-progress-session-1-recovery-1-session-1.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(recovery["recovery_depth"], 1);
    assert_eq!(recovery["manifest_audit"]["status"], "pass");
}

#[test]
fn recovery_stops_at_depth_two_and_a_session_child_never_dispatches() {
    let repo = Repo::new(DRIFTING_SPEC);
    let (_, done) = repo.run_steps(&["start", &repo.plan()], scripts, Undo::Before(2));
    assert!(done["lines"].to_string().contains("depth 1"), "{done}");
    // Depth 1 run as a parent drifts too (step 1's file goes again): depth 2.
    let first = repo.path().join("plans/session-1-recovery-1.md");
    let first_arg = first.display().to_string();
    let (code, done) = repo.run_steps(&["start", &first_arg], scripts, Undo::After(1));
    assert_eq!(code, 1, "{done}");
    assert!(
        done["lines"]
            .to_string()
            .contains("Recovery order: session 1, depth 2"),
        "{done}"
    );
    let second = repo.path().join("plans/session-1-recovery-2.md");
    assert!(second.is_file());
    // Depth 2 drifting: exhausted, no third spec, partial.
    let second_arg = second.display().to_string();
    // The user's deletion of src/a.sh is still uncommitted: started over
    // it on purpose.
    let (code, done) = repo.run_steps(
        &["start", "--allow-dirty", &second_arg],
        scripts,
        Undo::After(1),
    );
    assert_eq!(
        (code, done["status"].as_str()),
        (1, Some("partial")),
        "{done}"
    );
    assert!(
        done["lines"].to_string().contains("RECOVERY EXHAUSTED"),
        "{done}"
    );
    assert!(!repo.path().join("plans/session-1-recovery-3.md").exists());

    // A `--session N` child that drifts escalates: nothing is dispatched.
    let repo = Repo::new(DRIFTING_SPEC);
    let plan = repo.plan();
    let (code, done) = repo.run_steps(
        &["start", "--session", "1", &plan],
        scripts,
        Undo::Before(2),
    );
    // It ends partial, with nothing to publish: no order, no gate.
    assert_eq!(
        (code, done["status"].as_str()),
        (1, Some("partial")),
        "{done}"
    );
    assert_eq!(next(&done).0, "stop");
    assert!(
        !done["lines"].to_string().contains("Recovery order"),
        "{done}"
    );
    assert!(!repo.path().join("plans/session-1-recovery-1.md").exists());
}

/// In `claude -p` (CLAUDE_CODE_ENTRYPOINT=sdk-cli) nobody can be asked:
/// `trek finish` leaves the run at the gate (recorded, nothing finalised)
/// and refuses the session's answer; the run comes back to the gate in an
/// interactive session (`--resume`), where the user's answer is recorded
/// as theirs, and an operator in a shell is recorded as the operator.
#[test]
fn an_unattended_session_leaves_the_run_at_the_gate_for_a_person() {
    let unattended = [("CLAUDECODE", "1"), ("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")];
    let interactive = [("CLAUDECODE", "1"), ("CLAUDE_CODE_ENTRYPOINT", "cli")];
    let to_the_gate = |repo: &Repo| {
        let plan = repo.plan();
        repo.trek_env(&["start", &plan], &unattended);
        repo.trek_env(&["step-begin", "1"], &unattended);
        repo.write(&[("greet.sh", GREET)]);
        repo.trek_env(&["step-done", "1"], &unattended);
        repo.trek_env(&["step-begin", "2"], &unattended);
        repo.write(&[("tests/greet.sh", TEST)]);
        repo.trek_env(&["step-done", "2"], &unattended);
        let (code, gate) = repo.trek_env(&["finish"], &unattended);
        assert_eq!((code, next(&gate).0), (0, "await-operator"), "{gate}");
        assert_eq!(gate["call"], "trek finish --gate confirm|decline");
        let progress = repo.progress_json();
        assert_eq!(progress["status"], "in_progress");
        assert_eq!(progress["main_merge_gate"]["status"], "awaiting");
        let (code, refused) = repo.trek_env(&["finish", "--gate", "confirm"], &unattended);
        assert_eq!(code, 2, "{refused}");
        assert!(
            refused["lines"]
                .to_string()
                .contains("TREK_GATE_UNATTENDED")
        );
        assert_eq!(repo.progress_json()["status"], "in_progress");
        assert!(repo.marker().exists(), "the run is still live");
    };

    let repo = Repo::new(&example_plan());
    to_the_gate(&repo);
    let plan = repo.plan();
    let (code, resumed) = repo.trek_env(&["start", "--resume", &plan], &interactive);
    assert_eq!((code, next(&resumed).0), (0, "finish"), "{resumed}");
    let (_, gate) = repo.trek_env(&["finish"], &interactive);
    assert_eq!(next(&gate).0, "ask-main-merge", "{gate}");
    let (code, done) = repo.trek_env(&["finish", "--gate", "decline"], &interactive);
    assert_eq!(
        (code, done["status"].as_str()),
        (1, Some("partial")),
        "{done}"
    );
    let gate = &repo.progress_json()["main_merge_gate"];
    assert_eq!(
        (gate["status"].as_str(), gate["answered_by"].as_str()),
        (Some("declined"), Some("user"))
    );

    let repo = Repo::new(&example_plan());
    to_the_gate(&repo);
    let (code, done) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(
        (code, done["status"].as_str()),
        (0, Some("completed")),
        "{done}"
    );
    let progress = repo.progress_json();
    assert_eq!(progress["main_merge_gate"]["answered_by"], "operator");
    assert_schema("progress", &progress.to_string());
    let stats = fs::read_to_string(repo.data().join("trekexecute-stats.jsonl")).unwrap();
    assert!(stats.contains("\"answered_by\":\"operator\""), "{stats}");
}

/// After a failed verification there is nothing to publish: `trek finish`
/// records the run as failed and asks no main-merge question; a fix and
/// `--resume` re-run the checks and come back to the gate.
#[test]
fn a_failed_verification_ends_the_run_without_the_main_merge_question() {
    let plan = example_plan().replace(
        "- `bash -n greet.sh` — the script parses",
        "- `test -f CHANGES.md` — the change log is written",
    );
    let repo = Repo::new(&plan);
    let path = repo.plan();
    repo.trek(&["start", &path]);
    repo.both_steps_done();
    let (code, done) = repo.trek(&["finish"]);
    assert_eq!(
        (code, done["status"].as_str()),
        (1, Some("failed")),
        "{done}"
    );
    assert_eq!(next(&done).0, "stop");
    let text = done["lines"].to_string();
    assert!(!text.contains("Question:"), "{text}");
    assert!(text.contains("--resume"), "{text}");
    assert!(!repo.marker().exists(), "the run is over");
    assert_eq!(repo.progress_json()["status"], "failed");

    // The user's fix; the resumed run checks again.
    repo.write(&[("CHANGES.md", "- greet\n")]);
    let (code, resumed) = repo.trek(&["start", "--resume", &path]);
    assert_eq!((code, next(&resumed).0), (0, "finish"), "{resumed}");
    let (code, gate) = repo.trek(&["finish"]);
    assert_eq!((code, next(&gate).0), (0, "ask-main-merge"), "{gate}");
}

/// Lines a finishing reply must not carry: a second verdict of the
/// criteria, the audit's view of a status this call then changes, the
/// progress file's own transition line, phase numbers.
const SAID_ELSEWHERE: &[&str] = &[
    "RESULT: ",
    "informational",
    "No override",
    "Status stays",
    "run in_progress ->",
    "completion gate:",
    "recorded in ",
    "Phase 7",
];

/// The reply before its report carries none of [`SAID_ELSEWHERE`].
fn said_once(text: &str) {
    let replies = text.split("## Ultraexecute Local Complete").next().unwrap();
    for line in SAID_ELSEWHERE {
        assert!(!replies.contains(line), "{line:?} in {replies}");
    }
}

#[test]
fn a_failed_verification_is_told_once_in_the_words_of_the_report() {
    let plan = example_plan().replace(
        "- `bash -n greet.sh` — the script parses",
        "- `test -f CHANGES.md` — the change log is written",
    );
    let repo = Repo::new(&plan);
    repo.trek(&["start", &repo.plan()]);
    repo.both_steps_done();
    let (code, out, err) = repo.trek_streams(&["finish"]);
    assert_eq!(code, 1, "{out}");
    said_once(&out);
    assert!(
        !err.contains("error["),
        "nothing said twice on stderr: {err}"
    );
    assert!(
        out.contains("**Result:** FAILED (the plan verification did not pass)"),
        "{out}"
    );
    // The same words for the same state, in the checklist and the report.
    assert!(
        out.contains("Criteria: 1/2 passed, 1 failed, 0 blocked, 0 not run"),
        "{out}"
    );
    assert!(
        out.contains("**Criteria:** 1/2 passed, 1 failed, 0 blocked, 0 not run"),
        "{out}"
    );
    assert_eq!(
        out.matches("test -f CHANGES.md").count(),
        2,
        "the checklist and the Failed criteria: {out}"
    );
    assert!(!out.contains("### Completion Gate"), "{out}");
    assert!(!out.contains("- none\n\n### "), "no empty section: {out}");
}

#[test]
fn a_drifted_audit_is_told_once_and_the_run_is_partial() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.both_steps_done();
    // README.md is forbidden to step 1: the Verification passes, the
    // audit drifts.
    repo.write(&[("README.md", "# demo, edited\n")]);
    commit_all(repo.path(), "docs: edit the readme");
    let (code, out, err) = repo.trek_streams(&["finish"]);
    assert_eq!(code, 1, "{out}");
    said_once(&out);
    assert!(!err.contains("error["), "{err}");
    assert!(out.contains("Manifest audit: DRIFT, 3 findings"), "{out}");
    assert!(
        out.contains("- forbidden_paths (step 1): README.md: expected untouched"),
        "{out}"
    );
    assert!(out.contains("the run is recorded as partial"), "{out}");
    assert!(out.contains("**Result:** PARTIAL (2/2 passed)"), "{out}");
    assert!(!out.contains("Question:"), "{out}");
}

/// The seven-step calculator of `examples/trek/`, run as the agent would
/// (text replies): the bytes the agent reads, by call.
fn calculator_replies() -> Vec<(String, usize)> {
    let plan = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/trek/calculator.md"),
    )
    .unwrap();
    let repo = Repo::new(&plan);
    let mut sizes = Vec::new();
    let (code, start) = repo.trek_text(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    sizes.push(("start".to_owned(), start.len()));
    let ops = [
        ("add", "$(($1+$2))", "9"),
        ("sub", "$(($1-$2))", "3"),
        ("mul", "$(($1*$2))", "18"),
        ("div", "$(($1/$2))", "2"),
        ("mod", "$(($1%$2))", "0"),
        ("pow", "$(($1**$2))", "216"),
        ("neg", "$((-$1))", "-6"),
    ];
    for (i, (op, expr, want)) in ops.iter().enumerate() {
        let n = (i + 1).to_string();
        let (_, begin) = repo.trek_text(&["step-begin", &n]);
        let script = format!("#!/usr/bin/env bash\necho \"{expr}\"\n");
        let test =
            format!("#!/usr/bin/env bash\nset -e\ntest \"$(bash bin/{op}.sh 6 3)\" = \"{want}\"\n");
        repo.write(&[
            (format!("bin/{op}.sh").as_str(), script.as_str()),
            (format!("tests/{op}.sh").as_str(), test.as_str()),
        ]);
        let (code, done) = repo.trek_text(&["step-done", &n]);
        assert_eq!(code, 0, "{done}");
        assert!(
            done.contains(&format!("Step {n}: PASS (committed")),
            "{done}"
        );
        sizes.push((format!("step {n}"), begin.len() + done.len()));
    }
    let (code, finish) = repo.trek_text(&["finish"]);
    assert_eq!(code, 0, "{finish}");
    let (code, last) = repo.trek_text(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{last}");
    assert!(last.contains("**Result:** COMPLETED"), "{last}");
    sizes.push(("finish".to_owned(), finish.len() + last.len()));
    sizes
}

/// Issue 25's budget for what the agent reads: a step's two replies
/// within 800 bytes, the finish (both calls, the summary JSON included)
/// within 2.5 KB. `scripts/bench.sh` reports the same figures.
#[test]
fn a_seven_step_run_stays_within_its_reply_budget() {
    for (call, bytes) in calculator_replies() {
        let budget = match call.as_str() {
            "start" => 600,
            "finish" => 2560,
            _ => 800,
        };
        assert!(bytes <= budget, "{call}: {bytes} bytes, budget {budget}");
    }
}

/// The run is pinned to the plan it started with: weakening its
/// Verification mid-run, then `--resume` and `finish`, is said in every
/// reply from then on, recorded, shown in the report, and the run cannot
/// end completed.
#[test]
fn a_plan_edited_during_the_run_is_said_and_the_run_cannot_complete() {
    let repo = Repo::new(&example_plan());
    let path = repo.plan();
    repo.trek(&["start", &path]);
    repo.trek(&["step-begin", "1"]);
    repo.write(&[("greet.sh", GREET)]);
    let (_, done) = repo.trek(&["step-done", "1"]);
    assert!(
        !done["lines"].to_string().contains("plan changed"),
        "{done}"
    );
    // The plan is weakened: its first criterion no longer checks anything.
    let plan_file = repo.path().join("plans/plan.md");
    let text = fs::read_to_string(&plan_file).unwrap();
    let weaker = text.replace(
        "- `bash tests/greet.sh` — the default greeting is right\n",
        "",
    );
    assert_ne!(text, weaker);
    fs::write(&plan_file, weaker).unwrap();

    let (code, resumed) = repo.trek(&["start", "--resume", &path]);
    assert_eq!(code, 0, "{resumed}");
    assert!(
        resumed["lines"]
            .to_string()
            .contains("the plan changed since the run started"),
        "{resumed}"
    );
    repo.trek(&["step-begin", "2"]);
    repo.write(&[("tests/greet.sh", TEST)]);
    let (_, done) = repo.trek(&["step-done", "2"]);
    assert!(done["lines"].to_string().contains("plan changed"), "{done}");
    let (code, finish) = repo.trek(&["finish"]);
    assert_eq!(
        (code, finish["status"].as_str()),
        (1, Some("partial")),
        "{finish}"
    );
    assert_eq!(
        next(&finish).0,
        "stop",
        "no gate for a run whose plan moved"
    );
    let report = finish["report"].as_str().unwrap();
    assert!(
        report.contains("the plan was edited during the run"),
        "{report}"
    );
    let progress = repo.progress_json();
    assert_eq!(progress["status"], "partial");
    assert_eq!(
        progress["plan_changed"]["pinned"].as_str().map(str::len),
        Some(64)
    );
}

/// The example plan run to its end through `finish --gate confirm`.
fn completed_run() -> Repo {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.both_steps_done();
    repo.trek(&["finish"]);
    let (code, last) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{last}");
    repo
}

/// The lines of the run's stats file: events and records.
fn stats_lines(repo: &Repo) -> Vec<Value> {
    fs::read_to_string(repo.data().join("trekexecute-stats.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn count_events(lines: &[Value], name: &str) -> usize {
    lines.iter().filter(|l| l["event"] == name).count()
}

#[test]
fn resume_on_a_completed_run_says_so_and_changes_nothing() {
    let repo = completed_run();
    let progress = fs::read(repo.progress()).unwrap();
    let stats = stats_lines(&repo);
    let head = git(repo.path(), &["rev-parse", "HEAD"]);

    let (code, again) = repo.trek(&["start", "--resume", &repo.plan()]);
    assert_eq!(code, 0, "{again}");
    assert_eq!(next(&again), ("stop", None), "{again}");
    assert_eq!(again["status"], "completed");
    assert!(
        again["lines"].to_string().contains("nothing to resume"),
        "{again}"
    );
    assert_eq!(
        fs::read(repo.progress()).unwrap(),
        progress,
        "progress file"
    );
    assert_eq!(stats_lines(&repo), stats, "no event or record again");
    assert_eq!(git(repo.path(), &["rev-parse", "HEAD"]), head);
    assert!(!repo.marker().exists());
}

#[test]
fn the_run_writes_each_event_and_its_record_once_with_its_id() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.both_steps_done();
    // The question asked, then asked again (the session went away before
    // the answer): one gate event.
    let (_, first) = repo.trek(&["finish"]);
    let (_, second) = repo.trek(&["finish"]);
    assert_eq!(next(&first).0, "ask-main-merge");
    assert_eq!(next(&second).0, "ask-main-merge");
    repo.trek(&["finish", "--gate", "confirm"]);
    let lines = stats_lines(&repo);
    assert_eq!(count_events(&lines, "main-merge-gate"), 1, "{lines:?}");
    assert_eq!(count_events(&lines, "main-merge-approved"), 1, "{lines:?}");
    let records: Vec<&Value> = lines.iter().filter(|l| l.get("event").is_none()).collect();
    assert_eq!(records.len(), 1, "{lines:?}");
    let id = repo.progress_json()["trek"]["run_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(records[0]["run_id"], id.as_str());
    for line in &lines {
        if line.get("event").is_some() {
            assert_eq!(line["payload"]["run_id"], id.as_str(), "{line}");
        }
    }
}

#[test]
fn a_hand_made_commit_between_two_steps_still_lets_the_run_finish() {
    let repo = Repo::step_one_written();
    repo.trek(&["step-done", "1"]);
    // The user's own commit, between two steps.
    repo.write(&[("NOTES.md", "mine\n")]);
    commit_all(repo.path(), "notes: mine");
    repo.trek(&["step-begin", "2"]);
    repo.write(&[("tests/greet.sh", TEST)]);
    repo.trek(&["step-done", "2"]);

    let (code, done) = repo.trek(&["finish"]);
    assert_eq!(code, 1, "{done}");
    assert_eq!(next(&done).0, "stop", "{done}");
    assert_eq!(done["summary"]["result"], "partial", "{done}");
    assert!(done["report"].as_str().unwrap().contains("commit_count"));
    assert!(!repo.marker().exists(), "the run is over");
    let lines = stats_lines(&repo);
    assert_eq!(lines.iter().filter(|l| l.get("event").is_none()).count(), 1);

    // Over means over: no call loops on a stale run.
    let (code, after) = repo.trek(&["finish"]);
    assert_eq!(code, 2, "{after}");
    assert!(
        after["lines"].to_string().contains("TREK_NO_RUN"),
        "{after}"
    );
    // A resume ends again, with its own report and record.
    let (code, resumed) = repo.trek(&["start", "--resume", &repo.plan()]);
    assert_eq!((code, next(&resumed).0), (0, "finish"), "{resumed}");
    let (code, again) = repo.trek(&["finish"]);
    assert_eq!(
        (code, again["summary"]["result"].as_str()),
        (1, Some("partial"))
    );
    assert_eq!(
        stats_lines(&repo)
            .iter()
            .filter(|l| l.get("event").is_none())
            .count(),
        2,
        "each ending has its record"
    );
}

/// Installs the git hook `name` in the repository.
fn hook(repo: &Repo, name: &str, body: &str) {
    let path = repo.path().join(".git/hooks").join(name);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, format!("#!/usr/bin/env bash\n{body}")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_checkpoint_commit_made_before_the_call_died_is_recorded_not_made_again() {
    let repo = Repo::step_one_written();
    // The session dies right after git made the commit: the helper that
    // ran it (this hook's nearest voyage-helper ancestor) is killed before
    // it records it.
    hook(
        &repo,
        "post-commit",
        "p=$PPID\nwhile [ \"$p\" -gt 1 ]; do\n  if [ \"$(cat /proc/$p/comm)\" = voyage-helper ]; then kill -KILL \"$p\"; break; fi\n  p=$(awk '{print $4}' /proc/$p/stat)\ndone\n",
    );
    let (code, _) = repo.trek_text(&["step-done", "1"]);
    assert_ne!(code, 0, "killed");
    fs::remove_file(repo.path().join(".git/hooks/post-commit")).unwrap();
    let progress = repo.progress_json();
    assert_eq!(
        progress["steps"]["1"]["status"], "in_progress",
        "not recorded"
    );
    let committed = git(repo.path(), &["rev-parse", "HEAD"]).trim().to_owned();

    let (code, resumed) = repo.trek(&["start", "--resume", &repo.plan()]);
    assert_eq!(
        (code, next(&resumed)),
        (0, ("begin-step", Some(1))),
        "{resumed}"
    );
    let (code, begin) = repo.trek(&["step-begin", "1"]);
    assert_eq!(code, 0, "{begin}");
    assert_eq!(next(&begin), ("begin-step", Some(2)), "{begin}");
    assert!(
        begin["lines"]
            .to_string()
            .contains("recorded now (not made again)"),
        "{begin}"
    );
    let progress = repo.progress_json();
    assert_eq!(progress["steps"]["1"]["status"], "completed");
    assert_eq!(progress["steps"]["1"]["commit"], committed.as_str());
    assert_eq!(progress["steps"]["1"]["attempts"], 1);
    assert_eq!(
        repo.subjects(),
        ["feat(greet): add the greeting script", "init"],
        "one commit"
    );
}

#[test]
fn a_checkpoint_a_hook_refuses_pauses_the_run_and_spends_no_attempt() {
    let repo = Repo::step_one_written();
    // Refuses once, then lets the commit through.
    hook(
        &repo,
        "pre-commit",
        "if [ ! -e .git/refused ]; then touch .git/refused; echo 'lint: refused' >&2; exit 1; fi\n",
    );
    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 1, "{done}");
    assert_eq!(
        next(&done),
        ("stop", None),
        "the hook is the user's: {done}"
    );
    assert_eq!(done["status"], "paused");
    let lines = done["lines"].to_string();
    assert!(lines.contains("Checkpoint `git commit"), "{lines}");
    assert!(lines.contains("CHECKPOINT NOT MADE"), "{lines}");
    assert!(lines.contains("hooks/pre-commit"), "{lines}");
    assert!(!lines.contains("Attempt 1/3 failed"), "{lines}");
    assert_eq!(repo.progress_json()["steps"]["1"]["status"], "in_progress");
    assert_eq!(repo.progress_json()["steps"]["1"]["attempts"], 1);
    let staged = git(repo.path(), &["diff", "--cached", "--name-only"]);
    assert_eq!(staged.trim(), "greet.sh", "the verified work stays staged");

    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(next(&done), ("begin-step", Some(2)), "{done}");
    assert_eq!(
        repo.subjects(),
        ["feat(greet): add the greeting script", "init"]
    );
}

#[test]
fn a_stale_index_lock_pauses_with_its_path_and_the_command_to_remove_it() {
    let repo = Repo::step_one_written();
    let lock = repo.path().join(".git/index.lock");
    fs::write(&lock, "").unwrap();
    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(next(&done).0, "stop", "{done}");
    assert_eq!(done["status"], "paused", "{done}");
    let lines = done["lines"].to_string();
    assert!(lines.contains("index.lock is there"), "{lines}");
    assert!(lines.contains(&format!("rm {}", lock.display())), "{lines}");
    assert_eq!(code, 1);
    assert!(lock.exists(), "git's lock is the user's to remove");
    assert_eq!(repo.progress_json()["steps"]["1"]["status"], "in_progress");
    assert_eq!(repo.subjects(), ["init"]);
    fs::remove_file(&lock).unwrap();
    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(repo.subjects().len(), 2);
}

#[test]
fn a_plan_edited_between_a_crash_and_the_resume_never_leaves_the_run_stuck_or_lying() {
    for edit in ["append", "remove"] {
        let repo = Repo::new(&example_plan());
        repo.trek(&["start", &repo.plan()]);
        repo.trek(&["step-begin", "1"]);
        repo.write(&[("greet.sh", GREET)]);
        repo.trek(&["step-done", "1"]);
        // The session is gone; the user edits the plan, then resumes.
        let plan = fs::read_to_string(repo.plan()).unwrap();
        let edited = match edit {
            "append" => plan.replace(
                "## Verification",
                "### Step 3: Add a farewell\n- **Files:** `bye.sh` (new)\n- **Changes:** Print bye.\n- **Verify:** `bash -n bye.sh`\n- **On failure:** escalate\n- **Checkpoint:** `git commit -m \"feat: bye\"`\n\n## Verification",
            ),
            _ => {
                let start = plan.find("### Step 2").unwrap();
                let end = plan.find("## Verification").unwrap();
                format!("{}{}", &plan[..start], &plan[end..])
            }
        };
        fs::write(repo.plan(), edited).unwrap();

        let (code, resumed) = repo.trek(&["start", "--resume", &repo.plan()]);
        assert_eq!(code, 0, "{edit}: {resumed}");
        let said = resumed["lines"].to_string();
        assert!(said.contains("the plan changed"), "{edit}: {said}");
        let expect = if edit == "append" {
            "added 3"
        } else {
            "removed 2"
        };
        assert!(said.contains(expect), "{edit}: {said}");
        assert_eq!(next(&resumed), ("begin-step", Some(2)), "{edit}: {resumed}");
        // Step 2 runs as the plan the run started with says.
        let (_, begin) = repo.trek(&["step-begin", "2"]);
        assert_eq!(
            begin["task"]["files"][0]["path"], "tests/greet.sh",
            "{edit}"
        );
        repo.write(&[("tests/greet.sh", TEST)]);
        let (_, done) = repo.trek(&["step-done", "2"]);
        assert_eq!(next(&done), ("finish", None), "{edit}: {done}");
        let (code, finish) = repo.trek(&["finish"]);
        assert_eq!(code, 1, "{edit}: {finish}");
        assert_eq!(next(&finish).0, "stop", "{edit}");
        assert_eq!(finish["summary"]["result"], "partial", "{edit}");
        assert_eq!(
            finish["summary"]["steps_total"], 2,
            "the steps it ran: {edit}"
        );
        assert!(
            finish["report"]
                .as_str()
                .unwrap()
                .contains("the plan was edited during the run"),
            "{edit}"
        );
        assert!(!repo.marker().exists(), "{edit}: the run is over");
    }
}

/// Follows the `NEXT:` chain from where `repo`'s run stands, as the agent
/// (and, when a reply says stop, the user: `trek start --resume`) would,
/// writing each step's right files: the reply that ends the run with its
/// report, within a bound. Panics on a chain that never gets there.
fn walk_to_the_end(repo: &Repo, from: Value) -> Value {
    let files = |n: u64| match n {
        1 => ("greet.sh", GREET),
        _ => ("tests/greet.sh", TEST),
    };
    let mut reply = from;
    let mut seen = Vec::new();
    for _ in 0..24 {
        if reply.get("summary").is_some_and(|s| !s.is_null()) {
            return reply;
        }
        let (call, step) = next(&reply);
        seen.push(format!("{} {call}", reply["command"]));
        let n = step.unwrap_or(0).to_string();
        reply = match call {
            "begin-step" => repo.trek(&["step-begin", &n]).1,
            "implement" => {
                repo.write(&[files(step.unwrap_or(1))]);
                repo.trek(&["step-done", &n]).1
            }
            "finish" => repo.trek(&["finish"]).1,
            "ask-main-merge" => repo.trek(&["finish", "--gate", "confirm"]).1,
            // The run is over, or the user picks it up again.
            _ if reply["command"] == "start" && reply["status"] == "completed" => return reply,
            _ => repo.trek(&["start", "--resume", &repo.plan()]).1,
        };
    }
    panic!("no end after 24 calls: {seen:?}\nlast: {reply}");
}

/// Every kind of place a run can stand in, each reached through `trek`
/// itself, ends with a report when the chain is followed from there.
#[test]
fn from_every_state_a_run_can_be_in_the_next_chain_reaches_a_final_report() {
    type Setup = fn(&Repo) -> Value;
    let states: &[(&str, Setup)] = &[
        ("started", |r| r.trek(&["start", &r.plan()]).1),
        ("a step begun", |r| {
            r.trek(&["start", &r.plan()]);
            r.trek(&["step-begin", "1"]).1
        }),
        ("the session gone mid-step", |r| {
            r.trek(&["start", &r.plan()]);
            r.trek(&["step-begin", "1"]);
            r.write(&[("greet.sh", "half")]);
            r.trek(&["start", "--resume", &r.plan()]).1
        }),
        ("a failed attempt", |r| {
            r.trek(&["start", &r.plan()]);
            r.trek(&["step-begin", "1"]);
            r.write(&[("greet.sh", "echo hi\n")]);
            r.trek(&["step-done", "1"]).1
        }),
        ("every attempt failed", |r| {
            r.trek(&["start", &r.plan()]);
            let mut last = Value::Null;
            for _ in 0..3 {
                r.trek(&["step-begin", "1"]);
                r.write(&[("greet.sh", "echo hi\n")]);
                last = r.trek(&["step-done", "1"]).1;
            }
            last
        }),
        ("escalated", |r| {
            r.trek(&["start", &r.plan()]);
            r.trek(&["step-begin", "1"]);
            r.write(&[("greet.sh", GREET)]);
            r.trek(&["step-done", "1"]);
            r.trek(&["step-begin", "2"]);
            r.write(&[("tests/greet.sh", "exit 1\n")]);
            r.trek(&["step-done", "2"]).1
        }),
        ("at the gate", |r| {
            r.trek(&["start", &r.plan()]);
            r.both_steps_done();
            r.trek(&["finish"]).1
        }),
        ("declined", |r| {
            r.trek(&["start", &r.plan()]);
            r.both_steps_done();
            r.trek(&["finish"]);
            r.trek(&["finish", "--gate", "decline"]);
            r.trek(&["start", "--resume", &r.plan()]).1
        }),
        ("drifted by a commit of the user's", |r| {
            r.trek(&["start", &r.plan()]);
            r.both_steps_done();
            r.write(&[("NOTES.md", "mine\n")]);
            commit_all(r.path(), "notes: mine");
            r.trek(&["start", "--resume", &r.plan()]).1
        }),
        ("released by the user", |r| {
            r.trek(&["start", &r.plan()]);
            r.trek(&["step-begin", "1"]);
            let out = crate::common::env::helper(r.path(), r.home.path())
                .args(["trek", "release"])
                .env("CLAUDE_PLUGIN_DATA", r.data())
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            r.trek(&["start", "--resume", &r.plan()]).1
        }),
    ];
    for (name, setup) in states {
        let repo = Repo::new(&example_plan());
        let from = setup(&repo);
        let end = walk_to_the_end(&repo, from);
        assert!(!repo.marker().exists(), "{name}: the marker is left: {end}");
        let status = repo.progress_json()["status"].clone();
        assert_ne!(status, "in_progress", "{name}: {end}");
        if end["command"] != "start" {
            assert!(
                end["report"]
                    .as_str()
                    .is_some_and(|r| r.contains("**Result:**")),
                "{name}: {end}"
            );
        }
    }
}
