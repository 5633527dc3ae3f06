//! The report as values (seed Phase 8, "Final report"): built from the
//! progress file, the plan (for descriptions, On failure and the commands'
//! security judgement) and the completion gate. Pure: [`build`] takes
//! values, the renderers print them.

use serde::Serialize;
use serde_json::Value;

use super::summary::Summary;
use crate::plan::{CommandKind, Plan};
use crate::progress::{self, Gate, Progress, RunStatus, StepStatus};

/// One row of the Step Results table.
#[derive(Debug, Clone, Serialize)]
pub(super) struct StepRow {
    pub step: u32,
    pub description: String,
    /// `PASS`, `FAIL`, `SKIP`, `BLOCKED`, `RUNNING` or `—` (not reached).
    pub result: &'static str,
    /// The step's status word in the progress file.
    pub status: &'static str,
    pub attempts: u32,
    pub commit: Option<String>,
    /// `pass`, `fail`, `n/a` (a sandbox pre-flight) or `—` (not audited).
    pub manifest: &'static str,
    /// The plan's On failure action, when the plan was read.
    pub on_failure: Option<&'static str>,
    pub error: Option<String>,
    /// The step's Files its revert left as they were, each with why
    /// (`reverted.left` in the progress file).
    pub left: Vec<progress::Left>,
    /// What the scope audit put back, per attempt that wrote outside the
    /// step's Files (`scope_violations` in the progress file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scope_violations: Vec<progress::ScopeViolation>,
}

impl StepRow {
    /// The report's Scope line of this step, when its scope audit put
    /// anything back or left anything in place: each attempt's paths and
    /// patch.
    pub(super) fn scope_line(&self) -> Option<String> {
        if self.scope_violations.is_empty() {
            return None;
        }
        let attempts: Vec<String> = self
            .scope_violations
            .iter()
            .map(|v| {
                let mut parts = Vec::new();
                if !v.restored.is_empty() {
                    parts.push(format!("put back {}", v.restored.join(", ")));
                }
                if !v.kept.is_empty() {
                    let why = v
                        .problem
                        .as_deref()
                        .map(|w| format!(" ({w})"))
                        .unwrap_or_default();
                    parts.push(format!("left {} in place{why}", v.kept.join(", ")));
                }
                let patch = v
                    .patch
                    .as_deref()
                    .map(|p| format!(" — patch {p}"))
                    .unwrap_or_default();
                format!("attempt {} {}{patch}", v.attempt, parts.join(", "))
            })
            .collect();
        Some(format!("Step {}: {}", self.step, attempts.join("; ")))
    }

    /// How many paths the scope audit put back in this step.
    pub(super) fn put_back(&self) -> usize {
        self.scope_violations.iter().map(|v| v.restored.len()).sum()
    }
}

/// Phase 7's record: the plan verification (trekplans) or the exit
/// condition (session specs).
#[derive(Debug, Clone, Serialize)]
pub(super) struct Criteria {
    /// `plan_verification` or `exit_condition`.
    pub kind: &'static str,
    /// `passed`, `failed` or `not-run`.
    pub status: &'static str,
    pub total: u64,
    pub passed: u64,
    pub failed: u64,
    pub blocked: u64,
    pub unrunnable: u64,
    /// `{label, command, exit_code, line, …}` as `criteria run` recorded.
    pub failed_criteria: Vec<Value>,
}

/// Phase 7.5 as recorded, with the recovery facts.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Audit {
    /// `pass`, `drift` or `not-run`.
    pub status: &'static str,
    pub drift_details: Vec<Value>,
    /// Commits the audit accepted as a message hook's rewrite of the
    /// plan's matching subject (advisories, not drift).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accepted: Vec<Value>,
    pub recovery_dispatched: bool,
    pub recovery_depth: u32,
    /// The recovery spec `recovery spec` wrote for this run, if any.
    pub recovery_spec: Option<String>,
    pub legacy_plan: bool,
}

/// The Summary section's counts.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(super) struct Counts {
    pub total: u32,
    pub passed: u32,
    pub skipped: u32,
    pub failed: u32,
    /// Pending and in progress.
    pub not_reached: u32,
    pub blocked: u32,
}

