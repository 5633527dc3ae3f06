//! Which step status changes are legal, and what each one does to the file
//! (seed Phase 6: "For each step", Sub-steps D2, E and F; Hard rules 5, 17
//! and 20). Pure: the caller reads and writes the file.
//!
//! | from \ to | in_progress | completed | failed | blocked | skipped |
//! |---|---|---|---|---|---|
//! | pending | attempt 1 | – | – | yes | yes |
//! | in_progress | new attempt¹ | yes | yes | yes | yes |
//! | failed | retry | – | – | – | yes |
//! | blocked | retry | – | – | – | yes |
//! | skipped | attempt² | – | – | – | – |
//! | completed, passed | – | – | – | – | – |
//!
//! ¹ an attempt that was interrupted (the session died mid-step) is over;
//! starting the step again is the next attempt. ² a step skipped before it
//! ever ran starts its first attempt; otherwise it is a retry.
//!
//! Every start beyond a step's first attempt is a retry: it needs an
//! attempt left (at most 3 per step) and an iteration left in the global
//! budget, and it spends one of those. Nothing ever goes back to `pending`,
//! and a completed step is final (start a fresh progress file to redo it).
//! `completed` needs the manifest to have held (`--manifest-audit fail` is
//! refused; Hard rule 17) and sets `manifest_audit: pass`. `blocked` (the
//! Step 0 sentinel: a sandbox pre-flight's Verify exited 77) stops the run:
//! its status becomes `stopped`, and its result word `blocked`.

use serde_json::Value;

use super::budget::MAX_ATTEMPTS;
use super::code;
use super::model::{Progress, StepKey};
use super::status::{ManifestAudit, RunStatus, StepStatus};
use crate::problem::Problem;

/// One requested change to a step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepUpdate {
    pub step: u32,
    pub status: Option<StepStatus>,
    pub error: Option<String>,
    pub commit: Option<String>,
    pub manifest_audit: Option<ManifestAudit>,
    /// `manifest_drift`: a JSON array.
    pub drift: Option<Value>,
    /// `checkpoint_drift`: a JSON object.
    pub checkpoint_drift: Option<Value>,
}

/// What an applied update did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    pub step: u32,
    pub from: StepStatus,
    pub to: StepStatus,
    pub attempts: u32,
    /// This update started a retry and spent one budget iteration.
    pub retry: bool,
    pub iterations_remaining: Option<u32>,
}

/// Applies `update` at time `now`, or refuses it and leaves `progress` as
/// it was.
pub fn apply(progress: &mut Progress, update: &StepUpdate, now: &str) -> Result<Applied, Problem> {
    let Some(to) = update.status else {
        return Err(Problem::new(code::PROGRESS_BAD_STATUS, "no status given"));
    };
    let Some(record) = progress.steps.get(&StepKey(update.step)) else {
        let known: Vec<String> = progress.steps.keys().map(|k| k.0.to_string()).collect();
        return Err(Problem::new(
            code::PROGRESS_NO_SUCH_STEP,
            format!(
                "step {} is not in this progress file (steps: {})",
                update.step,
                if known.is_empty() {
                    "none".into()
                } else {
                    known.join(", ")
                }
            ),
        ));
    };
    let from = record.status;
    let attempts = record.attempts;
    check_flags(update, to)?;
    if !legal(from, to) {
        let hint = match from {
            StepStatus::Completed | StepStatus::Passed => {
                "; a completed step is final (start a fresh progress file with `progress init` to run it again)"
            }
            _ if to == StepStatus::Pending => "; a step never goes back to pending",
            _ => "",
        };
        return Err(Problem::new(
            code::PROGRESS_ILLEGAL_TRANSITION,
            format!(
                "step {}: {from} -> {to} is not a legal change{hint}",
                update.step
            ),
        ));
    }
    let mut retry = false;
    if to == StepStatus::InProgress {
        if attempts >= MAX_ATTEMPTS {
            return Err(Problem::new(
                code::PROGRESS_RETRY_CAP,
                format!(
                    "step {} has used all {MAX_ATTEMPTS} attempts (initial + 2 retries, Hard rule 5); \
                     stop and report, or mark it skipped if the plan allows",
                    update.step
                ),
            ));
        }
        retry = attempts >= 1;
        if retry && progress.iterations_remaining == Some(0) {
            return Err(Problem::new(
                code::PROGRESS_BUDGET_EXHAUSTED,
                format!(
                    "step {}: the global recovery/retry budget is spent (iterations_remaining is 0, \
                     Hard rule 20); no more retries in this run",
                    update.step
                ),
            ));
        }
    }

    // Checked: from here on nothing can fail.
    if retry {
        progress.iterations_remaining = progress.iterations_remaining.map(|n| n.saturating_sub(1));
    }
    let Some(record) = progress.steps.get_mut(&StepKey(update.step)) else {
        return Err(Problem::new(code::PROGRESS_NO_SUCH_STEP, "step vanished"));
    };
    record.status = to;
    match to {
        StepStatus::InProgress => {
            record.attempts = attempts + 1;
            record.completed_at = None;
            // A revert of an earlier attempt no longer describes the tree,
            // nor does its Verify's warning.
            record.reverted = None;
            record.verify_warning = None;
            progress.status = RunStatus::InProgress;
        }
        StepStatus::Completed => {
            record.completed_at = Some(now.to_owned());
            record.error = None;
            record.manifest_audit = Some(ManifestAudit::Pass);
            record.manifest_drift = None;
            if let Some(commit) = &update.commit {
                record.commit = Some(commit.clone());
            }
            if let Some(drift) = &update.checkpoint_drift {
                record.checkpoint_drift = Some(drift.clone());
            }
        }
        StepStatus::Failed | StepStatus::Blocked | StepStatus::Skipped => {
            // A blocked step (the Step 0 sentinel) escalates: the run stops
            // there, and its result is `blocked` (Sub-step D1, Phase 8).
            if to == StepStatus::Blocked {
                progress.status = RunStatus::Stopped;
            }
            if let Some(error) = &update.error {
                record.error = Some(error.clone());
            }
            if let Some(audit) = update.manifest_audit {
                record.manifest_audit = Some(audit);
            }
            if let Some(drift) = &update.drift {
                record.manifest_drift = Some(drift.clone());
            }
        }
        StepStatus::Pending | StepStatus::Passed => {}
    }
    let attempts = record.attempts;
    progress.current_step = update.step;
    progress.updated_at = now.to_owned();
    Ok(Applied {
        step: update.step,
        from,
        to,
        attempts,
        retry,
        iterations_remaining: progress.iterations_remaining,
    })
}

