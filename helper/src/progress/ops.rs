//! The operations of the progress area, as its command line and other
//! areas (`trek`) call them: each reads the file, checks the change
//! against the schema and the rules, writes it back atomically, and
//! returns what happened ([`Initialized`], [`Stepped`], [`Finished`],
//! [`GitDone`]); printing it is the caller's.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::cli;
use super::render::Reply;
use super::status::RunStatus;
use super::transition::{self, Applied, StepUpdate};
use super::{
    Gate, Progress, StepKey, StepStatus, budget, code, file, gate, init, model, on_failure, path,
};
use crate::clock::UtcTime;
use crate::exit;
use crate::problem::{self, Coded, Problem};

/// Loads the file for a writer: a missing or broken file is exit 2 with
/// every problem on stderr.
pub(super) fn load_for_update(path: &Path) -> Result<Progress, (u8, Problem)> {
    file::load(path).map_err(|e| {
        let mut problems = e.problems.into_iter();
        let first = problems
            .next()
            .unwrap_or_else(|| Problem::new(code::PROGRESS_UNREADABLE, "cannot be read"));
        problem::eprint_all(&problems.collect::<Vec<_>>());
        (exit::CANNOT_CHECK, first)
    })
}

/// Seeds a missing `iterations_remaining` from the budget the environment
/// set (seed Phase 3, "Backfill-on-absent"). Returns whether it did; the
/// budget's warning, if any, joins `warnings` only then.
fn backfill(progress: &mut Progress, budget: &budget::Budget, warnings: &mut Vec<String>) -> bool {
    if progress.iterations_remaining.is_some() {
        return false;
    }
    warnings.extend(budget.warning.clone());
    progress.iterations_remaining = Some(budget.cap);
    true
}

fn print_warnings(warnings: &[String]) {
    for w in warnings {
        crate::problem::eprint_line(&format!("warning: {w}"));
    }
}

/// Changes the progress file at `path` for another area (`criteria run
/// --record`, `entry check --record`): read and checked, changed by
/// `change`, `updated_at` set, checked again and replaced atomically. A
/// missing or broken file is refused and left as it was.
pub(crate) fn edit(path: &Path, change: impl FnOnce(&mut Progress)) -> Result<(), Problem> {
    let mut progress = file::load(path).map_err(|e| {
        e.problems
            .into_iter()
            .next()
            .unwrap_or_else(|| Problem::new(code::PROGRESS_UNREADABLE, "cannot be read"))
    })?;
    change(&mut progress);
    progress.updated_at = UtcTime::now().rfc3339();
    file::save(path, &progress).map_err(|(_, p)| p)
}

/// Records on step `step` of the file at `path` why its Verify passed on
/// its exit code alone (`verify_warning`), for the final report.
pub(crate) fn note_verify_warning(path: &Path, step: u32, warning: &str) -> Result<(), Problem> {
    edit(path, |progress| {
        if let Some(record) = progress.steps.get_mut(&StepKey(step)) {
            record.verify_warning = Some(warning.to_owned());
        }
    })
}

/// Records on step `step` of the file at `path` what the scope audit of
/// one attempt put back (`scope_violations`), for the final report and the
/// stats record. Appended: every attempt's entry stays.
pub(crate) fn note_scope_violation(
    path: &Path,
    step: u32,
    violation: model::ScopeViolation,
) -> Result<(), Problem> {
    edit(path, |progress| {
        if let Some(record) = progress.steps.get_mut(&StepKey(step)) {
            record.scope_violations.push(violation);
        }
    })
}

pub(super) fn refuse_plain(code: u8, problem: Problem) -> u8 {
    problem::eprint_all(std::slice::from_ref(&problem));
    code
}

/// The change `progress step` makes: which file, the new status word, and
/// the rest of the change (its `status` is filled from the word).
#[derive(Debug, Clone)]
pub(crate) struct StepRequest {
    pub locate: cli::Locate,
    pub status: String,
    pub update: StepUpdate,
}

