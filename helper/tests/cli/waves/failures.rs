//! Each failure path of Phases 2.55 and 2.6, on real repositories: what is
//! refused, what is kept, and that nothing any session committed is lost.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;

use super::World;
use crate::common::repo;

fn code_of(reply: &serde_json::Value) -> &str {
    reply["problem"]["code"].as_str().unwrap_or("")
}

#[test]
fn a_dirty_tree_stops_the_run_and_says_so_in_its_files() {
    let w = World::new();
    repo::write(&w.root, &[(".gitignore", ".claude/projects/\n")]);
    repo::commit_all(&w.root, "ignore projects");
    let project = ".claude/projects/p";
    repo::write(
        &w.root,
        &[(&format!("{project}/plan.md"), &super::example_plan())],
    );
    let ran = w.run_in(&w.root, &["progress", "init", "--project", project]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    repo::write(&w.root, &[("stray.txt", "work in progress\n")]);
    let (code, reply) = w.wave_json(
        "wave-preflight",
        &["wave", "preflight", "--project", project],
    );
    assert_eq!(code, 1);
    assert_eq!(code_of(&reply), "WAVE_DIRTY_TREE");
    assert_eq!(reply["dirty"], serde_json::json!(["?? stray.txt"]));
    let progress: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(w.root.join(project).join("progress.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(progress["status"], "stopped");
    let state = fs::read_to_string(w.root.join(project).join(".session-state.local.json")).unwrap();
    assert!(state.contains("\"status\": \"stopped\""), "{state}");
    assert!(
        w.root
            .join(project)
            .join("NEXT-SESSION-PROMPT.local.md")
            .is_file()
    );
    // Voyage's own session state is not "dirty".
    fs::remove_file(w.root.join("stray.txt")).unwrap();
    repo::write(
        &w.root,
        &[(
            ".claude/trekplan-sessions/split/orders/wave-1-session-1.progress.json",
            "{}",
        )],
    );
    let (code, reply) = w.wave_json("wave-preflight", &["wave", "preflight"]);
    assert_eq!(code, 0, "{reply}");
}

#[test]
fn a_linked_worktree_is_refused_naming_the_main_checkout() {
    let w = World::new();
    let linked = w.case.path().join("linked");
    w.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "elsewhere",
        &linked.display().to_string(),
    ]);
    let plan = linked.join(&w.plan).display().to_string();
    for sub in [
        &["wave", "preflight"][..],
        &["wave", "prepare"],
        &["wave", "collect"],
    ] {
        let mut args = sub.to_vec();
        args.extend(["--plan", plan.as_str()]);
        let ran = w.run_in(&linked, &args);
        assert_eq!(ran.status, 1, "{sub:?}");
        let main = w.root.canonicalize().unwrap().display().to_string();
        assert!(
            ran.stderr.contains("error[WAVE_LINKED_WORKTREE]") && ran.stderr.contains(&main),
            "{}",
            ran.stderr
        );
    }
}

#[test]
fn a_running_session_stops_the_collect_touching_nothing() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.session_commits(1, &[("src/store/mod.rs", "x\n")], "feat(store): add trait");
    w.session_ends(1, "completed");
    w.session_ends(2, "failed");
    fs::remove_file(w.progress_file(2)).unwrap();
    let head = w.git(&["rev-parse", "HEAD"]);
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 1);
    assert_eq!(code_of(&reply), "WAVE_RUNNING");
    assert_eq!(reply["archived"], serde_json::json!([]));
    assert!(w.orders().join("wave.json").is_file());
    assert!(!w.orders().join("wave-1-session-1.progress.json").exists());
    assert!(w.worktree(1).is_dir() && w.worktree(2).is_dir());
    assert_eq!(w.git(&["rev-parse", "HEAD"]), head);
}

#[test]
fn an_ended_bad_session_fails_the_wave_without_a_merge() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.session_commits(1, &[("src/store/mod.rs", "x\n")], "feat(store): add trait");
    w.session_ends(1, "completed");
    w.session_ends(2, "partial");
    let head = w.git(&["rev-parse", "HEAD"]);
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 1);
    assert_eq!(code_of(&reply), "WAVE_FAILED");
    assert_eq!(w.git(&["rev-parse", "HEAD"]), head);
    assert!(w.orders().join("wave-1-session-2.progress.json").is_file());
    // The wave stays open, every worktree and branch with it, so session 2
    // can be re-run where it stopped; nothing was removed.
    assert!(w.orders().join("wave.json").is_file());
    assert!(w.worktree(1).is_dir() && w.worktree(2).is_dir());
    assert!(w.has_branch(1) && w.has_branch(2));
    assert_eq!(reply["removed_worktrees"], serde_json::json!([]));
    assert!(
        reply["problem"]["message"]
            .as_str()
            .unwrap()
            .contains("--resume"),
        "{reply}"
    );
    // Once session 2 completes, the same collect merges the wave.
    w.session_commits(
        2,
        &[("web/src/health.rs", "fn h() {}\n")],
        "feat(http): health",
    );
    w.session_ends(2, "completed");
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(
        (code, reply["outcome"].as_str()),
        (0, Some("merged")),
        "{reply}"
    );
}

