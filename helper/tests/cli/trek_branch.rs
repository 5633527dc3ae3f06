//! The run branch of a single-session run (issue 40): `trek start` makes
//! `trek/plan/run` from the branch it starts on and works there; the
//! main-merge gate's confirm merges it back (a fast-forward, or a merge
//! commit when that branch moved, or a conflict left to finish by hand),
//! a decline leaves the start branch as it was, and `--in-place` runs on
//! the start branch as before. Every state is reached through the `trek`
//! calls the command makes, in a real repository; what happened is read
//! from git.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::Value;

use crate::common::repo::{commit_all, git, write};
use crate::trek::{Repo, example_plan};
use crate::trek_faults::text;

const RUN: &str = "trek/plan/run";

fn checked_out(repo: &Repo) -> String {
    git(repo.path(), &["symbolic-ref", "--short", "HEAD"])
        .trim()
        .to_owned()
}

fn commit_of(repo: &Repo, rev: &str) -> String {
    git(repo.path(), &["rev-parse", rev]).trim().to_owned()
}

fn subjects_of(repo: &Repo, rev: &str) -> Vec<String> {
    git(repo.path(), &["log", "--format=%s", rev])
        .lines()
        .map(str::to_owned)
        .collect()
}

fn branch_exists(repo: &Repo, name: &str) -> bool {
    !git(repo.path(), &["branch", "--list", name])
        .trim()
        .is_empty()
}

/// The example plan started and both its steps done, at the gate: the
/// start reply and the gate's question.
fn at_the_gate(repo: &Repo) -> (Value, Value) {
    let (code, start) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    repo.both_steps_done();
    let (code, gate) = repo.trek(&["finish"]);
    assert_eq!(code, 0, "{gate}");
    assert_eq!(gate["next"], "ask-main-merge", "{gate}");
    (start, gate)
}

const CHECKPOINTS: [&str; 2] = [
    "test(greet): check the default name",
    "feat(greet): add the greeting script",
];

#[test]
fn the_checkpoints_wait_on_the_run_branch_and_the_confirm_fast_forwards_main() {
    let repo = Repo::new(&example_plan());
    let main_before = commit_of(&repo, "main");
    let (start, gate) = at_the_gate(&repo);
    assert!(
        text(&start).contains("Run branch: trek/plan/run from main"),
        "{start}"
    );
    assert_eq!(checked_out(&repo), RUN);
    // Before the answer the starting branch has not moved.
    assert_eq!(commit_of(&repo, "main"), main_before);
    assert_eq!(subjects_of(&repo, RUN)[..2], CHECKPOINTS);
    assert!(
        text(&gate).contains("Merge 2 commits of trek/plan/run into main"),
        "{gate}"
    );
    let progress = repo.progress_json();
    assert_eq!(progress["trek"]["branches"]["start"], "main");
    assert_eq!(progress["trek"]["branches"]["start_sha"], main_before);
    assert_eq!(progress["trek"]["branches"]["run"], RUN);

    let run_tip = commit_of(&repo, RUN);
    let (code, done) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(done["summary"]["result"], "completed");
    assert!(text(&done).contains("(fast-forward)"), "{done}");
    assert_eq!(checked_out(&repo), "main");
    assert_eq!(commit_of(&repo, "main"), run_tip, "a fast-forward");
    assert_eq!(subjects_of(&repo, "main")[..2], CHECKPOINTS);
    assert!(!branch_exists(&repo, RUN), "the merged run branch is gone");
}

#[test]
fn a_start_branch_that_moved_gets_a_merge_commit_and_finish_goes_back_to_the_run_branch() {
    let repo = Repo::new(&example_plan());
    at_the_gate(&repo);
    // The user commits on main meanwhile and leaves the checkout there.
    git(repo.path(), &["switch", "-q", "main"]);
    write(repo.path(), &[("NOTES.md", "meanwhile\n")]);
    commit_all(repo.path(), "docs: notes written meanwhile");
    let (code, gate) = repo.trek(&["finish"]);
    assert_eq!(code, 0, "{gate}");
    assert!(text(&gate).contains("switched back"), "{gate}");
    assert_eq!(checked_out(&repo), RUN);

    let (code, done) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{done}");
    assert!(text(&done).contains("a merge commit"), "{done}");
    assert_eq!(checked_out(&repo), "main");
    let parents = git(repo.path(), &["log", "-1", "--format=%P", "main"]);
    assert_eq!(parents.split_whitespace().count(), 2, "a merge commit");
    let on_main = subjects_of(&repo, "main");
    for subject in CHECKPOINTS.iter().chain(&["docs: notes written meanwhile"]) {
        assert!(on_main.iter().any(|s| s == subject), "{on_main:?}");
    }
}

#[test]
fn a_conflict_keeps_the_run_at_the_gate_and_the_printed_way_finishes_it() {
    let repo = Repo::new(&example_plan());
    at_the_gate(&repo);
    git(repo.path(), &["switch", "-q", "main"]);
    write(repo.path(), &[("greet.sh", "echo theirs\n")]);
    commit_all(repo.path(), "greet: another greeting");
    let main_moved = commit_of(&repo, "main");
    git(repo.path(), &["switch", "-q", RUN]);

    let (code, stopped) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 1, "{stopped}");
    let said = text(&stopped);
    assert!(said.contains("MERGE CONFLICT"), "{said}");
    assert!(said.contains("greet.sh"), "{said}");
    assert!(said.contains("git merge trek/plan/run"), "{said}");
    assert_eq!(
        checked_out(&repo),
        RUN,
        "the run branch is checked out again"
    );
    assert_eq!(commit_of(&repo, "main"), main_moved, "nothing merged");
    let progress = repo.progress_json();
    assert_eq!(progress["status"], "in_progress");
    assert_eq!(progress["main_merge_gate"]["status"], "awaiting");
    assert!(repo.marker().exists());

    // By hand, as the reply says (the conflict resolved for the run).
    git(repo.path(), &["switch", "-q", "main"]);
    git(
        repo.path(),
        &["merge", "-q", "-X", "theirs", "--no-edit", RUN],
    );
    let (code, done) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(done["summary"]["result"], "completed");
    assert!(text(&done).contains("merged into main already"), "{done}");
    assert_eq!(checked_out(&repo), "main");
    assert!(!branch_exists(&repo, RUN));
}

