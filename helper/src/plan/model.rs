//! `Plan`: the whole parsed file, the model every other area reads.

use serde::Serialize;
use serde_json::Value;

use super::criterion::Criterion;
use super::step::{Field, Step};
use super::strategy::Strategy;
use crate::problem::Problem;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PlanKind {
    /// `## Implementation Plan` with `### Step N:` headings.
    Trekplan,
    /// `## Dependencies`, `## Scope Fence` and `## Exit Condition`.
    SessionSpec,
}

impl PlanKind {
    /// As the reports name it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Trekplan => "plan",
            Self::SessionSpec => "session-spec",
        }
    }
}

/// The parsed plan. `voyage-helper plan show --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Plan {
    /// The path it was read from, as given.
    pub file: String,
    pub kind: PlanKind,
    /// The first `#` heading.
    pub title: Option<String>,
    /// As written (`1.7`), from the front matter or a `plan_version:` line.
    pub plan_version: Option<String>,
    /// plan_version >= 1.7: every step must carry its manifest.
    pub strict: bool,
    /// Manifests were synthesised (no plan_version, or < 1.7).
    pub legacy_plan: bool,
    /// `profile:` from the front matter.
    pub profile: Option<String>,
    pub steps: Vec<Step>,
    /// Session-spec sections; `None` for trekplans.
    pub session: Option<SessionSpec>,
    pub strategy: Option<Strategy>,
    /// `## Verification`; `None` when the plan has none.
    pub verification: Option<Verification>,
    /// Every error and warning, in file order.
    pub problems: Vec<Problem>,
}

/// The parts only a session spec has.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct SessionSpec {
    pub entry_condition: Option<Field>,
    pub touch: Vec<String>,
    pub never_touch: Vec<String>,
    /// `## Exit Condition`: the checklist, as criteria.
    pub exit_conditions: Vec<Criterion>,
    pub exit_condition_line: Option<u32>,
    /// `## Session Manifest`, as its YAML says (kept whole for the audit).
    pub manifest: Option<Value>,
    pub manifest_line: Option<u32>,
    /// `## Recovery Metadata`'s `recovery_depth` (trekexecute Phase 7.6):
    /// set only in a recovery spec, as `recovery spec` writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_depth: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Verification {
    pub line: u32,
    pub criteria: Vec<Criterion>,
}

/// Which field a [`PlanCommand`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum CommandKind {
    Verify,
    Checkpoint,
    ExitCondition,
    Verification,
}

/// A command the plan will have run, with where it is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct PlanCommand {
    pub kind: CommandKind,
    pub step: Option<u32>,
    pub line: u32,
    pub text: String,
}

impl Plan {
    /// Every command the plan runs: each step's Verify and Checkpoint, the
    /// exit conditions and the verification criteria, in file order.
    pub fn commands(&self) -> Vec<PlanCommand> {
        let mut out = Vec::new();
        for step in &self.steps {
            for (kind, cmd) in [
                (CommandKind::Verify, &step.verify),
                (CommandKind::Checkpoint, &step.checkpoint),
            ] {
                if let Some(cmd) = cmd {
                    out.push(PlanCommand {
                        kind,
                        step: Some(step.number),
                        line: cmd.line,
                        text: cmd.command.clone(),
                    });
                }
            }
        }
        let exits = self.session.iter().flat_map(|s| &s.exit_conditions);
        let checks = self.verification.iter().flat_map(|v| &v.criteria);
        for (kind, c) in exits
            .map(|c| (CommandKind::ExitCondition, c))
            .chain(checks.map(|c| (CommandKind::Verification, c)))
        {
            out.push(PlanCommand {
                kind,
                step: None,
                line: c.line,
                text: c.command.clone(),
            });
        }
        out.sort_by_key(|c| c.line);
        out
    }

    pub fn step(&self, number: u32) -> Option<&Step> {
        self.steps.iter().find(|s| s.number == number)
    }

    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems.iter().filter(|p| p.is_error())
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Problem> {
        self.problems.iter().filter(|p| !p.is_error())
    }
}
