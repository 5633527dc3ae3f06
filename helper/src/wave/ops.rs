//! The `wave` operations, as the command line and `trek` both call them:
//! each takes the plan (and what else its subcommand takes) and returns
//! [`Done`]: the reply `--json` prints, the text printed without it, and
//! the refusal, if any. The replies' own types stay the area's.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::context::{self, Target};
use super::report;
use crate::exit;
use crate::orders::Fail;
use crate::problem::{self, Problem};

/// What one operation did.
#[derive(Debug)]
pub(crate) struct Done<R> {
    /// What `--json` prints.
    pub reply: R,
    /// What is printed without `--json`.
    pub text: String,
    /// The exit code and the problem of a refusal.
    pub failed: Option<Fail>,
}

impl<R: Serialize> Done<R> {
    /// The exit code.
    pub(crate) fn code(&self) -> u8 {
        self.failed.as_ref().map_or(exit::OK, |(code, _)| *code)
    }

    /// Prints the refusal's problem on stderr.
    pub(crate) fn eprint(&self) {
        if let Some((_, p)) = &self.failed {
            problem::eprint_all(std::slice::from_ref(p));
        }
    }

    /// Prints the problem on stderr and the reply (JSON) or the text;
    /// returns the exit code.
    pub(crate) fn print(&self, json: bool, out: &mut impl Write) -> io::Result<u8> {
        self.eprint();
        if json {
            serde_json::to_writer(&mut *out, &self.reply)?;
            writeln!(out)?;
        } else {
            out.write_all(self.text.as_bytes())?;
        }
        out.flush()?;
        Ok(self.code())
    }
}

/// The pre-flight's checks as `wave preflight` will find them for `plan`,
/// changing nothing (a dry-run's rows); a main checkout that cannot be
/// found is one failed row.
pub(crate) fn preflight_preview(
    target: &Target<'_>,
    plan: &crate::plan::Plan,
    no_push: bool,
) -> Vec<crate::plan::PreflightRow> {
    match context::layout(target) {
        Ok(layout) => super::preflight::preview(&layout, plan, no_push),
        Err((_, p)) => vec![crate::plan::PreflightRow::new(
            "main checkout",
            crate::plan::PreflightOutcome::Fail,
            p.message,
        )],
    }
}

/// Check 1 of the pre-flight, made by a multi-session start before it
/// makes anything (the run branch): the row, with the refusal's words on a
/// dirty tree (the progress file and handover then say `stopped`).
pub(crate) fn clean_tree_first(
    target: &Target<'_>,
    project: Option<&Path>,
) -> crate::plan::PreflightRow {
    match context::layout(target) {
        Ok(layout) => super::preflight::clean_first(&layout, project),
        Err((_, p)) => crate::plan::PreflightRow::new(
            "main checkout",
            crate::plan::PreflightOutcome::Fail,
            p.message,
        ),
    }
}

/// `wave preflight`: Checks 1–4 before a wave is prepared, and what the
/// run will do to the repository and the remote. `no_push`: `--no-push`.
pub(crate) fn preflight(
    target: &Target<'_>,
    project: Option<&Path>,
    no_push: bool,
    branch: &super::effects::RunBranch,
) -> Done<impl Serialize + use<>> {
    let mut reply = super::preflight::PreflightReply::default();
    let done = context::layout(target)
        .and_then(|l| super::preflight::run(&l, project, no_push, branch, &mut reply));
    reply.ok = done.is_ok();
    let failed = done.err();
    reply.problem = failed.as_ref().map(|(_, p)| p.clone());
    let text = super::preflight::render(&reply);
    Done {
        reply,
        text,
        failed,
    }
}

/// `wave prepare`: the worktrees and session orders of one wave.
/// `no_push`: `--no-push`, kept in wave.json for the run's collects.
pub(crate) fn prepare(
    target: &Target<'_>,
    wave: Option<u32>,
    project: Option<&Path>,
    no_push: bool,
) -> Done<impl Serialize + use<>> {
    let mut reply = super::prepare::PrepareReply::default();
    let mut orders_dir = PathBuf::new();
    let done = context::layout(target).and_then(|l| {
        orders_dir = l.orders_dir();
        super::prepare::run(&l, wave, project, no_push, &mut reply)
    });
    reply.ok = done.is_ok();
    let failed = done.err();
    reply.problem = failed.as_ref().map(|(_, p)| p.clone());
    let text = super::prepare::render(&reply, &orders_dir);
    Done {
        reply,
        text,
        failed,
    }
}

/// `wave collect`: the finished wave pushed and merged, its worktrees
/// removed. `no_push`: `--no-push`.
pub(super) fn collect(
    target: &Target<'_>,
    wave: Option<u32>,
    no_push: bool,
) -> Done<super::collect::CollectReply> {
    let mut reply = super::collect::CollectReply::default();
    let done =
        context::layout(target).and_then(|l| super::collect::run(&l, wave, no_push, &mut reply));
    reply.ok = done.is_ok();
    let failed = done.err();
    reply.problem = failed.as_ref().map(|(_, p)| p.clone());
    let text = super::collect::render(&reply);
    Done {
        reply,
        text,
        failed,
    }
}

/// What `wave cleanup --json` prints (schema `wave-cleanup`).
#[derive(Debug, Default, Serialize)]
pub(super) struct CleanupReply {
    ok: bool,
    plan: Option<String>,
    removed_worktrees: Vec<String>,
    removed_branches: Vec<String>,
    kept: Vec<super::tidy::Kept>,
    problem: Option<Problem>,
}