/// What `progress step` did.
#[derive(Debug, Clone)]
pub(crate) enum Stepped {
    /// Refused before a file could be named.
    Unplaced { code: u8, problem: Problem },
    /// Refused: the file is named in the reply.
    Refused {
        reply: Reply,
        code: u8,
        problem: Problem,
    },
    /// Recorded.
    Recorded { reply: Reply, applied: Applied },
}

impl Stepped {
    /// The exit code.
    pub(crate) fn code(&self) -> u8 {
        match self {
            Self::Unplaced { code, .. } | Self::Refused { code, .. } => *code,
            Self::Recorded { .. } => exit::OK,
        }
    }

    /// The refusal's problem, if refused.
    pub(crate) fn refusal(&self) -> Option<&Problem> {
        match self {
            Self::Unplaced { problem, .. } | Self::Refused { problem, .. } => Some(problem),
            Self::Recorded { .. } => None,
        }
    }

    /// What was applied, when the change was recorded.
    pub(crate) fn applied(&self) -> Option<&Applied> {
        match self {
            Self::Recorded { applied, .. } => Some(applied),
            _ => None,
        }
    }

    /// Whether a file was named (a reply exists).
    pub(crate) fn placed(&self) -> bool {
        !matches!(self, Self::Unplaced { .. })
    }

    /// Prints what goes to stderr: the refusal, or the warnings of a
    /// change recorded.
    pub(crate) fn eprint(&self) {
        match self {
            Self::Unplaced { problem, .. } | Self::Refused { problem, .. } => {
                problem::eprint_all(std::slice::from_ref(problem));
            }
            Self::Recorded { reply, .. } => print_warnings(&reply.warnings),
        }
    }

    /// Prints the reply: one JSON object, or a line of text.
    pub(crate) fn render(&self, json: bool, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Unplaced { .. } => {}
            Self::Refused { reply, problem, .. } => {
                if json {
                    reply.refused(problem).render_json(out)?;
                }
            }
            Self::Recorded { reply, applied } => {
                if json {
                    reply.render_json(out)?;
                } else {
                    let mut line =
                        format!("step {}: {} -> {}", applied.step, applied.from, applied.to);
                    if applied.to == StepStatus::InProgress {
                        line.push_str(&format!(
                            " (attempt {} of {}{})",
                            applied.attempts,
                            budget::MAX_ATTEMPTS,
                            if applied.retry { ", a retry" } else { "" }
                        ));
                    }
                    if let Some(n) = applied.iterations_remaining {
                        line.push_str(&format!("; {n} recovery/retry iterations left"));
                    }
                    writeln!(out, "{line}")?;
                }
            }
        }
        out.flush()?;
        Ok(self.code())
    }
}

/// Records a step's new status in the progress file `request` names, as
/// the file's rules allow.
pub(crate) fn record_step(request: &StepRequest, budget: &budget::Budget) -> Stepped {
    let mut update = request.update.clone();
    let path = match request.locate.resolve() {
        Ok(p) => p,
        Err(problem) => {
            return Stepped::Unplaced {
                code: exit::CANNOT_CHECK,
                problem,
            };
        }
    };
    let mut reply = Reply::new("step", &path);
    reply.step = Some(update.step);
    let refused = |reply: Reply, code: u8, problem: Problem| Stepped::Refused {
        reply,
        code,
        problem,
    };
    update.status = StepStatus::parse_settable(&request.status);
    if update.status.is_none() {
        let words: Vec<&str> = StepStatus::SETTABLE.iter().map(|s| s.as_str()).collect();
        let legacy = if request.status == "passed" {
            " (`passed` is the legacy word: write completed)"
        } else {
            ""
        };
        let problem = Problem::new(
            code::PROGRESS_BAD_STATUS,
            format!(
                "unknown step status '{}'{legacy}; one of {}",
                request.status,
                words.join(", ")
            ),
        );
        return refused(reply, exit::NOT_OK, problem);
    }
    let mut progress = match load_for_update(&path) {
        Ok(p) => p,
        Err((code, p)) => return refused(reply, code, p),
    };
    reply.backfilled = backfill(&mut progress, budget, &mut reply.warnings);
    let now = UtcTime::now().rfc3339();
    let applied = match transition::apply(&mut progress, &update, &now) {
        Ok(a) => a,
        Err(p) => {
            let reply = reply.counted(&progress);
            return refused(reply, exit::NOT_OK, p.in_file(&path));
        }
    };
    if let Err((code, p)) = file::save(&path, &progress) {
        return refused(reply, code, p);
    }
    let mut reply = reply.counted(&progress);
    reply.status = Some(applied.to.as_str().into());
    reply.previous_status = Some(applied.from.as_str().into());
    reply.attempts = Some(applied.attempts);
    reply.retry = applied.retry;
    Stepped::Recorded { reply, applied }
}

