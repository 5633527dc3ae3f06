//! The git side of a failed step (trekexecute Sub-step E): `progress
//! revert-step N` undoes that step's changes, `progress escalate-commit N`
//! commits the completed steps' work before an escalation stop.
//!
//! Both work from the plan's `Files:` and the progress file's statuses, and
//! touch nothing else:
//!
//! - **revert-step** restores only step N's files. A file that also
//!   belongs to a completed step is left as it is (a restore from HEAD
//!   could throw away what that step has not committed) while the step's
//!   other files are still reverted: the files that are step N's alone
//!   hold nothing anyone else needs, and leaving them too would leave more
//!   of the failed attempt behind than necessary. Every file left is named
//!   with its reason (`left`) in the reply and in the step's record, and
//!   the reply is then a refusal (`PROGRESS_SHARED_FILE`, exit 1), so that
//!   no caller can read a partial revert as a whole one. Step N itself
//!   completed is refused, changing nothing. A
//!   path in HEAD is restored from HEAD, index and working tree
//!   (`git restore --source=HEAD --staged --worktree`); a path marked
//!   `(new)` that HEAD does not have is unstaged and removed
//!   (`git rm --cached`, `git clean -fd`), and each directory above it
//!   that the removal left empty is removed too (never the repository's
//!   root, never a directory that still holds anything); any other path
//!   HEAD does not have is kept and named. The step's record keeps what
//!   was restored and removed (`reverted`), so the session audit does not
//!   take the helper's own revert for drift.
//! - **escalate-commit** stages only the `Files:` of completed steps (never
//!   `git add -A`, which could take secrets, binaries or unrelated work) and
//!   commits those paths alone (`git commit --only`), so whatever else was
//!   staged stays staged and out of the commit, with the message
//!   `wip: trekexecute stopped at step N — escalation needed`.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::code;
use super::model::Progress;
use crate::git;
use crate::plan::Plan;
use crate::problem::Problem;

/// What `revert-step` and `escalate-commit` did (schema
/// `progress-git-reply`).
#[derive(Debug, Clone, Default, Serialize)]
pub(super) struct GitReply {
    pub ok: bool,
    pub action: &'static str,
    /// The progress file.
    pub path: String,
    pub step: u32,
    /// revert-step: paths restored from HEAD.
    pub restored: Vec<String>,
    /// revert-step: new paths removed.
    pub removed: Vec<String>,
    /// revert-step: paths HEAD does not have and not marked new, left as
    /// they are.
    pub kept: Vec<String>,
    /// revert-step: directories the removal left empty, removed, deepest
    /// first.
    pub removed_dirs: Vec<String>,
    /// revert-step: the step's Files not undone, each with why (shared
    /// with a completed step, not in HEAD nor marked new, git failed).
    pub left: Vec<Left>,
    /// revert-step: the paths left because a completed step shares them,
    /// as `PATH (step K)`, for the refusal.
    #[serde(skip)]
    pub shared: Vec<String>,
    /// escalate-commit: the paths the commit holds.
    pub committed: Vec<String>,
    /// escalate-commit: the new commit, `null` when there was nothing to
    /// commit.
    pub commit: Option<String>,
    pub problem: Option<Problem>,
}

pub(super) use super::model::Left;

/// Why a Sub-step E action was refused: the exit code and the problem.
pub(super) type Refusal = (u8, Problem);

fn git_failed(what: &str, detail: &str) -> Refusal {
    (
        crate::exit::CANNOT_CHECK,
        Problem::new(code::PROGRESS_GIT_FAILED, format!("{what}: {detail}")),
    )
}

/// Runs git; a failure to start or a non-zero exit is a refusal. Every
/// path given is the plan's literal path, never a pattern: a file named
/// `*.txt` is that file, not every text file.
fn run(root: &Path, what: &str, args: &[&str]) -> Result<git::Output, Refusal> {
    let mut argv = vec!["--literal-pathspecs"];
    argv.extend_from_slice(args);
    match git::run(root, &argv) {
        Ok(out) if out.ok() => Ok(out),
        Ok(out) => Err(git_failed(what, &out.why())),
        Err(e) => Err(git_failed(what, &e.to_string())),
    }
}

/// A `Files:` path as git pathspecs and comparisons want it.
fn normal(path: &str) -> String {
    let p = path.trim().trim_start_matches("./");
    p.trim_end_matches('/').to_owned()
}

/// Whether `a` and `b` name the same path or one lies inside the other.
fn overlaps(a: &str, b: &str) -> bool {
    a == b
        || b.strip_prefix(a).is_some_and(|r| r.starts_with('/'))
        || a.strip_prefix(b).is_some_and(|r| r.starts_with('/'))
}

