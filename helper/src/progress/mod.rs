//! Progress files (DESIGN.md area `progress/`; seed Phase 3 and Phase 6):
//! `progress init`, `show`, `step`, `resume-point`, `finish` and `validate`.
//!
//! The progress file is the executor's ground truth for resume (Hard rule
//! 9). Every change is read, checked against the schema and the transition
//! rules, and written back atomically, so a crash, a concurrent reader or a
//! refused change never leaves a broken or half-changed file.
//!
//! - [`model`]: the document; [`status`]: its status words.
//! - [`init`]: a fresh file from a plan (the plan model of `plan/`).
//! - [`path`]: where the file lives for a plan, a project and a session.
//! - [`transition`]: the legal step changes, the retry cap and the budget.
//! - [`budget`]: `TREKEXECUTE_MAX_RECOVERY_ITERATIONS` and the caps.
//! - [`mod@file`]: load and save through the schema; [`check`]: `validate`.
//! - [`render`]: `show` and the replies.

pub mod budget;
pub mod check;
pub mod code;
pub mod file;
pub mod init;
pub mod model;
pub mod path;
pub mod render;
pub mod status;
pub mod transition;

use std::io::Write;
use std::path::{Path, PathBuf};

use model::Progress;
use render::Reply;
use status::{RunStatus, StepStatus};
use transition::StepUpdate;

use crate::clock::UtcTime;
use crate::exit;
use crate::problem::Coded;
use crate::problem::{self, Problem};
use crate::schema;

/// The codes a schema check of a progress file reports.
pub const CODES: schema::Codes = schema::Codes {
    missing_key: code::PROGRESS_MISSING_KEY,
    not_object: code::PROGRESS_NOT_OBJECT,
    other: code::PROGRESS_BAD_VALUE,
    tagged: code::ALL,
};

/// Where the progress file is: given, or derived as Phase 3 says.
#[derive(Debug, Clone, Default)]
pub struct Locate {
    pub file: Option<PathBuf>,
    pub plan: Option<PathBuf>,
    pub project: Option<PathBuf>,
    pub session: Option<u32>,
}

impl Locate {
    /// The progress file's path, or a usage problem.
    pub fn resolve(&self) -> Result<PathBuf, Problem> {
        if let Some(file) = &self.file {
            return Ok(file.clone());
        }
        path::progress_path(self.plan.as_deref(), self.project.as_deref(), self.session).ok_or_else(
            || {
                Problem::new(
                    code::PROGRESS_NO_TARGET,
                    "say which progress file: --file PATH, --project DIR or --plan PLAN",
                )
            },
        )
    }
}

/// Prints a refusal (stderr, and the JSON reply with `--json`) and returns
/// its exit code.
fn refuse(mut reply: Reply, json: bool, code: u8, problem: Problem, out: &mut impl Write) -> u8 {
    problem::eprint_all(std::slice::from_ref(&problem));
    if json {
        reply.ok = false;
        reply.problem = Some(problem);
        let _ = reply.render_json(out);
        let _ = out.flush();
    }
    code
}

/// Loads the file for a writer: a missing or broken file is exit 2 with
/// every problem on stderr.
fn load_for_update(path: &Path) -> Result<Progress, (u8, Problem)> {
    file::load(path).map_err(|e| {
        let mut problems = e.problems.into_iter();
        let first = problems
            .next()
            .unwrap_or_else(|| Problem::new(code::PROGRESS_UNREADABLE, "cannot be read"));
        problem::eprint_all(&problems.collect::<Vec<_>>());
        (exit::CANNOT_CHECK, first)
    })
}

/// Seeds a missing `iterations_remaining` from the environment (seed Phase
/// 3, "Backfill-on-absent"). Returns whether it did, and any warning.
fn backfill(progress: &mut Progress, warnings: &mut Vec<String>) -> bool {
    if progress.iterations_remaining.is_some() {
        return false;
    }
    let (cap, warning) = budget::from_env();
    warnings.extend(warning);
    progress.iterations_remaining = Some(cap);
    true
}

