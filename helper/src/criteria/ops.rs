//! The criteria operations, as the command line and `trek` call them:
//! [`run_criteria`] (a plan's Verification, or a session spec's Exit
//! Condition) and [`check_entry`] (a session spec's entry condition), each
//! recording its answer in the progress file when asked.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::allowlist;
use super::code;
use super::entry::{self, EntryReport, EntryStatus};
use super::model::{Checked, ErrorInfo, Report, Status};
use super::render;
use super::runner::{self, RunError};
use super::screen::{Rules, criteria_of};
use crate::exit;
use crate::plan::{self, PlanKind};
use crate::problem::{self, Coded, Problem};
use crate::scan::Context;

/// Whether the built-in allowlist (without a project's entries, and
/// without the denylist) takes `command`: `Err` says why not.
pub fn allowlisted(command: &str) -> Result<(), String> {
    allowlist::check(command, &allowlist::Project::default()).map_err(|r| r.reason)
}

/// The directory commands run in: `--cwd` (a directory), else the git work
/// tree holding the current directory, else the current directory.
fn resolve_cwd(given: Option<&Path>) -> Result<PathBuf, Problem> {
    match given {
        Some(dir) if dir.is_dir() => Ok(std::path::absolute(dir).unwrap_or_else(|_| dir.into())),
        Some(dir) => Err(Problem::new(
            code::CRITERIA_BAD_CWD,
            format!("--cwd {} is not a directory", dir.display()),
        )),
        None => {
            let here = std::env::current_dir().map_err(|e| {
                Problem::new(code::CRITERIA_BAD_CWD, format!("no current directory: {e}"))
            })?;
            Ok(crate::git::toplevel(&here).unwrap_or(here))
        }
    }
}

impl From<&Problem> for ErrorInfo {
    fn from(p: &Problem) -> Self {
        Self {
            code: p.code,
            file: p.file.clone().unwrap_or_default(),
            line: p.line,
            message: p.message.clone(),
        }
    }
}

/// What `criteria run` found, and its exit code.
#[derive(Debug, Clone)]
pub(crate) struct Verification {
    pub(super) report: Report,
    pub code: u8,
}

impl Verification {
    /// Every criterion passed.
    pub(crate) fn passed(&self) -> bool {
        self.code == exit::OK
    }

    /// Why the run of the criteria was cut short by a signal to this
    /// process (not a verdict on the criteria), when it was.
    pub(crate) fn interrupted(&self) -> Option<&str> {
        self.report
            .error
            .as_ref()
            .filter(|e| e.code == code::CRITERIA_STOPPED)
            .map(|e| e.message.as_str())
    }

    /// The result as `--record` writes it in a progress file (`status`,
    /// `summary`, `failed_criteria`).
    pub(crate) fn record(&self) -> serde_json::Value {
        self.report.record()
    }

