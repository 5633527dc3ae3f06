//! `wave preflight`: Phase 2.55's four checks before a wave is prepared —
//! a clean tree, the plan reaching every worktree, no scope-fence overlap
//! in a wave, and no stale worktrees or merged branches of this plan —
//! after the list of what the run will do to the repository and the
//! remote. The plan commit Check 2 makes is named with its hash.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::code;
use super::context::{git, git_ok};
use super::tidy::{Kept, sweep};
use crate::exit;
use crate::orders::{Fail, Layout};
use crate::plan::PreflightRow;
use crate::problem::Problem;

/// Where the plan stands with git (Check 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Tracking {
    Tracked,
    Untracked,
    Ignored,
}

#[derive(Debug, Default, Serialize)]
pub(super) struct PreflightReply {
    pub ok: bool,
    pub main_checkout: Option<String>,
    pub plan: Option<String>,
    /// `git status --porcelain` entries outside the session state.
    pub dirty: Vec<String>,
    pub plan_tracking: Option<Tracking>,
    /// The untracked plan was committed (Check 2).
    pub plan_committed: bool,
    /// That commit: its hash and message.
    pub plan_commit: Option<PlanCommit>,
    /// What the run will do to the repository and the remote, one line
    /// each (after a heading), said before any of it is done.
    pub effects: Vec<String>,
    /// What the wave collects will do about pushes.
    pub pushes: Option<super::push::Pushes>,
    /// Check 3's findings, one line each.
    pub overlaps: Vec<String>,
    pub removed_worktrees: Vec<String>,
    pub removed_branches: Vec<String>,
    pub kept: Vec<Kept>,
    /// On a dirty tree: the progress file set to `stopped`, and the
    /// handover pair's state file, when written.
    pub stopped_progress: Option<String>,
    pub handover: Option<String>,
    pub problem: Option<Problem>,
}

/// A commit the pre-flight made.
#[derive(Debug, Clone, Serialize)]
pub(super) struct PlanCommit {
    pub sha: String,
    pub message: String,
}

const SESSIONS_EXCLUDE: &str = ":(top,exclude).claude/trekplan-sessions/";

/// The status entries of the main checkout, the session state left out;
/// the plan itself too when it is untracked (Check 2 commits it).
fn dirty_entries(layout: &Layout) -> Result<Vec<String>, Fail> {
    let out = git_ok(
        &layout.root,
        &[
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=all",
            "--",
            ":(top)",
            SESSIONS_EXCLUDE,
        ],
    )?;
    let untracked_plan = format!("?? {}", layout.plan_rel);
    let mut entries = Vec::new();
    let mut fields = out.fields().into_iter();
    while let Some(entry) = fields.next() {
        // A rename or copy is followed by its source path.
        if entry.starts_with('R') || entry.starts_with('C') {
            fields.next();
        }
        if entry != untracked_plan {
            entries.push(entry);
        }
    }
    Ok(entries)
}

/// Check 1's refusal of `dirty`, the status entries [`dirty_entries`]
/// found; `None` when there are none.
fn dirty_problem(layout: &Layout, dirty: &[String]) -> Option<Problem> {
    (!dirty.is_empty()).then(|| {
        Problem::new(
            code::WAVE_DIRTY_TREE,
            format!(
                "working tree is not clean. Parallel execution requires a clean git state; uncommitted changes are invisible to worktrees and will be lost during merge. Untracked/modified files: {}. Commit or stash your changes, then re-run. To run sequentially instead: /trekexecute --fg {}",
                dirty.join(", "),
                layout.plan_rel
            ),
        )
    })
}

/// Check 1 as a row: the words `run` stops with, when the tree is dirty.
fn clean_row(layout: &Layout) -> PreflightRow {
    use crate::plan::PreflightOutcome::{Fail as No, Pass};
    const CHECK: &str = "clean working tree";
    match dirty_entries(layout).map(|dirty| dirty_problem(layout, &dirty)) {
        Ok(Some(p)) => PreflightRow::new(CHECK, No, format!("Error: {}", p.message)),
        Ok(None) => PreflightRow::new(
            CHECK,
            Pass,
            "nothing uncommitted outside Voyage's session state",
        ),
        Err((_, p)) => PreflightRow::new(CHECK, No, p.message),
    }
}

/// Check 1 before anything of a run is made (its run branch first of
/// all): its row; on a dirty tree the run's progress file and handover
/// say `stopped`, as `run`'s own Check 1 leaves them.
pub(super) fn clean_first(layout: &Layout, project: Option<&Path>) -> PreflightRow {
    let row = clean_row(layout);
    if row.outcome == crate::plan::PreflightOutcome::Fail {
        record_stop(layout, project, &mut PreflightReply::default());
    }
    row
}

