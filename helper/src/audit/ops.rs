//! The audits' I/O edge: read the plan, find the repository, run the
//! audit, record it. Everything an audit needs from outside the process is
//! gathered here, for the command line and `trek` alike; the audits
//! themselves take values.

use std::path::Path;

use super::code;
use super::git::Git;
use super::{checkpoint, record, render, scope, session, step};
use crate::exit;
use crate::plan::{Manifest, Plan, PlanLoadError};
use crate::problem::{Coded, Problem};

/// A reason the audit could not check: printed, exit 2 (or its own code).
pub(super) type Refused = (u8, Problem);

/// The plan at `path`, or the one the caller read from it ([`crate::plan::given_or_load`]).
fn load_plan<'a>(
    given: Option<&'a Plan>,
    path: &Path,
    slot: &'a mut Option<Plan>,
) -> Result<&'a Plan, Refused> {
    crate::plan::given_or_load(given, path, slot).map_err(|e| {
        let problem = match &e {
            PlanLoadError::Read { .. } => e.problem(),
            PlanLoadError::Unrecognized { .. } => {
                Problem::new(code::AUDIT_PLAN_UNREADABLE, e.to_string())
            }
        };
        (exit::CANNOT_CHECK, problem.in_file_if_none(path))
    })
}

/// The step's manifest, or why there is none.
fn manifest_of<'p>(
    plan: &'p Plan,
    path: &Path,
    n: u32,
) -> Result<(&'p crate::plan::Step, &'p Manifest), Refused> {
    let Some(step) = plan.step(n) else {
        let known: Vec<String> = plan.steps.iter().map(|s| s.number.to_string()).collect();
        return Err((
            exit::CANNOT_CHECK,
            Problem::new(
                code::AUDIT_NO_SUCH_STEP,
                format!(
                    "the plan has no step {n} (steps: {})",
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                ),
            )
            .in_file(path),
        ));
    };
    match &step.manifest {
        Some(m) => Ok((step, m)),
        None => Err((
            exit::CANNOT_CHECK,
            Problem::new(
                code::AUDIT_NO_MANIFEST,
                format!(
                    "step {n} has no usable manifest; `voyage-helper plan validate {}` says why",
                    path.display()
                ),
            )
            .in_file(path)
            .at_line(step.line)
            .in_step(n),
        )),
    }
}

fn repository() -> Result<Git, Refused> {
    let cwd = std::env::current_dir().map_err(|e| {
        (
            exit::CANNOT_CHECK,
            Problem::new(
                code::AUDIT_NOT_A_REPOSITORY,
                format!("the current directory cannot be read: {e}"),
            ),
        )
    })?;
    Git::discover(&cwd).map_err(|p| (exit::CANNOT_CHECK, p))
}

fn cannot(p: Problem) -> Refused {
    (exit::CANNOT_CHECK, p)
}

/// The step `audit step` checks (Sub-step D2): the plan, the step, the
/// commit it began from (default HEAD), its Verify's exit code, and the
/// work tree (default: the current directory's).
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepRequest<'a> {
    pub plan: &'a Path,
    pub step: u32,
    pub since: Option<&'a str>,
    pub verify_exit: Option<i32>,
    pub repo: Option<&'a Path>,
    /// The plan at `plan`, when the caller has read it.
    pub loaded: Option<&'a Plan>,
}

/// What `audit step` found.
#[derive(Debug, Clone)]
pub(crate) struct StepAudited {
    pub(super) audit: step::StepAudit,
}

impl StepAudited {
    /// `pass`, `drift` or `blocked`.
    pub(crate) fn verdict(&self) -> &'static str {
        match self.audit.status {
            step::StepVerdict::Pass => "pass",
            step::StepVerdict::Drift => "drift",
            step::StepVerdict::Blocked => "blocked",
        }
    }

    /// Each drift item as one line ([`super::drift_line`]).
    pub(crate) fn drift_lines(&self) -> Vec<String> {
        self.audit
            .drift
            .iter()
            .map(|d| super::drift_line(&d.to_value()))
            .collect()
    }

    /// Records the finding in the progress file at `path`.
    pub(crate) fn record(&mut self, path: &Path) -> Result<(), Refused> {
        record::step(path, &self.audit)?;
        self.audit.recorded = Some(path.display().to_string());
        Ok(())
    }
}

/// `audit step`: the step's manifest checked against the work tree.
pub(crate) fn audit_step(request: &StepRequest<'_>) -> Result<StepAudited, Refused> {
    let mut read = None;
    let plan = load_plan(request.loaded, request.plan, &mut read)?;
    let (step, manifest) = manifest_of(plan, request.plan, request.step)?;
    let git = match request.repo {
        Some(root) => Git::at(root),
        None => repository()?,
    };
    let since = git
        .commit_id(request.since.unwrap_or("HEAD"), "--since")
        .map_err(cannot)?;
    let audit = step::audit(&git, step, manifest, &since, request.verify_exit).map_err(cannot)?;
    Ok(StepAudited { audit })
}

/// `audit checkpoint` (Sub-step F) on step `step` of the plan at `plan`,
/// recorded in the progress file `record` when given.
pub(super) fn audit_checkpoint(
    plan_path: &Path,
    step: u32,
    record: Option<&Path>,
) -> Result<checkpoint::CheckpointAudit, Refused> {
    let mut read = None;
    let plan = load_plan(None, plan_path, &mut read)?;
    let (_, manifest) = manifest_of(plan, plan_path, step)?;
    let git = repository()?;
    let mut audit = checkpoint::audit(&git, step, manifest).map_err(cannot)?;
    if let Some(path) = record {
        record::checkpoint(path, &audit)?;
        audit.recorded = Some(path.display().to_string());
    }
    Ok(audit)
}

