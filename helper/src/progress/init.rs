//! `progress init`: a fresh progress file from a plan (seed Phase 3,
//! "Progress file setup" and "Mode-specific behavior").
//!
//! Every step of the plan (or, with `--session N` on a plan with an
//! Execution Strategy, of that session) starts `pending` with no attempts;
//! `plan_type`, `plan_version` and the budget come from the plan and the
//! environment. What happens to a file already there depends on the mode:
//!
//! | mode | no file | a file |
//! |---|---|---|
//! | execute, session | create | replace (warn when its run was unfinished) |
//! | resume, step | create | keep it as it is |

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::code;
use super::model::{Progress, StepKey, StepRecord};
use super::status::RunStatus;
use crate::plan::{Plan, PlanKind};
use crate::problem::Problem;

/// The modes a run may start in.
pub(super) const MODES: &[&str] = &["execute", "resume", "step", "session"];

/// What a plan contributes to its progress file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PlanFacts {
    pub plan: String,
    /// `plan` or `session-spec`.
    pub plan_type: &'static str,
    /// As the plan says, or `legacy`.
    pub plan_version: String,
    pub steps: Vec<u32>,
    /// Manifests were synthesised (seed Phase 2, "Legacy mode").
    pub legacy_plan: bool,
    /// A recovery spec's depth (its `## Recovery Metadata`), else 0.
    pub recovery_depth: u32,
    /// The Execution Strategy's session the run executes, if any.
    pub session: Option<u32>,
}

impl PlanFacts {
    /// The facts of `plan`, read from `path`; with `session`, only that
    /// session's steps (when the plan splits into sessions).
    pub(super) fn of(plan: &Plan, path: &Path, session: Option<u32>) -> Result<Self, Problem> {
        let mut steps: Vec<u32> = plan.steps.iter().map(|s| s.number).collect();
        let mut of_session = None;
        if let (Some(n), Some(strategy)) = (session, &plan.strategy) {
            let Some(s) = strategy.sessions.iter().find(|s| s.number == n) else {
                let known: Vec<String> = strategy
                    .sessions
                    .iter()
                    .map(|s| s.number.to_string())
                    .collect();
                return Err(Problem::new(
                    code::PROGRESS_NO_SUCH_SESSION,
                    format!(
                        "the plan's Execution Strategy has no session {n} (sessions: {})",
                        known.join(", ")
                    ),
                )
                .in_file(path));
            };
            steps.clone_from(&s.steps);
            of_session = Some(n);
        }
        steps.sort_unstable();
        steps.dedup();
        Ok(Self {
            plan: path.display().to_string(),
            plan_type: match plan.kind {
                PlanKind::Trekplan => "plan",
                PlanKind::SessionSpec => "session-spec",
            },
            plan_version: plan
                .plan_version
                .clone()
                .filter(|v| !v.trim().is_empty())
                .unwrap_or_else(|| "legacy".into()),
            steps,
            legacy_plan: plan.legacy_plan,
            recovery_depth: plan
                .session
                .as_ref()
                .and_then(|s| s.recovery_depth)
                .unwrap_or(0),
            session: of_session,
        })
    }
}

/// A progress document with every step pending. The run of a recovery
/// spec at depth D starts with D fewer iterations: each recovery level
/// spent one (Phase 7.6), and the completion gate's reconciliation counts
/// `recovery_depth`.
pub(super) fn fresh(facts: &PlanFacts, mode: &str, budget: u32, now: &str) -> Progress {
    let steps: BTreeMap<StepKey, StepRecord> = facts
        .steps
        .iter()
        .map(|&n| (StepKey(n), StepRecord::pending()))
        .collect();
    Progress {
        schema_version: Value::String("1".into()),
        plan: facts.plan.clone(),
        plan_type: facts.plan_type.into(),
        plan_version: facts.plan_version.clone(),
        started_at: now.into(),
        updated_at: now.into(),
        mode: mode.into(),
        total_steps: u32::try_from(steps.len()).unwrap_or(u32::MAX),
        current_step: 0,
        status: RunStatus::InProgress,
        steps,
        iterations_remaining: Some(budget.saturating_sub(facts.recovery_depth)),
        entry_condition_checked: false,
        exit_condition_checked: false,
        plan_verification: Value::Null,
        summary: Value::Null,
        legacy_plan: Some(facts.legacy_plan),
        recovery_depth: Some(facts.recovery_depth),
        recovery_dispatched: Some(false),
        session: facts.session,
        extra: Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_file_validates() {
        let facts = PlanFacts {
            plan: "p.md".into(),
            plan_type: "plan",
            plan_version: "legacy".into(),
            steps: vec![0, 1, 2, 10],
            legacy_plan: true,
            recovery_depth: 0,
            session: None,
        };
        let p = fresh(&facts, "execute", 25, "2026-11-30T10:15:00Z");
        assert_eq!(p.total_steps, 4);
        assert_eq!(p.resume_point(), Some(0));
        assert_eq!(p.legacy_plan, Some(true));
        assert_eq!(
            (p.recovery_depth, p.recovery_dispatched),
            (Some(0), Some(false))
        );
        let problems = crate::schema::check("progress", &p.to_value(), &super::super::CODES);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(super::super::file::conforms(&p.to_value()));
    }
}
