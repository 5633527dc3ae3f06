//! The final report (DESIGN.md area `report/`; seed Phase 8 "Final
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
    if let Some(w) = &budget.warning {
        crate::problem::eprint_line(&format!("warning: {w}"));
    }
    let progress = match load_progress(&args.progress) {
        Ok(p) => p,
        Err(p) => return cannot(out, p),
    };
    let mut notes = Vec::new();
    // The plan: --plan must be readable; the one the progress file names
    // is read when it can be, and said when it cannot.
    let plan = match &args.plan {
        Some(path) => match crate::plan::load(path) {
            Ok(plan) => Some(plan),
            Err(e) => {
                let p = match &e {
                    crate::plan::PlanLoadError::Read { .. } => e.problem(),
                    crate::plan::PlanLoadError::Unrecognized { .. } => {
                        Problem::new(code::REPORT_PLAN_UNREADABLE, e.to_string())
                    }
                };
                return cannot(out, p.in_file_if_none(path));
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
    let shown = args.progress.display().to_string();
    let report = model::build(&shown, &progress, plan.as_ref(), budget.cap, notes);
    if args.stats_record {
        let fields = match crate::profile::for_record(
            args.profile.clone(),
            args.profile_source,
            env_profile,
            plan.as_ref().and_then(|p| p.profile.clone()),
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
            &report.trekexecute_summary,
            &report.mode,
            &fields,
            &UtcTime::now().rfc3339(),
        );
        serde_json::to_writer(&mut *out, &record)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(exit::OK);
    }
    if args.json {
        render::json(&report, out)?;
    } else {
        render::text(&report, out)?;
    }
    out.flush()?;
    Ok(if report.result == "completed" {
        exit::OK
    } else {
        exit::NOT_OK
    })
}
