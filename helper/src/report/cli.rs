//! `report`'s flags; [`ReportArgs::execute`] runs it through
//! [`execute_report`].

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::ops::build;
use super::render;
use crate::exit;
use crate::problem::{self, Problem};

/// Print a run's final report (Phase 8), or its stats record (Phase 9).
///
/// Reads the progress file (and the plan: --plan, else the one the
/// progress file names) and prints the seed's Phase 8 report:
///   ## Ultraexecute Local Complete, with Plan, Type, Mode (execute,
///     resume, step N, session) and Result (COMPLETED | FAILED at step N |
///     STOPPED (escalation) | PARTIAL (N/total passed) | BLOCKED (sandbox
///     ...)), and an **Override:** line with the completion gate's reasons
///     when the result differs from the word the run claimed;
///   ### Step Results: Step | Description | Result | Attempts | Commit |
///     Manifest (pass, fail, n/a for the sandbox pre-flight, — unaudited);
///   ### Plan Verification (trekplans) or ### Exit Condition (session
///     specs), as `criteria run --record` recorded it;
///   ### Manifest Audit (Phase 7.5), as `audit session --record` recorded
///     it, with recovery dispatched, recovery depth and legacy plan;
///   ### Summary (passed, skipped, failed, not reached, blocked);
///   ### Failure Details (each failed or blocked step: On failure, the
///     first 20 lines of its error, attempts);
///   ### What Remains and the resume/continue lines (unless completed);
///   ### Scope, only when a step's scope audit caught writes outside its
///     Files: a line per such step, each attempt's paths put back (or
///     left in place, and why) and the patch that holds them;
///   ### Security Blocks and ### Advisories, only when there are any (the
///     plan's commands the denylist blocks or warns about; checkpoint
///     drift; a plan edited during the run);
///   and last a ```json fence holding {"trekexecute_summary": {...}} on
///   one line.
///
/// THE RESULT WORD. completed, partial, blocked, failed or stopped. A run
/// that claims completed (or is in_progress with every step completed or
/// skipped) passes the completion gate first, as `progress finish` does:
/// the manifest audit passed, the plan verification (trekplans) or the
/// exit condition (session specs) passed, and iterations_remaining ==
/// TREKEXECUTE_MAX_RECOVERY_ITERATIONS (default 25) - (recovery_depth + the
/// attempts beyond each step's first). A failed stop signal makes it
/// failed, anything else partial. A stopped run with a blocked step
/// (Step 0 sentinel) is blocked. An in_progress run with steps left is
/// partial (it has not finished).
///
/// --json prints one object: the report's data and, beside it, the
/// `trekexecute_summary` key (schema summary).
///
/// --stats-record prints instead the Phase 9 record, one JSON line, ready
/// for `voyage-helper stats append trekexecute`: {ts, plan (file name),
/// plan_type, mode, result (a blocked run is stopped), steps_total,
/// steps_passed, steps_failed, steps_skipped, failed_at_step,
/// scope_put_back (the paths the scope audits put back; only when there
/// were any), profile, phase_models, profile_source}. The profile is
/// --profile, else $VOYAGE_PROFILE, else the plan's front matter, else
/// premium (sources flag, env, inheritance, default). A caller that
/// resolved the profile earlier passes its source with --profile-source
/// (trek does), so a defaulted profile is not recorded as `flag`.
///
/// Example:
///     voyage-helper report --progress .trekexecute-progress-plan.json
///     voyage-helper report --progress p.json --stats-record \
///       | voyage-helper stats append trekexecute
///
/// Exit status: 0 the result is completed (or the stats record was
/// printed), 1 any other result, 2 the progress file or --plan cannot be
/// read.
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct ReportArgs {
    /// The run's progress file.
    #[arg(long, value_name = "F")]
    pub progress: PathBuf,
    /// The plan (default: the one the progress file names).
    #[arg(long, value_name = "P")]
    pub plan: Option<PathBuf>,
    /// Print the report's data and trekexecute_summary as one JSON object.
    #[arg(long, conflicts_with = "stats_record")]
    pub json: bool,
    /// Print the Phase 9 stats record instead of the report.
    #[arg(long)]
    pub stats_record: bool,
    /// The profile the run used, for the stats record (default
    /// $VOYAGE_PROFILE, the plan's, premium).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Where --profile came from, when the caller resolved it earlier
    /// (default flag).
    #[arg(long, value_name = "SOURCE", value_enum, requires = "profile")]
    pub profile_source: Option<crate::profile::ProfileSource>,
}

impl ReportArgs {
    /// Runs `report`; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        let env_profile = std::env::var(crate::profile::PROFILE_ENV).ok();
        let budget = crate::progress::budget_from_env();
        execute_report(
            &self,
            env_profile,
            &budget,
            crate::data_dir::resolve().as_deref(),
            out,
        )
    }
}

fn cannot(out: &mut impl Write, problem: Problem) -> io::Result<u8> {
    problem::eprint_all(std::slice::from_ref(&problem));
    out.flush()?;
    Ok(exit::CANNOT_CHECK)
}

/// `report`: 0 completed (or a stats record printed), 1 another result, 2
/// could not read.
fn execute_report(
    args: &ReportArgs,
    env_profile: Option<String>,
    budget: &crate::progress::Budget,
    data_dir: Option<&Path>,
    out: &mut impl Write,
) -> io::Result<u8> {
    let built = match build(&args.progress, args.plan.as_deref(), None, budget) {
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
