//! The report operation, as the command line and `trek` call it: [`build`]
//! reads the run's progress file and plan once, and the [`Built`] report
//! answers as text, as its summary block or as a stats record.

use std::path::Path;

use serde_json::Value;

use super::{code, model, render, summary};
use crate::clock::UtcTime;
use crate::exit;
use crate::problem::{self, Coded, Problem};
use crate::progress::Progress;

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

/// The final report of a run, built once from its progress file and plan.
#[derive(Debug)]
pub(crate) struct Built {
    pub(super) report: model::Report,
    /// The plan's `profile:`, for the stats record.
    plan_profile: Option<String>,
}

/// Builds the report of the run recorded in `progress_path`, its plan
/// read from `plan_path` (else from the one the progress file names, when
/// it can be), or `loaded`, the plan at `plan_path` the caller has read.
/// The budget's warning and unreadable inputs are told on stderr; the
/// problem returned is the reason no report can be made.
pub(crate) fn build(
    progress_path: &Path,
    plan_path: Option<&Path>,
    loaded: Option<&crate::plan::Plan>,
    budget: &crate::progress::Budget,
) -> Result<Built, Problem> {
    if let Some(w) = &budget.warning {
        crate::problem::eprint_line(&format!("warning: {w}"));
    }
    let progress = load_progress(progress_path)?;
    let mut notes = Vec::new();
    // The plan: --plan must be readable; the one the progress file names
    // is read when it can be, and said when it cannot.
    let mut read = None;
    let plan = match plan_path {
        Some(path) => match crate::plan::given_or_load(loaded, path, &mut read) {
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
            Ok(plan) => Some(&*read.insert(plan)),
            Err(e) => {
                notes.push(format!(
                    "the plan was not read ({e}): step descriptions, On failure and the security judgement are left out; pass --plan"
                ));
                None
            }
        },
    };
    let shown = progress_path.display().to_string();
    let report = model::build(&shown, &progress, plan, budget.cap, notes);
    let plan_profile = plan.and_then(|p| p.profile.clone());
    Ok(Built {
        report,
        plan_profile,
    })
}

impl Built {
    /// The report of a whole multi-session run, `whole` its sessions'
    /// copies folded into one ([`super::waves`]): the single run's model,
    /// with its mode and sessions said in the report and its summary.
    pub(super) fn of_run(
        shown: &str,
        whole: &Progress,
        plan: &crate::plan::Plan,
        cap: u32,
        sessions: Vec<super::waves::SessionRow>,
        notes: Vec<String>,
    ) -> Self {
        let mut report = model::build(shown, whole, Some(plan), cap, notes);
        let mut waves: Vec<u32> = sessions.iter().map(|s| s.wave).collect();
        waves.sort_unstable();
        waves.dedup();
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        report.mode_line = format!(
            "{} ({} in {})",
            super::waves::MODE,
            plural(sessions.len(), "session", "sessions"),
            plural(waves.len(), "wave", "waves")
        );
        report.trekexecute_summary.mode = Some(super::waves::MODE);
        report.trekexecute_summary.sessions = Some(sessions.clone());
        report.sessions = sessions;
        Self {
            report,
            plan_profile: plan.profile.clone(),
        }
    }

    /// The whole report, every list in full.
    pub(crate) fn full_text(&self) -> String {
        let mut out = Vec::new();
        // Writing into memory does not fail.
        let _ = render::text(&self.report, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The exit code: 0 for a completed run, else 1.
    pub(crate) fn code(&self) -> u8 {
        if self.report.result == "completed" {
            exit::OK
        } else {
            exit::NOT_OK
        }
    }

    /// The report as `trek finish` hands it back: long lists summarised
    /// ([`super::brief`]), with `full`, the command that prints it all.
    pub(crate) fn brief_text(&self, full: &str) -> String {
        let mut out = Vec::new();
        // Writing into memory does not fail.
        let _ = render::text_with(&self.report, render::Detail::Brief { full }, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// [`Self::summary`] with a long drift list cut short, as the brief
    /// report's block holds it.
    pub(crate) fn brief_summary(&self) -> Value {
        super::brief::summary(self.summary())
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
            self.plan_profile.clone(),
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
            self.report.steps.iter().map(model::StepRow::put_back).sum(),
            &UtcTime::now().rfc3339(),
        );
        serde_json::to_value(&record).unwrap_or(Value::Null)
    }
}