/// A command of the plan the denylist blocks (a security block) or warns
/// about (an advisory).
#[derive(Debug, Clone, Serialize)]
pub(super) struct Flagged {
    pub step: Option<u32>,
    /// `verify`, `checkpoint`, `exit-condition` or `verification`.
    pub kind: &'static str,
    pub line: u32,
    pub command: String,
    pub rule: &'static str,
    pub name: &'static str,
    pub detail: String,
}

/// The completion gate as the report shows it: applied only when the run
/// claims `completed`.
#[derive(Debug, Clone, Serialize)]
pub(super) struct GateView {
    pub applied: bool,
    /// `{from, to}` when the gate (or an unfinished run) changed the word.
    #[serde(rename = "override")]
    pub status_override: Option<Override>,
    pub reasons: Vec<String>,
    pub gate: Option<Gate>,
}

#[derive(Debug, Clone, Serialize)]
pub(super) struct Override {
    pub from: &'static str,
    pub to: &'static str,
}

/// Everything the report says (`report --json` prints it, with the
/// `trekexecute_summary` key beside it).
#[derive(Debug, Clone, Serialize)]
pub(super) struct Report {
    pub progress_file: String,
    pub plan: String,
    /// `plan` or `session-spec`.
    pub plan_type: String,
    /// The mode the run was last started in, as the progress file says.
    pub mode: String,
    /// The template's `Mode:` words: `execute`, `resume`, `step N`.
    pub mode_line: String,
    /// The run's status in the progress file.
    pub claimed: &'static str,
    /// `completed`, `partial`, `blocked`, `failed` or `stopped`.
    pub result: &'static str,
    /// The Result line: `COMPLETED`, `FAILED at step N`, `STOPPED
    /// (escalation)`, `PARTIAL (N/total passed)`, `BLOCKED (sandbox)`.
    pub result_line: String,
    pub completion_gate: GateView,
    pub steps: Vec<StepRow>,
    pub criteria: Criteria,
    pub manifest_audit: Audit,
    pub counts: Counts,
    pub failed_at_step: Option<u32>,
    /// Steps neither completed nor skipped, in order.
    pub remaining: Vec<StepRow>,
    pub security_blocks: Vec<Flagged>,
    pub advisories: Vec<String>,
    /// What could not be read (the plan), said instead of guessed.
    pub notes: Vec<String>,
    /// A multi-session run's sessions (empty for a single run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<super::waves::SessionRow>,
    pub trekexecute_summary: Summary,
}

fn result_mark(status: StepStatus) -> &'static str {
    match status {
        StepStatus::Completed | StepStatus::Passed => "PASS",
        StepStatus::Failed => "FAIL",
        StepStatus::Skipped => "SKIP",
        StepStatus::Blocked => "BLOCKED",
        StepStatus::InProgress => "RUNNING",
        StepStatus::Pending => "—",
    }
}