/// The failed or escalated step a git operation of `progress` is for, and
/// where the repository is (`cwd`: its work tree, else the current
/// directory's).
#[derive(Debug, Clone)]
pub(crate) struct GitStepRequest {
    pub step: u32,
    pub locate: cli::Locate,
    pub cwd: Option<PathBuf>,
}

/// What `progress revert-step` or `escalate-commit` did.
#[derive(Debug, Clone)]
pub(crate) struct GitDone {
    reply: on_failure::GitReply,
    failed: Option<(u8, Problem)>,
}

impl GitDone {
    /// The exit code.
    pub(crate) fn code(&self) -> u8 {
        self.failed.as_ref().map_or(exit::OK, |(code, _)| *code)
    }

    /// The refusal's problem, if refused.
    pub(crate) fn refusal(&self) -> Option<&Problem> {
        self.failed.as_ref().map(|(_, p)| p)
    }

    /// revert-step: the paths restored from HEAD, the new paths removed,
    /// and the paths kept as they are.
    pub(crate) fn reverted(&self) -> (&[String], &[String], &[String]) {
        (&self.reply.restored, &self.reply.removed, &self.reply.kept)
    }

    /// revert-step: the Files not undone, each with why.
    pub(crate) fn left(&self) -> Vec<(String, String)> {
        self.reply
            .left
            .iter()
            .map(|l| (l.path.clone(), l.reason.clone()))
            .collect()
    }

    /// escalate-commit: the new commit and the paths it holds.
    pub(crate) fn commit(&self) -> (Option<&str>, &[String]) {
        (self.reply.commit.as_deref(), &self.reply.committed)
    }

    /// Prints the refusal's problem on stderr.
    pub(crate) fn eprint(&self) {
        if let Some((_, p)) = &self.failed {
            problem::eprint_all(std::slice::from_ref(p));
        }
    }

    /// Prints the reply (JSON) or its line; returns the exit code.
    pub(crate) fn render(
        &self,
        escalate: bool,
        json: bool,
        out: &mut impl Write,
    ) -> io::Result<u8> {
        let mut reply = self.reply.clone();
        if let Some((code, p)) = &self.failed {
            if json {
                reply.problem = Some(p.clone());
                serde_json::to_writer(&mut *out, &reply)?;
                writeln!(out)?;
            } else if !escalate && !reply.left.is_empty() {
                // A revert done in part says on stdout what it did and left.
                writeln!(out, "{}", revert_line(&reply))?;
            }
            out.flush()?;
            return Ok(*code);
        }
        if json {
            serde_json::to_writer(&mut *out, &reply)?;
            writeln!(out)?;
        } else if escalate {
            match &reply.commit {
                Some(sha) => writeln!(
                    out,
                    "committed {sha}: {} ({} paths: {})",
                    on_failure::escalation_message(reply.step),
                    reply.committed.len(),
                    reply.committed.join(", ")
                )?,
                None => writeln!(
                    out,
                    "nothing to commit: the completed steps' files have no changes"
                )?,
            }
        } else {
            writeln!(out, "{}", revert_line(&reply))?;
        }
        out.flush()?;
        Ok(exit::OK)
    }
}

