//! What a run will do to the repository and the remote, said before it
//! does it (issue 40): `trek start --dry-run` and the multi-session
//! pre-flight list it. On the multi-session path: the run branch, the plan
//! commit, each wave's worktrees and session branches, and Hard rule 19's
//! pushes (or why there are none); for a single session: the run branch
//! and the checkpoint commits, and no pushes.

use std::path::Path;

use super::context::{self, Target};
use super::preflight::{Tracking, tracking};
use super::push::{Choice, Pushes};
use crate::orders::{self, Fail, Layout};
use crate::plan::{Plan, waves};

/// The message of Check 2's commit of an untracked plan.
pub(super) const PLAN_COMMIT: &str = "chore: track plan file for parallel execution";

/// The heading above the list.
const HEADING: &str = "What this run does to the repository and the remote:";

/// Where the run's commits go, as the caller knows it: `trek start` has
/// made the run branch (or runs in place) before the pre-flight; a dry-run
/// or a `wave preflight` of its own tells what a start from the checkout
/// would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RunBranch {
    /// A start from the branch checked out makes `trek/SLUG/run` from it.
    FromCheckout,
    /// The run branch is made: `run`, from `start`.
    Made { run: String, start: String },
    /// No run branch (`--in-place`, a detached HEAD, an unborn branch).
    InPlace,
}

/// The branch checked out, as the list names it.
fn checked_out(layout: &Layout) -> String {
    match orders::current_branch(&layout.root) {
        Ok(b) if b != "HEAD" => b,
        _ => "the detached HEAD".to_owned(),
    }
}

/// `what`: what lands on the branch ("every wave is merged").
fn run_branch_line(layout: &Layout, branch: &RunBranch, what: &str) -> String {
    let (run, from) = match branch {
        RunBranch::InPlace => {
            return format!(
                "- run branch: none (in place): {what} on {}, and the main-merge gate merges nothing",
                checked_out(layout)
            );
        }
        RunBranch::FromCheckout => (layout.run_branch(), checked_out(layout)),
        RunBranch::Made { run, start } => (run.clone(), start.clone()),
    };
    format!(
        "- run branch: {run}, created from {from}; {what} there, and the main-merge gate merges it into {from}"
    )
}

/// What Check 2 does about the plan at `plan_rel`, as the list and the
/// dry-run's pre-flight row say it.
pub(super) fn plan_commit(tracked: Tracking, plan_rel: &str) -> String {
    match tracked {
        Tracking::Untracked => format!(
            "plan commit: {plan_rel} is untracked, so it is committed (\"{PLAN_COMMIT}\") for every worktree to have it"
        ),
        Tracking::Tracked => format!("plan commit: none ({plan_rel} is tracked)"),
        Tracking::Ignored => format!(
            "plan commit: none ({plan_rel} is gitignored and never forced in: each worktree gets a copy)"
        ),
    }
}

/// The multi-session list: `tracked` is Check 2's probe, `pushes` what the
/// collects will do.
pub(super) fn multi_session(
    layout: &Layout,
    plan: &Plan,
    tracked: Tracking,
    pushes: &Pushes,
    branch: &RunBranch,
) -> Vec<String> {
    let mut lines = vec![
        HEADING.to_owned(),
        run_branch_line(layout, branch, "every wave is merged"),
    ];
    lines.push(format!("- {}", plan_commit(tracked, &layout.plan_rel)));
    // Only the waves still to run: a run resumed after wave 1 lists from 2.
    let first = orders::next_wave(layout).ok().flatten().unwrap_or(0);
    let mut branches = Vec::new();
    let worktrees = layout
        .worktrees_dir()
        .strip_prefix(&layout.root)
        .map_or_else(|_| layout.worktrees_dir(), Path::to_path_buf)
        .display()
        .to_string();
    for wave in plan
        .strategy
        .as_ref()
        .map(waves)
        .unwrap_or_default()
        .into_iter()
        .filter(|w| w.wave >= first)
    {
        let names: Vec<String> = wave.sessions.iter().map(|n| layout.branch(*n)).collect();
        let dirs: Vec<String> = wave
            .sessions
            .iter()
            .map(|n| format!("session-{n}"))
            .collect();
        lines.push(format!(
            "- wave {}: worktrees {} in {worktrees}/, on new branches {}; once collected, each branch is merged (merge --no-ff), then its worktree and branch are removed",
            wave.wave,
            dirs.join(", "),
            names.join(", ")
        ));
        branches.extend(names);
    }
    lines.push(format!("- {}", pushes.line(&branches)));
    lines
}

/// The single-session list: the run branch, one checkpoint commit per
/// step, no pushes.
fn single_session(layout: &Layout, plan: &Plan, branch: &RunBranch) -> Vec<String> {
    vec![
        HEADING.to_owned(),
        run_branch_line(layout, branch, "every step's checkpoint commit is made"),
        format!(
            "- checkpoint commits: one per step that passes ({} steps), each with its step's Checkpoint message",
            plan.steps.len()
        ),
        "- pushes: none (a single-session run pushes nothing)".to_owned(),
    ]
}

/// The list `trek start --dry-run` prints for `plan`, from `here`, for
/// the path a plain start would take (the brief's effort aside); `no_push`
/// is its `--no-push`, `branch` its `--in-place` or not. What cannot be
/// found out is said in one line.
pub(crate) fn for_dry_run(
    plan_path: &Path,
    here: &Path,
    no_push: bool,
    branch: &RunBranch,
) -> Vec<String> {
    let found = || -> Result<Vec<String>, Fail> {
        // The main checkout's layout; a single session may also run in a
        // linked worktree, whose own top then holds the plan.
        let (layout, linked) = match context::layout(&Target::plan_from(plan_path, here)) {
            Ok(l) => (l, None),
            Err(e) => match crate::git::toplevel(here) {
                Some(top) => (
                    Layout::new(&top, plan_path, None).map_err(|_| e.clone())?,
                    Some(e),
                ),
                None => return Err(e),
            },
        };
        let (plan, _) = layout.load_plan()?;
        let how = crate::plan::Invocation {
            fg: false,
            mode: "execute",
            effort: None,
        };
        if crate::plan::decide(&plan, &how).decision == crate::plan::StrategyDecision::Single {
            return Ok(single_session(&layout, &plan, branch));
        }
        if let Some(refused) = linked {
            return Err(refused);
        }
        let pushes = Choice::of(&layout, no_push)?.pushes(&layout.root)?;
        Ok(multi_session(
            &layout,
            &plan,
            tracking(&layout)?,
            &pushes,
            branch,
        ))
    };
    found().unwrap_or_else(|(_, problem)| {
        vec![format!("{HEADING} not known here: {}", problem.message)]
    })
}