/// The steps the progress file records as completed (legacy `passed` too).
fn completed(progress: &Progress) -> Vec<u32> {
    progress
        .steps
        .iter()
        .filter(|(_, r)| r.status.is_completed())
        .map(|(k, _)| k.0)
        .collect()
}

/// `progress revert-step N`.
pub(super) fn revert(
    plan: &Plan,
    progress: &Progress,
    step: u32,
    root: &Path,
    reply: &mut GitReply,
) -> Result<(), Refusal> {
    let Some(target) = plan.step(step) else {
        return Err((
            crate::exit::NOT_OK,
            Problem::new(
                code::PROGRESS_NO_SUCH_STEP,
                format!("the plan has no step {step}"),
            ),
        ));
    };
    let done = completed(progress);
    if done.contains(&step) {
        return Err((
            crate::exit::NOT_OK,
            Problem::new(
                code::PROGRESS_REVERT_COMPLETED,
                format!("step {step} is completed; its work is committed and is not reverted"),
            ),
        ));
    }
    let mine: Vec<(String, bool)> = target
        .files
        .iter()
        .map(|f| (normal(&f.path), f.new))
        .filter(|(p, _)| !p.is_empty())
        .collect();
    // A file shared with a completed step is left; the rest is reverted.
    // A path outside the repository is never touched: it is not the
    // run's, whatever the plan says.
    let mut mine_alone = Vec::new();
    for (path, new) in mine {
        if !crate::plan::in_repository(&path) {
            reply.left.push(Left {
                path,
                reason: "outside the repository: a revert never touches it".into(),
            });
            continue;
        }
        let owners: Vec<String> = plan
            .steps
            .iter()
            .filter(|s| done.contains(&s.number))
            .filter(|s| s.files.iter().any(|f| overlaps(&path, &normal(&f.path))))
            .map(|s| s.number.to_string())
            .collect();
        if owners.is_empty() {
            mine_alone.push((path, new));
        } else {
            reply
                .shared
                .push(format!("{path} (step {})", owners.join(", ")));
            reply.left.push(Left {
                path,
                reason: format!(
                    "also in the Files of completed step {}: a restore from HEAD could lose what that step has not committed",
                    owners.join(", ")
                ),
            });
        }
    }
    let result = undo(root, &mine_alone, reply);
    if let Err((_, problem)) = &result {
        // What git did not get to is left as it is.
        for (path, _) in &mine_alone {
            let handled = reply.restored.contains(path)
                || reply.removed.contains(path)
                || reply.kept.contains(path);
            if !handled {
                reply.left.push(Left {
                    path: path.clone(),
                    reason: format!("not reverted: {}", problem.message),
                });
            }
        }
    }
    for path in &reply.kept {
        reply.left.push(Left {
            path: path.clone(),
            reason: "HEAD does not have it and the plan does not mark it (new): a person decides"
                .into(),
        });
    }
    result
}

/// The refusal a revert that left some of its step's Files shared with
/// completed steps ends with (after what it could revert is reverted).
pub(super) fn shared_refusal(step: u32, reply: &GitReply) -> Option<Refusal> {
    (!reply.shared.is_empty()).then(|| {
        (
            crate::exit::NOT_OK,
            Problem::new(
                code::PROGRESS_SHARED_FILE,
                format!(
                    "step {step} reverted only in part: not reverting {}, which completed steps share (a restore from HEAD could lose what they have not committed); see what is left with `git diff HEAD -- PATH`, drop it once checked with `git checkout HEAD -- PATH`",
                    reply.shared.join(", ")
                ),
            ),
        )
    })
}

/// Restores or removes `mine` (path, marked new), recording in `reply`
/// what is done as it is done, so a git failure halfway leaves a true
/// record of what was and was not undone.
fn undo(root: &Path, mine: &[(String, bool)], reply: &mut GitReply) -> Result<(), Refusal> {
    if mine.is_empty() {
        return Ok(());
    }
    let paths: Vec<&str> = mine.iter().map(|(p, _)| p.as_str()).collect();
    let has_head = git::run(root, &["rev-parse", "--verify", "-q", "HEAD"]).is_ok_and(|o| o.ok());
    let in_head: Vec<String> = if has_head {
        let mut args = vec!["ls-tree", "-r", "-z", "--name-only", "HEAD", "--"];
        args.extend(&paths);
        run(root, "git ls-tree", &args)?.fields()
    } else {
        Vec::new()
    };
    let (mut restore, mut remove) = (Vec::new(), Vec::new());
    for (path, new) in mine {
        if in_head.iter().any(|f| overlaps(path, f)) {
            restore.push(path.clone());
        } else if *new {
            remove.push(path.clone());
        } else {
            reply.kept.push(path.clone());
        }
    }
    if !restore.is_empty() {
        let mut args = vec!["restore", "--source=HEAD", "--staged", "--worktree", "--"];
        args.extend(restore.iter().map(String::as_str));
        run(root, "git restore", &args)?;
        reply.restored = restore;
    }
    if !remove.is_empty() {
        // Only a path that is there now can empty its directory.
        let present: Vec<&String> = remove
            .iter()
            .filter(|p| std::fs::symlink_metadata(root.join(p)).is_ok())
            .collect();
        let mut args = vec!["rm", "-r", "-q", "--cached", "--ignore-unmatch", "--"];
        args.extend(remove.iter().map(String::as_str));
        run(root, "git rm --cached", &args)?;
        let mut args = vec!["clean", "-f", "-d", "-q", "--"];
        args.extend(remove.iter().map(String::as_str));
        run(root, "git clean", &args)?;
        reply.removed_dirs = remove_emptied_dirs(root, &present);
        reply.removed = remove;
    }
    Ok(())
}