/// `progress revert-step` (Sub-step E: the failed step's Files restored
/// with git) or, with `escalate`, `escalate-commit` (the completed steps'
/// work committed before an escalation stop).
pub(crate) fn on_failure_git(request: &GitStepRequest, escalate: bool) -> GitDone {
    let options = request;
    let mut reply = on_failure::GitReply {
        action: if escalate {
            "escalate-commit"
        } else {
            "revert-step"
        },
        step: options.step,
        ..on_failure::GitReply::default()
    };
    let done = (|| {
        let path = options
            .locate
            .resolve()
            .map_err(|p| (exit::CANNOT_CHECK, p))?;
        reply.path = path.display().to_string();
        let progress = load_for_update(&path)?;
        let plan_path = options
            .locate
            .plan
            .clone()
            .or_else(|| options.locate.project.as_deref().map(path::project_plan))
            .unwrap_or_else(|| PathBuf::from(&progress.plan));
        let plan = crate::plan::load(&plan_path)
            .map_err(|e| (exit::CANNOT_CHECK, e.problem().in_file_if_none(&plan_path)))?;
        let here = match &options.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().map_err(|e| {
                (
                    exit::CANNOT_CHECK,
                    Problem::new(
                        code::PROGRESS_NOT_A_REPO,
                        format!("no current directory: {e}"),
                    ),
                )
            })?,
        };
        let root = crate::git::toplevel(&here).ok_or_else(|| {
            (
                exit::CANNOT_CHECK,
                Problem::new(
                    code::PROGRESS_NOT_A_REPO,
                    format!("{} is not inside a git work tree", here.display()),
                ),
            )
        })?;
        if escalate {
            return on_failure::escalate(&plan, &progress, options.step, &root, &mut reply);
        }
        let undone = on_failure::revert(&plan, &progress, options.step, &root, &mut reply);
        // What was refused before git ran leaves no record; anything else
        // does, a half-done revert too: the record is what the session
        // audit reads to tell this revert from drift, and what the report
        // reads to name the Files left behind.
        if undone.is_err() && reply.left.is_empty() {
            return undone;
        }
        let reverted = model::Reverted {
            restored: reply.restored.clone(),
            removed: reply.removed.clone(),
            removed_dirs: reply.removed_dirs.clone(),
            left: reply.left.clone(),
        };
        edit(&path, |p| {
            if let Some(record) = p.steps.get_mut(&StepKey(options.step)) {
                record.reverted = Some(reverted);
            }
        })
        .map_err(|p| (exit::CANNOT_CHECK, p))?;
        undone?;
        match on_failure::shared_refusal(options.step, &reply) {
            Some(refusal) => Err(refusal),
            None => Ok(()),
        }
    })();
    let failed = done.err();
    if failed.is_none() {
        reply.ok = true;
    }
    GitDone { reply, failed }
}

/// `step N reverted: restored A; removed B; …`, or `step N reverted in
/// part: …; left C (why)` when some of its Files were not undone.
fn revert_line(reply: &on_failure::GitReply) -> String {
    let mut parts = Vec::new();
    for (word, list) in [
        ("restored", &reply.restored),
        ("removed", &reply.removed),
        ("kept", &reply.kept),
        ("removed the emptied directories", &reply.removed_dirs),
    ] {
        if !list.is_empty() {
            parts.push(format!("{word} {}", list.join(", ")));
        }
    }
    // The kept paths are named above already.
    let left: Vec<_> = reply
        .left
        .iter()
        .filter(|l| !reply.kept.contains(&l.path))
        .collect();
    for l in &left {
        parts.push(format!("left {} ({})", l.path, l.reason));
    }
    if parts.is_empty() {
        parts.push("nothing to restore".into());
    }
    let how = if left.is_empty() {
        "reverted"
    } else {
        "reverted in part"
    };
    format!("step {} {how}: {}", reply.step, parts.join("; "))
}

