//! `wave`'s command line: each subcommand's flags, its run and its text or
//! `--json` reply.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::Target;
use super::ops;

/// Prepare, collect and clean up the waves of a multi-session run.
///
/// Run from the main checkout (a linked worktree, such as a session's, is
/// refused with exit 1, naming the main checkout). --plan is relative to the
/// main checkout or absolute inside it; the session directory is
/// `.claude/trekplan-sessions/SLUG` there (SLUG: the plan's file name
/// without its extension). Nothing is ever forced: a worktree with changes
/// or an unmerged branch is kept and listed with what you can do.
///
/// A whole run, from the main checkout:
///
///   voyage-helper wave preflight --plan .claude/plans/split.md
///   voyage-helper wave prepare --plan .claude/plans/split.md --wave 1
///   # open each session where its order says, give it the starter line
///   voyage-helper wave collect --plan .claude/plans/split.md
///   voyage-helper wave prepare --plan .claude/plans/split.md   # next wave
///   …
///   voyage-helper wave report --plan .claude/plans/split.md
///
/// Exit status: 0 done, 1 checked and stopped (the message says why and what
/// to do), 2 could not check (no repository, git failed, unreadable plan).
#[derive(Debug, clap::Subcommand)]
#[command(verbatim_doc_comment)]
pub(crate) enum Command {
    /// Phase 2.55: clean tree, plan reaches worktrees, no overlap, no stale worktrees.
    ///
    /// Check 1: `git status --porcelain` of the whole repository minus
    /// `.claude/trekplan-sessions/` must be empty (an untracked plan aside);
    /// otherwise the run's progress file is set to `stopped` and, with
    /// --project, the handover pair is written. Check 2: a tracked plan is
    /// fine, an untracked one is committed (`chore: track plan file for
    /// parallel execution`), an ignored one is never forced (wave prepare
    /// copies it); a failing `git check-ignore` is fatal (exit 2). Check 3:
    /// two sessions of a wave touching the same path. Check 4: this plan's
    /// old session worktrees removed with `git worktree remove` and merged
    /// `trek/SLUG/*` branches with `git branch -d`; what git refuses is kept
    /// and the check fails. Refused while wave.json exists.
    Preflight(PreflightArgs),
    /// Phase 2.6 Steps 1-2: a worktree and branch per session, files copied, orders written.
    ///
    /// Refuses a branch `trek/SLUG/session-N` or worktree of the wave that
    /// already exists (neither reused nor deleted). Each session gets
    /// `git worktree add -b trek/SLUG/session-N WORKTREES/session-N HEAD`;
    /// the plan, and the project's brief.md, plan.md and research/ (the
    /// plan's directory, or --project), are copied into each worktree at the
    /// same relative path. A failed `worktree add` removes, without force,
    /// only what this call created. Without --wave: the lowest wave not yet
    /// merged.
    Prepare(PrepareArgs),
    /// Phase 2.6 Step 3: check the sessions, archive, merge, record, clean up.
    ///
    /// Any session running: stop, touching nothing. Else the progress files
    /// are archived; any session ended badly: the wave failed, nothing is
    /// merged, cleanup runs. All completed: the main tree must be clean, then
    /// per session `git push origin BRANCH` and `git merge --no-ff`; each
    /// push is named with its result (a failure, with git's reason, does not
    /// stop the wave). No push with --no-push, VOYAGE_NO_PUSH=1, a run
    /// prepared with --no-push, or no remote `origin` (one line says
    /// which). A conflict is aborted, its files listed, later sessions not
    /// merged, cleanup runs; a refused merge keeps wave.json.
    /// After all merged: the wave is recorded, wave.json removed, each
    /// worktree and branch removed without force, the next wave printed
    /// (`none` when every wave is merged).
    Collect(CollectArgs),
    /// Phase 2.6 Step 5: remove clean session worktrees and merged session branches.
    ///
    /// Never while wave.json exists (exit 1). Exit 1 also when something is
    /// kept because it holds work.
    Cleanup(PlainArgs),
    /// Phase 2.6 Step 6: the per-session results from the archived progress copies.
    Report(PlainArgs),
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PreflightArgs {
    #[command(flatten)]
    pub common: PlainArgs,
    /// The project directory (`--project` runs): its progress.json is set to
    /// stopped and its handover pair written when the tree is dirty.
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// Show the run's pushes as off, as `wave prepare --no-push` makes
    /// them (give it there too, or set VOYAGE_NO_PUSH=1).
    #[arg(long)]
    pub no_push: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PrepareArgs {
    #[command(flatten)]
    pub common: PlainArgs,
    /// The wave to prepare (default: the lowest not yet merged).
    #[arg(long)]
    pub wave: Option<u32>,
    /// The project directory whose brief.md, plan.md and research/ each
    /// worktree gets (default: the plan's directory).
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// Turn Hard rule 19's pushes off for the rest of this run: kept in
    /// wave.json (then merged-waves.json), so every later collect and
    /// prepare of the run honours it. VOYAGE_NO_PUSH=1 does the same.
    #[arg(long)]
    pub no_push: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct CollectArgs {
    #[command(flatten)]
    pub common: PlainArgs,
    /// The wave to collect (default: the one wave.json names).
    #[arg(long)]
    pub wave: Option<u32>,
    /// Push nothing (Hard rule 19's safety copies); VOYAGE_NO_PUSH=1 does
    /// the same. A run prepared with --no-push pushes nothing without it.
    #[arg(long)]
    pub no_push: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct PlainArgs {
    /// The plan, relative to the main checkout or absolute inside it.
    #[arg(long)]
    pub plan: PathBuf,
    /// The plan's session directory (default .claude/trekplan-sessions/SLUG).
    #[arg(long)]
    pub session_dir: Option<PathBuf>,
    /// Print the reply as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The plan a call names, from the current directory.
fn target<'a>(plan: &'a Path, session_dir: &'a Option<PathBuf>) -> Target<'a> {
    Target {
        plan,
        session_dir: session_dir.as_deref(),
        here: None,
    }
}

impl Command {
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Preflight(a) => ops::preflight(
                &target(&a.common.plan, &a.common.session_dir),
                a.project.as_deref(),
                a.no_push,
                &super::effects::RunBranch::FromCheckout,
            )
            .print(a.common.json, out),
            Self::Prepare(a) => ops::prepare(
                &target(&a.common.plan, &a.common.session_dir),
                a.wave,
                a.project.as_deref(),
                a.no_push,
            )
            .print(a.common.json, out),
            Self::Collect(a) => ops::collect(
                &target(&a.common.plan, &a.common.session_dir),
                a.wave,
                a.no_push,
            )
            .print(a.common.json, out),
            Self::Cleanup(a) => ops::cleanup(&target(&a.plan, &a.session_dir)).print(a.json, out),
            Self::Report(a) => {
                ops::sessions_report(&target(&a.plan, &a.session_dir)).print(a.json, out)
            }
        }
    }
}