fn u64_at(value: &Value, key: &str) -> u64 {
    value
        .get("summary")
        .and_then(|s| s.get(key))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

fn criteria_of(progress: &Progress) -> Criteria {
    let (kind, status) = progress::stop_signal(progress);
    let record = if kind == "exit_condition" {
        progress.extra.get("exit_condition").cloned()
    } else {
        Some(progress.plan_verification.clone())
    }
    .unwrap_or(Value::Null);
    Criteria {
        kind,
        status,
        total: u64_at(&record, "total"),
        passed: u64_at(&record, "passed"),
        failed: u64_at(&record, "failed"),
        blocked: u64_at(&record, "blocked"),
        unrunnable: u64_at(&record, "unrunnable"),
        failed_criteria: record
            .get("failed_criteria")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
    }
}

/// The steps' rows, described from the plan when it was read.
fn rows(progress: &Progress, plan: Option<&Plan>) -> Vec<StepRow> {
    progress
        .steps
        .iter()
        .map(|(key, record)| {
            let step = plan.and_then(|p| p.step(key.0));
            let sandbox = step.is_some_and(crate::plan::Step::sandbox_preflight);
            let manifest = match record.manifest_audit {
                _ if sandbox => "n/a",
                Some(progress::ManifestAudit::Pass) => "pass",
                Some(progress::ManifestAudit::Fail) => "fail",
                None => "—",
            };
            StepRow {
                step: key.0,
                description: step.map_or_else(|| "—".to_owned(), |s| s.title.clone()),
                result: result_mark(record.status),
                status: record.status.as_str(),
                attempts: record.attempts,
                commit: record.commit.clone().filter(|c| !c.is_empty()),
                manifest,
                on_failure: step.map(|s| s.on_failure.action.as_str()),
                error: record.error.clone().filter(|e| !e.is_empty()),
                left: record
                    .reverted
                    .as_ref()
                    .map(|r| r.left.clone())
                    .unwrap_or_default(),
                scope_violations: record.scope_violations.clone(),
            }
        })
        .collect()
}

/// The plan's commands the denylist engine blocks or warns about, for the
/// steps this progress file tracks (and the plan-wide criteria).
fn flagged(plan: &Plan, progress: &Progress) -> (Vec<Flagged>, Vec<Flagged>) {
    let ctx = crate::scan::Context::from_env();
    let mut blocks = Vec::new();
    let mut warnings = Vec::new();
    for command in plan.commands() {
        if command
            .step
            .is_some_and(|n| !progress.steps.contains_key(&progress::StepKey(n)))
        {
            continue;
        }
        let judgement = crate::scan::judge_command(&command.text, &ctx);
        for finding in &judgement.findings {
            let item = Flagged {
                step: command.step,
                kind: match command.kind {
                    CommandKind::Verify => "verify",
                    CommandKind::Checkpoint => "checkpoint",
                    CommandKind::ExitCondition => "exit-condition",
                    CommandKind::Verification => "verification",
                },
                line: command.line,
                command: command.text.clone(),
                rule: finding.rule.id,
                name: finding.rule.name,
                detail: finding.detail.clone(),
            };
            if finding.severity().label() == "BLOCKED" {
                blocks.push(item);
            } else {
                warnings.push(item);
            }
        }
    }
    (blocks, warnings)
}

/// What a checkpoint drift item says, in one line.
fn checkpoint_line(step: u32, drift: &Value) -> String {
    let text = |key: &str| {
        drift
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned()
    };
    if drift.get("rewritten_by_hook").is_some() {
        return format!(
            "Step {step}: the repository's hook {} rewrote the checkpoint's subject: \"{}\" became \"{}\", which does not match \"{}\"",
            text("rewritten_by_hook"),
            text("planned_message"),
            text("actual_message"),
            text("expected_pattern")
        );
    }
    format!(
        "Step {step}: checkpoint_drift: the commit subject \"{}\" does not match \"{}\"",
        text("actual_message"),
        text("expected_pattern")
    )
}

/// Builds the report. `cap` is the budget the gate reconciles against.
pub(super) fn build(
    progress_file: &str,
    progress: &Progress,
    plan: Option<&Plan>,
    cap: u32,
    notes: Vec<String>,
) -> Report {
    let steps = rows(progress, plan);
    let tally = progress.tally();
    let counts = Counts {
        total: tally.total,
        passed: tally.completed,
        skipped: tally.skipped,
        failed: tally.failed,
        not_reached: tally.pending + tally.in_progress,
        blocked: tally.blocked,
    };
    let all_done = tally.total > 0 && tally.completed + tally.skipped == tally.total;
    // A run the session audit or `progress finish` already overrode from
    // completed still claimed completed: the gate says why it is not.
    let overridden_from_completed = ["manifest_audit", "completion_gate"].iter().any(|key| {
        let record = progress.extra.get(*key);
        let from = record
            .and_then(|r| r.get("override").filter(|o| !o.is_null()).or(Some(r)))
            .and_then(|o| o.get("from"))
            .and_then(Value::as_str);
        from == Some(RunStatus::Completed.as_str())
    });
    // What the run claims: an in-progress run whose steps are all done
    // claims completed (as the session audit reads it); one that is not
    // done has not finished, which is partial.
    let (claimed_word, mut view) = match progress.status {
        RunStatus::InProgress if !all_done => (
            RunStatus::Partial,
            GateView {
                applied: false,
                status_override: Some(Override {
                    from: RunStatus::InProgress.as_str(),
                    to: RunStatus::Partial.as_str(),
                }),
                reasons: vec!["the run has not finished: its status is in_progress".into()],
                gate: None,
            },
        ),
        RunStatus::Partial | RunStatus::Failed if overridden_from_completed => (
            RunStatus::Completed,
            GateView {
                applied: true,
                status_override: None,
                reasons: Vec::new(),
                gate: None,
            },
        ),
        RunStatus::InProgress | RunStatus::Completed => (
            RunStatus::Completed,
            GateView {
                applied: true,
                status_override: None,
                reasons: Vec::new(),
                gate: None,
            },
        ),
        other => (
            other,
            GateView {
                applied: false,
                status_override: None,
                reasons: Vec::new(),
                gate: None,
            },
        ),
    };
    let mut result = progress.result();
    if claimed_word == RunStatus::Partial && view.status_override.is_some() {
        result = RunStatus::Partial.as_str();
    }
    if view.applied {
        let gate = progress::completion_gate(progress, cap);
        result = gate.status;
        view.reasons.clone_from(&gate.reasons);
        // `progress finish` refuses completed over open steps; a file that
        // says completed anyway has not finished.
        if !all_done {
            if result == RunStatus::Completed.as_str() {
                result = RunStatus::Partial.as_str();
            }
            view.reasons
                .push("not every step is completed or skipped".to_owned());
        }
        if result != RunStatus::Completed.as_str() {
            view.status_override = Some(Override {
                from: RunStatus::Completed.as_str(),
                to: result,
            });
        }
        view.gate = Some(gate);
    }
    let failed_at_step = steps
        .iter()
        .find(|r| r.status == "failed" || r.status == "blocked")
        .map(|r| r.step);
    let result_line = match result {
        "completed" => "COMPLETED".to_owned(),
        "failed" => match failed_at_step {
            Some(n) => format!("FAILED at step {n}"),
            None if view.status_override.is_some() => {
                "FAILED (the completion gate overrode completed)".to_owned()
            }
            None if progress::stop_signal(progress).1 == "failed" => {
                format!("FAILED ({} did not pass)", stop_signal_words(progress))
            }
            None => "FAILED".to_owned(),
        },
        "stopped" => "STOPPED (escalation)".to_owned(),
        "blocked" => "BLOCKED (sandbox pre-flight exited 77; no real work attempted)".to_owned(),
        _ => format!("PARTIAL ({}/{} passed)", counts.passed, counts.total),
    };
    let remaining: Vec<StepRow> = steps
        .iter()
        .filter(|r| r.result != "PASS" && r.result != "SKIP")
        .cloned()
        .collect();
    let (security_blocks, warned) = plan.map(|p| flagged(p, progress)).unwrap_or_default();
    let mut advisories: Vec<String> = progress
        .steps
        .iter()
        .filter_map(|(k, r)| r.checkpoint_drift.as_ref().map(|d| checkpoint_line(k.0, d)))
        .collect();
    advisories.extend(
        warned
            .iter()
            .map(|w| format!("{}: {} ({}): `{}`", place(w), w.name, w.rule, w.command)),
    );
    // A Verify that passed on its exit code while its runner ran no test.
    advisories.extend(progress.steps.iter().filter_map(|(k, r)| {
        r.verify_warning
            .as_ref()
            .map(|w| format!("Step {}: {w}", k.0))
    }));
    // `trek` pins the plan at the start: an edit during the run is said.
    if let Some(changed) = progress.extra.get("plan_changed") {
        let short = |key: &str| {
            changed
                .get(key)
                .and_then(Value::as_str)
                .map(|s| s.get(..12).unwrap_or(s).to_owned())
                .unwrap_or_default()
        };
        advisories.push(format!(
            "the plan was edited during the run (sha256 {} at the start, {} later): the steps and checks run were the first version's",
            short("pinned"),
            short("now")
        ));
    }
    let audit_status = progress::audit_word(progress);
    let recorded = |key: &str| {
        progress
            .extra
            .get("manifest_audit")
            .and_then(|a| a.get(key))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let manifest_audit = Audit {
        status: audit_status,
        drift_details: recorded("drift_details"),
        accepted: recorded("accepted"),
        recovery_dispatched: progress.recovery_dispatched.unwrap_or(false),
        recovery_depth: progress.recovery_depth.unwrap_or(0),
        recovery_spec: progress
            .extra
            .get("recovery_spec")
            .and_then(Value::as_str)
            .map(str::to_owned),
        legacy_plan: progress
            .legacy_plan
            .unwrap_or(progress.plan_version == "legacy"),
    };
    let criteria = criteria_of(progress);
    let summary = Summary::of(
        progress,
        progress_file,
        result,
        &counts,
        failed_at_step,
        &criteria,
        &manifest_audit,
    );
    Report {
        progress_file: progress_file.to_owned(),
        plan: progress.plan.clone(),
        plan_type: progress.plan_type.clone(),
        mode: progress.mode.clone(),
        mode_line: mode_word(progress),
        claimed: progress.status.as_str(),
        result,
        result_line,
        completion_gate: view,
        steps,
        criteria,
        manifest_audit,
        counts,
        failed_at_step,
        remaining,
        security_blocks,
        advisories,
        notes,
        sessions: Vec::new(),
        trekexecute_summary: summary,
    }
}

/// The template's `Mode:`: `execute`, `resume`, `step N` (or `session`).
fn mode_word(progress: &Progress) -> String {
    match progress.mode.as_str() {
        "step" => format!("step {}", progress.current_step),
        other => other.to_owned(),
    }
}

/// What the run's own check of the whole is called.
fn stop_signal_words(progress: &Progress) -> &'static str {
    if progress::stop_signal(progress).0 == "exit_condition" {
        "the exit condition"
    } else {
        "the plan verification"
    }
}

/// `Step N Verify (line L)` or `Verification (line L)`.
pub(super) fn place(f: &Flagged) -> String {
    let kind = match f.kind {
        "verify" => "Verify",
        "checkpoint" => "Checkpoint",
        "exit-condition" => "Exit Condition",
        _ => "Verification",
    };
    match f.step {
        Some(n) => format!("Step {n} {kind} (line {})", f.line),
        None => format!("{kind} (line {})", f.line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violation(attempt: u32, restored: &[&str], patch: Option<&str>) -> progress::ScopeViolation {
        progress::ScopeViolation {
            attempt,
            restored: restored.iter().map(|p| (*p).to_owned()).collect(),
            patch: patch.map(str::to_owned),
            kept: Vec::new(),
            problem: None,
        }
    }

    #[test]
    fn a_scope_line_names_each_attempts_paths_and_patch() {
        let mut row = StepRow {
            step: 4,
            description: "d".into(),
            result: "PASS",
            status: "completed",
            attempts: 3,
            commit: None,
            manifest: "pass",
            on_failure: None,
            error: None,
            left: Vec::new(),
            scope_violations: Vec::new(),
        };
        assert_eq!(row.scope_line(), None);
        assert_eq!(row.put_back(), 0);
        row.scope_violations = vec![
            violation(
                1,
                &["a.txt", "b/c.md"],
                Some("/r/.git/voyage-scope/1.patch"),
            ),
            progress::ScopeViolation {
                kept: vec!["vendor/lib/".into()],
                problem: Some("a nested repository".into()),
                ..violation(2, &["a.txt"], Some("/r/.git/voyage-scope/2.patch"))
            },
            progress::ScopeViolation {
                kept: vec!["x".into()],
                problem: Some("the patch could not be written".into()),
                ..violation(3, &[], None)
            },
        ];
        assert_eq!(
            row.scope_line().unwrap(),
            "Step 4: attempt 1 put back a.txt, b/c.md — patch /r/.git/voyage-scope/1.patch; \
             attempt 2 put back a.txt, left vendor/lib/ in place (a nested repository) — patch /r/.git/voyage-scope/2.patch; \
             attempt 3 left x in place (the patch could not be written)"
        );
        assert_eq!(row.put_back(), 3);
    }
}