/// The run `progress finish` ends, with which status, summary and
/// verification record.
#[derive(Debug, Clone)]
pub(crate) struct FinishRequest {
    pub locate: cli::Locate,
    pub status: String,
    pub summary: Option<String>,
    pub plan_verification: Option<String>,
}

/// What `progress finish` did.
#[derive(Debug, Clone)]
pub(crate) enum Finished {
    /// Refused before a file could be named.
    Unplaced { code: u8, problem: Problem },
    /// Refused: the file is named in the reply.
    Refused {
        reply: Reply,
        code: u8,
        problem: Problem,
        /// Said before the refusal (the budget's warning).
        warnings: Vec<String>,
    },
    /// Recorded; `overridden` when the completion gate did not let
    /// `completed` stand.
    Recorded {
        reply: Reply,
        previous: RunStatus,
        status: RunStatus,
        overridden: Option<Gate>,
        warnings: Vec<String>,
    },
}

impl Finished {
    /// The exit code.
    pub(crate) fn code(&self) -> u8 {
        match self {
            Self::Unplaced { code, .. } | Self::Refused { code, .. } => *code,
            Self::Recorded { overridden, .. } => {
                if overridden.is_some() {
                    exit::NOT_OK
                } else {
                    exit::OK
                }
            }
        }
    }

    /// The refusal's problem, if refused.
    pub(crate) fn refusal(&self) -> Option<&Problem> {
        match self {
            Self::Unplaced { problem, .. } | Self::Refused { problem, .. } => Some(problem),
            Self::Recorded { .. } => None,
        }
    }

    /// Whether the completion gate turned `completed` into another status.
    pub(crate) fn overridden(&self) -> bool {
        matches!(
            self,
            Self::Recorded {
                overridden: Some(_),
                ..
            }
        )
    }

    /// Prints what goes to stderr: warnings, then the refusal or the
    /// completion gate's override.
    pub(crate) fn eprint(&self) {
        match self {
            Self::Unplaced { problem, .. } => problem::eprint_all(std::slice::from_ref(problem)),
            Self::Refused {
                problem, warnings, ..
            } => {
                print_warnings(warnings);
                problem::eprint_all(std::slice::from_ref(problem));
            }
            Self::Recorded {
                reply, warnings, ..
            } => {
                print_warnings(warnings);
                if let Some(problem) = &reply.problem {
                    problem::eprint_all(std::slice::from_ref(problem));
                }
            }
        }
    }

    /// Prints the reply: one JSON object, or text; returns the exit code.
    pub(crate) fn render(&self, json: bool, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Unplaced { .. } => {}
            Self::Refused { reply, problem, .. } => {
                if json {
                    reply.refused(problem).render_json(out)?;
                }
            }
            Self::Recorded {
                reply,
                previous,
                status,
                overridden,
                ..
            } => {
                if json {
                    reply.render_json(out)?;
                } else {
                    writeln!(
                        out,
                        "run {previous} -> {status}: {}/{} steps completed",
                        reply.completed_steps, reply.total_steps
                    )?;
                    if let Some(gate) = overridden {
                        writeln!(
                            out,
                            "completion gate: completed overridden to {}, because",
                            gate.status
                        )?;
                        for reason in &gate.reasons {
                            writeln!(out, "  - {reason}")?;
                        }
                    }
                }
            }
        }
        out.flush()?;
        Ok(self.code())
    }
}

