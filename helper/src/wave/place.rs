//! Where a `--session N` run belongs: in session N's worktree (its open
//! directory) with the worktree's copy of the plan, as the wave's order and
//! its starter line say. A run started anywhere else (the main checkout,
//! another session's worktree, or the right directory given the main
//! checkout's plan path) would write its progress file where the wave's
//! collect never looks, and the wave would read as still running; it is
//! refused before anything is written, naming the right directory and the
//! exact line to give there.

use std::path::{Path, PathBuf};

use crate::orders::Layout;

/// The main checkout of the repository holding `here`: the first work
/// tree git lists.
fn main_checkout(here: &Path) -> Option<PathBuf> {
    let list = crate::git::run(here, &["worktree", "list", "--porcelain", "-z"]).ok()?;
    if !list.ok() {
        return None;
    }
    list.fields()
        .into_iter()
        .find_map(|f| f.strip_prefix("worktree ").map(PathBuf::from))
        .and_then(|p| p.canonicalize().ok())
}

/// `plan` relative to the top of the work tree holding it.
fn in_its_tree(plan: &Path) -> Option<PathBuf> {
    let real = plan.canonicalize().ok()?;
    let top = crate::git::toplevel(real.parent()?)?.canonicalize().ok()?;
    real.strip_prefix(&top).ok().map(Path::to_path_buf)
}

/// Why a `--session n` run of the plan at `plan` started in `here` is in
/// the wrong place, with the directory and the starter line that are
/// right; `None` when it is in place, or when there is nothing to hold it
/// to (no worktree of session `n` exists: a recovery spec, or a session
/// run by hand outside a wave).
pub(crate) fn session_misplaced(here: &Path, plan: &Path, n: u32) -> Option<String> {
    let main = main_checkout(here)?;
    let rel = in_its_tree(plan)?;
    let layout = Layout::new(&main, &rel, None).ok()?;
    let worktree = layout.worktree(n).canonicalize().ok()?;
    let (loaded, _) = layout.load_plan().ok()?;
    let session = loaded.strategy.as_ref()?.session(n)?;
    let open = layout.open_dir(session);
    let open = open.canonicalize().unwrap_or(open);
    let want_plan = worktree.join(&layout.plan_rel);
    let here_real = here.canonicalize().unwrap_or_else(|_| here.to_path_buf());
    let plan_real = plan.canonicalize().unwrap_or_else(|_| plan.to_path_buf());
    let wrong_dir = here_real != open;
    let wrong_plan = plan_real != want_plan;
    if !wrong_dir && !wrong_plan {
        return None;
    }
    let what = match (wrong_dir, wrong_plan) {
        (true, _) => format!("this run was started in {}", here_real.display()),
        _ => format!(
            "this run was given the plan {}, not the worktree's copy",
            plan_real.display()
        ),
    };
    Some(format!(
        "session {n} of this plan runs in its own worktree, and {what}; nothing was written. Open a Claude Code session in {} and give it exactly: {}",
        open.display(),
        session.starter(&layout.plan_rel),
    ))
}
