//! A run's own files stay out of the user's history (issue 24, point 5):
//! `trek start` names them in the common `.git/info/exclude`, in one marked
//! block, so `git status` and `git add -A` skip them in the main checkout
//! and in every session worktree; a file the user tracks stays tracked, and
//! the wave cleanup still keeps a session worktree holding its progress
//! file. Real repositories, the real binary.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::repo::{commit_all, git, write};
use crate::trek::{GREET, Repo, example_plan};
use crate::waves::World;

const BEGIN: &str = "# >>> voyage: run files, kept out of git (voyage-helper trek start) >>>";

/// The common exclude file of `repo`'s checkout.
fn exclude_file(repo: &Repo) -> PathBuf {
    repo.path().join(".git/info/exclude")
}

/// `voyage-helper trek ARGS --json` in `dir`: the exit code and the reply.
fn trek(dir: &Path, home: &Path, args: &[&str]) -> (i32, Value) {
    let out = crate::common::env::helper(dir, home)
        .arg("trek")
        .args(args)
        .arg("--json")
        .env("CLAUDE_PLUGIN_DATA", home.join("data"))
        .output()
        .unwrap();
    let reply = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap_or(-1), reply)
}

/// Every path `git status` reports in `dir`, untracked files one by one.
fn status(dir: &Path) -> String {
    git(dir, &["status", "--porcelain", "--untracked-files=all"])
}

fn blocks(exclude: &Path) -> usize {
    fs::read_to_string(exclude)
        .unwrap()
        .lines()
        .filter(|l| *l == BEGIN)
        .count()
}

#[test]
fn after_a_start_and_a_step_git_status_shows_none_of_the_run_files() {
    let repo = Repo::new(&example_plan());
    // The user's own exclude lines, the last without its newline.
    fs::write(exclude_file(&repo), "# mine\n*.swp\nbuild/").unwrap();
    let home = repo.home.path();
    let (code, start) = trek(repo.path(), home, &["start", "plans/plan.md"]);
    assert_eq!(code, 0, "{start}");
    assert!(
        start["lines"].to_string().contains("info/exclude"),
        "the reply says the file was changed: {start}"
    );
    trek(repo.path(), home, &["step-begin", "1"]);
    write(repo.path(), &[("greet.sh", GREET)]);
    let (code, done) = trek(repo.path(), home, &["step-done", "1"]);
    assert_eq!(code, 0, "{done}");

    // The run's files are there, and git shows none of them.
    assert!(
        repo.path()
            .join("plans/.trekexecute-progress-plan.json")
            .is_file()
    );
    let logs = repo.path().join(".temp/voyage/logs");
    assert!(
        fs::read_dir(&logs).unwrap().next().is_some(),
        "Verify logged"
    );
    assert_eq!(status(repo.path()), "", "a clean tree after the checkpoint");
    // What `git add -A` would stage: nothing of the run.
    assert_eq!(git(repo.path(), &["add", "-A", "--dry-run"]), "");

    let exclude = fs::read_to_string(exclude_file(&repo)).unwrap();
    assert!(
        exclude.starts_with("# mine\n*.swp\nbuild/\n# >>> voyage"),
        "{exclude}"
    );
    for line in [
        ".trekexecute-progress-*.json",
        "/.temp/voyage/",
        "/.claude/trekplan-sessions/",
    ] {
        assert!(exclude.lines().any(|l| l == line), "{line}: {exclude}");
    }
    assert!(
        !repo.path().join(".gitignore").exists(),
        "no tracked ignore file is written"
    );

    // A second start (the run resumed) writes nothing more.
    let before = fs::read(exclude_file(&repo)).unwrap();
    let (_, again) = trek(repo.path(), home, &["start", "--resume", "plans/plan.md"]);
    assert!(
        !again["lines"].to_string().contains("info/exclude"),
        "{again}"
    );
    assert_eq!(fs::read(exclude_file(&repo)).unwrap(), before);
    assert_eq!(blocks(&exclude_file(&repo)), 1);
}

#[test]
fn a_progress_file_the_user_tracks_stays_tracked() {
    let repo = Repo::new(&example_plan());
    let progress = "plans/.trekexecute-progress-plan.json";
    write(repo.path(), &[(progress, "{}\n")]);
    commit_all(repo.path(), "track the progress file on purpose");
    // `{}` is no progress file: only --fresh replaces it (kept beside it).
    let (code, start) = trek(
        repo.path(),
        repo.home.path(),
        &["start", "--fresh", "plans/plan.md"],
    );
    assert_eq!(code, 0, "{start}");
    assert_eq!(blocks(&exclude_file(&repo)), 1);
    // Still in the index, and its change still shows.
    assert_eq!(
        git(repo.path(), &["ls-files", "--", progress]).trim(),
        progress
    );
    assert_eq!(status(repo.path()), format!(" M {progress}\n"));
}

