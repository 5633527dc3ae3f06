//! The final report of a multi-session run (seed Phase 2.6 Step 6, then
//! Phase 8): the archived progress copies of its sessions folded into one
//! progress value for the whole plan, so the single run's model, renderer,
//! summary and stats record serve it unchanged.
//!
//! The fold says only what the copies and the master verification say:
//! every session's steps (each keeps its result, attempts and commit), the
//! master verification as the plan's check of the whole, the sessions'
//! own manifest audits as the whole run's (each drift item names its
//! session), and the iterations each session spent, summed, so the
//! completion gate's counter clause still reconciles.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use super::ops::Built;
use crate::problem::Problem;
use crate::progress::{Progress, RunStatus};

/// The mode word of a multi-session run, in its report, summary and stats
/// record; a session's own run is `session`.
pub(crate) const MODE: &str = "multi-session";

/// One archived session copy: where it is and which wave and session it is.
#[derive(Debug, Clone)]
pub(crate) struct Archive {
    pub wave: u32,
    pub session: u32,
    pub path: PathBuf,
}

/// One session of the run, as the report and its summary name it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SessionRow {
    pub session: u32,
    pub wave: u32,
    /// The plan's steps this session ran, in order.
    pub steps: Vec<u32>,
    /// The run status its progress copy ended with.
    pub result: String,
    /// The archived progress copy the report was read from.
    pub progress_file: String,
}

/// What the whole run's report is built from.
#[derive(Debug)]
pub(crate) struct RunRequest<'a> {
    pub plan: &'a Path,
    /// Where the archived copies are kept (the report's `progress_file`).
    pub orders_dir: &'a Path,
    pub archives: &'a [Archive],
    /// The master verification's record, as `criteria run --record`
    /// writes it (`status`, `summary`, `failed_criteria`).
    pub master: Value,
    /// The gate was declined: the run is partial, whatever passed.
    pub declined: bool,
    /// What the report says under its Result about the answer.
    pub notes: Vec<String>,
    pub budget: &'a crate::progress::Budget,
}

/// Builds the report of the whole multi-session run.
pub(crate) fn build_run(request: &RunRequest<'_>) -> Result<Built, Problem> {
    let mut copies = Vec::new();
    for archive in request.archives {
        let progress = crate::progress::load(&archive.path).map_err(|e| {
            e.problems.into_iter().next().unwrap_or_else(|| {
                Problem::new(
                    super::code::REPORT_PROGRESS,
                    "an archived session copy cannot be read",
                )
                .in_file(&archive.path)
            })
        })?;
        copies.push((archive, progress));
    }
    let Some((_, first)) = copies.first() else {
        return Err(Problem::new(
            super::code::REPORT_PROGRESS,
            format!(
                "no archived session copy in {}: the report of the whole run is read from them (wave-W-session-N.progress.json)",
                request.orders_dir.display()
            ),
        ));
    };
    let whole = fold(request, first, &copies);
    let sessions = copies
        .iter()
        .map(|(a, p)| SessionRow {
            session: a.session,
            wave: a.wave,
            steps: p.steps.keys().map(|k| k.0).collect(),
            result: p.result().to_owned(),
            progress_file: a.path.display().to_string(),
        })
        .collect();
    let plan = crate::plan::load(request.plan).map_err(|e| {
        Problem::new(super::code::REPORT_PLAN_UNREADABLE, e.to_string()).in_file(request.plan)
    })?;
    Ok(Built::of_run(
        &request.orders_dir.display().to_string(),
        &whole,
        &plan,
        request.budget.cap,
        sessions,
        request.notes.clone(),
    ))
}

/// The whole run as one progress value.
fn fold(request: &RunRequest<'_>, first: &Progress, copies: &[(&Archive, Progress)]) -> Progress {
    let cap = request.budget.cap;
    let mut whole = first.clone();
    whole.plan = request.plan.display().to_string();
    whole.mode = MODE.to_owned();
    whole.session = None;
    whole.extra = Map::new();
    whole.steps = copies.iter().flat_map(|(_, p)| p.steps.clone()).collect();
    whole.total_steps = u32::try_from(whole.steps.len()).unwrap_or(u32::MAX);
    whole.current_step = whole.steps.keys().map(|k| k.0).max().unwrap_or(0);
    whole.plan_verification = request.master.clone();
    whole.status = if request.declined {
        RunStatus::Partial
    } else {
        worst(copies.iter().map(|(_, p)| p.status))
    };
    // What each session spent of its own budget, spent once of the run's:
    // a session whose counter does not reconcile leaves the sum off too.
    let spent = copies.iter().try_fold(0u32, |sum, (_, p)| {
        p.iterations_remaining
            .map(|n| sum.saturating_add(cap.saturating_sub(n)))
    });
    whole.iterations_remaining = spent.map(|s| cap.saturating_sub(s));
    whole.recovery_depth = Some(
        copies
            .iter()
            .filter_map(|(_, p)| p.recovery_depth)
            .fold(0, u32::saturating_add),
    );
    whole.recovery_dispatched = Some(
        copies
            .iter()
            .any(|(_, p)| p.recovery_dispatched == Some(true)),
    );
    whole.legacy_plan = Some(copies.iter().any(|(_, p)| p.legacy_plan == Some(true)));
    whole.extra.insert("manifest_audit".into(), audits(copies));
    if let Some(changed) = copies.iter().find_map(|(_, p)| p.extra.get("plan_changed")) {
        whole.extra.insert("plan_changed".into(), changed.clone());
    }
    whole
}

