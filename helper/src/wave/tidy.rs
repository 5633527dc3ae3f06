//! Removing what a wave left, never with force (Hard rule 12): `git worktree
//! remove` without `--force` refuses a worktree with modified or untracked
//! files and `git branch -d` refuses an unmerged branch; whatever git
//! refuses is kept, reported with what the user can do, and never retried.
//! A worktree holding a progress file is kept too, ignored or not.

use std::path::Path;

use serde::Serialize;

use super::context::{git, git_ok, session_branches};
use crate::orders::{Fail, Layout};

/// Something that holds work and stays.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Kept {
    /// `worktree` or `branch`.
    pub kind: &'static str,
    /// The worktree's path or the branch's name.
    pub name: String,
    /// git's refusal.
    pub why: String,
    /// What the user can do about it.
    pub what_to_do: String,
}

/// What a sweep removed and kept.
#[derive(Debug, Clone, Default, Serialize)]
pub(super) struct Swept {
    pub removed_worktrees: Vec<String>,
    pub removed_branches: Vec<String>,
    pub kept: Vec<Kept>,
}

pub(super) fn kept_worktree(path: &Path, why: String) -> Kept {
    let p = path.display().to_string();
    Kept {
        kind: "worktree",
        what_to_do: format!(
            "inspect it (git -C '{p}' status --short), commit or move what matters, then git worktree remove '{p}'"
        ),
        name: p,
        why,
    }
}

pub(super) fn kept_branch(branch: &str, why: String) -> Kept {
    Kept {
        kind: "branch",
        what_to_do: format!(
            "inspect it (git log HEAD..{branch}), merge it by hand (git merge --no-ff {branch}), or delete it yourself once its commits are not needed"
        ),
        name: branch.to_owned(),
        why,
    }
}

impl Swept {
    /// `git worktree remove PATH` without force.
    pub(super) fn remove_worktree(&mut self, root: &Path, path: &Path) -> Result<(), Fail> {
        let shown = path.display().to_string();
        // A progress file is the session's record and what `--resume`
        // continues from; once info/exclude ignores it, git would delete it
        // with the worktree instead of refusing.
        let progress = crate::git_exclude::untracked_progress_files(path);
        if !progress.is_empty() {
            let why = format!("it holds the run's progress file {}", progress.join(", "));
            self.kept.push(kept_worktree(path, why));
            return Ok(());
        }
        let out = git(root, &["worktree", "remove", &shown])?;
        if out.ok() {
            self.removed_worktrees.push(shown);
        } else {
            self.kept.push(kept_worktree(path, out.why()));
        }
        Ok(())
    }

    /// `git branch -d BRANCH`: only a merged branch goes.
    pub(super) fn remove_branch(&mut self, root: &Path, branch: &str) -> Result<(), Fail> {
        let out = git(root, &["branch", "-d", branch])?;
        if out.ok() {
            self.removed_branches.push(branch.to_owned());
        } else {
            self.kept.push(kept_branch(branch, out.why()));
        }
        Ok(())
    }
}

/// The session worktrees `WORKTREES/session-*` that exist, sorted.
pub(super) fn session_worktrees(layout: &Layout) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(layout.worktrees_dir())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name().to_string_lossy().starts_with("session-")
                && e.file_type().is_ok_and(|t| t.is_dir())
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// Every session worktree of the plan, then `worktree prune`, then every
/// `trek/SLUG/*` branch; the worktrees directory goes when empty.
pub(super) fn sweep(layout: &Layout) -> Result<Swept, Fail> {
    let mut swept = Swept::default();
    for wt in session_worktrees(layout) {
        swept.remove_worktree(&layout.root, &wt)?;
    }
    git_ok(&layout.root, &["worktree", "prune"])?;
    for branch in session_branches(layout)? {
        swept.remove_branch(&layout.root, &branch)?;
    }
    let _ = std::fs::remove_dir(layout.worktrees_dir());
    Ok(swept)
}