#[test]
fn a_decline_leaves_main_untouched_and_resume_goes_back_to_the_run_branch() {
    let repo = Repo::new(&example_plan());
    let main_before = commit_of(&repo, "main");
    at_the_gate(&repo);
    let (code, declined) = repo.trek(&["finish", "--gate", "decline"]);
    assert_eq!(code, 1, "{declined}");
    assert_eq!(declined["summary"]["result"], "partial");
    let said = text(&declined);
    assert!(
        said.contains("git log --oneline main..trek/plan/run"),
        "{said}"
    );
    assert!(said.contains("git switch main"), "{said}");
    assert!(said.contains("/trekexecute --resume"), "{said}");
    assert_eq!(commit_of(&repo, "main"), main_before);
    assert_eq!(checked_out(&repo), RUN);

    // Left for main, the resume comes back to the run branch and the gate.
    git(repo.path(), &["switch", "-q", "main"]);
    let (code, resumed) = repo.trek(&["start", "--resume", &repo.plan()]);
    assert_eq!(code, 0, "{resumed}");
    assert!(text(&resumed).contains("switched back"), "{resumed}");
    assert_eq!(checked_out(&repo), RUN);
    let (_, gate) = repo.trek(&["finish"]);
    assert_eq!(gate["next"], "ask-main-merge", "{gate}");
    let (code, done) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(subjects_of(&repo, "main")[..2], CHECKPOINTS);
}

#[test]
fn a_resume_on_another_branch_refuses_and_runs_nothing() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    git(repo.path(), &["switch", "-q", "-c", "elsewhere"]);
    let before = repo.progress_json();
    let (code, refused) = repo.trek(&["start", "--resume", &repo.plan()]);
    assert_eq!(code, 1, "{refused}");
    assert!(
        text(&refused).contains("git switch trek/plan/run"),
        "{refused}"
    );
    assert_eq!(refused["next"], "stop");
    assert_eq!(checked_out(&repo), "elsewhere");
    assert_eq!(repo.progress_json()["steps"], before["steps"]);
}

#[test]
fn in_place_commits_on_the_start_branch_and_the_gate_merges_nothing() {
    let repo = Repo::new(&example_plan());
    let (code, start) = repo.trek(&["start", "--in-place", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    assert!(
        text(&start).contains("Run branch: none (--in-place)"),
        "{start}"
    );
    repo.both_steps_done();
    // Each checkpoint is on main as it is made, before the gate.
    assert_eq!(checked_out(&repo), "main");
    assert_eq!(subjects_of(&repo, "main")[..2], CHECKPOINTS);
    let (_, gate) = repo.trek(&["finish"]);
    assert!(text(&gate).contains("Ready to proceed"), "{gate}");
    let tip = commit_of(&repo, "main");
    let (code, done) = repo.trek(&["finish", "--gate", "confirm"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(commit_of(&repo, "main"), tip);
    assert!(!branch_exists(&repo, RUN));
    assert!(repo.progress_json()["trek"].get("branches").is_none());
}

#[test]
fn a_detached_head_runs_in_place_and_says_so() {
    let repo = Repo::new(&example_plan());
    git(repo.path(), &["switch", "-q", "--detach"]);
    let (code, start) = repo.trek(&["start", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    assert!(
        text(&start).contains("Run branch: none, HEAD is detached"),
        "{start}"
    );
    assert!(!branch_exists(&repo, RUN));
}

#[test]
fn a_step_call_on_another_branch_refuses_and_commits_nothing_there() {
    let repo = Repo::new(&example_plan());
    repo.trek(&["start", &repo.plan()]);
    repo.trek(&["step-begin", "1"]);
    repo.write(&[("greet.sh", crate::trek::GREET)]);
    git(repo.path(), &["switch", "-q", "main"]);
    let main_before = commit_of(&repo, "main");
    let (code, refused) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 2, "{refused}");
    assert!(
        text(&refused).contains("git switch trek/plan/run"),
        "{refused}"
    );
    assert_eq!(commit_of(&repo, "main"), main_before);
    // Back on the run branch, the same call goes on.
    git(repo.path(), &["switch", "-q", RUN]);
    let (code, done) = repo.trek(&["step-done", "1"]);
    assert_eq!(code, 0, "{done}");
    assert_eq!(subjects_of(&repo, RUN)[0], CHECKPOINTS[1]);
}

#[test]
fn a_start_cut_short_after_making_the_branch_starts_afresh_from_the_branch_before() {
    let repo = Repo::new(&example_plan());
    // Killed right after `checkout -b`: the branch, and no progress file.
    git(repo.path(), &["switch", "-q", "-c", RUN]);
    let (code, start) = repo.trek(&["start", "--fresh", &repo.plan()]);
    assert_eq!(code, 0, "{start}");
    assert!(
        text(&start).contains("Run branch: trek/plan/run from main"),
        "{start}"
    );
    assert_eq!(checked_out(&repo), RUN);
    assert_eq!(repo.progress_json()["trek"]["branches"]["start"], "main");
}