/// Records the run's final status in the progress file `request` names,
/// `completed` only through the completion gate.
pub(crate) fn finish_run(request: &FinishRequest, budget: &budget::Budget) -> Finished {
    let path = match request.locate.resolve() {
        Ok(p) => p,
        Err(problem) => {
            return Finished::Unplaced {
                code: exit::CANNOT_CHECK,
                problem,
            };
        }
    };
    let reply = Reply::new("finish", &path);
    let refused =
        |reply: Reply, code: u8, problem: Problem, warnings: Vec<String>| Finished::Refused {
            reply,
            code,
            problem,
            warnings,
        };
    let status = match RunStatus::parse(&request.status) {
        Some(s) if s != RunStatus::InProgress => s,
        _ => {
            let p = Problem::new(
                code::PROGRESS_BAD_STATUS,
                format!(
                    "unknown final status '{}'; one of completed, failed, stopped, partial",
                    request.status
                ),
            );
            return refused(reply, exit::NOT_OK, p, Vec::new());
        }
    };
    let verification = match request
        .plan_verification
        .as_deref()
        .map(serde_json::from_str)
    {
        None => None,
        Some(Ok(v @ serde_json::Value::Object(_))) => Some(v),
        Some(_) => {
            let p = Problem::new(
                code::PROGRESS_NOT_JSON,
                "--plan-verification must be a JSON object: {\"status\": \"passed|failed|not-run\", …}",
            );
            return refused(reply, exit::NOT_OK, p, Vec::new());
        }
    };
    let mut progress = match load_for_update(&path) {
        Ok(p) => p,
        Err((code, p)) => return refused(reply, code, p, Vec::new()),
    };
    if status == RunStatus::Completed {
        let open: Vec<String> = progress
            .steps
            .iter()
            .filter(|(_, r)| !r.status.is_completed() && r.status != StepStatus::Skipped)
            .map(|(k, r)| format!("{} ({})", k.0, r.status))
            .collect();
        if !open.is_empty() {
            let p = Problem::new(
                code::PROGRESS_INCOMPLETE,
                format!(
                    "the run cannot be completed while steps are not: {}",
                    open.join(", ")
                ),
            )
            .in_file(&path);
            let reply = reply.counted(&progress);
            return refused(reply, exit::NOT_OK, p, Vec::new());
        }
    }
    let previous = progress.status;
    if let Some(summary) = &request.summary {
        progress.summary = serde_json::from_str(summary)
            .unwrap_or_else(|_| serde_json::Value::String(summary.clone()));
    }
    if let Some(v) = verification {
        progress.plan_verification = v;
    }
    // The completion gate decides whether `completed` stands.
    let mut status = status;
    let mut overridden = None;
    let mut warnings = Vec::new();
    if status == RunStatus::Completed {
        warnings.extend(budget.warning.clone());
        let gate = gate::completion_gate(&progress, budget.cap);
        if gate.passed {
            progress.extra.remove("completion_gate");
        } else {
            status = RunStatus::parse(gate.status).unwrap_or(RunStatus::Partial);
            progress.extra.insert(
                "completion_gate".into(),
                serde_json::json!({
                    "from": RunStatus::Completed.as_str(),
                    "to": gate.status,
                    "reasons": gate.reasons,
                }),
            );
            overridden = Some(gate);
        }
    }
    progress.status = status;
    progress.updated_at = UtcTime::now().rfc3339();
    if let Err((code, p)) = file::save(&path, &progress) {
        return refused(reply, code, p, warnings);
    }
    let mut reply = reply.counted(&progress);
    reply.status = Some(status.as_str().into());
    reply.previous_status = Some(previous.as_str().into());
    if let Some(gate) = &overridden {
        let problem = Problem::new(
            code::PROGRESS_COMPLETION_GATE,
            format!(
                "completed overridden to {}: {}",
                gate.status,
                gate.reasons.join("; ")
            ),
        )
        .in_file(&path);
        reply.ok = false;
        reply.problem = Some(problem);
        reply.completion_gate = Some(gate.clone());
    }
    Finished::Recorded {
        reply,
        previous,
        status,
        overridden,
        warnings,
    }
}