    /// The checklist `criteria run` prints, without its closing `RESULT:`
    /// line (for a caller that says what the result means itself).
    pub(crate) fn checklist(&self) -> String {
        let mut out = Vec::new();
        // Writing into memory does not fail.
        let _ = render::checklist(&self.report, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Whose checks to run (a plan's criteria, or a session spec's entry
/// condition), where, for how long each command may take, and the
/// progress file that records the result.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request<'a> {
    pub plan: &'a Path,
    /// The plan at `plan`, when the caller has read it.
    pub loaded: Option<&'a crate::plan::Plan>,
    pub cwd: Option<&'a Path>,
    pub timeout: Duration,
    pub record: Option<&'a Path>,
}

/// Runs a plan's Verification (or a session spec's Exit Condition), each
/// criterion screened and allowlisted, records the result when asked, and
/// prints on stderr why a criterion could not run; returns the report and
/// the exit code.
pub(crate) fn run_criteria(request: &Request<'_>) -> Verification {
    let args = request;
    let file = args.plan.display().to_string();
    let cwd = resolve_cwd(args.cwd);
    let shown_cwd = cwd
        .as_ref()
        .map_or_else(|_| String::new(), |c| c.display().to_string());
    let mut report = Report::new(file.clone(), None, shown_cwd);
    let cwd = match cwd {
        Ok(c) => c,
        Err(p) => {
            let report = with_error(report, &p, args.plan);
            return recorded(report, args.record, None);
        }
    };
    let mut read = None;
    let plan = match plan::given_or_load(args.loaded, args.plan, &mut read) {
        Ok(plan) => plan,
        Err(e) => {
            let report = with_error(report, &e.problem(), args.plan);
            return recorded(report, args.record, None);
        }
    };
    report = Report::new(file, Some(plan.kind), report.cwd);
    let (criteria, line) = match criteria_of(plan) {
        Some(found) => found,
        None => {
            report.status = Status::Failed;
            // The plan reader's own finding, which names a near-miss heading
            // (`### Verification`, `## Verification (acceptance)`) and its line.
            let said = plan
                .problems
                .iter()
                .find(|p| p.code == plan::code::NO_VERIFICATION_SECTION);
            let p = Problem::new(
                plan::code::NO_VERIFICATION_SECTION,
                said.map_or_else(
                    || "the plan has no `## Verification` section: a plan that promises no end-to-end check cannot be reported as verified".to_owned(),
                    |p| p.message.clone(),
                ),
            )
            .at(said.and_then(|p| p.line));
            let report = with_error(report, &p, args.plan);
            return recorded(report, args.record, Some(plan.kind));
        }
    };
    report.section_line = line;
    if criteria.is_empty() {
        report.status = Status::Failed;
        let section = report.section.unwrap_or("Verification");
        let p = Problem::new(
            plan::code::NO_CRITERIA,
            format!(
                "the plan's `## {section}` declares no criterion the runner reads; the plan is what failed here, not the run. \
                 The runner reads two forms: a bullet whose first backticked span is the command (- `cargo test` — all green), \
                 and the command lines of a fence tagged bash, sh, shell or console"
            ),
        )
        .at(line);
        let report = with_error(report, &p, args.plan);
        return recorded(report, args.record, Some(plan.kind));
    }
    report.summary.total = u32::try_from(criteria.len()).unwrap_or(u32::MAX);
    let ctx = Context::from_env();
    let rules = Rules::load(&cwd);
    problem::eprint_all(&rules.problems);
    let timeout = args.timeout;
    let mut stopped = None;
    for criterion in criteria {
        match runner::run(criterion, &cwd, timeout, &rules, &ctx) {
            Ok(ran) => report.push(Checked::new(criterion, ran)),
            Err(RunError::Stopped(s)) => {
                stopped = Some(Problem::new(
                    code::CRITERIA_STOPPED,
                    format!(
                        "interrupted by {} while `{}` ran; the rest did not run",
                        s.signal, criterion.command
                    ),
                ));
                break;
            }
            Err(RunError::Spawn(e)) => {
                stopped = Some(Problem::new(
                    code::CRITERIA_CANNOT_RUN,
                    format!("cannot start bash for `{}`: {e}", criterion.command),
                ));
                break;
            }
        }
    }
    if stopped.is_none() {
        report.settle();
    }
    if let Some(p) = &stopped {
        report = with_error(report, p, args.plan);
    }
    recorded(report, args.record, Some(plan.kind))
}

/// `report` with `problem` as its error, which is also printed on stderr.
fn with_error(mut report: Report, problem: &Problem, plan: &Path) -> Report {
    let p = problem.clone().in_file_if_none(plan);
    problem::eprint_all(std::slice::from_ref(&p));
    report.error = Some(ErrorInfo::from(&p));
    report
}

/// The exit code of `report`, after recording it in `record`'s progress
/// file (a failure to record is an exit 2).
fn recorded(report: Report, record: Option<&Path>, kind: Option<PlanKind>) -> Verification {
    let mut code = match report.status {
        Status::Passed => exit::OK,
        Status::Failed => exit::NOT_OK,
        Status::NotRun => exit::CANNOT_CHECK,
    };
    if let Some(path) = record {
        let record = report.record();
        let passed = report.status == Status::Passed;
        // A plan that could not be read is recorded as the progress file
        // says its plan is: a not-run verification is never left unsaid.
        let written = crate::progress::edit(path, |p| {
            let spec = kind.map_or(p.plan_type == "session-spec", |k| {
                k == PlanKind::SessionSpec
            });
            if spec {
                p.exit_condition_checked = passed;
                p.extra.insert("exit_condition".into(), record);
            } else {
                p.plan_verification = record;
            }
        });
        if let Err(p) = written {
            problem::eprint_all(&[p.in_file_if_none(path)]);
            code = exit::CANNOT_CHECK;
        }
    }
    Verification { report, code }
}

/// Checks a session spec's entry condition (Phase 4), records the answer
/// in the progress file when asked, and prints on stderr why it could not
/// be checked; returns the report and the exit code.
pub(crate) fn check_entry(request: &Request<'_>) -> (EntryReport, u8) {
    let file = request.plan.display().to_string();
    let refused = |p: Problem| {
        let p = p.in_file_if_none(request.plan);
        problem::eprint_all(std::slice::from_ref(&p));
        let report = EntryReport::new(file.clone(), EntryStatus::Undecided, p.message.clone());
        decided(report, None)
    };
    let cwd = match resolve_cwd(request.cwd) {
        Ok(c) => c,
        Err(p) => return refused(p),
    };
    let mut read = None;
    let plan = match plan::given_or_load(request.loaded, request.plan, &mut read) {
        Ok(plan) => plan,
        Err(e) => return refused(e.problem()),
    };
    let spec = match (&plan.kind, &plan.session) {
        (PlanKind::SessionSpec, Some(spec)) => spec,
        _ => {
            let report = EntryReport::new(
                file.clone(),
                EntryStatus::NotApplicable,
                "a trekplan has no entry condition (Phase 4 is for session specs)",
            );
            return decided(report, None);
        }
    };
    let Some(condition) = &spec.entry_condition else {
        let report = EntryReport::new(
            file.clone(),
            EntryStatus::Undecided,
            "the session spec's `## Dependencies` has no `Entry condition:` line",
        );
        return decided(report, request.record);
    };
    let mut report = EntryReport::new(file.clone(), EntryStatus::Undecided, "");
    let ctx = Context::from_env();
    match entry::check(
        &mut report,
        &condition.text,
        condition.line,
        &cwd,
        request.timeout,
        &ctx,
    ) {
        Ok(()) => {}
        Err(RunError::Stopped(s)) => {
            return refused(Problem::new(
                code::CRITERIA_STOPPED,
                format!("interrupted by {} while the entry condition ran", s.signal),
            ));
        }
        Err(RunError::Spawn(e)) => {
            return refused(Problem::new(
                code::CRITERIA_CANNOT_RUN,
                format!("cannot start bash: {e}"),
            ));
        }
    }
    decided(report, request.record)
}

/// The exit code of `report`, after recording it in `record`'s progress
/// file (a failure to record is an exit 2).
fn decided(report: EntryReport, record: Option<&Path>) -> (EntryReport, u8) {
    let mut code = match report.status {
        EntryStatus::Pass | EntryStatus::NotApplicable => exit::OK,
        EntryStatus::Fail => exit::NOT_OK,
        EntryStatus::Undecided => exit::CANNOT_CHECK,
    };
    if let Some(path) = record {
        let passed = report.status == EntryStatus::Pass;
        if let Err(p) = crate::progress::edit(path, |p| p.entry_condition_checked = passed) {
            problem::eprint_all(&[p.in_file_if_none(path)]);
            code = exit::CANNOT_CHECK;
        }
    }
    (report, code)
}