/// The table in the module docs.
pub(super) fn legal(from: StepStatus, to: StepStatus) -> bool {
    use StepStatus::{Blocked, Completed, Failed, InProgress, Passed, Pending, Skipped};
    match (from, to) {
        (Completed | Passed, _) | (_, Pending | Passed) => false,
        (_, InProgress) => true,
        (InProgress, Completed | Failed | Blocked | Skipped) => true,
        (Pending, Blocked | Skipped) => true,
        (Failed | Blocked, Skipped) => true,
        _ => false,
    }
}

/// Flags that make no sense with the target status are refused, so a
/// mistaken call does not silently record half of what was meant.
fn check_flags(update: &StepUpdate, to: StepStatus) -> Result<(), Problem> {
    let misplaced = |flag: &str, allowed: &str| {
        Err(Problem::new(
            code::PROGRESS_FLAG_NOT_APPLICABLE,
            format!("{flag} goes with {allowed}, not with --status {to}"),
        ))
    };
    let outcome = matches!(
        to,
        StepStatus::Failed | StepStatus::Blocked | StepStatus::Skipped
    );
    if update.commit.is_some() && to != StepStatus::Completed {
        return misplaced("--commit", "--status completed");
    }
    if update.checkpoint_drift.is_some() && to != StepStatus::Completed {
        return misplaced("--checkpoint-drift", "--status completed");
    }
    if update.error.is_some() && !outcome {
        return misplaced("--error", "failed, blocked or skipped");
    }
    if update.drift.is_some() && !outcome {
        return misplaced("--drift", "failed, blocked or skipped");
    }
    match (update.manifest_audit, to) {
        (Some(ManifestAudit::Fail), StepStatus::Completed) => Err(Problem::new(
            code::PROGRESS_MANIFEST_FAILED,
            format!(
                "step {}: a step whose manifest failed cannot be completed (Hard rule 17); \
                 record it as failed",
                update.step
            ),
        )),
        (Some(_), StepStatus::InProgress | StepStatus::Pending) => {
            misplaced("--manifest-audit", "completed, failed, blocked or skipped")
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table() {
        use StepStatus::*;
        let all = [
            Pending, InProgress, Completed, Failed, Skipped, Blocked, Passed,
        ];
        let allowed: Vec<(StepStatus, StepStatus)> = all
            .iter()
            .flat_map(|&f| all.iter().map(move |&t| (f, t)))
            .filter(|&(f, t)| legal(f, t))
            .collect();
        assert_eq!(
            allowed,
            vec![
                (Pending, InProgress),
                (Pending, Skipped),
                (Pending, Blocked),
                (InProgress, InProgress),
                (InProgress, Completed),
                (InProgress, Failed),
                (InProgress, Skipped),
                (InProgress, Blocked),
                (Failed, InProgress),
                (Failed, Skipped),
                (Skipped, InProgress),
                (Blocked, InProgress),
                (Blocked, Skipped),
            ]
        );
    }
}
