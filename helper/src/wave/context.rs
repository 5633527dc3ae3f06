//! Finding the main checkout and the plan's layout from anywhere in the
//! repository (seed Phase 2.5 and Phase 2.6 Step 0), refusing a linked
//! worktree, and the git calls the wave commands share: each through
//! [`crate::git::run`].

use std::path::{Path, PathBuf};

use super::code;
use crate::exit;
use crate::orders::{Fail, Layout};
use crate::problem::Problem;

fn git_fail(what: &str, why: impl std::fmt::Display) -> Fail {
    (
        exit::CANNOT_CHECK,
        Problem::new(code::WAVE_GIT, format!("git {what}: {why}")),
    )
}

/// Runs git in `dir`; an error that kept it from running is exit 2.
pub(super) fn git(dir: &Path, args: &[&str]) -> Result<crate::git::Output, Fail> {
    crate::git::run(dir, args).map_err(|e| git_fail(args.first().copied().unwrap_or(""), e))
}

/// Runs git in `dir`; a non-zero exit is exit 2 too.
pub(super) fn git_ok(dir: &Path, args: &[&str]) -> Result<crate::git::Output, Fail> {
    let out = git(dir, args)?;
    if out.ok() {
        Ok(out)
    } else {
        Err(git_fail(args.first().copied().unwrap_or(""), out.why()))
    }
}

/// The main checkout of the repository holding `here`. A linked worktree is
/// exit 1, naming the main checkout.
pub(super) fn main_checkout(here: &Path) -> Result<PathBuf, Fail> {
    let dirs = crate::git::run(here, &["rev-parse", "--git-dir", "--git-common-dir"])
        .map_err(|e| git_fail("rev-parse", e))?;
    if !dirs.ok() {
        return Err((
            exit::CANNOT_CHECK,
            Problem::new(
                code::WAVE_NOT_A_REPO,
                format!(
                    "{} is not inside a git work tree: {}",
                    here.display(),
                    dirs.why()
                ),
            ),
        ));
    }
    let text = dirs.text();
    let mut lines = text.lines();
    let resolve = |line: Option<&str>| -> Result<PathBuf, Fail> {
        let line = line.ok_or_else(|| git_fail("rev-parse", "printed too little"))?;
        here.join(line)
            .canonicalize()
            .map_err(|e| git_fail("rev-parse", format!("{line}: {e}")))
    };
    let git_dir = resolve(lines.next())?;
    let common = resolve(lines.next())?;
    let list = git_ok(here, &["worktree", "list", "--porcelain", "-z"])?;
    let first = list
        .fields()
        .into_iter()
        .find_map(|f| f.strip_prefix("worktree ").map(PathBuf::from))
        .ok_or_else(|| git_fail("worktree list", "named no worktree"))?;
    let main = first.canonicalize().unwrap_or(first);
    if git_dir != common {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::WAVE_LINKED_WORKTREE,
                format!(
                    "this is a linked worktree. Run this from the main checkout {}.",
                    main.display()
                ),
            ),
        ));
    }
    Ok(main)
}

/// Which plan's waves an operation works on, and from where.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    /// The plan, relative to the main checkout or absolute inside it.
    pub plan: &'a Path,
    /// Where its orders live (`--session-dir`; default: beside the plan).
    pub session_dir: Option<&'a Path>,
    /// The directory the call is made from; the current directory when
    /// `None` (the command line), given by `trek`, whose phases take it.
    pub here: Option<&'a Path>,
}

impl<'a> Target<'a> {
    /// `plan`'s waves, with its orders in their default place, from `here`.
    pub(crate) fn plan_from(plan: &'a Path, here: &'a Path) -> Self {
        Self {
            plan,
            session_dir: None,
            here: Some(here),
        }
    }
}

/// The layout of the target's plan, found from the directory it names.
pub(super) fn layout(target: &Target<'_>) -> Result<Layout, Fail> {
    let here = match target.here {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().map_err(|e| {
            (
                exit::CANNOT_CHECK,
                Problem::new(code::WAVE_NOT_A_REPO, format!("no current directory: {e}")),
            )
        })?,
    };
    let root = main_checkout(&here)?;
    Layout::new(&root, target.plan, target.session_dir)
}

/// The branches `refs/heads/trek/SLUG/…` of this plan, short names, the
/// run branch aside: it holds the run itself, and only the main-merge
/// gate's confirm (or the user) ends it.
pub(super) fn session_branches(layout: &Layout) -> Result<Vec<String>, Fail> {
    let prefix = layout.branch_prefix();
    let run = layout.run_branch();
    let out = git_ok(
        &layout.root,
        &["for-each-ref", "--format=%(refname)%00", &prefix],
    )?;
    Ok(out
        .fields()
        .into_iter()
        .map(|f| f.trim_start_matches('\n').to_owned())
        .filter_map(|f| f.strip_prefix("refs/heads/").map(str::to_owned))
        .filter(|b| *b != run)
        .collect())
}

/// Whether `refs/heads/BRANCH` exists.
pub(super) fn branch_exists(root: &Path, branch: &str) -> Result<bool, Fail> {
    let name = format!("refs/heads/{branch}");
    Ok(git(root, &["rev-parse", "-q", "--verify", &name])?.ok())
}
