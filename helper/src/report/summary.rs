//! The two machine-readable forms of the report: the `trekexecute_summary`
//! block (seed Phase 8, "JSON summary block"; schema `summary`, `$defs`
//! `trekexecute_summary`) and the Phase 9 stats record, both from the same
//! values the text report prints.

use serde::Serialize;
use serde_json::{Map, Value};

use super::model::{Audit, Counts, Criteria};
use crate::progress::Progress;

/// `trekexecute_summary`, its keys in the seed's order.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Summary {
    pub plan: String,
    pub plan_type: String,
    /// `1.7`, `1.6`, … or `legacy`.
    pub plan_version: String,
    pub result: &'static str,
    pub steps_total: u32,
    pub steps_passed: u32,
    pub steps_failed: u32,
    pub steps_skipped: u32,
    pub steps_not_reached: u32,
    pub steps_blocked: u32,
    pub failed_at_step: Option<u32>,
    /// `pass`, `fail`, `skipped` (not checked) or `n/a` (a trekplan).
    pub exit_condition: &'static str,
    /// `passed`, `failed`, `not-run` or `n/a` (a session spec).
    pub plan_verification: &'static str,
    /// `pass`, `drift` or `n/a` (not run).
    pub manifest_audit: &'static str,
    pub drift_details: Vec<Value>,
    pub recovery_dispatched: bool,
    pub recovery_depth: u32,
    pub iterations_remaining: Option<u32>,
    pub legacy_plan: bool,
    pub progress_file: String,
    /// `multi-session` for the report of a whole multi-session run (its
    /// `progress_file` is then the orders directory of the archived
    /// copies); absent for a single run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<&'static str>,
    /// The sessions of a multi-session run, each with its wave, steps,
    /// result and archived progress copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sessions: Option<Vec<super::waves::SessionRow>>,
}

impl Summary {
    pub(super) fn of(
        progress: &Progress,
        progress_file: &str,
        result: &'static str,
        counts: &Counts,
        failed_at_step: Option<u32>,
        criteria: &Criteria,
        audit: &Audit,
    ) -> Self {
        let spec = criteria.kind == "exit_condition";
        Self {
            plan: progress.plan.clone(),
            plan_type: progress.plan_type.clone(),
            plan_version: progress.plan_version.clone(),
            result,
            steps_total: counts.total,
            steps_passed: counts.passed,
            steps_failed: counts.failed,
            steps_skipped: counts.skipped,
            steps_not_reached: counts.not_reached,
            steps_blocked: counts.blocked,
            failed_at_step,
            exit_condition: match (spec, criteria.status) {
                (false, _) => "n/a",
                (true, "passed") => "pass",
                (true, "failed") => "fail",
                (true, _) => "skipped",
            },
            plan_verification: if spec { "n/a" } else { criteria.status },
            manifest_audit: match audit.status {
                "pass" => "pass",
                "drift" => "drift",
                _ => "n/a",
            },
            drift_details: audit.drift_details.clone(),
            recovery_dispatched: audit.recovery_dispatched,
            recovery_depth: audit.recovery_depth,
            iterations_remaining: progress.iterations_remaining,
            legacy_plan: audit.legacy_plan,
            progress_file: progress_file.to_owned(),
            mode: None,
            sessions: None,
        }
    }
}

/// The profile fields of a stats record (seed "Profile (v4.1)": `profile`,
/// `phase_models`, `profile_source`).
#[derive(Debug, Clone)]
pub(super) struct ProfileFields {
    pub name: String,
    pub phase_models: Value,
    pub source: &'static str,
}

/// The Phase 9 record: `ts` first (as `stats append` writes it), the plan's
/// file name only, and Phase 9's result words (a blocked run is `stopped`,
/// its run status). `put_back` is how many paths the steps' scope audits
/// put back; the record says it only when there were any, so a run that
/// kept to its steps' Files writes the record it always did.
pub(super) fn stats_record(
    summary: &Summary,
    mode: &str,
    profile: &ProfileFields,
    put_back: usize,
    now: &str,
) -> Map<String, Value> {
    let file_name = std::path::Path::new(&summary.plan).file_name().map_or_else(
        || summary.plan.clone(),
        |n| n.to_string_lossy().into_owned(),
    );
    let result = match summary.result {
        "blocked" => "stopped",
        other => other,
    };
    let mut record = Map::new();
    record.insert("plan".into(), file_name.into());
    record.insert("plan_type".into(), summary.plan_type.clone().into());
    record.insert("mode".into(), mode.into());
    record.insert("result".into(), result.into());
    record.insert("steps_total".into(), summary.steps_total.into());
    record.insert("steps_passed".into(), summary.steps_passed.into());
    record.insert("steps_failed".into(), summary.steps_failed.into());
    record.insert("steps_skipped".into(), summary.steps_skipped.into());
    record.insert(
        "failed_at_step".into(),
        summary.failed_at_step.map_or(Value::Null, Value::from),
    );
    if put_back > 0 {
        record.insert("scope_put_back".into(), put_back.into());
    }
    // A multi-session run's record names its sessions, whose own records
    // (mode `session`) `stats show` counts apart from runs.
    if let Some(sessions) = &summary.sessions {
        let numbers: Vec<u32> = sessions.iter().map(|s| s.session).collect();
        record.insert("sessions".into(), numbers.into());
    }
    record.insert("profile".into(), profile.name.clone().into());
    record.insert("phase_models".into(), profile.phase_models.clone());
    record.insert("profile_source".into(), profile.source.into());
    crate::stats::with_ts(record, now)
}
