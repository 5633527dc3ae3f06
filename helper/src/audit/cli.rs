//! `audit`'s command line: its subcommands and flags, each run by
//! [`Command::execute`] through an `execute` here, which hands the flags to
//! [`super::ops`], the area's I/O edge, and prints the audit.

use std::io::{self, Write};
use std::path::PathBuf;

use super::ops::{
    Refused, SessionRequest, StepRequest, audit_checkpoint, audit_scope, audit_step, run_session,
};
use super::{render, step};
use crate::exit;
use crate::problem;

/// Audit a run against its plan's manifests: files, git and exit codes
/// decide "done", never the executor's own word (Sub-steps D2 and F,
/// Phase 7.5).
///
/// Each audit runs in the git work tree of the current directory; manifest
/// paths are relative to its root. A finding is a drift item
/// `{check, expected, actual}` (with `path`, `step`, `commit` or `detail`
/// when it has one). Exit status everywhere: 0 pass, 1 drift (or blocked),
/// 2 could not check (no plan, no such step, no manifest, not a repository,
/// an unknown commit, an unreadable progress file).
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Check one step's manifest after its Verify (Sub-step D2).
    ///
    /// The checks, in the seed's order:
    ///   1. expected_paths: each exists;
    ///   2. min_file_count: at least that many of them exist;
    ///   3. forbidden_paths: none changed since the step began (--since,
    ///      default HEAD: the step's uncommitted and untracked changes);
    ///      entries match like git pathspecs (a directory covers its files,
    ///      * ? [..] are wildcards);
    ///   4. bash -n on each bash_syntax_check script and on every .sh
    ///      changed since --since;
    ///   5. must_contain: each {path, pattern} has a line matching the
    ///      pattern (grep -E).
    ///
    /// With --verify-exit CODE (the step's Verify exit): 77 from a step
    /// whose manifest says sandbox_preflight: true is the Step 0 sentinel:
    /// status blocked, D2 skipped, and with --record the step becomes
    /// blocked and the run stopped (result blocked). Any other non-zero
    /// exit is one `verify` drift item and D2 is not run.
    ///
    /// --record PROGRESS writes the step's manifest_audit (pass or fail)
    /// and manifest_drift (the items; removed on a pass).
    ///
    /// OUTPUT: `Manifest verification PASS for step N`, or `Manifest
    /// verification FAIL for step N:` and one `- check: path: expected E,
    /// found A` line per item. --json: {status: pass|drift|blocked, step,
    /// since, drift: [...], recorded} (schema audit-step).
    ///
    /// Example:
    ///     START=$(git rev-parse HEAD)          # before the step's edits
    ///     voyage-helper audit step --plan plan.md --step 2 --since "$START" \
    ///       --record .trekexecute-progress-plan.json
    ///
    /// Exit status: 0 pass, 1 drift or blocked, 2 could not check.
    #[command(verbatim_doc_comment)]
    Step(StepArgs),
    /// Check HEAD's subject against the step's pattern (Sub-step F).
    ///
    /// Run after the step's Checkpoint commit. A mismatch is checkpoint_drift {expected_pattern, actual_message}:
    /// an advisory that never fails the step (its verification already
    /// passed); Phase 7.5 reports it. An empty pattern (a legacy step with
    /// no Checkpoint) declares nothing and passes. --record PROGRESS writes
    /// the step's checkpoint_drift (removed on a pass).
    ///
    /// OUTPUT: `Checkpoint PASS for step N: "subject" matches "pattern"` or
    /// `checkpoint_drift for step N: …`. --json: {status: pass|drift, step,
    /// commit, expected_pattern, actual_message, checkpoint_drift, recorded}
    /// (schema audit-checkpoint).
    ///
    /// Example:
    ///     git commit -m "feat(cli): add --json flag"
    ///     voyage-helper audit checkpoint --plan plan.md --step 2 --record progress.json
    ///
    /// Exit status: 0 pass, 1 checkpoint_drift (record it, go on), 2 could
    /// not check.
    #[command(verbatim_doc_comment)]
    Checkpoint(CheckpointArgs),
    /// Audit the whole run and override its status (Phase 7.5).
    ///
    /// Over the steps the progress file tracks:
    ///   - expected_paths: the union of every manifest's (a skipped step's
    ///     left out, and a step revert-step undid, whose record says
    ///     reverted) and the Session Manifest's, each must exist;
    ///   - commit_count: commits in START..HEAD == completed steps (a
    ///     sandbox Step 0 excluded);
    ///   - commit_message_pattern: every subject in START..HEAD matches some
    ///     declared pattern; accepted instead (listed, not drift): a
    ///     completed step's recorded commit whose checkpoint_drift says
    ///     rewritten_by_hook with that subject, when the plan gives the
    ///     step a plain `git commit -m` whose message matches its pattern
    ///     (trek step-done records it when a message hook rewrote it);
    ///   - bash_syntax_check: bash -n on every .sh changed since START;
    ///   - forbidden_paths: nothing changed since START under a step's
    ///     forbidden_paths (unless a step declares the path as its own),
    ///     the Scope Fence's never-touch list or the Session Manifest's
    ///     scope_forbidden;
    ///   - iterations_remaining: equals cap - (recovery_depth + the sum of
    ///     attempts beyond each step's first), cap being
    ///     TREKEXECUTE_MAX_RECOVERY_ITERATIONS (default 25): a counter left
    ///     un-decremented, tampered with or missing is drift.
    ///
    /// The override table, against the run's status (a run still
    /// in_progress whose steps are all completed or skipped claims
    /// completed):
    ///     audit pass                   status stays
    ///     drift + completed            override completed -> partial
    ///     drift + failed/stopped/...   status stays, drift informational
    ///     drift + in_progress          no override, drift informational
    ///                                  (the caller finalises the run)
    ///
    /// --record writes manifest_audit {status, drift_details, override}
    /// (and accepted, when any) into the progress file and, on an
    /// override, its status partial.
    ///
    /// OUTPUT: `Manifest audit: PASS (…)` or `Manifest audit: DRIFT, N
    /// findings (…)`, one `- …` line per item, then `Override: completed ->
    /// partial …`, `Status stays S: …`, or for a run still in_progress
    /// `No override: …` (its final status is not the audit's), and one
    /// `Accepted: …` line per accepted commit. --json: {status: pass|drift,
    /// drift_details: [...], override: {from, to} or null, claimed, start,
    /// commits, committing_steps, expected_paths, scripts, accepted,
    /// counter, recorded} (schema audit-session).
    ///
    /// Example:
    ///     voyage-helper audit session --plan plan.md \
    ///       --progress .trekexecute-progress-plan.json --start "$START_SHA" --record
    ///
    /// Exit status: 0 pass, 1 drift, 2 could not check.
    #[command(verbatim_doc_comment)]
    Session(SessionArgs),
    /// List what changed outside a step's Files since it began (read-only).
    ///
    /// The scope audit `trek step-done` runs first, on its own: the work
    /// tree is compared with --since (default HEAD) or, when `trek
    /// step-begin` found the tree already changed, with the state it kept
    /// then (in the git directory, voyage-step-base.json). Every path
    /// modified, added, deleted, renamed or untracked (not ignored) is
    /// checked against the step's Files and its manifest's expected_paths
    /// (a directory covers what is under it, * ? [..] are wildcards); the
    /// plan, --progress and the runner's logs (.temp/voyage/logs/) are the
    /// run's own. A nested repository (a directory with its own .git) is
    /// seen only as a whole. Nothing is changed: `trek step-done` is what
    /// saves the patch and puts the paths back.
    ///
    /// OUTPUT: `Scope PASS for step N (K changed paths in scope)` or
    /// `Scope FAIL for step N:` and one `- path (change)` line per path
    /// (`- old -> new (renamed)`). --json: {status: pass|drift, step,
    /// since, base, changes: [{path, change, from}], in_scope: [...]}
    /// (schema audit-scope).
    ///
    /// Example:
    ///     voyage-helper audit scope --plan plan.md --step 2 --since "$START"
    ///
    /// Exit status: 0 pass, 1 a change outside the scope, 2 could not check.
    #[command(verbatim_doc_comment)]
    Scope(ScopeArgs),
}