#[test]
fn a_conflict_is_aborted_its_files_listed_and_later_sessions_not_merged() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.session_commits(1, &[("README.md", "session one\n")], "feat(store): readme");
    w.session_ends(1, "completed");
    w.session_commits(
        2,
        &[("web/src/health.rs", "fn h() {}\n")],
        "feat(http): health",
    );
    w.session_ends(2, "completed");
    // Meanwhile the main checkout changed the same file.
    repo::write(&w.root, &[("README.md", "main\n")]);
    w.git(&["commit", "-q", "-m", "main readme", "--", "README.md"]);
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(code_of(&reply), "WAVE_MERGE_CONFLICT");
    assert_eq!(reply["merges"][0]["result"], "conflict");
    assert_eq!(
        reply["merges"][0]["conflicting_files"],
        serde_json::json!(["README.md"])
    );
    assert_eq!(reply["merges"][1]["result"], "not-merged");
    assert!(!w.root.join(".git/MERGE_HEAD").exists());
    assert_eq!(
        w.git(&["status", "--porcelain", "--untracked-files=no"]),
        ""
    );
    assert!(!w.root.join("web/src/health.rs").exists());
    assert!(w.has_branch(1) && w.has_branch(2));
}

#[test]
fn a_refused_merge_keeps_the_wave() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.wave_one_done();
    // An untracked file where session 1's commit puts one.
    repo::write(&w.root, &[("src/store/mod.rs", "mine\n")]);
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(code_of(&reply), "WAVE_MERGE_REFUSED");
    assert!(w.orders().join("wave.json").is_file());
    assert!(w.worktree(1).is_dir());
    assert_eq!(
        fs::read_to_string(w.root.join("src/store/mod.rs")).unwrap(),
        "mine\n"
    );
    // Moved out of the way, the re-run merges the wave.
    fs::remove_file(w.root.join("src/store/mod.rs")).unwrap();
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 0, "{reply}");
}

#[test]
fn a_dirty_main_tree_at_collect_keeps_the_wave() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.wave_one_done();
    repo::write(&w.root, &[("README.md", "edited here\n")]);
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 1);
    assert_eq!(code_of(&reply), "WAVE_DIRTY_TREE");
    assert!(w.orders().join("wave.json").is_file());
}

#[test]
fn a_worktree_with_uncommitted_work_is_kept_after_the_merge() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.wave_one_done();
    repo::write(&w.worktree(2), &[("web/src/unsaved.rs", "half done\n")]);
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 0, "{reply}");
    let kept = reply["kept"].as_array().unwrap();
    let wt2 = w.worktree(2).canonicalize().unwrap().display().to_string();
    assert!(
        kept.iter()
            .any(|k| k["kind"] == "worktree" && k["name"] == wt2.as_str()),
        "{reply}"
    );
    assert!(w.worktree(2).join("web/src/unsaved.rs").is_file());
    assert!(!w.worktree(1).exists());
    // Its progress file went: untracked and identical to the archive.
    assert!(!w.progress_file(2).exists());
    assert!(reply["removed_progress_files"].as_array().unwrap().len() == 2);
}

#[test]
fn preflight_removes_stale_clean_worktrees_and_keeps_unmerged_branches() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.session_commits(1, &[("src/store/mod.rs", "x\n")], "feat(store): add trait");
    // The user abandons the wave.
    fs::remove_file(w.orders().join("wave.json")).unwrap();
    let (code, reply) = w.wave_json("wave-preflight", &["wave", "preflight"]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(code_of(&reply), "WAVE_KEPT");
    // Both worktrees were clean: removed. Branch 2 was merged (no commits).
    assert_eq!(reply["removed_worktrees"].as_array().unwrap().len(), 2);
    assert_eq!(reply["removed_branches"], serde_json::json!([w.branch(2)]));
    assert_eq!(reply["kept"][0]["name"], w.branch(1).as_str());
    assert!(
        reply["kept"][0]["what_to_do"]
            .as_str()
            .unwrap()
            .contains("git log HEAD..")
    );
    assert!(w.has_branch(1));
    // While a wave is in flight, preflight refuses to touch anything.
    assert_eq!(w.wave(&["orders", "write", "--wave", "1"]).status, 0);
    let (code, reply) = w.wave_json("wave-preflight", &["wave", "preflight"]);
    assert_eq!(code, 1);
    assert_eq!(code_of(&reply), "WAVE_IN_FLIGHT");
    let (code, reply) = w.wave_json("wave-cleanup", &["wave", "cleanup"]);
    assert_eq!(code, 1);
    assert_eq!(code_of(&reply), "WAVE_IN_FLIGHT");
}

