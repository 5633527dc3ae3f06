//! Multi-session waves (issue 14): `plan strategy`, `orders …` and `wave
//! …` on real git repositories in temp dirs. Sessions are simulated the way
//! a real one leaves its worktree: commits on the session branch and the
//! progress file `--session N` writes. After every test each commit any
//! session made is still in the object store ([`World`]'s drop checks it).

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod cycle;
mod failures;
mod final_report;
mod orders;
mod printed;
mod pushes;
mod source;
mod strategy;
mod user_path;

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::repo::git;
use crate::common::{Case, Ran};

pub(super) const PLAN: &str = ".claude/plans/split.md";

/// The example plan of two waves: sessions 1 and 2 (2 opens in `web`), then 3.
pub(super) fn example_plan() -> String {
    fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/plans/valid/multi-session.md"),
    )
    .unwrap()
}

/// A repository with the example plan committed at `plan`, in a directory
/// called `name` below the case's temp dir.
pub(super) struct World {
    pub(super) case: Case,
    /// The repository as the tests name it (maybe through a symlink).
    pub(super) root: PathBuf,
    pub(super) plan: String,
    /// Every commit a simulated session made.
    commits: RefCell<Vec<String>>,
}

impl World {
    pub(super) fn new() -> Self {
        Self::with("repo", PLAN, true)
    }

    /// `name`: the repository's directory; `plan`: where the plan lives;
    /// `commit`: whether it is committed (else left untracked).
    pub(super) fn with(name: &str, plan: &str, commit: bool) -> Self {
        Self::of_plan(name, plan, &example_plan(), commit)
    }

    /// The same with the plan's text given.
    pub(super) fn of_plan(name: &str, plan: &str, text: &str, commit: bool) -> Self {
        let case = Case::new(&[]);
        let root = case.path().join(name);
        fs::create_dir_all(&root).unwrap();
        crate::common::repo::init(&root);
        crate::common::repo::write(&root, &[("README.md", "readme\n")]);
        crate::common::repo::commit_all(&root, "init");
        crate::common::repo::write(&root, &[(plan, text)]);
        if commit {
            crate::common::repo::commit_all(&root, "plan");
        }
        Self {
            case,
            root,
            plan: plan.to_owned(),
            commits: RefCell::new(Vec::new()),
        }
    }

    pub(super) fn git(&self, args: &[&str]) -> String {
        git(&self.root, args)
    }

    /// The helper run in `dir`.
    pub(super) fn run_in(&self, dir: &Path, args: &[&str]) -> Ran {
        let out = crate::common::env::helper(dir, self.case.path())
            .args(args)
            .output()
            .unwrap();
        Ran {
            status: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// The helper run in the repository with `--plan PLAN` after `args`.
    pub(super) fn wave(&self, args: &[&str]) -> Ran {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--plan", self.plan.as_str()]);
        self.run_in(&self.root, &all)
    }

    /// The same with `--json`, checked against `schema`.
    pub(super) fn wave_json(&self, schema: &str, args: &[&str]) -> (i32, Value) {
        let mut all: Vec<&str> = args.to_vec();
        all.push("--json");
        let ran = self.wave(&all);
        let value = crate::common::assert_schema(schema, &ran.stdout);
        (ran.status, value)
    }

    pub(super) fn slug(&self) -> String {
        Path::new(&self.plan)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    pub(super) fn sessions_dir(&self) -> PathBuf {
        self.root
            .join(".claude/trekplan-sessions")
            .join(self.slug())
    }

    pub(super) fn worktree(&self, n: u32) -> PathBuf {
        self.sessions_dir().join(format!("worktrees/session-{n}"))
    }

    pub(super) fn orders(&self) -> PathBuf {
        self.sessions_dir().join("orders")
    }

    pub(super) fn branch(&self, n: u32) -> String {
        format!("trek/{}/session-{n}", self.slug().replace(' ', "-"))
    }

    pub(super) fn has_branch(&self, n: u32) -> bool {
        self.git(&["branch", "--list", &self.branch(n)])
            .contains("session")
    }

    /// Session `n` commits `files` in its worktree; the commit is recorded.
    pub(super) fn session_commits(&self, n: u32, files: &[(&str, &str)], subject: &str) -> String {
        let wt = self.worktree(n);
        crate::common::repo::write(&wt, files);
        for (path, _) in files {
            git(&wt, &["add", "--", path]);
        }
        git(&wt, &["commit", "-q", "-m", subject]);
        let sha = git(&wt, &["rev-parse", "HEAD"]).trim().to_owned();
        self.commits.borrow_mut().push(sha.clone());
        sha
    }

    /// The progress file session `n` writes, next to the plan in its worktree.
    pub(super) fn progress_file(&self, n: u32) -> PathBuf {
        let plan = self.worktree(n).join(&self.plan);
        plan.parent().unwrap().join(format!(
            ".trekexecute-progress-{}-session-{n}.json",
            self.slug()
        ))
    }

    /// Session `n` writes its progress file with run status `status`.
    pub(super) fn session_ends(&self, n: u32, status: &str) {
        let doc = serde_json::json!({
            "schema_version": 1,
            "status": status,
            "steps": {"1": {"status": if status == "completed" { "completed" } else { "failed" }}},
        });
        let path = self.progress_file(n);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    }

    /// Sessions 1 and 2 of wave 1 do their work and complete.
    pub(super) fn wave_one_done(&self) {
        self.session_commits(
            1,
            &[("src/store/mod.rs", "pub trait Store {}\n")],
            "feat(store): add trait",
        );
        self.session_commits(
            1,
            &[("src/store/memory.rs", "pub struct Memory;\n")],
            "feat(store): memory store",
        );
        self.session_ends(1, "completed");
        self.session_commits(
            2,
            &[("web/src/health.rs", "fn health() {}\n")],
            "feat(http): health",
        );
        self.session_ends(2, "completed");
    }
}

impl Drop for World {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        for sha in self.commits.borrow().iter() {
            let ok = std::process::Command::new("git")
                .args(["cat-file", "-e", &format!("{sha}^{{commit}}")])
                .current_dir(&self.root)
                .status()
                .unwrap()
                .success();
            assert!(ok, "a session's commit {sha} is gone from the object store");
        }
    }
}
