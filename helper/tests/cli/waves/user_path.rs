//! Multi-session plans the way a user runs them: the parent's `trek start`
//! in the main checkout, again after each wave, and every session driven
//! through the calls its order names (`trek start --session N` in its
//! worktree, `step-begin`/`step-done` per step, `trek finish`), down to the
//! master verification, the main-merge gate and its answer. Nothing the
//! parent reads is written by hand: each state is the one a session's own
//! calls left, so the seam between a session and `wave collect` is tested.
//!
//! The plan (`examples/waves/plan.md`) checks the integrated result in its
//! Verification: `bash tests/all.sh` needs the files of all three sessions.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::World;
use crate::common::schema::assert_schema;

pub(super) const PLAN: &str = "plans/ship.md";

pub(super) fn example() -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/waves/plan.md"))
        .unwrap()
}

fn ship() -> World {
    World::of_plan("repo", PLAN, &example(), true)
}

/// What the agent writes for each step of the example plan.
pub(super) fn good(step: u32) -> Vec<(&'static str, &'static str)> {
    match step {
        1 => vec![(
            "lib/greet.sh",
            "greet() { echo \"Hello, ${1:-world}!\"; }\n",
        )],
        2 => vec![(
            "tests/greet.sh",
            "#!/usr/bin/env bash\nset -e\ncd \"$(dirname \"$0\")/..\"\n. lib/greet.sh\ntest \"$(greet Ada)\" = \"Hello, Ada!\"\n",
        )],
        3 => vec![(
            "lib/farewell.sh",
            "farewell() { echo \"Goodbye, ${1:-world}!\"; }\n",
        )],
        4 => vec![
            (
                "bin/hello",
                "#!/usr/bin/env bash\nhere=\"$(dirname \"$0\")/..\"\n. \"$here/lib/greet.sh\"\n. \"$here/lib/farewell.sh\"\ngreet \"$1\"\nfarewell \"$1\"\n",
            ),
            (
                "tests/all.sh",
                "#!/usr/bin/env bash\nset -e\ncd \"$(dirname \"$0\")/..\"\nbash tests/greet.sh\ntest \"$(bash bin/hello Ada)\" = \"$(printf 'Hello, Ada!\\nGoodbye, Ada!')\"\n",
            ),
        ],
        _ => Vec::new(),
    }
}

/// A greeting test that fails: step 2's Verify fails, and its On failure
/// escalates, so session 1 stops at step 2.
fn broken(step: u32) -> Vec<(&'static str, &'static str)> {
    if step == 2 {
        vec![(
            "tests/greet.sh",
            "#!/usr/bin/env bash\necho 'Hello, Ada!' >/dev/null\nexit 1\n",
        )]
    } else {
        good(step)
    }
}