/// The run's status from its sessions': completed when every one is, else
/// the worst of them (an unfinished session makes the run partial).
fn worst(statuses: impl Iterator<Item = RunStatus>) -> RunStatus {
    let rank = |s: RunStatus| match s {
        RunStatus::Completed => 0,
        RunStatus::Partial | RunStatus::InProgress => 1,
        RunStatus::Stopped => 2,
        RunStatus::Failed => 3,
    };
    statuses
        .map(|s| match s {
            RunStatus::InProgress => RunStatus::Partial,
            other => other,
        })
        .max_by_key(|s| rank(*s))
        .unwrap_or(RunStatus::Partial)
}

/// The whole run's manifest audit: the sessions' recorded audits, each
/// drift item and accepted rewrite marked with its session. `pass` only
/// when every session's audit passed.
fn audits(copies: &[(&Archive, Progress)]) -> Value {
    let mut drift = Vec::new();
    let mut accepted = Vec::new();
    let mut words = Vec::new();
    for (archive, p) in copies {
        words.push(crate::progress::audit_word(p));
        let items = |key: &str| {
            p.extra
                .get("manifest_audit")
                .and_then(|a| a.get(key))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let mark = |mut item: Value| {
            if let Some(map) = item.as_object_mut() {
                map.insert("session".into(), archive.session.into());
            }
            item
        };
        drift.extend(items("drift_details").into_iter().map(mark));
        accepted.extend(items("accepted").into_iter().map(mark));
    }
    let status = if words.contains(&"drift") {
        "drift"
    } else if words.iter().all(|w| *w == "pass") {
        "pass"
    } else {
        "not-run"
    };
    serde_json::json!({ "status": status, "drift_details": drift, "accepted": accepted })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session's progress copy: its steps (number, attempts), counter
    /// and audit.
    fn copy(session: u32, steps: &[(u32, u32)], remaining: Option<u32>, audit: &str) -> Progress {
        let steps: Map<String, Value> = steps
            .iter()
            .map(|(n, attempts)| {
                let record = serde_json::json!({"status": "completed", "attempts": attempts, "commit": format!("c{n}")});
                (n.to_string(), record)
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "schema_version": 1, "plan": "p.md", "plan_type": "plan", "plan_version": "1.7",
            "mode": "session", "session": session, "status": "completed", "steps": steps,
            "iterations_remaining": remaining,
            "plan_verification": {"status": "deferred"},
            "manifest_audit": {"status": audit, "drift_details": if audit == "drift" {
                serde_json::json!([{"check": "expected_paths", "expected": "a", "actual": "missing"}])
            } else { serde_json::json!([]) }},
        }))
        .unwrap()
    }

    fn folded(copies: &[Progress], declined: bool) -> Progress {
        let archives: Vec<Archive> = (1..=copies.len() as u32)
            .map(|n| Archive {
                wave: 1,
                session: n,
                path: PathBuf::from(format!("w-{n}")),
            })
            .collect();
        let budget = crate::progress::Budget {
            cap: 25,
            warning: None,
        };
        let request = RunRequest {
            plan: Path::new("plans/p.md"),
            orders_dir: Path::new("orders"),
            archives: &archives,
            master: serde_json::json!({"status": "passed"}),
            declined,
            notes: Vec::new(),
            budget: &budget,
        };
        let pairs: Vec<(&Archive, Progress)> =
            archives.iter().zip(copies.iter().cloned()).collect();
        fold(&request, &copies[0], &pairs)
    }

    #[test]
    fn the_sessions_fold_into_one_run_that_passes_the_completion_gate() {
        // Session 1 retried step 2 once (24 left of its 25); session 2 spent nothing.
        let whole = folded(
            &[
                copy(1, &[(1, 1), (2, 2)], Some(24), "pass"),
                copy(2, &[(3, 1)], Some(25), "pass"),
            ],
            false,
        );
        assert_eq!(whole.steps.len(), 3);
        assert_eq!((whole.mode.as_str(), whole.session), (MODE, None));
        assert_eq!(whole.iterations_remaining, Some(24));
        assert_eq!(whole.status, RunStatus::Completed);
        let gate = crate::progress::completion_gate(&whole, 25);
        assert!(gate.passed, "{gate:?}");

        // A decline is partial whatever passed; a counter a session left
        // off leaves the run's off too.
        assert_eq!(
            folded(&[copy(1, &[(1, 1)], Some(25), "pass")], true).status,
            RunStatus::Partial
        );
        let off = folded(
            &[
                copy(1, &[(1, 1)], None, "pass"),
                copy(2, &[(3, 1)], Some(25), "pass"),
            ],
            false,
        );
        assert_eq!(off.iterations_remaining, None);
    }

    #[test]
    fn the_runs_audit_is_the_sessions_with_each_drift_item_marked() {
        let whole = folded(
            &[
                copy(1, &[(1, 1)], Some(25), "pass"),
                copy(2, &[(3, 1)], Some(25), "drift"),
            ],
            false,
        );
        let audit = &whole.extra["manifest_audit"];
        assert_eq!(audit["status"], "drift");
        assert_eq!(audit["drift_details"][0]["session"], 2);
        assert_eq!(crate::progress::audit_word(&whole), "drift");
    }

    #[test]
    fn the_worst_session_decides_and_in_progress_is_partial() {
        use RunStatus::*;
        assert_eq!(worst([Completed, Completed].into_iter()), Completed);
        assert_eq!(worst([Completed, InProgress].into_iter()), Partial);
        assert_eq!(worst([Stopped, Partial, Completed].into_iter()), Stopped);
        assert_eq!(worst([Failed, Stopped].into_iter()), Failed);
    }
}
