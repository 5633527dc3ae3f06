//! `trek` when something other than the agent's work goes wrong: the call
//! interrupted by a signal, killed outright, git unable to commit, a link
//! planted where the run keeps its files, the user's own edits in a
//! step's Files. Each test is the user's situation for real (a real git
//! repository, real signals to the real process) and checks what happened
//! on disk and in git, not only what the reply says.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

use crate::common::repo::{commit_all, git, init, write};
use crate::common::schema::assert_schema;
use crate::common::wait::{ended, pid_in, wait_until};

/// A one-step plan whose Verify, while `OUT/slow` exists, writes the pid
/// of a `sleep` it starts to `OUT/verify.pid` and waits for it; `OUT` is
/// outside the repository, so the Verify leaves nothing in the work tree.
pub(crate) fn slow_plan(out: &Path) -> String {
    let out = out.display();
    format!(
        r#"---
plan_version: 1.7
---
# Plan: one file

## Implementation Plan

### Step 1: Add a
- **Files:** `a.txt` (new)
- **Changes:** Write a.txt.
- **Verify:** `if test -f {out}/slow; then sleep 30 & echo $! > {out}/verify.pid; wait; fi; test -f a.txt`
- **On failure:** revert
- **Checkpoint:** `git commit -m "feat: add a"`
- **Manifest:**
  ```yaml
  expected_paths: [a.txt]
  min_file_count: 1
  commit_message_pattern: "^feat: add a$"
  bash_syntax_check: []
  forbidden_paths: []
  must_contain: []
  ```
"#
    )
}

/// A repository with `plans/plan.md` committed, a home of its own and a
/// directory outside the repository for what the Verify writes.
pub(crate) struct Trek {
    dir: TempDir,
    home: TempDir,
    out: TempDir,
}

impl Trek {
    pub(crate) fn new(plan: impl FnOnce(&Path) -> String) -> Self {
        let (dir, home, out) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        init(dir.path());
        write(
            dir.path(),
            &[
                ("README.md", "# demo\n"),
                ("plans/plan.md", &plan(out.path())),
            ],
        );
        commit_all(dir.path(), "init");
        Self { dir, home, out }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn plan(&self) -> String {
        self.path().join("plans/plan.md").display().to_string()
    }

    pub(crate) fn progress(&self) -> Value {
        let file = self.path().join("plans/.trekexecute-progress-plan.json");
        serde_json::from_str(&fs::read_to_string(file).unwrap()).unwrap()
    }

    /// The helper in the repository, with the test's own home and data.
    pub(crate) fn helper(&self) -> Command {
        let mut cmd = crate::common::env::helper(self.path(), self.home.path());
        cmd.env("CLAUDE_PLUGIN_DATA", self.home.path().join("data"));
        cmd
    }

    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut cmd = self.helper();
        cmd.arg("trek").args(args).arg("--json");
        cmd
    }

    /// `trek ARGS --json`: the exit code and the reply, checked against
    /// its schema.
    pub(crate) fn trek(&self, args: &[&str]) -> (i32, Value) {
        let out = self.command(args).output().unwrap();
        let reply = assert_schema("trek-reply", String::from_utf8_lossy(&out.stdout).trim());
        (out.status.code().unwrap_or(-1), reply)
    }