fn print_warnings(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// Options of `progress show`.
#[derive(Debug, Clone)]
pub struct ShowOptions {
    pub locate: Locate,
    pub json: bool,
}

/// `progress show`: exit 0, or 2 when the file is missing or broken.
pub fn execute_show(options: &ShowOptions, out: &mut impl Write) -> u8 {
    let path = match options.locate.resolve() {
        Ok(p) => p,
        Err(p) => return refuse_plain(exit::CANNOT_CHECK, p),
    };
    let progress = match load_for_update(&path) {
        Ok(p) => p,
        Err((code, p)) => return refuse_plain(code, p),
    };
    let _ = if options.json {
        serde_json::to_writer_pretty(&mut *out, &progress)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        render::render_show(&path.display().to_string(), &progress, out)
    };
    let _ = out.flush();
    exit::OK
}

fn refuse_plain(code: u8, problem: Problem) -> u8 {
    problem::eprint_all(std::slice::from_ref(&problem));
    code
}

/// Options of `progress step`.
#[derive(Debug, Clone)]
pub struct StepOptions {
    pub locate: Locate,
    pub update: StepUpdate,
    /// The `--status` word as typed, checked here.
    pub status_word: String,
    pub json: bool,
}

/// `progress step N --status S`: exit 0 applied, 1 refused, 2 no usable file.
pub fn execute_step(options: &StepOptions, out: &mut impl Write) -> u8 {
    let path = match options.locate.resolve() {
        Ok(p) => p,
        Err(p) => return refuse_plain(exit::CANNOT_CHECK, p),
    };
    let mut reply = Reply::new("step", &path);
    reply.step = Some(options.update.step);
    let mut update = options.update.clone();
    update.status = StepStatus::parse_settable(&options.status_word);
    if update.status.is_none() {
        let words: Vec<&str> = StepStatus::SETTABLE.iter().map(|s| s.as_str()).collect();
        let legacy = if options.status_word == "passed" {
            " (`passed` is the legacy word: write completed)"
        } else {
            ""
        };
        let problem = Problem::new(
            code::PROGRESS_BAD_STATUS,
            format!(
                "unknown step status '{}'{legacy}; one of {}",
                options.status_word,
                words.join(", ")
            ),
        );
        return refuse(reply, options.json, exit::NOT_OK, problem, out);
    }
    let mut progress = match load_for_update(&path) {
        Ok(p) => p,
        Err((code, p)) => return refuse(reply, options.json, code, p, out),
    };
    reply.backfilled = backfill(&mut progress, &mut reply.warnings);
    let now = UtcTime::now().rfc3339();
    let applied = match transition::apply(&mut progress, &update, &now) {
        Ok(a) => a,
        Err(p) => {
            let reply = reply.counted(&progress);
            return refuse(reply, options.json, exit::NOT_OK, p.in_file(&path), out);
        }
    };
    if let Err((code, p)) = file::save(&path, &progress) {
        return refuse(reply, options.json, code, p, out);
    }
    print_warnings(&reply.warnings);
    let mut reply = reply.counted(&progress);
    reply.status = Some(applied.to.as_str().into());
    reply.previous_status = Some(applied.from.as_str().into());
    reply.attempts = Some(applied.attempts);
    reply.retry = applied.retry;
    let _ = if options.json {
        reply.render_json(out)
    } else {
        let mut line = format!("step {}: {} -> {}", applied.step, applied.from, applied.to);
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
        writeln!(out, "{line}")
    };
    let _ = out.flush();
    exit::OK
}

/// Options of `progress resume-point`.
#[derive(Debug, Clone)]
pub struct ResumeOptions {
    pub locate: Locate,
    pub json: bool,
}

/// `progress resume-point`: the first step not completed. A missing
/// `iterations_remaining` is seeded and written back. Exit 0, or 2 when the
/// file is missing or broken.
pub fn execute_resume_point(options: &ResumeOptions, out: &mut impl Write) -> u8 {
    let path = match options.locate.resolve() {
        Ok(p) => p,
        Err(p) => return refuse_plain(exit::CANNOT_CHECK, p),
    };
    let reply = Reply::new("resume-point", &path);
    let mut progress = match load_for_update(&path) {
        Ok(p) => p,
        Err((code, p)) => return refuse(reply, options.json, code, p, out),
    };
    let mut reply = reply;
    if backfill(&mut progress, &mut reply.warnings) {
        reply.backfilled = true;
        if let Err((code, p)) = file::save(&path, &progress) {
            return refuse(reply, options.json, code, p, out);
        }
    }
    print_warnings(&reply.warnings);
    let mut reply = reply.counted(&progress);
    reply.step = progress.resume_point();
    reply.status = Some(progress.status.as_str().into());
    let _ = if options.json {
        reply.render_json(out)
    } else {
        match reply.step {
            Some(n) => writeln!(
                out,
                "Resuming from step {n}. {}/{} steps already completed.",
                reply.completed_steps, reply.total_steps
            ),
            None => writeln!(out, "All {} steps completed.", reply.total_steps),
        }
    };
    if reply.backfilled {
        eprintln!(
            "note: iterations_remaining was missing; seeded to {}",
            progress.iterations_remaining.unwrap_or_default()
        );
    }
    let _ = out.flush();
    exit::OK
}

/// Options of `progress finish`.
#[derive(Debug, Clone)]
pub struct FinishOptions {
    pub locate: Locate,
    pub status_word: String,
    /// `--summary`: JSON, or else kept as a string.
    pub summary: Option<String>,
    /// `--plan-verification`: a JSON object.
    pub plan_verification: Option<String>,
    pub json: bool,
}

/// `progress finish --status S`: the run's final status (seed Phase 8,
/// "Progress + state-file writes"). `completed` needs every step completed
/// or skipped. Exit 0, 1 refused, 2 no usable file.
pub fn execute_finish(options: &FinishOptions, out: &mut impl Write) -> u8 {
    let path = match options.locate.resolve() {
        Ok(p) => p,
        Err(p) => return refuse_plain(exit::CANNOT_CHECK, p),
    };
    let reply = Reply::new("finish", &path);
    let status = match RunStatus::parse(&options.status_word) {
        Some(s) if s != RunStatus::InProgress => s,
        _ => {
            let p = Problem::new(
                code::PROGRESS_BAD_STATUS,
                format!(
                    "unknown final status '{}'; one of completed, failed, stopped, partial",
                    options.status_word
                ),
            );
            return refuse(reply, options.json, exit::NOT_OK, p, out);
        }
    };
    let verification = match options
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
            return refuse(reply, options.json, exit::NOT_OK, p, out);
        }
    };
    let mut progress = match load_for_update(&path) {
        Ok(p) => p,
        Err((code, p)) => return refuse(reply, options.json, code, p, out),
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
            return refuse(reply, options.json, exit::NOT_OK, p, out);
        }
    }
    let previous = progress.status;
    progress.status = status;
    progress.updated_at = UtcTime::now().rfc3339();
    if let Some(summary) = &options.summary {
        progress.summary = serde_json::from_str(summary)
            .unwrap_or_else(|_| serde_json::Value::String(summary.clone()));
    }
    if let Some(v) = verification {
        progress.plan_verification = v;
    }
    if let Err((code, p)) = file::save(&path, &progress) {
        return refuse(reply, options.json, code, p, out);
    }
    let mut reply = reply.counted(&progress);
    reply.status = Some(status.as_str().into());
    reply.previous_status = Some(previous.as_str().into());
    let _ = if options.json {
        reply.render_json(out)
    } else {
        writeln!(
            out,
            "run {previous} -> {status}: {}/{} steps completed",
            reply.completed_steps, reply.total_steps
        )
    };
    let _ = out.flush();
    exit::OK
}

