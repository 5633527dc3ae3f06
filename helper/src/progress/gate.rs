//! The completion gate (seed Phase 7.5, "Machine-verifiable completion
//! gate"): a run may end `completed` only when its three clauses hold, each
//! read from what the progress file recorded, never from the executor's
//! word:
//!
//! 1. **objective predicate**: the Phase 7.5 manifest audit passed
//!    (`manifest_audit.status == "pass"`, as `audit session --record`
//!    writes it); a drift or an audit never run makes the run `partial`;
//! 2. **stop signal**: for a trekplan, Phase 7's plan verification passed
//!    (`plan_verification.status == "passed"`); for a session spec, the exit
//!    condition passed (`exit_condition_checked`, which `criteria run
//!    --record` sets only when every criterion passed); anything else makes
//!    the run `failed`. A `--session N` run of a multi-session plan records
//!    it as `deferred` instead: the plan's check of the whole belongs to
//!    the master verification, and only such a run may defer it;
//! 3. **counter liveness**: `iterations_remaining` reconciles with the
//!    budget, by the same arithmetic the session audit uses
//!    ([`Progress::expected_iterations_remaining`]); a counter left
//!    un-decremented, tampered with or missing makes the run `partial`.
//!
//! A failed stop signal outranks the other two: the status is `failed`.
//! `progress finish --status completed` and `report` both apply it.

use serde::Serialize;
use serde_json::Value;

use super::model::Progress;
use super::status::RunStatus;

/// What the gate decided, with every reason a clause failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Gate {
    /// All three clauses hold: `completed` may stand.
    pub(crate) passed: bool,
    /// The status a claimed `completed` becomes: `completed`, `partial` or
    /// `failed`.
    pub(crate) status: &'static str,
    /// One sentence per failed clause, in clause order.
    pub(crate) reasons: Vec<String>,
    /// Clause 1: `pass`, `drift` or `not-run`.
    pub(crate) manifest_audit: &'static str,
    /// Clause 2: `plan_verification` (trekplans) or `exit_condition`
    /// (session specs).
    pub(crate) stop_signal: &'static str,
    /// Clause 2's status: `passed`, `failed` or `not-run`.
    pub(crate) stop_signal_status: &'static str,
    /// Clause 3: what `iterations_remaining` must be, and what it is.
    pub(crate) iterations_expected: u32,
    pub(crate) iterations_remaining: Option<u32>,
}

/// The status word under `key` of an object the progress file holds.
fn status_of(value: Option<&Value>) -> Option<&str> {
    value.and_then(|v| v.get("status")).and_then(Value::as_str)
}

/// The manifest audit's word: `pass`, `drift` or `not-run`.
pub(crate) fn audit_word(progress: &Progress) -> &'static str {
    match status_of(progress.extra.get("manifest_audit")) {
        Some("pass") => "pass",
        Some("drift") => "drift",
        _ => "not-run",
    }
}

/// The stop signal's kind and status (`passed`, `failed`, `not-run`).
pub(crate) fn stop_signal(progress: &Progress) -> (&'static str, &'static str) {
    let word = |s: Option<&str>| match s {
        Some("passed") => "passed",
        Some("failed") => "failed",
        _ => "not-run",
    };
    if progress.plan_type == "session-spec" {
        let recorded = word(status_of(progress.extra.get("exit_condition")));
        let status = match (progress.exit_condition_checked, recorded) {
            (true, _) => "passed",
            (false, "passed") => "failed",
            (false, other) => other,
        };
        ("exit_condition", status)
    } else {
        let recorded = status_of(Some(&progress.plan_verification));
        // A session's share of a multi-session plan cannot pass the whole
        // plan's check: it is the master verification's, after the last
        // merge. Only a session's run may defer it.
        let status = match recorded {
            Some(DEFERRED) if progress.session.is_some() => DEFERRED,
            other => word(other),
        };
        ("plan_verification", status)
    }
}

/// The `plan_verification` status of a session run whose plan's
/// Verification waits for the master verification (Phase 2.6, Step 4).
pub(crate) const DEFERRED: &str = "deferred";