/// Which progress file `progress init` sets up, for which plan and mode.
#[derive(Debug, Clone)]
pub(crate) struct InitRequest<'a> {
    pub locate: cli::Locate,
    /// execute, resume, step or session.
    pub mode: String,
    /// The plan `locate` names, when the caller has read it already.
    pub loaded: Option<&'a crate::plan::Plan>,
    /// A key the caller keeps in the file (`trek`'s decisions), written
    /// with a fresh file in the same write; a kept file is not touched.
    pub extra: Option<(&'a str, serde_json::Value)>,
}

/// What `progress init` did.
#[derive(Debug, Clone)]
pub(crate) enum Initialized {
    /// Refused before a file could be named.
    Unplaced { code: u8, problem: Problem },
    /// Refused: the file is named in the reply.
    Refused {
        reply: Reply,
        code: u8,
        problem: Problem,
    },
    /// A resumed or step run keeps the file it finds.
    Kept { reply: Reply, mode: String },
    /// A fresh file (`created` or `replaced`).
    Written {
        reply: Reply,
        verb: &'static str,
        iterations: u32,
        /// The file as written, for a caller that goes on with it.
        written: Box<Progress>,
    },
}

impl Initialized {
    /// The exit code.
    pub(crate) fn code(&self) -> u8 {
        match self {
            Self::Unplaced { code, .. } | Self::Refused { code, .. } => *code,
            Self::Kept { .. } | Self::Written { .. } => exit::OK,
        }
    }

    /// The reply, when a file was named.
    pub(crate) fn reply(&self) -> Option<&Reply> {
        match self {
            Self::Unplaced { .. } => None,
            Self::Refused { reply, .. }
            | Self::Kept { reply, .. }
            | Self::Written { reply, .. } => Some(reply),
        }
    }

    /// Prints what goes to stderr: the refusal, or the warnings of a file
    /// written.
    pub(crate) fn eprint(&self) {
        match self {
            Self::Unplaced { problem, .. } | Self::Refused { problem, .. } => {
                problem::eprint_all(std::slice::from_ref(problem));
            }
            Self::Written { reply, .. } => print_warnings(&reply.warnings),
            Self::Kept { .. } => {}
        }
    }

    /// Prints the reply: one JSON object, or a line of text.
    pub(crate) fn render(&self, json: bool, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Unplaced { .. } => {}
            Self::Refused { reply, problem, .. } => {
                if json {
                    reply.refused(problem).render_json(out)?;
                }
            }
            Self::Kept { reply, mode } => {
                if json {
                    reply.render_json(out)?;
                } else {
                    writeln!(
                        out,
                        "kept {} ({mode}): {}/{} steps completed",
                        reply.path, reply.completed_steps, reply.total_steps
                    )?;
                }
            }
            Self::Written {
                reply,
                verb,
                iterations,
                ..
            } => {
                if json {
                    reply.render_json(out)?;
                } else {
                    writeln!(
                        out,
                        "{verb} {}: {} steps pending, {iterations} recovery/retry iterations",
                        reply.path, reply.total_steps
                    )?;
                }
            }
        }
        out.flush()?;
        Ok(self.code())
    }
}