/// Checks 1 and 2 and the pushes as `run` will find them, changing
/// nothing: the rows a dry-run shows. Check 3 is the plan's own error
/// (PLAN_STRATEGY_SCOPE_OVERLAP); Check 4 removes what it finds, so it is
/// named, not made. A wave awaiting its sessions is collected instead.
pub(super) fn preview(
    layout: &Layout,
    plan: &crate::plan::Plan,
    no_push: bool,
) -> Vec<PreflightRow> {
    use crate::plan::PreflightOutcome::{Fail as No, Pass, Warn};
    let failed = |check: &str, (_, p): Fail| PreflightRow::new(check, No, p.message);
    let wave_file = layout.wave_file();
    if wave_file.exists() {
        return vec![PreflightRow::new(
            "wave in flight",
            Pass,
            format!(
                "{} exists: the start collects that wave (no pre-flight until it is merged)",
                wave_file.display()
            ),
        )];
    }
    let mut rows = vec![clean_row(layout)];
    rows.push(match tracking(layout) {
        Ok(t) => PreflightRow::new(
            "plan committed",
            if t == Tracking::Untracked { Warn } else { Pass },
            super::effects::plan_commit(t, &layout.plan_rel),
        ),
        Err(e) => failed("plan committed", e),
    });
    let branches: Vec<String> = plan
        .strategy
        .iter()
        .flat_map(|s| &s.sessions)
        .map(|s| layout.branch(s.number))
        .collect();
    rows.push(
        match super::push::Choice::of(layout, no_push).and_then(|c| c.pushes(&layout.root)) {
            Ok(pushes) => PreflightRow::new("push to a remote", Pass, pushes.line(&branches)),
            Err(e) => failed("push to a remote", e),
        },
    );
    rows.push(PreflightRow::new(
        "stale worktrees",
        Pass,
        "an earlier run's merged session worktrees and branches are removed; any holding work is kept and stops the start",
    ));
    rows
}

/// Check 2's probe: tracked, untracked or ignored. A failed `check-ignore`
/// is fatal.
pub(super) fn tracking(layout: &Layout) -> Result<Tracking, Fail> {
    let root = &layout.root;
    let plan = layout.plan_rel.as_str();
    if git(root, &["ls-files", "--error-unmatch", "--", plan])?.ok() {
        return Ok(Tracking::Tracked);
    }
    let probe = git(root, &["check-ignore", "-q", "--", plan])?;
    match probe.code {
        0 => Ok(Tracking::Ignored),
        1 => Ok(Tracking::Untracked),
        _ => Err((
            exit::CANNOT_CHECK,
            Problem::new(
                code::WAVE_IGNORE_PROBE,
                format!(
                    "git check-ignore failed on {plan} - a fatal probe is not an answer about ignore status: {}",
                    probe.why()
                ),
            ),
        )),
    }
}

/// On a dirty tree the run stops: its progress file says `stopped` and,
/// for a project, the handover pair says so too.
fn record_stop(layout: &Layout, project: Option<&Path>, reply: &mut PreflightReply) {
    let progress: Option<PathBuf> = match project {
        Some(dir) => crate::progress::progress_path(None, Some(dir), None),
        None => crate::progress::progress_path(Some(&layout.plan_path()), None, None),
    };
    if let Some(path) = progress.filter(|p| p.is_file()) {
        match crate::progress::edit(&path, |p| p.status = crate::progress::RunStatus::Stopped) {
            Ok(()) => reply.stopped_progress = Some(path.display().to_string()),
            Err(p) => crate::problem::eprint_line(&format!(
                "warning: {} not set to stopped: {}",
                path.display(),
                p.message
            )),
        }
    }
    if let Some(dir) = project {
        match crate::state::write_handover(dir, "Continue", "stopped") {
            Ok(_) => {
                reply.handover = Some(dir.join(".session-state.local.json").display().to_string());
            }
            Err((_, p)) => crate::problem::eprint_line(&format!(
                "warning: handover pair not written in {}: {}",
                dir.display(),
                p.message
            )),
        }
    }
}