/// Options of `progress validate`.
#[derive(Debug, Clone)]
pub struct ValidateOptions {
    pub file: PathBuf,
    pub json: bool,
}

/// `progress validate FILE`: exit 0 valid, 1 problems, 2 unreadable.
pub fn execute_validate(options: &ValidateOptions, out: &mut impl Write) -> u8 {
    check::validate_file(&options.file).print(options.json, out)
}

/// Options of `progress init`.
#[derive(Debug, Clone)]
pub struct InitOptions {
    pub locate: Locate,
    pub mode: String,
    pub json: bool,
}

/// `progress init`: exit 0 created, replaced or kept; 1 the plan is not a
/// plan or has no such session; 2 unreadable plan, broken file kept in
/// resume or step mode, or a failed write.
pub fn execute_init(options: &InitOptions, out: &mut impl Write) -> u8 {
    let mut locate = options.locate.clone();
    if locate.plan.is_none() {
        locate.plan = locate.project.as_deref().map(path::project_plan);
    }
    let Some(plan_path) = locate.plan.clone() else {
        return refuse_plain(
            exit::CANNOT_CHECK,
            Problem::new(
                code::PROGRESS_NO_TARGET,
                "say which plan: --plan PLAN or --project DIR",
            ),
        );
    };
    let path = match locate.resolve() {
        Ok(p) => p,
        Err(p) => return refuse_plain(exit::CANNOT_CHECK, p),
    };
    let mut reply = Reply::new("init", &path);
    let mode = if locate.session.is_some() && options.mode == "execute" {
        "session".to_owned()
    } else {
        options.mode.clone()
    };
    if !init::MODES.contains(&mode.as_str()) {
        let p = Problem::new(
            code::PROGRESS_BAD_MODE,
            format!("unknown mode '{mode}'; one of {}", init::MODES.join(", ")),
        );
        return refuse(reply, options.json, exit::CANNOT_CHECK, p, out);
    }
    let plan = match crate::plan::load(&plan_path) {
        Ok(plan) => plan,
        Err(e) => {
            let code = match e {
                crate::plan::PlanLoadError::Read { .. } => exit::CANNOT_CHECK,
                crate::plan::PlanLoadError::Unrecognized { .. } => exit::NOT_OK,
            };
            let p = e.problem().in_file(&plan_path);
            return refuse(reply, options.json, code, p, out);
        }
    };
    let facts = match init::PlanFacts::of(&plan, &plan_path, locate.session) {
        Ok(f) => f,
        Err(p) => return refuse(reply, options.json, exit::NOT_OK, p, out),
    };
    let keep_existing = matches!(mode.as_str(), "resume" | "step");
    let verb = match file::load(&path) {
        Ok(existing) if keep_existing => {
            let mut reply = reply.counted(&existing);
            reply.status = Some(existing.status.as_str().into());
            reply.previous_status = reply.status.clone();
            let _ = if options.json {
                reply.render_json(out)
            } else {
                writeln!(
                    out,
                    "kept {} ({mode}): {}/{} steps completed",
                    path.display(),
                    reply.completed_steps,
                    reply.total_steps
                )
            };
            let _ = out.flush();
            return exit::OK;
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
            return refuse(reply, options.json, exit::CANNOT_CHECK, first, out);
        }
        Err(_) => {
            reply.warnings.push(format!(
                "{} was not a valid progress file; starting fresh",
                path.display()
            ));
            "replaced"
        }
    };
    let (budget, warning) = budget::from_env();
    reply.warnings.extend(warning);
    let progress = init::fresh(&facts, &mode, budget, &UtcTime::now().rfc3339());
    if let Err((code, p)) = file::save(&path, &progress) {
        return refuse(reply, options.json, code, p, out);
    }
    print_warnings(&reply.warnings);
    let mut reply = reply.counted(&progress);
    reply.status = Some(progress.status.as_str().into());
    let _ = if options.json {
        reply.render_json(out)
    } else {
        writeln!(
            out,
            "{verb} {}: {} steps pending, {budget} recovery/retry iterations",
            path.display(),
            reply.total_steps
        )
    };
    let _ = out.flush();
    exit::OK
}