#[test]
fn prepare_refuses_leftovers_and_a_failed_add_undoes_only_its_own() {
    let w = World::new();
    w.git(&["branch", &w.branch(1)]);
    let (code, reply) = w.wave_json("wave-prepare", &["wave", "prepare", "--wave", "1"]);
    assert_eq!(code, 1);
    assert_eq!(code_of(&reply), "WAVE_LEFTOVERS");
    assert_eq!(reply["leftovers"], serde_json::json!([w.branch(1)]));
    assert!(!w.worktree(2).exists() && !w.has_branch(2));
    w.git(&["branch", "-d", &w.branch(1)]);
    // A ref in the way makes session 2's `worktree add -b` fail.
    let blocker = format!("{}/x", w.branch(2));
    w.git(&["branch", &blocker]);
    let (code, reply) = w.wave_json("wave-prepare", &["wave", "prepare", "--wave", "1"]);
    assert_eq!(code, 2, "{reply}");
    assert_eq!(code_of(&reply), "WAVE_WORKTREE_ADD");
    assert!(!w.worktree(1).exists() && !w.has_branch(1));
    assert!(w.git(&["branch", "--list", &blocker]).contains("x"));
    assert!(!w.orders().join("wave.json").exists());
}

#[test]
fn the_plan_edited_between_prepare_and_collect_is_exit_1() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.wave_one_done();
    fs::write(w.root.join(&w.plan), super::example_plan() + "\nedited\n").unwrap();
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 1);
    assert_eq!(code_of(&reply), "ORDERS_PLAN_CHANGED");
    assert!(w.orders().join("wave.json").is_file());
    assert!(w.has_branch(1) && w.worktree(1).is_dir());
}

#[test]
fn another_branch_checked_out_is_exit_1() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.wave_one_done();
    w.git(&["checkout", "-q", "-b", "feature"]);
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 1);
    assert_eq!(code_of(&reply), "ORDERS_OTHER_BRANCH");
    assert!(
        reply["problem"]["message"]
            .as_str()
            .unwrap()
            .contains("prepared on branch main")
    );
    assert!(w.orders().join("wave.json").is_file());
}

#[test]
fn an_ignored_plan_is_copied_never_forced_into_history() {
    let w = World::with("repo", ".claude/projects/p/plan.md", false);
    repo::write(&w.root, &[(".gitignore", ".claude/projects/\n")]);
    repo::commit_all(&w.root, "ignore projects");
    repo::write(
        &w.root,
        &[
            (".claude/projects/p/brief.md", "# brief\n"),
            (".claude/projects/p/research/01-notes.md", "notes\n"),
        ],
    );
    let (code, reply) = w.wave_json("wave-preflight", &["wave", "preflight"]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["plan_tracking"], "ignored");
    assert_eq!(reply["plan_committed"], false);
    assert_eq!(
        w.git(&["log", "--all", "--format=%s", "--", ".claude/projects"]),
        ""
    );
    let (code, reply) = w.wave_json("wave-prepare", &["wave", "prepare"]);
    assert_eq!(code, 0, "{reply}");
    for n in [1, 2] {
        let p = w.worktree(n).join(".claude/projects/p");
        assert!(p.join("plan.md").is_file() && p.join("brief.md").is_file());
        assert!(p.join("research/01-notes.md").is_file());
    }
    // The ignored copies do not keep a worktree from going.
    w.wave_one_done();
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["kept"], serde_json::json!([]));
}