/// The gate over `progress` for a budget of `cap`
/// (`TREKEXECUTE_MAX_RECOVERY_ITERATIONS`).
pub(crate) fn completion_gate(progress: &Progress, cap: u32) -> Gate {
    let mut reasons = Vec::new();
    let mut partial = false;
    let audit = audit_word(progress);
    match audit {
        "pass" => {}
        "drift" => {
            partial = true;
            let n = progress
                .extra
                .get("manifest_audit")
                .and_then(|a| a.get("drift_details"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            reasons.push(format!(
                "the manifest audit (Phase 7.5) found drift ({n} finding{})",
                if n == 1 { "" } else { "s" }
            ));
        }
        _ => {
            partial = true;
            reasons.push(
                "the manifest audit (Phase 7.5) has not run: `voyage-helper audit session --record`"
                    .into(),
            );
        }
    }
    let (signal, signal_status) = stop_signal(progress);
    let failed = !matches!(signal_status, "passed" | DEFERRED);
    if failed {
        let what = if signal == "exit_condition" {
            "the exit condition"
        } else {
            "plan verification (Phase 7)"
        };
        reasons.push(match signal_status {
            "failed" => format!("{what} failed"),
            _ => format!("{what} has not run: `voyage-helper criteria run --record`"),
        });
    }
    let expected = progress.expected_iterations_remaining(cap);
    let actual = progress.iterations_remaining;
    if actual != Some(expected) {
        partial = true;
        let shown = actual.map_or_else(|| "missing".to_owned(), |n| n.to_string());
        reasons.push(format!(
            "iterations_remaining is {shown}, expected {expected}: {cap} (the budget) minus recovery_depth {} and the attempts beyond each step's first",
            progress.recovery_depth.unwrap_or(0)
        ));
    }
    let status = if failed {
        RunStatus::Failed
    } else if partial {
        RunStatus::Partial
    } else {
        RunStatus::Completed
    };
    Gate {
        passed: reasons.is_empty(),
        status: status.as_str(),
        reasons,
        manifest_audit: audit,
        stop_signal: signal,
        stop_signal_status: signal_status,
        iterations_expected: expected,
        iterations_remaining: actual,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(extra: &str) -> Progress {
        let text = format!(
            r#"{{"schema_version": "1", "plan": "p.md", "plan_type": "plan", "plan_version": "1.7",
                "status": "completed", "iterations_remaining": 24,
                "steps": {{"1": {{"status": "completed", "attempts": 2}}}}{extra}}}"#
        );
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn all_three_clauses() {
        let good = r#", "manifest_audit": {"status": "pass", "drift_details": []},
                       "plan_verification": {"status": "passed"}"#;
        let gate = completion_gate(&progress(good), 25);
        assert!(gate.passed, "{gate:?}");
        assert_eq!(gate.status, "completed");

        let drift = good.replace("\"pass\"", "\"drift\"");
        let gate = completion_gate(&progress(&drift), 25);
        assert_eq!((gate.passed, gate.status), (false, "partial"));

        let failed = good.replace("\"passed\"", "\"failed\"");
        let gate = completion_gate(&progress(&failed), 25);
        assert_eq!(gate.status, "failed");
        assert!(gate.reasons[0].contains("failed"), "{gate:?}");

        // The counter: one retry spent of 25 means 24; 25 left is a reset.
        let gate = completion_gate(&progress(good), 26);
        assert_eq!(gate.status, "partial");
        assert!(gate.reasons[0].contains("expected 25"), "{gate:?}");

        // Nothing recorded: every clause fails, failed wins.
        let gate = completion_gate(&progress(""), 25);
        assert_eq!((gate.status, gate.reasons.len()), ("failed", 2));
    }

    #[test]
    fn only_a_session_run_may_defer_the_plan_verification() {
        let deferred = r#", "manifest_audit": {"status": "pass", "drift_details": []},
                           "plan_verification": {"status": "deferred"}"#;
        let mut p = progress(deferred);
        let gate = completion_gate(&p, 25);
        assert_eq!(gate.status, "failed", "{gate:?}");
        assert_eq!(gate.stop_signal_status, "not-run");
        p.session = Some(2);
        let gate = completion_gate(&p, 25);
        assert!(gate.passed, "{gate:?}");
        assert_eq!(gate.stop_signal_status, "deferred");
        // A session run still fails on a drift or a failed check.
        let mut drift = progress(&deferred.replace("\"pass\"", "\"drift\""));
        drift.session = Some(2);
        assert_eq!(completion_gate(&drift, 25).status, "partial");
        let mut failed = progress(&deferred.replace("deferred", "failed"));
        failed.session = Some(2);
        assert_eq!(completion_gate(&failed, 25).status, "failed");
    }

    #[test]
    fn a_session_spec_reads_its_exit_condition() {
        let mut p = progress(r#", "manifest_audit": {"status": "pass"}"#);
        p.plan_type = "session-spec".into();
        assert_eq!(completion_gate(&p, 25).status, "failed");
        p.exit_condition_checked = true;
        assert!(completion_gate(&p, 25).passed);
    }
}