/// `wave cleanup`: the merged worktrees and branches removed, without force.
pub(super) fn cleanup(target: &Target<'_>) -> Done<CleanupReply> {
    let mut reply = CleanupReply::default();
    let done = context::layout(target).and_then(|l| {
        reply.plan = Some(l.plan_rel.clone());
        report::cleanup(&l)
    });
    let failed = match done {
        Ok(swept) => {
            reply.removed_worktrees = swept.removed_worktrees;
            reply.removed_branches = swept.removed_branches;
            reply.kept = swept.kept;
            (!reply.kept.is_empty()).then(|| {
                (
                    exit::NOT_OK,
                    Problem::new(
                        super::code::WAVE_KEPT,
                        "kept (they hold work): see each item's what_to_do; a re-run stops at wave preflight until they are dealt with",
                    ),
                )
            })
        }
        Err(f) => Some(f),
    };
    reply.ok = failed.is_none();
    reply.problem = failed.as_ref().map(|(_, p)| p.clone());
    let mut text = String::new();
    if failed.is_none() || !reply.kept.is_empty() {
        let _ = writeln!(
            text,
            "Cleanup: worktrees removed and merged branches deleted."
        );
    }
    for k in &reply.kept {
        let _ = writeln!(text, "KEPT {} {}: {}", k.kind, k.name, k.what_to_do);
    }
    Done {
        reply,
        text,
        failed,
    }
}

/// `wave report`: each archived session's result.
pub(crate) fn sessions_report(target: &Target<'_>) -> Done<impl Serialize + use<>> {
    let layout = match context::layout(target) {
        Ok(l) => l,
        Err(f) => {
            let reply = report::Report {
                problem: Some(f.1.clone()),
                ..report::Report::default()
            };
            return Done {
                reply,
                text: String::new(),
                failed: Some(f),
            };
        }
    };
    let reply = report::report(&layout);
    let mut text = String::new();
    for s in &reply.sessions {
        let _ = writeln!(
            text,
            "wave {} session {}: {} ({}/{} steps completed{})",
            s.wave,
            s.session,
            s.status,
            s.completed_steps,
            s.total_steps,
            if s.open_steps.is_empty() {
                String::new()
            } else {
                format!("; open: {}", s.open_steps.join(", "))
            }
        );
    }
    if reply.sessions.is_empty() {
        let _ = writeln!(text, "no archived session results");
    }
    Done {
        reply,
        text,
        failed: None,
    }
}

/// Step 6's input: the plan's orders directory and every archived
/// session copy in it, for the report of the whole run.
pub(crate) fn archives(
    target: &Target<'_>,
) -> Result<(PathBuf, Vec<crate::report::Archive>), Fail> {
    let layout = context::layout(target)?;
    let found = report::archived(&layout)
        .into_iter()
        .map(|(wave, session, path)| crate::report::Archive {
            wave,
            session,
            path,
        })
        .collect();
    Ok((layout.orders_dir(), found))
}

/// Where a plan's multi-session run stands, for `trek start`: whether a
/// wave awaits its sessions (`wave.json` exists), and else the lowest wave
/// not yet merged (`None`: every wave is merged).
pub(crate) fn standing(target: &Target<'_>) -> Result<(bool, Option<u32>), crate::orders::Fail> {
    let layout = context::layout(target)?;
    if layout.wave_file().exists() {
        return Ok((true, None));
    }
    Ok((false, crate::orders::next_wave(&layout)?))
}

/// How `trek start`'s collect of the wave in flight ended.
pub(crate) struct Collected {
    /// What `wave collect` prints, then the problem's line when it stopped.
    pub text: String,
    /// `merged`, `running`, `failed`, `conflict`, `refused`, `dirty`, or
    /// `None` when the wave could not even be read.
    pub outcome: Option<&'static str>,
}

/// `wave collect` for the plan's wave in flight, as `trek start` runs it
/// (`crate::wave::collect` to other areas). `no_push`: its `--no-push`.
pub(crate) fn collect_in_flight(target: &Target<'_>, no_push: bool) -> Collected {
    let done = collect(target, None, no_push);
    let mut text = done.text;
    if let Some((_, problem)) = &done.failed {
        text.push_str(&format!("error[{}]: {}\n", problem.code, problem.message));
    }
    Collected {
        text,
        outcome: done.reply.outcome,
    }
}

/// The record of the plan's run whose main-merge gate was confirmed, when
/// no run of it started since.
pub(crate) fn finished(
    target: &Target<'_>,
) -> Result<Option<crate::orders::FinishedRecord>, crate::orders::Fail> {
    crate::orders::finished(&context::layout(target)?)
}

/// Phase 8's confirm on the multi-session path, before the orders go:
/// the run is recorded finished, with its `report` and `summary`.
pub(crate) fn record_finished(
    target: &Target<'_>,
    answered_by: &str,
    report: &str,
    summary: Option<serde_json::Value>,
) -> Result<(), crate::orders::Fail> {
    crate::orders::record_finished(&context::layout(target)?, answered_by, report, summary)
}

/// Phase 8's confirm on the multi-session path: the plan's orders
/// directory cleared (orders, archived progress copies, the merged-waves
/// record). Returns what was removed.
pub(crate) fn clear_orders(target: &Target<'_>) -> Result<Vec<String>, crate::orders::Fail> {
    let layout = context::layout(target)?;
    crate::orders::clear(&layout.session_dir)
}