/// Sets up the progress file `request` names: a fresh one, or for a
/// resumed or step run the one already there.
pub(crate) fn initialize(request: &InitRequest<'_>, budget: &budget::Budget) -> Initialized {
    let locate = &request.locate;
    let Some(plan_path) = locate.plan.clone() else {
        return Initialized::Unplaced {
            code: exit::CANNOT_CHECK,
            problem: Problem::new(
                code::PROGRESS_NO_TARGET,
                "say which plan: PLAN, --plan PLAN or --project DIR",
            ),
        };
    };
    let path = match locate.resolve() {
        Ok(p) => p,
        Err(problem) => {
            return Initialized::Unplaced {
                code: exit::CANNOT_CHECK,
                problem,
            };
        }
    };
    let reply = Reply::new("init", &path);
    let refused = |reply: Reply, code: u8, problem: Problem| Initialized::Refused {
        reply,
        code,
        problem,
    };
    let mode = if locate.session.is_some() && request.mode == "execute" {
        "session".to_owned()
    } else {
        request.mode.clone()
    };
    if !init::MODES.contains(&mode.as_str()) {
        let p = Problem::new(
            code::PROGRESS_BAD_MODE,
            format!("unknown mode '{mode}'; one of {}", init::MODES.join(", ")),
        );
        return refused(reply, exit::CANNOT_CHECK, p);
    }
    let mut read = None;
    let plan = match crate::plan::given_or_load(request.loaded, &plan_path, &mut read) {
        Ok(plan) => plan,
        Err(e) => {
            let code = match e {
                crate::plan::PlanLoadError::Read { .. } => exit::CANNOT_CHECK,
                crate::plan::PlanLoadError::Unrecognized { .. } => exit::NOT_OK,
            };
            let p = e.problem().in_file(&plan_path);
            return refused(reply, code, p);
        }
    };
    let facts = match init::PlanFacts::of(plan, &plan_path, locate.session) {
        Ok(f) => f,
        Err(p) => return refused(reply, exit::NOT_OK, p),
    };
    let keep_existing = matches!(mode.as_str(), "resume" | "step");
    let mut reply = reply;
    let verb = match file::load(&path) {
        Ok(existing) if keep_existing => {
            let mut reply = reply.counted(&existing);
            reply.status = Some(existing.status.as_str().into());
            reply.previous_status = reply.status.clone();
            return Initialized::Kept { reply, mode };
        }
        Ok(existing) => {
            reply.previous_status = Some(existing.status.as_str().into());
            if existing.status.is_unfinished() {
                let t = existing.tally();
                reply.warnings.push(format!(
                    "{} holds an unfinished run ({}, {}/{} steps completed); --resume continues it; starting fresh",
                    path.display(),
                    existing.status,
                    t.completed,
                    t.total
                ));
            }
            "replaced"
        }
        Err(e) if e.missing => "created",
        Err(e) if keep_existing => {
            let first = e
                .problems
                .into_iter()
                .next()
                .unwrap_or_else(|| Problem::new(code::PROGRESS_UNREADABLE, "cannot be read"));
            return refused(reply, exit::CANNOT_CHECK, first);
        }
        Err(_) => {
            reply.warnings.push(format!(
                "{} was not a valid progress file; starting fresh",
                path.display()
            ));
            "replaced"
        }
    };
    reply.warnings.extend(budget.warning.clone());
    let cap = budget.cap;
    let iterations = cap.saturating_sub(facts.recovery_depth);
    let mut progress = init::fresh(&facts, &mode, cap, &UtcTime::now().rfc3339());
    if let Some((key, value)) = &request.extra {
        progress.extra.insert((*key).to_owned(), value.clone());
    }
    if let Err((code, p)) = file::save(&path, &progress) {
        return refused(reply, code, p);
    }
    let mut reply = reply.counted(&progress);
    reply.status = Some(progress.status.as_str().into());
    Initialized::Written {
        reply,
        verb,
        iterations,
        written: Box::new(progress),
    }
}

/// `progress resume-point`'s reading of the file at `path`: the reply,
/// counted, with the first step not completed, and the file as read. A
/// missing `iterations_remaining` is seeded from `budget` and written back;
/// the warnings are printed. A refusal comes with the reply so far.
pub(super) fn resume_point(
    path: &Path,
    budget: &budget::Budget,
) -> (Reply, Result<Progress, (u8, Problem)>) {
    let reply = Reply::new("resume-point", path);
    let mut progress = match load_for_update(path) {
        Ok(p) => p,
        Err(refused) => return (reply, Err(refused)),
    };
    let mut reply = reply;
    if backfill(&mut progress, budget, &mut reply.warnings) {
        reply.backfilled = true;
        if let Err(refused) = file::save(path, &progress) {
            return (reply, Err(refused));
        }
    }
    print_warnings(&reply.warnings);
    let mut reply = reply.counted(&progress);
    reply.step = progress.resume_point();
    reply.status = Some(progress.status.as_str().into());
    (reply, Ok(progress))
}
