//! `--record`: what the audits write into the progress file, through the
//! progress area's own reader and writer (schema-checked both ways, atomic).
//!
//! - `audit step`: the step's `manifest_audit` (`pass` or `fail`) and
//!   `manifest_drift` (the drift items, or removed on a pass); a blocked
//!   sandbox pre-flight instead moves the step to `blocked`, which stops
//!   the run.
//! - `audit checkpoint`: the step's `checkpoint_drift` (removed on a pass).
//! - `audit session`: `manifest_audit {status, drift_details, override}`
//!   at the top (with `accepted` when a message hook's rewrite was
//!   accepted), and the overridden run status.

use std::path::Path;

use serde_json::{Value, json};

use super::checkpoint::CheckpointAudit;
use super::code;
use super::session::SessionAudit;
use super::step::{StepAudit, StepVerdict};
use crate::clock::UtcTime;
use crate::exit;
use crate::problem::Problem;
use crate::progress::{self, ManifestAudit, Progress, RunStatus, StepKey, StepStatus, StepUpdate};

/// A failure: the exit code and why.
pub(super) type Refused = (u8, Problem);

/// Loads the file for a change; a missing or broken file is exit 2.
pub(super) fn load(path: &Path) -> Result<Progress, Refused> {
    progress::load(path).map_err(|e| {
        let mut problems = e.problems.into_iter();
        let first = problems.next().unwrap_or_else(|| {
            Problem::new(code::AUDIT_PROGRESS, "the progress file cannot be read").in_file(path)
        });
        crate::problem::eprint_all(&problems.collect::<Vec<_>>());
        (exit::CANNOT_CHECK, first)
    })
}

fn no_step(path: &Path, step: u32) -> Refused {
    (
        exit::CANNOT_CHECK,
        Problem::new(
            code::AUDIT_RECORD_REFUSED,
            format!("the progress file has no step {step} to record the audit on"),
        )
        .in_file(path),
    )
}

pub(super) fn step(path: &Path, audit: &StepAudit) -> Result<(), Refused> {
    let mut progress = load(path)?;
    let now = UtcTime::now().rfc3339();
    if audit.status == StepVerdict::Blocked {
        let update = StepUpdate {
            step: audit.step,
            status: Some(StepStatus::Blocked),
            error: Some(
                "sandbox-blocked: the sandbox pre-flight's Verify exited 77; no real work attempted"
                    .into(),
            ),
            ..StepUpdate::default()
        };
        progress::apply(&mut progress, &update, &now).map_err(|p| {
            (
                exit::CANNOT_CHECK,
                Problem::new(code::AUDIT_RECORD_REFUSED, p.message).in_file(path),
            )
        })?;
    } else {
        let record = progress
            .steps
            .get_mut(&StepKey(audit.step))
            .ok_or_else(|| no_step(path, audit.step))?;
        if audit.drift.is_empty() {
            record.manifest_audit = Some(ManifestAudit::Pass);
            record.manifest_drift = None;
        } else {
            record.manifest_audit = Some(ManifestAudit::Fail);
            record.manifest_drift = Some(Value::Array(
                audit
                    .drift
                    .iter()
                    .map(super::drift::Drift::to_value)
                    .collect(),
            ));
        }
        progress.updated_at = now;
    }
    progress::save(path, &progress)
}

pub(super) fn checkpoint(path: &Path, audit: &CheckpointAudit) -> Result<(), Refused> {
    let mut progress = load(path)?;
    let record = progress
        .steps
        .get_mut(&StepKey(audit.step))
        .ok_or_else(|| no_step(path, audit.step))?;
    record.checkpoint_drift.clone_from(&audit.checkpoint_drift);
    progress.updated_at = UtcTime::now().rfc3339();
    progress::save(path, &progress)
}

pub(super) fn session(path: &Path, audit: &SessionAudit) -> Result<(), Refused> {
    let mut progress = load(path)?;
    let details: Vec<Value> = audit
        .drift_details
        .iter()
        .map(super::drift::Drift::to_value)
        .collect();
    let mut recorded = json!({
        "status": audit.status,
        "drift_details": details,
        "override": audit.status_override,
    });
    // Only when there are any: a run without them records what it did.
    if let (false, Some(map)) = (audit.accepted.is_empty(), recorded.as_object_mut()) {
        let accepted = audit.accepted.iter().map(super::drift::Drift::to_value);
        map.insert("accepted".into(), Value::Array(accepted.collect()));
    }
    progress.extra.insert("manifest_audit".into(), recorded);
    if audit.status_override.is_some() {
        progress.status = RunStatus::Partial;
    }
    progress.updated_at = UtcTime::now().rfc3339();
    progress::save(path, &progress)
}
