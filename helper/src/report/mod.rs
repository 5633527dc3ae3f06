//! The final report (area `report/`; seed Phase 8 "Final
//! report", its `trekexecute_summary` block and result vocabulary, and the
//! Phase 9 stats record): `report`.
//!
//! Everything it says comes from what the run recorded: the progress file
//! (steps, `plan_verification` or `exit_condition`, `manifest_audit`,
//! recovery and budget fields) and the plan (descriptions, On failure, and
//! its commands judged by the denylist engine). The result word passes the
//! completion gate of the progress area ([`crate::progress::completion_gate`])
//! whenever the run claims `completed`, so the report and `progress
//! finish` can never disagree.
//!
//! - [`model`]: the report as values, built by a pure function;
//! - [`summary`]: `trekexecute_summary` and the stats record;
//! - [`render`]: the text and JSON forms; [`cli`]: the flags.

mod cli;
pub(crate) mod code;
mod model;
mod render;
mod summary;

pub(crate) use cli::ReportArgs;

use std::io::{self, Write};
use std::path::Path;

use serde_json::Value;

use crate::clock::UtcTime;
use crate::exit;
use crate::problem::{self, Coded, Problem};
use crate::progress::Progress;

fn cannot(out: &mut impl Write, problem: Problem) -> io::Result<u8> {
    problem::eprint_all(std::slice::from_ref(&problem));
    out.flush()?;
    Ok(exit::CANNOT_CHECK)
}

fn load_progress(path: &Path) -> Result<Progress, Problem> {
    crate::progress::load(path).map_err(|e| {
        let mut problems = e.problems.into_iter();
        let first = problems.next().unwrap_or_else(|| {
            Problem::new(code::REPORT_PROGRESS, "the progress file cannot be read").in_file(path)
        });
        problem::eprint_all(&problems.collect::<Vec<_>>());
        first
    })
}

/// `report`: 0 completed (or a stats record printed), 1 another result, 2
/// could not read.
pub(crate) fn execute(
    args: &ReportArgs,
    env_profile: Option<String>,
    budget: &crate::progress::Budget,
    data_dir: Option<&Path>,
    out: &mut impl Write,
) -> io::Result<u8> {
    let built = match build(&args.progress, args.plan.as_deref(), budget) {
        Ok(b) => b,
        Err(p) => return cannot(out, p),
    };
    if args.stats_record {
        let record = built.stats_record(
            args.profile.clone(),
            args.profile_source,
            env_profile,
            data_dir,
        );
        serde_json::to_writer(&mut *out, &record)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(exit::OK);
    }
    if args.json {
        render::json(&built.report, out)?;
    } else {
        render::text(&built.report, out)?;
    }
    out.flush()?;
    Ok(built.code())
}

/// The final report of a run, built once from its progress file and plan.
#[derive(Debug)]
pub(crate) struct Built {
    report: model::Report,
    plan: Option<crate::plan::Plan>,
}

/// Builds the report of the run recorded in `progress_path`, its plan
/// read from `plan_path` (else from the one the progress file names, when
/// it can be). The budget's warning and unreadable inputs are told on
/// stderr; the problem returned is the reason no report can be made.
pub(crate) fn build(
    progress_path: &Path,
    plan_path: Option<&Path>,
    budget: &crate::progress::Budget,
) -> Result<Built, Problem> {
    if let Some(w) = &budget.warning {
        crate::problem::eprint_line(&format!("warning: {w}"));
    }
    let progress = load_progress(progress_path)?;
    let mut notes = Vec::new();
    // The plan: --plan must be readable; the one the progress file names
    // is read when it can be, and said when it cannot.
    let plan = match plan_path {
        Some(path) => match crate::plan::load(path) {
            Ok(plan) => Some(plan),
            Err(e) => {
                let p = match &e {
                    crate::plan::PlanLoadError::Read { .. } => e.problem(),
                    crate::plan::PlanLoadError::Unrecognized { .. } => {
                        Problem::new(code::REPORT_PLAN_UNREADABLE, e.to_string())
                    }
                };
                return Err(p.in_file_if_none(path));
            }
        },
        None => match crate::plan::load(Path::new(&progress.plan)) {
            Ok(plan) => Some(plan),
            Err(e) => {
                notes.push(format!(
                    "the plan was not read ({e}): step descriptions, On failure and the security judgement are left out; pass --plan"
                ));
                None
            }
        },
    };
    let shown = progress_path.display().to_string();
    let report = model::build(&shown, &progress, plan.as_ref(), budget.cap, notes);
    Ok(Built { report, plan })
}

impl Built {
    /// The exit code: 0 for a completed run, else 1.
    pub(crate) fn code(&self) -> u8 {
        if self.report.result == "completed" {
            exit::OK
        } else {
            exit::NOT_OK
        }
    }

    /// The report as text.
    pub(crate) fn text(&self) -> String {
        let mut out = Vec::new();
        // Writing into memory does not fail.
        let _ = render::text(&self.report, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The result word (`completed`, `partial`, …).
    pub(crate) fn result(&self) -> &'static str {
        self.report.trekexecute_summary.result
    }

    /// The `trekexecute_summary` block, as `report --json` prints it.
    pub(crate) fn summary(&self) -> Value {
        serde_json::to_value(&self.report.trekexecute_summary).unwrap_or(Value::Null)
    }

    /// The Phase 9 stats record, the profile chosen as `profile resolve`
    /// chooses it (`flag`, with where it really came from as `recorded`;
    /// then `env`; then the plan's front matter). A profile that cannot be
    /// resolved is warned about on stderr and recorded with null models.
    pub(crate) fn stats_record(
        &self,
        flag: Option<String>,
        recorded: Option<crate::profile::ProfileSource>,
        env_profile: Option<String>,
        data_dir: Option<&Path>,
    ) -> Value {
        let fields = match crate::profile::for_record(
            flag,
            recorded,
            env_profile,
            self.plan.as_ref().and_then(|p| p.profile.clone()),
            data_dir,
        ) {
            Ok((profile, source)) => summary::ProfileFields {
                name: profile.name,
                phase_models: serde_json::to_value(&profile.phase_models).unwrap_or(Value::Null),
                source,
            },
            Err((name, source, problems)) => {
                let reasons: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
                problem::eprint_all(&[Problem::warning(
                    code::REPORT_PROFILE,
                    format!(
                        "profile '{name}' cannot be resolved ({}); phase_models is null",
                        reasons.join("; ")
                    ),
                )]);
                summary::ProfileFields {
                    name,
                    phase_models: Value::Null,
                    source,
                }
            }
        };
        let record = summary::stats_record(
            &self.report.trekexecute_summary,
            &self.report.mode,
            &fields,
            &UtcTime::now().rfc3339(),
        );
        serde_json::to_value(&record).unwrap_or(Value::Null)
    }
}
