//! The audits' text reports. `--json` prints the audit values themselves
//! (schemas `audit-step`, `audit-checkpoint`, `audit-session`,
//! `audit-scope`).

use std::io::{self, Write};

use serde::Serialize;

use super::checkpoint::CheckpointAudit;
use super::session::SessionAudit;
use super::step::{StepAudit, StepVerdict};

/// One JSON document and a newline.
pub(super) fn json(value: &impl Serialize, out: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    writeln!(out)
}

pub(super) fn step(audit: &StepAudit, out: &mut impl Write) -> io::Result<()> {
    let n = audit.step;
    match audit.status {
        StepVerdict::Pass => writeln!(out, "Manifest verification PASS for step {n}")?,
        StepVerdict::Blocked => writeln!(
            out,
            "Step {n}: BLOCKED (sandbox pre-flight: Verify exited 77); manifest verification skipped, nothing to commit, the run stops (result: blocked)"
        )?,
        StepVerdict::Drift => {
            writeln!(out, "Manifest verification FAIL for step {n}:")?;
            for d in &audit.drift {
                writeln!(out, "- {}", d.line())?;
            }
        }
    }
    recorded(audit.recorded.as_deref(), out)
}

pub(super) fn checkpoint(audit: &CheckpointAudit, out: &mut impl Write) -> io::Result<()> {
    let n = audit.step;
    if audit.checkpoint_drift.is_none() {
        writeln!(
            out,
            "Checkpoint PASS for step {n}: {:?} matches {:?}",
            audit.actual_message, audit.expected_pattern
        )?;
    } else {
        writeln!(
            out,
            "checkpoint_drift for step {n}: HEAD's subject {:?} does not match {:?} (advisory: the step stays passed)",
            audit.actual_message, audit.expected_pattern
        )?;
    }
    recorded(audit.recorded.as_deref(), out)
}

pub(super) fn session(audit: &SessionAudit, out: &mut impl Write) -> io::Result<()> {
    let facts = format!(
        "{} expected paths, {} commits for {} committing steps, {} scripts, iterations_remaining {} of {}",
        audit.expected_paths,
        audit.commits,
        audit.committing_steps,
        audit.scripts,
        audit
            .counter
            .actual
            .map_or_else(|| "missing".to_owned(), |n| n.to_string()),
        audit.counter.cap,
    );
    if audit.drift_details.is_empty() {
        writeln!(out, "Manifest audit: PASS ({facts})")?;
    } else {
        writeln!(
            out,
            "Manifest audit: DRIFT, {} finding{} ({facts})",
            audit.drift_details.len(),
            if audit.drift_details.len() == 1 {
                ""
            } else {
                "s"
            }
        )?;
        for d in &audit.drift_details {
            writeln!(out, "- {}", d.line())?;
        }
        match audit.status_override {
            Some(o) => writeln!(
                out,
                "Override: {} -> {} (the audit wins over the executor's report)",
                o.from, o.to
            )?,
            // A run still in progress is finalised by its caller, maybe to
            // another status: say only that the audit overrides nothing.
            None if audit.claimed == "in_progress" => writeln!(
                out,
                "No override: the run does not claim completed, so the drift is informational"
            )?,
            None => writeln!(
                out,
                "Status stays {}: the drift is informational",
                audit.claimed
            )?,
        }
    }
    for a in &audit.accepted {
        writeln!(out, "Accepted: {}", a.line())?;
    }
    recorded(audit.recorded.as_deref(), out)
}

fn recorded(path: Option<&str>, out: &mut impl Write) -> io::Result<()> {
    match path {
        Some(p) => writeln!(out, "recorded in {p}"),
        None => Ok(()),
    }
}

/// What `audit scope` found (`--json` prints it).
#[derive(Debug, Clone, Serialize)]
pub(super) struct ScopeAudit {
    pub status: &'static str,
    pub step: u32,
    /// The step's start commit.
    pub since: String,
    /// What the tree was compared with: the start commit, or the tree
    /// `trek step-begin` kept when the tree was already changed.
    pub base: String,
    pub changes: Vec<super::scope::Finding>,
    pub in_scope: Vec<String>,
}

pub(super) fn scope(audit: &ScopeAudit, out: &mut impl Write) -> io::Result<()> {
    let n = audit.step;
    if audit.changes.is_empty() {
        return writeln!(
            out,
            "Scope PASS for step {n} ({} changed paths in scope)",
            audit.in_scope.len()
        );
    }
    writeln!(out, "Scope FAIL for step {n}:")?;
    for c in &audit.changes {
        writeln!(out, "- {}", c.line())?;
    }
    Ok(())
}