impl Command {
    /// Runs the subcommand; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Step(args) => execute_step(&args, out),
            Self::Checkpoint(args) => execute_checkpoint(&args, out),
            Self::Session(args) => execute_session(&args, out),
            Self::Scope(args) => execute_scope(&args, out),
        }
    }
}

// The flags of each subcommand. Its help is the variant's doc comment.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct StepArgs {
    /// The plan or session spec.
    #[arg(long, value_name = "PLAN")]
    pub plan: PathBuf,
    /// The step number (0 is the sandbox pre-flight).
    #[arg(long, value_name = "N")]
    pub step: u32,
    /// The commit the step began from (default HEAD).
    #[arg(long, value_name = "SHA")]
    pub since: Option<String>,
    /// The step's Verify exit code (77 + sandbox_preflight: blocked).
    #[arg(long, value_name = "CODE", allow_hyphen_values = true)]
    pub verify_exit: Option<i32>,
    /// Write manifest_audit and manifest_drift into this progress file.
    #[arg(long, value_name = "PROGRESS")]
    pub record: Option<PathBuf>,
    /// The work tree's top directory, when the caller knows it (default:
    /// the work tree holding the current directory, asked of git).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Print the audit as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ScopeArgs {
    /// The plan or session spec.
    #[arg(long, value_name = "PLAN")]
    pub plan: PathBuf,
    /// The step number.
    #[arg(long, value_name = "N")]
    pub step: u32,
    /// The commit the step began from (default HEAD).
    #[arg(long, value_name = "SHA")]
    pub since: Option<String>,
    /// The run's progress file (the run's own, never out of scope; default:
    /// the live run's, when it runs this plan).
    #[arg(long, value_name = "F")]
    pub progress: Option<PathBuf>,
    /// Print the audit as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct CheckpointArgs {
    /// The plan or session spec.
    #[arg(long, value_name = "PLAN")]
    pub plan: PathBuf,
    /// The step number.
    #[arg(long, value_name = "N")]
    pub step: u32,
    /// Write checkpoint_drift into this progress file.
    #[arg(long, value_name = "PROGRESS")]
    pub record: Option<PathBuf>,
    /// Print the audit as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct SessionArgs {
    /// The plan or session spec.
    #[arg(long, value_name = "PLAN")]
    pub plan: PathBuf,
    /// The run's progress file.
    #[arg(long, value_name = "F")]
    pub progress: PathBuf,
    /// The commit the session started from.
    #[arg(long, value_name = "SHA")]
    pub start: String,
    /// Write manifest_audit (and an override) into the progress file.
    #[arg(long)]
    pub record: bool,
    /// Print the audit as JSON.
    #[arg(long)]
    pub json: bool,
}

