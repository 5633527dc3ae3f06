//! What `criteria run` finds: each criterion's outcome and the verdict over
//! all of them (schema `criteria-run`), and the record it leaves in the
//! progress file (`plan_verification`, trekexecute Phase 7).

use serde::Serialize;

use crate::plan::{Criterion, PlanKind};

/// How one criterion ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Outcome {
    /// It ran and exited 0.
    Passed,
    /// It ran and exited non-zero, or its timeout stopped it.
    Failed,
    /// The denylist blocked it; it never ran.
    Blocked,
    /// Not a test, lint or build runner on the allowlist; it never ran.
    Unrunnable,
}

impl Outcome {
    pub(super) fn word(self) -> &'static str {
        match self {
            Self::Passed => "PASS",
            Self::Failed => "FAIL",
            Self::Blocked => "BLOCKED",
            Self::Unrunnable => "NOT RUN",
        }
    }
}

/// What running (or refusing) one criterion gave.
#[derive(Debug, Clone)]
pub(super) struct Ran {
    pub outcome: Outcome,
    pub exit_code: Option<i32>,
    pub duration_ms: Option<u64>,
    /// The last lines it printed (text output only).
    pub tail: Vec<String>,
    pub reason: Option<String>,
}

impl Ran {
    pub(super) fn not_run(outcome: Outcome, reason: String) -> Self {
        Self {
            outcome,
            exit_code: None,
            duration_ms: None,
            tail: Vec::new(),
            reason: Some(reason),
        }
    }

    pub(super) fn exited(
        outcome: Outcome,
        code: i32,
        duration_ms: u64,
        tail: Vec<String>,
        reason: Option<String>,
    ) -> Self {
        Self {
            outcome,
            exit_code: Some(code),
            duration_ms: Some(duration_ms),
            tail,
            reason,
        }
    }
}

/// One criterion and its outcome.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Checked {
    /// The bullet's words after the command; the command itself for a
    /// fence line.
    pub label: String,
    pub command: String,
    pub line: u32,
    pub outcome: Outcome,
    /// `null` when it never ran.
    pub exit_code: Option<i32>,
    pub duration_ms: Option<u64>,
    /// Why it was blocked, unrunnable or timed out.
    pub reason: Option<String>,
    #[serde(skip)]
    pub tail: Vec<String>,
}

impl Checked {
    pub(super) fn new(criterion: &Criterion, ran: Ran) -> Self {
        let label = if criterion.label.is_empty() {
            criterion.command.clone()
        } else {
            criterion.label.clone()
        };
        Self {
            label,
            command: criterion.command.clone(),
            line: criterion.line,
            outcome: ran.outcome,
            exit_code: ran.exit_code,
            duration_ms: ran.duration_ms,
            reason: ran.reason,
            tail: ran.tail,
        }
    }
}

/// The verdict: `passed` only when every criterion passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Status {
    Passed,
    Failed,
    /// The runner itself could not run (exit 2).
    NotRun,
}

impl Status {
    pub(super) fn word(self) -> &'static str {
        match self {
            Self::Passed => "PASSED",
            Self::Failed => "FAILED",
            Self::NotRun => "NOT-RUN",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(super) struct Summary {
    pub total: u32,
    pub passed: u32,
    pub failed: u32,
    pub blocked: u32,
    pub unrunnable: u32,
}

/// A criterion that did not pass, as Phase 7 records it.
#[derive(Debug, Clone, Serialize)]
pub(super) struct FailedCriterion {
    pub label: String,
    pub command: String,
    pub exit_code: Option<i32>,
    pub line: u32,
    pub outcome: Outcome,
    pub reason: Option<String>,
}

/// Why no criterion was judged: `NO_VERIFICATION_SECTION`, `NO_CRITERIA`,
/// or a reason the runner could not run.
#[derive(Debug, Clone, Serialize)]
pub(super) struct ErrorInfo {
    pub code: &'static str,
    pub file: String,
    pub line: Option<u32>,
    pub message: String,
}

/// What `criteria run --json` prints.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Report {
    pub file: String,
    /// `plan` or `session-spec`; `null` when the file could not be read as
    /// either.
    pub plan_type: Option<&'static str>,
    /// The section read: `Verification` or `Exit Condition`.
    pub section: Option<&'static str>,
    pub section_line: Option<u32>,
    /// Where the commands ran.
    pub cwd: String,
    pub status: Status,
    pub summary: Summary,
    pub failed_criteria: Vec<FailedCriterion>,
    pub criteria: Vec<Checked>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
}

impl Report {
    pub(super) fn new(file: String, kind: Option<PlanKind>, cwd: String) -> Self {
        Self {
            file,
            plan_type: kind.map(PlanKind::label),
            section: kind.map(|k| match k {
                PlanKind::Trekplan => "Verification",
                PlanKind::SessionSpec => "Exit Condition",
            }),
            section_line: None,
            cwd,
            status: Status::NotRun,
            summary: Summary::default(),
            failed_criteria: Vec::new(),
            criteria: Vec::new(),
            error: None,
        }
    }

    /// Adds a criterion's outcome to the counts.
    pub(super) fn push(&mut self, checked: Checked) {
        let slot = match checked.outcome {
            Outcome::Passed => &mut self.summary.passed,
            Outcome::Failed => &mut self.summary.failed,
            Outcome::Blocked => &mut self.summary.blocked,
            Outcome::Unrunnable => &mut self.summary.unrunnable,
        };
        *slot += 1;
        if checked.outcome != Outcome::Passed {
            self.failed_criteria.push(FailedCriterion {
                label: checked.label.clone(),
                command: checked.command.clone(),
                exit_code: checked.exit_code,
                line: checked.line,
                outcome: checked.outcome,
                reason: checked.reason.clone(),
            });
        }
        self.criteria.push(checked);
    }

    /// Sets the verdict once every criterion is judged.
    pub(super) fn settle(&mut self) {
        self.status = if self.summary.passed == self.summary.total && self.summary.total > 0 {
            Status::Passed
        } else {
            Status::Failed
        };
    }

    /// The `plan_verification` (or `exit_condition`) record of the progress
    /// file: `{status, summary, failed_criteria}`.
    pub(super) fn record(&self) -> serde_json::Value {
        serde_json::json!({
            "status": self.status,
            "summary": self.summary,
            "failed_criteria": self.failed_criteria,
        })
    }
}