#[test]
fn a_project_run_excludes_its_own_progress_file_and_no_other() {
    let repo = Repo::new("placeholder\n");
    let project = repo.path().join("my proj [v2]");
    write(&project, &[("plan.md", &example_plan())]);
    commit_all(repo.path(), "project");
    // A file of the same name elsewhere is the user's.
    write(repo.path(), &[("web/progress.json", "{}\n")]);
    let dir = project.display().to_string();
    let (code, start) = trek(repo.path(), repo.home.path(), &["start", "--project", &dir]);
    assert_eq!(code, 0, "{start}");
    assert!(project.join("progress.json").is_file());
    assert_eq!(status(repo.path()), "?? web/progress.json\n");
    let exclude = fs::read_to_string(exclude_file(&repo)).unwrap();
    assert!(
        exclude
            .lines()
            .any(|l| l == "/my proj \\[v2]/progress.json"),
        "{exclude}"
    );
}

#[test]
fn session_worktrees_share_the_block_and_a_failed_session_keeps_its_worktree() {
    let w = World::new();
    let home = w.case.path();
    let (code, reply) = trek(&w.root, home, &["start", &w.plan]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["status"], "handover", "{reply}");
    let exclude = w.root.join(".git/info/exclude");
    assert_eq!(blocks(&exclude), 1);
    // The worktrees of wave 1 are under .claude/trekplan-sessions/: hidden.
    assert_eq!(status(&w.root), "");

    // Session 1 starts in its worktree: the same block, read from there.
    let wt = w.worktree(1);
    let (code, session) = trek(&wt, home, &["start", "--session", "1", &w.plan]);
    assert_eq!(code, 0, "{session}");
    assert!(w.progress_file(1).is_file(), "{session}");
    assert_eq!(status(&wt), "");
    assert_eq!(blocks(&exclude), 1, "the session added no second block");
    let git_dir = git(&wt, &["rev-parse", "--absolute-git-dir"]);
    assert!(!Path::new(git_dir.trim()).join("info/exclude").exists());
    // Session 1 fails through its own calls: step 1's Verify (`cargo
    // build`, with no Cargo.toml here) fails every attempt and the run
    // ends failed.
    for _ in 0..3 {
        trek(&wt, home, &["step-begin", "1"]);
        write(&wt, &[("src/store/mod.rs", "pub trait Store {}\n")]);
        trek(&wt, home, &["step-done", "1"]);
    }
    let (_, finished) = trek(&wt, home, &["finish"]);
    assert_eq!(finished["status"], "failed", "{finished}");

    // Session 2 completes: the wave fails and stays open with its
    // worktrees, so the failed one can be resumed where it ran.
    w.session_commits(
        2,
        &[("web/src/health.rs", "fn health() {}\n")],
        "feat(http): health",
    );
    w.session_ends(2, "completed");
    let (code, collected) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 1, "{collected}");
    assert_eq!(collected["outcome"], "failed", "{collected}");
    assert!(wt.is_dir() && w.progress_file(1).is_file(), "{collected}");
    // Given up (wave.json deleted), the cleanup still keeps a worktree
    // whose progress file is ignored: git alone would remove it.
    std::fs::remove_file(w.orders().join("wave.json")).unwrap();
    let (code, cleaned) = w.wave_json("wave-cleanup", &["wave", "cleanup"]);
    assert_eq!(code, 1, "{cleaned}");
    assert!(wt.is_dir() && w.progress_file(1).is_file(), "{cleaned}");
    let kept = cleaned["kept"].to_string();
    assert!(kept.contains("holds the run's progress file"), "{kept}");
}

#[test]
fn a_merged_wave_still_removes_worktrees_holding_only_ignored_logs() {
    let w = World::new();
    let home = w.case.path();
    let (code, reply) = trek(&w.root, home, &["start", &w.plan]);
    assert_eq!(code, 0, "{reply}");
    for n in [1, 2] {
        write(&w.worktree(n), &[(".temp/voyage/logs/x.log", "log\n")]);
    }
    w.wave_one_done();
    let (code, collected) = w.wave_json("wave-collect", &["wave", "collect"]);
    assert_eq!(code, 0, "{collected}");
    assert_eq!(collected["kept"], serde_json::json!([]), "{collected}");
    assert!(!w.worktree(1).exists() && !w.worktree(2).exists());
    // The parent's own files in the main checkout stay hidden too.
    assert_eq!(status(&w.root), "");
}