fn refuse(out: &mut impl Write, (code, problem): Refused) -> io::Result<u8> {
    problem::eprint_all(std::slice::from_ref(&problem));
    out.flush()?;
    Ok(code)
}

/// Prints an audit (or why there is none) and returns the exit code: 0
/// when `passed`, 1 when it found drift, the refusal's own otherwise.
fn answer<A: serde::Serialize, W: Write>(
    out: &mut W,
    audit: Result<A, Refused>,
    json: bool,
    text: impl FnOnce(&A, &mut W) -> io::Result<()>,
    passed: impl FnOnce(&A) -> bool,
) -> io::Result<u8> {
    let audit = match audit {
        Ok(a) => a,
        Err(r) => return refuse(out, r),
    };
    if json {
        render::json(&audit, out)?;
    } else {
        text(&audit, out)?;
    }
    out.flush()?;
    Ok(if passed(&audit) {
        exit::OK
    } else {
        exit::NOT_OK
    })
}

fn execute_step(args: &StepArgs, out: &mut impl Write) -> io::Result<u8> {
    let request = StepRequest {
        plan: &args.plan,
        step: args.step,
        since: args.since.as_deref(),
        verify_exit: args.verify_exit,
        repo: args.repo.as_deref(),
        loaded: None,
    };
    let run = || -> Result<step::StepAudit, Refused> {
        let mut audited = audit_step(&request)?;
        if let Some(path) = &args.record {
            audited.record(path)?;
        }
        Ok(audited.audit)
    };
    answer(out, run(), args.json, render::step, |a| {
        a.status == step::StepVerdict::Pass
    })
}

fn execute_session(args: &SessionArgs, out: &mut impl Write) -> io::Result<u8> {
    let audit = run_session(&SessionRequest {
        plan: &args.plan,
        loaded: None,
        progress: &args.progress,
        start: &args.start,
        record: args.record,
        repo: None,
    });
    answer(out, audit, args.json, render::session, |a| {
        a.drift_details.is_empty()
    })
}

fn execute_checkpoint(args: &CheckpointArgs, out: &mut impl Write) -> io::Result<u8> {
    let audit = audit_checkpoint(&args.plan, args.step, args.record.as_deref());
    answer(out, audit, args.json, render::checkpoint, |a| {
        a.checkpoint_drift.is_none()
    })
}

fn execute_scope(args: &ScopeArgs, out: &mut impl Write) -> io::Result<u8> {
    let audit = audit_scope(
        &args.plan,
        args.step,
        args.since.as_deref(),
        args.progress.as_deref(),
    );
    answer(out, audit, args.json, render::scope, |a| {
        a.changes.is_empty()
    })
}