/// What `audit session` found, as `trek finish` tells it.
#[derive(Debug, Clone)]
pub(crate) struct SessionFindings {
    pub expected_paths: usize,
    pub commits: usize,
    pub scripts: usize,
    /// Each drift item as one line ([`super::drift_line`]).
    pub drift: Vec<String>,
    /// Each commit accepted as a message hook's rewrite, as one line.
    pub accepted: Vec<String>,
}

/// The run `audit session` (Phase 7.5) checks: its plan, its progress
/// file, the commit it started from, whether to record the finding in the
/// progress file, and the work tree (default: the current directory's).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionRequest<'a> {
    pub plan: &'a Path,
    /// The plan at `plan`, when the caller has read it.
    pub loaded: Option<&'a Plan>,
    pub progress: &'a Path,
    pub start: &'a str,
    pub record: bool,
    pub repo: Option<&'a Path>,
}

/// `audit session` as `trek finish` tells it; a refusal is returned, not
/// printed.
pub(crate) fn audit_session(request: &SessionRequest<'_>) -> Result<SessionFindings, Refused> {
    run_session(request).map(|a| SessionFindings {
        expected_paths: a.expected_paths,
        commits: a.commits,
        scripts: a.scripts,
        drift: a
            .drift_details
            .iter()
            .map(|d| super::drift_line(&d.to_value()))
            .collect(),
        accepted: a.accepted.iter().map(super::drift::Drift::line).collect(),
    })
}

/// `audit session`: the run's whole manifest audit.
pub(super) fn run_session(request: &SessionRequest<'_>) -> Result<session::SessionAudit, Refused> {
    let SessionRequest {
        plan: plan_path,
        loaded,
        progress: progress_path,
        start,
        record,
        repo,
    } = *request;
    let budget = crate::progress::budget_from_env();
    if let Some(w) = &budget.warning {
        crate::problem::eprint_line(&format!("warning: {w}"));
    }
    let mut read = None;
    let plan = load_plan(loaded, plan_path, &mut read)?;
    let broken: Vec<String> = plan
        .steps
        .iter()
        .filter(|s| s.manifest.is_none())
        .map(|s| s.number.to_string())
        .collect();
    if !broken.is_empty() {
        return Err(cannot(
            Problem::new(
                code::AUDIT_NO_MANIFEST,
                format!(
                    "steps {} have no usable manifest; `voyage-helper plan validate {}` says why",
                    broken.join(", "),
                    plan_path.display()
                ),
            )
            .in_file(plan_path),
        ));
    }
    let progress = record::load(progress_path)?;
    let git = match repo {
        Some(root) => Git::at(root),
        None => repository()?,
    };
    let start = git.commit_id(start, "--start").map_err(cannot)?;
    let mut audit = session::audit(&git, plan, &progress, &start, budget.cap).map_err(cannot)?;
    if record {
        record::session(progress_path, &audit)?;
        audit.recorded = Some(progress_path.display().to_string());
    }
    Ok(audit)
}

/// `audit scope` on step `step_number` of the plan at `plan_path`: what
/// changed since `since` (default HEAD) outside the step's Files, the run's
/// own files (those of `progress`, else of the live run of this plan) set
/// aside.
pub(super) fn audit_scope(
    plan_path: &Path,
    step_number: u32,
    since: Option<&str>,
    progress: Option<&Path>,
) -> Result<render::ScopeAudit, Refused> {
    let mut read = None;
    let plan = load_plan(None, plan_path, &mut read)?;
    let Some(step) = plan.step(step_number) else {
        return Err(cannot(
            Problem::new(
                code::AUDIT_NO_SUCH_STEP,
                format!("the plan has no step {step_number}"),
            )
            .in_file(plan_path),
        ));
    };
    let git = repository()?;
    let since = git
        .commit_id(since.unwrap_or("HEAD"), "--since")
        .map_err(cannot)?;
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let root = real(&git.root);
    let location = crate::run_marker::locate(&git.root);
    // Without --progress, the live run's own progress file, when the
    // run is of this plan.
    let progress = progress.map(real).or_else(|| {
        let marker = crate::run_marker::read(&location.as_ref()?.marker).ok()??;
        (real(Path::new(&marker.plan)) == real(plan_path))
            .then(|| real(Path::new(&marker.progress)))
    });
    let own = scope::Scope::run_files(&root, &real(plan_path), &progress.unwrap_or_default());
    let expected = step
        .manifest
        .as_ref()
        .map(|m| m.expected_paths.as_slice())
        .unwrap_or_default();
    let fence = scope::Scope::new(
        step.files
            .iter()
            .map(|f| f.path.as_str())
            .chain(expected.iter().map(String::as_str)),
        own.iter().map(String::as_str),
    );
    let base = location
        .and_then(|l| l.marker.parent().and_then(scope::read_base))
        .filter(|b| b.step == step_number);
    let found = scope::audit(&git, &since, base.as_ref(), &fence).map_err(cannot)?;
    Ok(render::ScopeAudit {
        status: if found.violations.is_empty() {
            "pass"
        } else {
            "drift"
        },
        step: step_number,
        since: found.since,
        base: found.base,
        changes: found.violations,
        in_scope: found.in_scope,
    })
}