/// Runs the four checks; the first that fails stops the rest.
/// `no_push`: the call's `--no-push`.
pub(super) fn run(
    layout: &Layout,
    project: Option<&Path>,
    no_push: bool,
    branch: &super::effects::RunBranch,
    reply: &mut PreflightReply,
) -> Result<(), Fail> {
    reply.main_checkout = Some(layout.root.display().to_string());
    reply.plan = Some(layout.plan_rel.clone());
    let wave_file = layout.wave_file();
    if wave_file.exists() {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::WAVE_IN_FLIGHT,
                format!(
                    "{} exists - a wave is awaiting its sessions: collect it (wave collect) instead; pre-flight and stale-worktree cleanup refused",
                    wave_file.display()
                ),
            ),
        ));
    }
    // Check 1.
    reply.dirty = dirty_entries(layout)?;
    if let Some(refused) = dirty_problem(layout, &reply.dirty) {
        record_stop(layout, project, reply);
        return Err((exit::NOT_OK, refused));
    }
    // Check 2's probe; the commit waits for the other checks.
    let tracked = tracking(layout)?;
    reply.plan_tracking = Some(tracked);
    let (plan, _) = layout.load_plan()?;
    let pushes = super::push::Choice::of(layout, no_push)?.pushes(&layout.root)?;
    reply.effects = super::effects::multi_session(layout, &plan, tracked, &pushes, branch);
    reply.pushes = Some(pushes);
    // Check 3.
    reply.overlaps = plan
        .problems
        .iter()
        .filter(|p| p.code == crate::plan::code::PLAN_STRATEGY_SCOPE_OVERLAP)
        .map(|p| p.message.clone())
        .collect();
    if !reply.overlaps.is_empty() {
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::WAVE_SCOPE_OVERLAP,
                format!(
                    "scope fence overlap detected: {}. These sessions cannot safely run in parallel. Fix the Execution Strategy in the plan, or use --fg for sequential execution.",
                    reply.overlaps.join("; ")
                ),
            ),
        ));
    }
    // Check 4.
    let swept = sweep(layout)?;
    reply.removed_worktrees = swept.removed_worktrees;
    reply.removed_branches = swept.removed_branches;
    reply.kept = swept.kept;
    if !reply.kept.is_empty() {
        let names: Vec<&str> = reply.kept.iter().map(|k| k.name.as_str()).collect();
        return Err((
            exit::NOT_OK,
            Problem::new(
                code::WAVE_KEPT,
                format!(
                    "earlier session work kept (changes or unmerged commits): {}; deal with each, then re-run",
                    names.join(", ")
                ),
            ),
        ));
    }
    // Check 2's commit: never `add -f`; an ignored plan is copied instead.
    if tracked == Tracking::Untracked {
        let plan = layout.plan_rel.as_str();
        git_ok(&layout.root, &["add", "--", plan])
            .map_err(|(c, p)| (c, Problem::new(code::WAVE_PLAN_COMMIT, p.message)))?;
        let message = super::effects::PLAN_COMMIT;
        git_ok(&layout.root, &["commit", "-q", "-m", message, "--", plan])
            .map_err(|(c, p)| (c, Problem::new(code::WAVE_PLAN_COMMIT, p.message)))?;
        reply.plan_committed = true;
        let sha = git_ok(&layout.root, &["rev-parse", "HEAD"])?;
        reply.plan_commit = Some(PlanCommit {
            sha: sha.text().trim().to_owned(),
            message: message.to_owned(),
        });
    }
    Ok(())
}

/// The text report.
pub(super) fn render(reply: &PreflightReply) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    for line in &reply.effects {
        let _ = writeln!(t, "{line}");
    }
    if let Some(tracking) = reply.plan_tracking {
        let line = match (tracking, &reply.plan_commit) {
            (Tracking::Tracked, _) => "Plan file already tracked.".to_owned(),
            (Tracking::Untracked, Some(c)) => format!(
                "Plan file committed for worktree visibility: {} \"{}\"",
                c.sha.get(..12).unwrap_or(&c.sha),
                c.message
            ),
            (Tracking::Untracked, None) => {
                "Plan file is untracked; it is committed once the other checks pass.".to_owned()
            }
            (Tracking::Ignored, _) => {
                "Plan file is gitignored - not forced into history. wave prepare copies it into each worktree.".to_owned()
            }
        };
        let _ = writeln!(t, "{line}");
    }
    if !reply.removed_worktrees.is_empty() || !reply.removed_branches.is_empty() {
        let _ = writeln!(
            t,
            "Cleaned stale worktrees and merged branches from a previous run: {}",
            reply
                .removed_worktrees
                .iter()
                .chain(&reply.removed_branches)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for k in &reply.kept {
        let _ = writeln!(t, "KEPT {} {}: {}", k.kind, k.name, k.what_to_do);
    }
    if reply.ok {
        let _ = writeln!(
            t,
            "Pre-flight: PASS (clean tree, plan reaches worktrees, no overlaps, no stale worktrees)"
        );
    }
    t
}