    fn spawn(&self, args: &[&str]) -> Child {
        self.command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn slow(&self, on: bool) {
        let flag = self.out.path().join("slow");
        if on {
            fs::write(flag, "").unwrap();
        } else {
            let _ = fs::remove_file(flag);
        }
    }

    fn verify_pid(&self) -> PathBuf {
        self.out.path().join("verify.pid")
    }

    pub(crate) fn step(&self, n: usize) -> Value {
        self.progress()["steps"][n.to_string()].clone()
    }
}

fn signal(child: &Child, signal: nix::sys::signal::Signal) {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::kill(pid, signal).unwrap();
}

pub(crate) fn text(reply: &Value) -> String {
    reply["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Step 1 of [`slow_plan`] passed with `done` (exit and reply), on its
/// first attempt, and its commit is the plan's.
fn assert_committed_on_first_attempt(trek: &Trek, (code, done): &(i32, Value)) {
    assert_eq!(*code, 0, "{done}");
    assert!(text(done).contains("Step 1: PASS (committed"), "{done}");
    assert_eq!(trek.step(1)["attempts"], 1);
    assert_eq!(
        git(trek.path(), &["log", "-1", "--format=%s"]).trim(),
        "feat: add a"
    );
}

#[test]
fn a_verify_interrupted_three_times_spends_no_attempt_and_reverts_nothing() {
    use nix::sys::signal::Signal;
    let trek = Trek::new(slow_plan);
    assert_eq!(trek.trek(&["start", &trek.plan()]).0, 0);
    trek.trek(&["step-begin", "1"]);
    write(trek.path(), &[("a.txt", "the agent's work\n")]);
    trek.slow(true);
    // What Claude Code's Bash tool sends on its timeout, Ctrl-C, and a
    // closed terminal: three interruptions, where three failures would
    // have reverted the step.
    for sig in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        let _ = fs::remove_file(trek.verify_pid());
        let child = trek.spawn(&["step-done", "1"]);
        let sleeper = pid_in(&trek.verify_pid(), Duration::from_secs(20)).expect("the Verify ran");
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        let reply = assert_schema("trek-reply", String::from_utf8_lossy(&out.stdout).trim());
        assert_eq!(out.status.code(), Some(1), "{reply}");
        assert_eq!(reply["status"], "interrupted", "{reply}");
        assert_eq!(reply["next"], "stop");
        let said = text(&reply);
        assert!(said.contains("INTERRUPTED"), "{said}");
        assert!(said.contains(sig.as_str()), "{said}");
        assert!(said.contains("trek step-done 1"), "{said}");
        assert!(!said.contains("Retrying"), "{said}");
        assert!(ended(sleeper), "the Verify's processes are stopped with it");
        let step = trek.step(1);
        assert_eq!(step["status"], "in_progress", "{step}");
        assert_eq!(step["attempts"], 1, "{step}");
        assert_eq!(
            fs::read_to_string(trek.path().join("a.txt")).unwrap(),
            "the agent's work\n"
        );
    }
    let noted = trek.progress()["interruptions"].as_array().unwrap().len();
    assert_eq!(noted, 3);

    // Once the Verify can finish, the same step passes on its first attempt.
    trek.slow(false);
    assert_committed_on_first_attempt(&trek, &trek.trek(&["step-done", "1"]));
}

#[test]
fn a_step_done_killed_outright_takes_its_verify_with_it() {
    let trek = Trek::new(slow_plan);
    trek.trek(&["start", &trek.plan()]);
    trek.trek(&["step-begin", "1"]);
    write(trek.path(), &[("a.txt", "x\n")]);
    trek.slow(true);
    let mut child = trek.spawn(&["step-done", "1"]);
    let sleeper = pid_in(&trek.verify_pid(), Duration::from_secs(20)).expect("the Verify ran");
    signal(&child, nix::sys::signal::Signal::SIGKILL);
    child.wait().unwrap();
    assert!(
        wait_until(Duration::from_secs(10), || ended(sleeper)),
        "the Verify's sleep {sleeper} outlived the killed step-done"
    );
    // The step is where the kill left it, and goes on.
    assert_eq!(trek.step(1)["status"], "in_progress");
    trek.slow(false);
    let (code, done) = trek.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(trek.step(1)["attempts"], 1);
}

/// A one-step plan that passes as soon as `a.txt` exists.
pub(crate) fn quick_plan(_: &Path) -> String {
    slow_plan(Path::new("/nonexistent-voyage-test-dir"))
}

impl Trek {
    /// Takes git's identity away, as on a machine where none is set.
    fn without_identity(&self) {
        git(self.path(), &["config", "--unset", "user.name"]);
        git(self.path(), &["config", "--unset", "user.email"]);
        git(self.path(), &["config", "user.useConfigOnly", "true"]);
    }

    fn with_identity(&self) {
        git(self.path(), &["config", "user.name", "Test"]);
        git(
            self.path(),
            &["config", "user.email", "test@example.invalid"],
        );
    }

    /// `trek ARGS --json` with no identity from outside the repository.
    fn trek_bare(&self, args: &[&str]) -> (i32, Value) {
        let mut cmd = self.command(args);
        crate::common::env::without_git_identity(&mut cmd);
        let out = cmd.output().unwrap();
        let reply = assert_schema("trek-reply", String::from_utf8_lossy(&out.stdout).trim());
        (out.status.code().unwrap_or(-1), reply)
    }

    fn staged(&self) -> String {
        git(self.path(), &["diff", "--cached", "--name-only"])
    }
}

#[test]
fn a_start_where_git_cannot_commit_refuses_and_says_how_to_fix_it() {
    let trek = Trek::new(quick_plan);
    trek.without_identity();
    let (code, reply) = trek.trek_bare(&["start", &trek.plan()]);
    assert_eq!(code, 1, "{reply}");
    let said = text(&reply);
    assert!(said.contains("git config user.name"), "{said}");
    assert!(said.contains("Nothing was started"), "{said}");
    assert!(!trek.path().join(".git/voyage-run.json").exists());
    assert!(
        !trek
            .path()
            .join("plans/.trekexecute-progress-plan.json")
            .exists()
    );

    // Signing asked for with no key to sign with.
    trek.with_identity();
    git(trek.path(), &["config", "commit.gpgsign", "true"]);
    git(trek.path(), &["config", "gpg.program", "/nonexistent/gpg"]);
    let (code, reply) = trek.trek_bare(&["start", &trek.plan()]);
    assert_eq!(code, 1, "{reply}");
    assert!(
        text(&reply).contains("git config commit.gpgsign false"),
        "{reply}"
    );
    git(trek.path(), &["config", "commit.gpgsign", "false"]);
    assert_eq!(trek.trek_bare(&["start", &trek.plan()]).0, 0);
}

#[test]
fn a_checkpoint_git_refuses_keeps_the_verified_work_and_spends_nothing() {
    let trek = Trek::new(quick_plan);
    assert_eq!(trek.trek_bare(&["start", &trek.plan()]).0, 0);
    trek.trek_bare(&["step-begin", "1"]);
    write(trek.path(), &[("a.txt", "verified work\n")]);
    // The identity goes away during the step (another tool, a reset
    // config): three times, where three failures would revert.
    trek.without_identity();
    for _ in 0..3 {
        let (code, reply) = trek.trek_bare(&["step-done", "1"]);
        assert_eq!(code, 1, "{reply}");
        assert_eq!(reply["status"], "paused", "{reply}");
        assert_eq!(reply["next"], "stop");
        let said = text(&reply);
        assert!(said.contains("CHECKPOINT NOT MADE"), "{said}");
        assert!(said.contains("git config user.name"), "{said}");
        assert!(!said.contains("Retrying"), "{said}");
        assert!(!said.contains("alternative"), "{said}");
        let step = trek.step(1);
        assert_eq!(step["status"], "in_progress", "{step}");
        assert_eq!(step["attempts"], 1);
        assert_eq!(trek.staged().trim(), "a.txt");
        assert_eq!(
            fs::read_to_string(trek.path().join("a.txt")).unwrap(),
            "verified work\n"
        );
    }
    let patches: Vec<_> = fs::read_dir(trek.path().join(".git/voyage-scope"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!patches.is_empty());
    assert!(
        fs::read_to_string(&patches[0])
            .unwrap()
            .contains("+verified work")
    );

    trek.with_identity();
    assert_committed_on_first_attempt(&trek, &trek.trek_bare(&["step-done", "1"]));
}

#[test]
fn a_hook_that_refuses_the_checkpoint_is_named_with_its_path() {
    use std::os::unix::fs::PermissionsExt;
    let trek = Trek::new(quick_plan);
    trek.trek(&["start", &trek.plan()]);
    trek.trek(&["step-begin", "1"]);
    write(trek.path(), &[("a.txt", "x\n")]);
    let hook = trek.path().join(".git/hooks/pre-commit");
    fs::create_dir_all(hook.parent().unwrap()).unwrap();
    fs::write(
        &hook,
        "#!/bin/sh\necho 'lint: trailing spaces in a.txt' >&2\nexit 1\n",
    )
    .unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    let (code, reply) = trek.trek(&["step-done", "1"]);
    assert_eq!(code, 1, "{reply}");
    let said = text(&reply);
    assert!(said.contains("CHECKPOINT NOT MADE"), "{said}");
    assert!(said.contains(".git/hooks/pre-commit"), "{said}");
    assert!(said.contains("lint: trailing spaces"), "{said}");
    assert_eq!(trek.step(1)["attempts"], 1);
    fs::remove_file(&hook).unwrap();
    assert_eq!(trek.trek(&["step-done", "1"]).0, 0);
}

/// The example's two-step plan, whose step 1 owns `greet.sh`.
pub(crate) fn example(_: &Path) -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/trek/plan.md"))
        .unwrap()
}

#[test]
fn the_users_own_edits_in_a_steps_files_stop_the_start_and_survive_a_revert() {
    let trek = Trek::new(example);
    // The user's greet.sh, committed, then edited and not committed.
    write(trek.path(), &[("greet.sh", "echo old\n")]);
    commit_all(trek.path(), "the user's greet.sh");
    write(trek.path(), &[("greet.sh", "echo my unsaved edit\n")]);
    let (code, reply) = trek.trek(&["start", &trek.plan()]);
    assert_eq!(code, 1, "{reply}");
    let said = text(&reply);
    assert!(said.contains("greet.sh"), "{said}");
    assert!(said.contains("--allow-dirty"), "{said}");
    assert!(!trek.path().join(".git/voyage-run.json").exists());

    // Started on purpose over them: three failed attempts revert the
    // step, and the user's edit is kept in a patch first.
    let (code, reply) = trek.trek(&["start", "--allow-dirty", &trek.plan()]);
    assert_eq!(code, 0, "{reply}");
    for _ in 0..3 {
        trek.trek(&["step-begin", "1"]);
        let (_, done) = trek.trek(&["step-done", "1"]);
        if done["status"] == "failed" {
            let said = text(&done);
            assert!(said.contains("saved in"), "{said}");
            let patch = said
                .split("saved in ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .unwrap();
            let kept = fs::read_to_string(patch).unwrap();
            assert!(kept.contains("+echo my unsaved edit"), "{kept}");
            assert_eq!(
                fs::read_to_string(trek.path().join("greet.sh")).unwrap(),
                "echo old\n"
            );
            return;
        }
    }
    panic!("the step never failed");
}

#[test]
fn steps_begin_in_the_plans_order() {
    let trek = Trek::new(example);
    trek.trek(&["start", &trek.plan()]);
    let (code, reply) = trek.trek(&["step-begin", "2"]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(reply["next"], "begin-step");
    assert_eq!(reply["step"], 1);
    assert!(text(&reply).contains("step 1 is pending"), "{reply}");
    assert_eq!(trek.step(2)["status"], "pending");
    assert_eq!(trek.step(2)["attempts"], 0);
}

#[test]
fn a_link_where_the_run_keeps_its_files_is_refused_and_its_target_untouched() {
    let trek = Trek::new(example);
    let victim = trek.out.path().join("passwd");
    fs::write(&victim, "root:x:0:0\n").unwrap();
    std::os::unix::fs::symlink(&victim, trek.path().join(".git/voyage-run.json")).unwrap();
    let (code, reply) = trek.trek(&["start", &trek.plan()]);
    assert_ne!(code, 0, "{reply}");
    assert!(text(&reply).contains("symbolic link"), "{reply}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "root:x:0:0\n");
}

#[test]
fn two_starts_at_once_in_one_work_tree_leave_one_run() {
    for _ in 0..5 {
        let trek = Trek::new(example);
        write(trek.path(), &[("plans/other.md", &example(trek.path()))]);
        commit_all(trek.path(), "a second plan");
        let other = trek.path().join("plans/other.md").display().to_string();
        let first = trek.spawn(&["start", &trek.plan()]);
        let second = trek.spawn(&["start", &other]);
        let codes: Vec<i32> = [first, second]
            .into_iter()
            .map(|c| c.wait_with_output().unwrap().status.code().unwrap_or(-1))
            .collect();
        assert_eq!(
            codes.iter().filter(|c| **c == 0).count(),
            1,
            "exactly one start wins: {codes:?}"
        );
        let marker: Value = serde_json::from_str(
            &fs::read_to_string(trek.path().join(".git/voyage-run.json")).unwrap(),
        )
        .unwrap();
        let winner = if codes[0] == 0 { trek.plan() } else { other };
        assert_eq!(marker["plan"], winner.as_str());
    }
}

#[test]
fn a_missing_or_garbled_progress_file_is_never_replaced_without_fresh() {
    let trek = Trek::new(example);
    trek.trek(&["start", &trek.plan()]);
    let progress = trek.path().join("plans/.trekexecute-progress-plan.json");

    // Deleted during the run: --resume refuses and names both ways on.
    fs::remove_file(&progress).unwrap();
    let (code, reply) = trek.trek(&["start", "--resume", &trek.plan()]);
    assert_eq!(code, 1, "{reply}");
    let said = text(&reply);
    assert!(said.contains("is gone"), "{said}");
    assert!(said.contains("--fresh"), "{said}");
    assert!(!progress.exists(), "no new run in its place");

    // Garbled: --resume and a plain start both refuse, and name --fresh.
    fs::write(&progress, "{\"status\": ").unwrap();
    for args in [vec!["start", "--resume"], vec!["start"]] {
        let plan = trek.plan();
        let mut args = args.clone();
        args.push(&plan);
        let (code, reply) = trek.trek(&args);
        assert_eq!(code, 1, "{args:?}: {reply}");
        assert!(text(&reply).contains("--fresh"), "{args:?}: {reply}");
        assert_eq!(fs::read_to_string(&progress).unwrap(), "{\"status\": ");
    }
    // --fresh starts over, keeping the garbled file beside it.
    let (code, reply) = trek.trek(&["start", "--fresh", &trek.plan()]);
    assert_eq!(code, 0, "{reply}");
    let kept = fs::read_dir(trek.path().join("plans"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("unreadable")
        })
        .count();
    assert_eq!(kept, 1);
}

#[test]
fn a_second_start_of_a_live_run_refuses_and_a_record_is_never_dropped() {
    let trek = Trek::new(example);
    trek.trek(&["start", &trek.plan()]);
    let (code, reply) = trek.trek(&["start", &trek.plan()]);
    assert_eq!(code, 1, "{reply}");
    let said = text(&reply);
    assert!(said.contains("already in progress"), "{said}");
    assert!(
        said.contains("--resume") && said.contains("--fresh"),
        "{said}"
    );
    // Without its marker (the session released it), the record that
    // reached no step is kept beside the fresh one.
    trek.trek(&["release"]);
    let (code, reply) = trek.trek(&["start", &trek.plan()]);
    assert_eq!(code, 0, "{reply}");
    assert!(text(&reply).contains("it is kept as"), "{reply}");
}

/// A small tmpfs mounted at a directory for as long as it lives.
struct SmallDisk(PathBuf);

impl SmallDisk {
    /// `None` where mounting is not allowed (not root, no mount namespace
    /// rights): the caller skips.
    fn mount(at: &Path) -> Option<Self> {
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Self(at.to_path_buf()))
    }

    /// Fills it to the last byte.
    fn fill(&self) -> PathBuf {
        let filler = self.0.join("filler");
        let _ = Command::new("dd")
            .args(["if=/dev/zero", "bs=4k"])
            .arg(format!("of={}", filler.display()))
            .stderr(Stdio::null())
            .status();
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_at_the_finish_claims_no_end_it_did_not_record() {
    let trek = Trek::new(example);
    let plans = trek.path().join("plans");
    let plan_text = fs::read_to_string(plans.join("plan.md")).unwrap();
    let Some(disk) = SmallDisk::mount(&plans) else {
        crate::common::skip::skip("cannot mount a tmpfs here (needs root)");
        return;
    };
    fs::write(plans.join("plan.md"), &plan_text).unwrap();
    trek.trek(&["start", &trek.plan()]);
    for (n, file, body) in [
        (
            "1",
            "greet.sh",
            "#!/usr/bin/env bash\necho \"Hello, ${1:-world}!\"\n",
        ),
        (
            "2",
            "tests/greet.sh",
            "#!/usr/bin/env bash\nset -e\ntest \"$(bash greet.sh)\" = \"Hello, world!\"\n",
        ),
    ] {
        trek.trek(&["step-begin", n]);
        write(trek.path(), &[(file, body)]);
        assert_eq!(trek.trek(&["step-done", n]).0, 0);
    }
    let (_, asked) = trek.trek(&["finish"]);
    assert_eq!(asked["next"], "ask-main-merge", "{asked}");

    let filler = disk.fill();
    let (code, reply) = trek.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 2, "{reply}");
    assert_ne!(reply["status"], "completed", "{reply}");
    assert!(text(&reply).contains("could not be recorded"), "{reply}");
    assert!(trek.path().join(".git/voyage-run.json").exists());
    assert_eq!(trek.progress()["status"], "in_progress");

    fs::remove_file(filler).unwrap();
    let (code, reply) = trek.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["status"], "completed");
    assert_eq!(trek.progress()["status"], "completed");
}

impl Trek {
    /// Both steps of the example plan done as the agent would.
    pub(crate) fn both_steps(&self) {
        for (n, file, body) in [
            (
                "1",
                "greet.sh",
                "#!/usr/bin/env bash\necho \"Hello, ${1:-world}!\"\n",
            ),
            (
                "2",
                "tests/greet.sh",
                "#!/usr/bin/env bash\nset -e\ntest \"$(bash greet.sh)\" = \"Hello, world!\"\n",
            ),
        ] {
            self.trek(&["step-begin", n]);
            write(self.path(), &[(file, body)]);
            assert_eq!(self.trek(&["step-done", n]).0, 0);
        }
    }
}

#[test]
fn resuming_a_finished_run_shows_its_report_again() {
    let trek = Trek::new(example);
    trek.trek(&["start", &trek.plan()]);
    trek.both_steps();
    trek.trek(&["finish"]);
    assert_eq!(trek.trek(&["finish", "--gate", "confirm"]).0, 0);
    let (code, reply) = trek.trek(&["start", "--resume", &trek.plan()]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["status"], "completed");
    let report = reply["report"].as_str().unwrap_or_default();
    assert!(report.contains("**Result:** COMPLETED"), "{reply}");
}

#[test]
fn locks_a_killed_git_left_are_named_with_the_command_to_remove_them() {
    let trek = Trek::new(example);
    let lock = trek.path().join(".git/packed-refs.lock");
    fs::write(&lock, "").unwrap();
    let (code, reply) = trek.trek(&["start", &trek.plan()]);
    assert_eq!(code, 0, "{reply}");
    let said = text(&reply);
    assert!(said.contains(&format!("rm {}", lock.display())), "{said}");
    assert!(lock.exists(), "git's locks are the user's to remove");
}

/// `trek ARGS` as the agent reads it: exit code and text.
fn trek_text(trek: &Trek, args: &[&str]) -> (i32, String) {
    let mut cmd = crate::common::env::helper(trek.path(), trek.home.path());
    let out = cmd
        .arg("trek")
        .args(args)
        .env("CLAUDE_PLUGIN_DATA", trek.home.path().join("data"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn what_a_start_cannot_use_is_named_for_what_it_is() {
    let trek = Trek::new(example);
    // A directory and a FIFO where the plan should be.
    let (code, said) = trek_text(&trek, &["start", "plans"]);
    assert_eq!(code, 2, "{said}");
    assert!(said.contains("is a directory"), "{said}");
    let fifo = trek.path().join("plans/fifo.md");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let (_, said) = trek_text(&trek, &["start", &fifo.display().to_string()]);
    assert!(said.contains("is a FIFO, not a plan file"), "{said}");
    fs::remove_file(&fifo).unwrap();

    // A step file inside a nested repository can never be committed here.
    let nested = trek.path().join("vendor/lib");
    fs::create_dir_all(&nested).unwrap();
    init(&nested);
    let plan = example(trek.path()).replace("`greet.sh` (new)", "`vendor/lib/greet.sh` (new)");
    fs::write(trek.path().join("plans/nested.md"), plan).unwrap();
    let nested_plan = trek.path().join("plans/nested.md").display().to_string();
    let (code, said) = trek_text(&trek, &["start", "--allow-dirty", &nested_plan]);
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("inside vendor/lib, another git repository"),
        "{said}"
    );
    fs::remove_dir_all(trek.path().join("vendor")).unwrap();
    fs::remove_file(trek.path().join("plans/nested.md")).unwrap();

    // A detached HEAD is said before any commit is made on no branch.
    let head = git(trek.path(), &["rev-parse", "HEAD"]);
    git(trek.path(), &["checkout", "-q", head.trim()]);
    let (code, said) = trek_text(&trek, &["start", &trek.plan()]);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("HEAD is detached"), "{said}");
    assert!(said.contains("git switch -c"), "{said}");
}

#[test]
fn escape_sequences_from_a_plan_reach_the_terminal_escaped() {
    let trek = Trek::new(|out| {
        example(out).replace(
            "Add the greeting script",
            "Add the greeting script\u{1b}]0;owned\u{7}\u{202e}txt.exe",
        )
    });
    trek_text(&trek, &["start", &trek.plan()]);
    let (_, said) = trek_text(&trek, &["step-begin", "1"]);
    assert!(
        !said.contains('\u{1b}') && !said.contains('\u{202e}'),
        "{said:?}"
    );
    assert!(
        said.contains("\\x1b]0;owned\\x07\\u{202e}txt.exe"),
        "{said}"
    );
}

#[test]
fn a_checkpoint_that_amends_says_what_became_of_the_old_head() {
    let trek = Trek::new(|out| {
        example(out).replace(
            "`git commit -m \"feat(greet): add the greeting script\"`",
            "`git commit --amend -m \"feat(greet): add the greeting script\"`",
        )
    });
    trek.trek(&["start", &trek.plan()]);
    trek.trek(&["step-begin", "1"]);
    write(
        trek.path(),
        &[(
            "greet.sh",
            "#!/usr/bin/env bash\necho \"Hello, ${1:-world}!\"\n",
        )],
    );
    let (_, done) = trek.trek(&["step-done", "1"]);
    let said = text(&done);
    assert!(
        said.contains("replaced HEAD instead of adding a commit"),
        "{said}"
    );
}

#[test]
fn releasing_a_marker_that_became_a_directory_gives_advice_that_works() {
    let trek = Trek::new(example);
    let marker = trek.path().join(".git/voyage-run.json");
    fs::create_dir_all(marker.join("x")).unwrap();
    let (code, said) = trek_text(&trek, &["release"]);
    assert_eq!(code, 2, "{said}");
    assert!(
        said.contains(&format!("rm -r {}", marker.display())),
        "{said}"
    );
}

#[test]
fn a_final_verification_interrupted_is_not_the_plans_failure() {
    let trek = Trek::new(|out| {
        format!(
            "{}\n## Verification\n\n- `bash check.sh` — the check passes\n",
            slow_plan(Path::new("/nonexistent-voyage-test-dir"))
        )
        .replace("/nonexistent-voyage-test-dir", &out.display().to_string())
    });
    let out = trek.out.path().display().to_string();
    write(
        trek.path(),
        &[(
            "check.sh",
            &format!(
                "if test -f {out}/slow-check; then sleep 30 & echo $! > {out}/verify.pid; wait; fi\ntest -f a.txt\n"
            ),
        )],
    );
    commit_all(trek.path(), "the check");
    trek.trek(&["start", &trek.plan()]);
    trek.trek(&["step-begin", "1"]);
    write(trek.path(), &[("a.txt", "x\n")]);
    assert_eq!(trek.trek(&["step-done", "1"]).0, 0);
    fs::write(trek.out.path().join("slow-check"), "").unwrap();
    let child = trek.spawn(&["finish"]);
    let sleeper = pid_in(&trek.verify_pid(), Duration::from_secs(20)).expect("the check ran");
    signal(&child, nix::sys::signal::Signal::SIGTERM);
    let out = child.wait_with_output().unwrap();
    let reply = assert_schema("trek-reply", String::from_utf8_lossy(&out.stdout).trim());
    assert_eq!(reply["status"], "interrupted", "{reply}");
    assert!(text(&reply).contains("INTERRUPTED"), "{reply}");
    assert!(ended(sleeper));
    assert_eq!(trek.progress()["status"], "in_progress");
    assert!(trek.path().join(".git/voyage-run.json").exists());

    fs::remove_file(trek.out.path().join("slow-check")).unwrap();
    let (_, reply) = trek.trek(&["finish"]);
    assert_eq!(reply["next"], "ask-main-merge", "{reply}");
}