#[test]
fn an_untracked_plan_is_committed_by_preflight() {
    let w = World::with("repo", super::PLAN, false);
    let ran = w.wave(&["wave", "preflight"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert_eq!(
        w.git(&["log", "-1", "--format=%s"]),
        "chore: track plan file for parallel execution\n"
    );
    // Listed first, then named with its hash once made.
    let head = w.git(&["rev-parse", "HEAD"]);
    assert!(
        ran.stdout
            .starts_with("What this run does to the repository and the remote:\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains(&format!(
            "\nPlan file committed for worktree visibility: {} \"chore: track plan file for parallel execution\"\n",
            &head[..12]
        )),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_symlinked_repository_path_works_throughout() {
    let w = World::new();
    let link = w.case.path().join("link");
    std::os::unix::fs::symlink(&w.root, &link).unwrap();
    let abs = link.join(&w.plan).display().to_string();
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--plan", abs.as_str()]);
        w.run_in(&link, &all)
    };
    assert_eq!(run(&["wave", "preflight"]).status, 0);
    let ran = run(&["wave", "prepare", "--json"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let reply = crate::common::assert_schema("wave-prepare", &ran.stdout);
    assert_eq!(
        reply["orders"][0]["starter"],
        "/trekexecute --session 1 .claude/plans/split.md"
    );
    w.wave_one_done();
    let ran = run(&["wave", "collect"]);
    assert_eq!(ran.status, 0, "{}{}", ran.stdout, ran.stderr);
}

#[test]
fn a_plan_path_with_spaces_works_throughout() {
    let w = World::with("my repo", ".claude/my plans/split plan.md", true);
    let ran = w.wave(&["wave", "preflight"]);
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    let (code, reply) = w.wave_json("wave-prepare", &["wave", "prepare"]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(
        reply["orders"][0]["starter"],
        "/trekexecute --session 1 '.claude/my plans/split plan.md'"
    );
    assert!(
        w.worktree(1)
            .join(".claude/my plans/split plan.md")
            .is_file()
    );
    w.wave_one_done();
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["next_wave"], 2);
}

#[test]
fn each_branch_is_pushed_before_its_cleanup() {
    let w = World::new();
    let remote = w.case.path().join("origin.git");
    repo::git(
        w.case.path(),
        &["init", "-q", "--bare", &remote.display().to_string()],
    );
    w.git(&["remote", "add", "origin", &remote.display().to_string()]);
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.wave_one_done();
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["merges"][0]["pushed"], true);
    assert!(!w.has_branch(1));
    // Deleted here, the branch survives on the remote.
    let there = repo::git(&remote, &["branch", "--list", "trek/*"]);
    assert!(
        there.contains("trek/split/session-1") && there.contains("trek/split/session-2"),
        "{there}"
    );
}

#[test]
fn a_project_outside_the_repository_copies_nothing_and_creates_nothing() {
    let w = World::new();
    let outside = w.case.path().join("elsewhere");
    fs::create_dir_all(&outside).unwrap();
    let outside = outside.display().to_string();
    let (code, reply) = w.wave_json("wave-prepare", &["wave", "prepare", "--project", &outside]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(code_of(&reply), "WAVE_PROJECT_OUTSIDE");
    assert!(!w.sessions_dir().exists() && !w.has_branch(1));
    // The repository's top is no project either.
    let (code, reply) = w.wave_json("wave-prepare", &["wave", "prepare", "--project", "."]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(code_of(&reply), "WAVE_PROJECT_OUTSIDE");
}

#[test]
fn a_tracked_progress_file_is_never_deleted_by_the_collect() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.wave_one_done();
    // Session 1 committed its progress file: it is history, not a leftover.
    let rel = ".claude/plans/.trekexecute-progress-split-session-1.json";
    let text = fs::read_to_string(w.progress_file(1)).unwrap();
    w.session_commits(1, &[(rel, &text)], "chore: progress");
    let (code, reply) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 0, "{reply}");
    let removed: Vec<&str> = reply["removed_progress_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(removed.len(), 1, "{reply}");
    assert!(removed[0].ends_with("session-2.json"), "{reply}");
    assert_eq!(fs::read_to_string(w.root.join(rel)).unwrap(), text);
}

#[test]
fn cleanup_after_a_failed_wave_keeps_what_holds_work() {
    let w = World::new();
    assert_eq!(w.wave(&["wave", "prepare", "--wave", "1"]).status, 0);
    w.session_commits(1, &[("src/store/mod.rs", "x\n")], "feat(store): add trait");
    w.session_ends(1, "completed");
    w.session_ends(2, "failed");
    assert_eq!(w.wave(&["wave", "collect"]).status, 1);
    // The wave stays open until the user gives it up.
    let (code, _) = w.wave_json("wave-cleanup", &["wave", "cleanup"]);
    assert_eq!(code, 1);
    fs::remove_file(w.orders().join("wave.json")).unwrap();
    let (code, reply) = w.wave_json("wave-cleanup", &["wave", "cleanup"]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(code_of(&reply), "WAVE_KEPT");
    assert!(
        reply["kept"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["name"] == w.branch(1).as_str())
    );
    let ran = w.wave(&["wave", "cleanup"]);
    assert!(
        ran.stdout.contains(&format!("KEPT branch {}", w.branch(1))),
        "{}",
        ran.stdout
    );
    // The results of the failed wave are still there to report.
    let (_, report) = w.wave_json("wave-report", &["wave", "report"]);
    assert_eq!(report["all_completed"], false);
    assert_eq!(report["sessions"][1]["status"], "failed");
}