/// Removes the directories above each of `removed` (relative to `root`)
/// that are empty now, from the deepest up, stopping at the first that
/// still holds something and never removing `root` itself. Each of them
/// held the removed path before, so the revert is what emptied it; a
/// directory that still holds anything is never touched (`remove_dir`
/// refuses it). Paths with anything but plain names are left alone.
fn remove_emptied_dirs(root: &Path, removed: &[&String]) -> Vec<String> {
    use std::path::Component;
    let mut gone = Vec::new();
    for path in removed {
        let path = Path::new(path.as_str());
        if !path.components().all(|c| matches!(c, Component::Normal(_))) {
            continue;
        }
        let mut dir = path.parent();
        while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
            let full = root.join(d);
            let is_dir = std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir());
            if !is_dir || std::fs::remove_dir(&full).is_err() {
                break;
            }
            gone.push(d.to_string_lossy().into_owned());
            dir = d.parent();
        }
    }
    gone
}

/// The commit message of an escalation stop at `step`.
pub(super) fn escalation_message(step: u32) -> String {
    format!("wip: trekexecute stopped at step {step} — escalation needed")
}

/// `progress escalate-commit N`.
pub(super) fn escalate(
    plan: &Plan,
    progress: &Progress,
    step: u32,
    root: &Path,
    reply: &mut GitReply,
) -> Result<(), Refusal> {
    let done = completed(progress);
    let files: BTreeSet<String> = plan
        .steps
        .iter()
        .filter(|s| done.contains(&s.number))
        .flat_map(|s| s.files.iter().map(|f| normal(&f.path)))
        .filter(|p| !p.is_empty())
        .collect();
    if files.is_empty() {
        return Ok(());
    }
    // Only paths git can take: present in the tree, or tracked (a deletion
    // to stage). A pathspec matching nothing would fail the whole add.
    let all: Vec<&str> = files.iter().map(String::as_str).collect();
    let mut args = vec!["ls-files", "-z", "--cached", "--"];
    args.extend(&all);
    let tracked = run(root, "git ls-files", &args)?.fields();
    let stage: Vec<&str> = all
        .iter()
        .copied()
        .filter(|p| {
            std::fs::symlink_metadata(root.join(p)).is_ok()
                || tracked.iter().any(|t| overlaps(p, t))
        })
        .collect();
    if stage.is_empty() {
        return Ok(());
    }
    let mut args = vec!["add", "--"];
    args.extend(&stage);
    run(root, "git add", &args)?;
    let has_head = git::run(root, &["rev-parse", "--verify", "-q", "HEAD"]).is_ok_and(|o| o.ok());
    // Before the first commit everything in the index is new.
    let mut args = if has_head {
        vec!["diff", "--cached", "--name-only", "-z", "HEAD", "--"]
    } else {
        vec!["ls-files", "-z", "--cached", "--"]
    };
    args.extend(&stage);
    let changed = run(root, "git diff --cached", &args)?.fields();
    if changed.is_empty() {
        return Ok(());
    }
    let message = escalation_message(step);
    let mut args = vec!["commit", "-q", "-m", &message, "--only", "--"];
    args.extend(&stage);
    run(root, "git commit", &args)?;
    let head = run(root, "git rev-parse HEAD", &["rev-parse", "HEAD"])?;
    reply.commit = Some(head.text().trim().to_owned());
    reply.committed = changed;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_overlap_when_one_holds_the_other() {
        assert!(overlaps("src", "src/a.rs"));
        assert!(overlaps("src/a.rs", "src"));
        assert!(overlaps("a", "a"));
        assert!(!overlaps("src", "srcx/a.rs"));
        assert_eq!(normal("./src/http/"), "src/http");
    }
}