/// `voyage-helper trek ARGS --json` in `dir` with `env` set, its reply
/// checked against the `trek-reply` schema.
pub(super) fn trek_with(
    w: &World,
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (i32, Value) {
    let out = crate::common::env::helper(dir, w.case.path())
        .arg("trek")
        .args(args)
        .arg("--json")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let value = assert_schema("trek-reply", &stdout);
    (out.status.code().unwrap_or(-1), value)
}

pub(super) fn trek(w: &World, dir: &Path, args: &[&str]) -> (i32, Value) {
    trek_with(w, dir, args, &[])
}

pub(super) fn lines(reply: &Value) -> String {
    reply["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The parent run: `/trekexecute PLAN` in the main checkout.
pub(super) fn parent(w: &World) -> (i32, Value) {
    trek(w, &w.root, &["start", PLAN])
}

/// Session `n`, run as its order says: in its worktree, every step with
/// the agent's edits from `edits`, following each reply's `next`, then
/// `trek finish`. `resume` continues a session that stopped. Returns the
/// last reply.
pub(super) fn session(
    w: &World,
    n: u32,
    resume: bool,
    edits: fn(u32) -> Vec<(&'static str, &'static str)>,
) -> (i32, Value) {
    let dir = w.worktree(n);
    assert!(dir.is_dir(), "session {n} has no worktree");
    let number = n.to_string();
    let mut start = vec!["start", "--session", &number];
    if resume {
        start.push("--resume");
    }
    start.push(PLAN);
    let (code, mut reply) = trek(w, &dir, &start);
    assert_eq!(code, 0, "session {n} start: {reply}");
    for _ in 0..12 {
        let step = reply["step"].as_u64().map(|s| s.to_string());
        match reply["next"].as_str().unwrap() {
            "begin-step" => {
                let step = step.unwrap();
                let (code, begun) = trek(w, &dir, &["step-begin", &step]);
                assert_eq!(
                    (code, begun["next"].as_str()),
                    (0, Some("implement")),
                    "{begun}"
                );
                reply = begun;
            }
            "implement" => {
                let step = step.unwrap();
                crate::common::repo::write(&dir, &edits(step.parse().unwrap()));
                reply = trek(w, &dir, &["step-done", &step]).1;
            }
            "finish" => return trek(w, &dir, &["finish"]),
            _ => return (1, reply),
        }
    }
    panic!("session {n} did not come to an end: {reply}");
}

pub(super) fn progress_of(w: &World, n: u32) -> Value {
    let path = w
        .worktree(n)
        .join(format!("plans/.trekexecute-progress-ship-session-{n}.json"));
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs a session that must complete, and checks what it recorded.
pub(super) fn completes(w: &World, n: u32, resume: bool) {
    let (code, done) = session(w, n, resume, good);
    assert_eq!(code, 0, "session {n}: {done}");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["next"], "stop");
    let text = lines(&done);
    assert!(text.contains("DEFERRED"), "{text}");
    assert!(
        !text.contains("Question:"),
        "a session asks no gate: {text}"
    );
    let progress = progress_of(w, n);
    assert_eq!(progress["status"], "completed");
    assert_eq!(progress["session"], n);
    assert_eq!(progress["plan_verification"]["status"], "deferred");
    assert_eq!(progress["manifest_audit"]["status"], "pass");
}

/// Wave 1 prepared, its two sessions run, wave 2 prepared: the state in
/// which session 3 is handed over.
fn to_wave_two(w: &World) {
    let (code, first) = parent(w);
    assert_eq!(
        (code, first["status"].as_str()),
        (0, Some("handover")),
        "{first}"
    );
    wave_one_runs(w);
}

/// Wave 1's two sessions run, and the parent merges them and prepares
/// wave 2.
fn wave_one_runs(w: &World) {
    completes(w, 1, false);
    completes(w, 2, false);
    wave_one_merges(w);
}

/// The parent's next run merges wave 1 and hands wave 2 over.
fn wave_one_merges(w: &World) {
    let (code, next) = parent(w);
    assert_eq!(
        (code, next["status"].as_str()),
        (0, Some("handover")),
        "{next}"
    );
    assert!(
        lines(&next).contains("Wave 1: 2 sessions merged."),
        "{next}"
    );
    assert!(w.worktree(3).is_dir(), "wave 2 is prepared");
}

/// Every wave merged and the master verification passed: the gate.
fn to_the_gate(w: &World) -> Value {
    to_wave_two(w);
    gate_after_wave_two(w)
}

/// Wave 2's session runs, and the parent merges it and asks the gate.
fn gate_after_wave_two(w: &World) -> Value {
    completes(w, 3, false);
    let (code, gate) = parent(w);
    assert_eq!(code, 0, "{gate}");
    assert_eq!(gate["next"], "ask-main-merge", "{gate}");
    let text = lines(&gate);
    assert!(text.contains("Master verification"), "{text}");
    assert!(text.contains("Question:"), "{text}");
    gate
}

pub(super) fn plan_path(w: &World) -> String {
    w.root.join(PLAN).display().to_string()
}

pub(super) fn answer(w: &World, word: &str) -> (i32, Value) {
    let plan = plan_path(w);
    trek(w, &w.root, &["finish", "--gate", word, "--plan", &plan])
}

pub(super) fn events(w: &World) -> Vec<Value> {
    let dir: PathBuf = w.case.path().join(".local/share/voyage");
    let mut all = Vec::new();
    for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
        let text = fs::read_to_string(entry.path()).unwrap_or_default();
        all.extend(
            text.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter(|v| v.get("event").is_some()),
        );
    }
    all
}

#[test]
fn a_plan_verified_as_a_whole_runs_from_wave_one_to_the_main_merge() {
    let w = ship();
    let gate = to_the_gate(&w);
    let plan = plan_path(&w);
    // The NEXT line carries every argument the answer needs.
    assert_eq!(
        gate["call"],
        format!("trek finish --gate confirm|decline --plan {plan}")
    );
    let (code, done) = answer(&w, "confirm");
    assert_eq!(code, 0, "{done}");
    assert_eq!(done["status"], "completed");
    // The integrated result is on the main branch, and it passes.
    let ran = std::process::Command::new("bash")
        .arg("tests/all.sh")
        .current_dir(&w.root)
        .status()
        .unwrap();
    assert!(ran.success());
    let merges = w.git(&["log", "--merges", "--format=%s"]);
    assert_eq!(merges.lines().count(), 3, "{merges}");
    assert!(
        !w.orders().exists(),
        "the confirm clears the orders: {done} {:?}",
        fs::read_dir(w.orders()).map(|d| d.flatten().map(|e| e.file_name()).collect::<Vec<_>>())
    );
    // Nothing of the run is left: every worktree and branch went with its
    // merge, and the run's own files never showed as untracked.
    assert!(!w.sessions_dir().join("worktrees").exists());
    for n in 1..=3 {
        assert!(!w.has_branch(n), "session {n}'s branch is merged and gone");
    }
    assert_eq!(w.git(&["status", "--porcelain"]), "");
    let approved: Vec<Value> = events(&w)
        .into_iter()
        .filter(|e| e["event"] == "main-merge-approved")
        .collect();
    assert_eq!(approved.len(), 1, "{approved:?}");
    assert_eq!(approved[0]["payload"]["answered_by"], "operator");
}

#[test]
fn a_failed_session_is_resumed_in_its_worktree_and_the_parent_goes_on() {
    let w = ship();
    let (code, _) = parent(&w);
    assert_eq!(code, 0);
    let (code, failed) = session(&w, 1, false, broken);
    assert_eq!(code, 1, "{failed}");
    assert_eq!(failed["status"], "stopped", "{failed}");
    completes(&w, 2, false);
    let head = w.git(&["rev-parse", "HEAD"]);

    let (code, stopped) = parent(&w);
    assert_eq!(
        (code, stopped["status"].as_str()),
        (1, Some("failed")),
        "{stopped}"
    );
    let text = lines(&stopped);
    assert!(text.contains("WAVE_FAILED"), "{text}");
    assert!(text.contains("--resume"), "{text}");
    assert_eq!(w.git(&["rev-parse", "HEAD"]), head, "nothing was merged");
    assert!(
        w.orders().join("wave.json").is_file(),
        "the wave stays open"
    );
    assert!(w.worktree(2).is_dir() && w.worktree(1).is_dir());
    // Asked again before anything changed, the parent says the same.
    assert_eq!(parent(&w).1["status"], "failed");

    completes(&w, 1, true);
    wave_one_merges(&w);
    assert!(w.root.join("tests/greet.sh").is_file());
    assert!(w.worktree(3).is_dir());
}

#[test]
fn a_conflict_with_main_is_resolved_by_hand_and_the_parent_goes_on() {
    let w = ship();
    assert_eq!(parent(&w).0, 0);
    completes(&w, 1, false);
    completes(&w, 2, false);
    // Meanwhile the user wrote the same file on main.
    crate::common::repo::write(&w.root, &[("lib/greet.sh", "greet() { echo hi; }\n")]);
    w.git(&["add", "lib/greet.sh"]);
    w.git(&["commit", "-q", "-m", "a greeting of my own"]);

    let (code, stopped) = parent(&w);
    assert_eq!(
        (code, stopped["status"].as_str()),
        (1, Some("failed")),
        "{stopped}"
    );
    let text = lines(&stopped);
    assert!(text.contains("WAVE_MERGE_CONFLICT"), "{text}");
    assert!(text.contains("lib/greet.sh"), "{text}");
    assert!(
        !w.root.join(".git/MERGE_HEAD").exists(),
        "the merge was aborted"
    );
    assert!(w.has_branch(1) && w.has_branch(2), "both branches are kept");
    assert!(
        w.orders().join("wave.json").is_file(),
        "the wave stays open"
    );

    // The user merges session 1 by hand, taking its side.
    let branch = w.branch(1);
    let merge = std::process::Command::new("git")
        .args([
            "merge",
            "--no-ff",
            "-q",
            "-m",
            "merge session 1 by hand",
            &branch,
        ])
        .current_dir(&w.root)
        .output()
        .unwrap();
    assert!(!merge.status.success(), "the conflict is real");
    w.git(&["checkout", "--theirs", "lib/greet.sh"]);
    w.git(&["add", "lib/greet.sh"]);
    w.git(&["commit", "-q", "--no-edit"]);

    wave_one_merges(&w);
    assert!(w.root.join("lib/farewell.sh").is_file());
    completes(&w, 3, false);
    assert_eq!(parent(&w).1["next"], "ask-main-merge");
}

#[test]
fn a_declined_gate_is_asked_again_by_the_next_run() {
    let w = ship();
    to_the_gate(&w);
    let (code, declined) = answer(&w, "decline");
    assert_eq!(
        (code, declined["status"].as_str()),
        (1, Some("partial")),
        "{declined}"
    );
    assert!(w.orders().exists(), "a decline keeps the orders");
    // The same command brings the user back to the gate.
    let (code, again) = parent(&w);
    assert_eq!(
        (code, again["next"].as_str()),
        (0, Some("ask-main-merge")),
        "{again}"
    );
    let (code, done) = answer(&w, "confirm");
    assert_eq!(
        (code, done["status"].as_str()),
        (0, Some("completed")),
        "{done}"
    );
    assert!(!w.orders().exists());
}

#[test]
fn a_finished_run_asked_its_gate_again_says_it_is_finished() {
    let w = ship();
    to_the_gate(&w);
    let (code, done) = answer(&w, "confirm");
    assert_eq!(code, 0, "{done}");
    let report = done["report"].as_str().unwrap().to_owned();
    assert!(
        report.contains("Session 3 (wave 2): step 4 — completed"),
        "{report}"
    );

    // The same answer again (a retried call, a second terminal): the run
    // is finished, its report is shown again, and nothing is done twice.
    let (code, again) = answer(&w, "confirm");
    assert_eq!(
        (code, again["status"].as_str()),
        (0, Some("completed")),
        "{again}"
    );
    let text = lines(&again);
    assert!(
        text.contains("already answered (confirmed by the operator"),
        "{text}"
    );
    assert!(!text.contains("TREK_GATE"), "{text}");
    assert_eq!(again["report"].as_str(), Some(report.as_str()));
    assert_eq!(again["summary"], done["summary"]);
    let approved = events(&w)
        .into_iter()
        .filter(|e| e["event"] == "main-merge-approved")
        .count();
    assert_eq!(approved, 1);
    assert!(!w.orders().exists());

    // A decline cannot take a confirm back.
    let (code, declined) = answer(&w, "decline");
    assert_ne!(code, 0, "{declined}");
    assert!(lines(&declined).contains("cannot undo"), "{declined}");

    // A new run of the plan says the last one finished and starts afresh;
    // its gate is its own again.
    let (code, fresh) = parent(&w);
    assert_eq!(code, 0, "{fresh}");
    assert!(
        lines(&fresh).contains("last multi-session run is finished"),
        "{fresh}"
    );
    assert!(w.orders().join("wave.json").is_file());
    let (code, early) = answer(&w, "confirm");
    assert_ne!(code, 0, "{early}");
    assert!(
        lines(&early).contains("not every wave is merged"),
        "{early}"
    );
}

#[test]
fn a_failing_master_verification_asks_nothing_until_it_is_fixed() {
    let w = ship();
    to_wave_two(&w);
    completes(&w, 3, false);
    // A change on main breaks the whole after the sessions checked their parts.
    crate::common::repo::write(
        &w.root,
        &[("lib/farewell.sh", "farewell() { echo bye; }\n")],
    );
    w.git(&["commit", "-q", "-am", "shorter farewell"]);
    let breaking = w.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let (code, failed) = parent(&w);
    assert_eq!(
        (code, failed["status"].as_str()),
        (1, Some("failed")),
        "{failed}"
    );
    assert_eq!(failed["next"], "stop");
    assert!(!lines(&failed).contains("Question:"), "{failed}");
    let plan = plan_path(&w);
    // Every wave is merged, so the gate could be answered, but not before
    // the whole passes: the confirm re-runs the master verification.
    let (code, refused) = answer(&w, "confirm");
    assert_eq!(
        (code, refused["status"].as_str()),
        (1, Some("failed")),
        "{refused}"
    );
    assert!(w.orders().exists());
    w.git(&["revert", "--no-edit", &breaking]);
    let (code, gate) = parent(&w);
    assert_eq!(
        (code, gate["next"].as_str()),
        (0, Some("ask-main-merge")),
        "{gate}"
    );
    assert_eq!(
        gate["call"],
        format!("trek finish --gate confirm|decline --plan {plan}")
    );
}

#[test]
fn in_an_unattended_session_the_gate_waits_for_the_operator() {
    let w = ship();
    to_wave_two(&w);
    completes(&w, 3, false);
    let unattended = [("CLAUDECODE", "1"), ("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")];
    let (code, gate) = trek_with(&w, &w.root, &["start", PLAN], &unattended);
    assert_eq!(code, 0, "{gate}");
    assert_eq!(gate["next"], "await-operator", "{gate}");
    assert!(lines(&gate).contains("The operator answers"), "{gate}");
    // The session cannot answer it, however it asks.
    let plan = plan_path(&w);
    let args = ["finish", "--gate", "confirm", "--plan", plan.as_str()];
    let (code, refused) = trek_with(&w, &w.root, &args, &unattended);
    assert_eq!(code, 2, "{refused}");
    assert!(
        lines(&refused).contains("TREK_GATE_UNATTENDED"),
        "{refused}"
    );
    assert!(w.orders().exists(), "nothing was finalised");
    // The operator, from a shell.
    let (code, done) = answer(&w, "confirm");
    assert_eq!(
        (code, done["status"].as_str()),
        (0, Some("completed")),
        "{done}"
    );
}

/// The branch checked out in the main checkout.
fn checked_out(w: &World) -> String {
    w.git(&["symbolic-ref", "--short", "HEAD"])
        .trim()
        .to_owned()
}

/// The commit `rev` names in the main checkout.
fn commit_of(w: &World, rev: &str) -> String {
    w.git(&["rev-parse", rev]).trim().to_owned()
}

#[test]
fn the_waves_land_on_the_run_branch_and_the_confirm_merges_it_into_main() {
    let w = ship();
    let main_before = commit_of(&w, "main");
    let (code, first) = parent(&w);
    assert_eq!(code, 0, "{first}");
    assert!(
        lines(&first).contains("Run branch: trek/ship/run from main"),
        "{first}"
    );
    assert_eq!(checked_out(&w), "trek/ship/run");
    wave_one_runs(&w);
    let gate = gate_after_wave_two(&w);
    // The question names the merge, counted by git.
    let count = w.git(&["rev-list", "--count", "main..trek/ship/run"]);
    let question = format!("Merge {} commits of trek/ship/run into main", count.trim());
    assert!(lines(&gate).contains(&question), "{gate}");
    // Every wave merged, and main has not moved.
    assert_eq!(commit_of(&w, "main"), main_before);
    let run_tip = commit_of(&w, "trek/ship/run");

    let (code, done) = answer(&w, "confirm");
    assert_eq!(code, 0, "{done}");
    assert!(lines(&done).contains("(fast-forward)"), "{done}");
    assert_eq!(checked_out(&w), "main");
    assert_eq!(commit_of(&w, "main"), run_tip, "main holds every wave");
    assert!(
        w.git(&["branch", "--list", "trek/ship/run"])
            .trim()
            .is_empty(),
        "the merged run branch is deleted"
    );
    assert!(w.root.join("tests/all.sh").is_file());
}

#[test]
fn a_decline_leaves_main_untouched_and_the_next_run_comes_back_to_the_run_branch() {
    let w = ship();
    let main_before = commit_of(&w, "main");
    to_the_gate(&w);
    let (code, declined) = answer(&w, "decline");
    assert_eq!(code, 1, "{declined}");
    let text = lines(&declined);
    assert!(
        text.contains("git log --oneline main..trek/ship/run"),
        "{text}"
    );
    assert!(text.contains("git switch main"), "{text}");
    assert_eq!(commit_of(&w, "main"), main_before, "main did not move");
    assert_eq!(checked_out(&w), "trek/ship/run");

    // The user leaves the run branch; the same command goes back to it
    // and to the gate.
    w.git(&["switch", "-q", "main"]);
    let (code, again) = parent(&w);
    assert_eq!(
        (code, again["next"].as_str()),
        (0, Some("ask-main-merge")),
        "{again}"
    );
    assert!(lines(&again).contains("switched back"), "{again}");
    assert_eq!(checked_out(&w), "trek/ship/run");

    // On another branch the run refuses and names the way back.
    w.git(&["switch", "-q", "-c", "elsewhere"]);
    let (code, refused) = parent(&w);
    assert_eq!(code, 1, "{refused}");
    assert!(
        lines(&refused).contains("git switch trek/ship/run"),
        "{refused}"
    );
    assert_eq!(checked_out(&w), "elsewhere");
    assert_eq!(commit_of(&w, "main"), main_before);
}

#[test]
fn in_place_the_waves_merge_into_main_and_the_confirm_merges_nothing() {
    let w = ship();
    let (code, first) = trek(&w, &w.root, &["start", "--in-place", PLAN]);
    assert_eq!(code, 0, "{first}");
    assert!(
        lines(&first).contains("Run branch: none (--in-place)"),
        "{first}"
    );
    assert_eq!(checked_out(&w), "main");
    completes(&w, 1, false);
    completes(&w, 2, false);
    wave_one_merges(&w);
    completes(&w, 3, false);
    let (code, gate) = parent(&w);
    assert_eq!(gate["next"], "ask-main-merge", "{gate}");
    assert_eq!(code, 0);
    assert!(lines(&gate).contains("Ready to proceed"), "{gate}");
    // Every wave is on main before the answer.
    assert!(w.root.join("tests/all.sh").is_file());
    let tip = commit_of(&w, "main");
    let (code, done) = answer(&w, "confirm");
    assert_eq!(code, 0, "{done}");
    assert_eq!(commit_of(&w, "main"), tip);
    assert!(
        w.git(&["branch", "--list", "trek/ship/*"])
            .trim()
            .is_empty()
    );
}
