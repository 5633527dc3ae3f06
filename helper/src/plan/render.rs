//! Reports over a plan: `plan validate` (trekexecute Phase 2.3) and
//! `plan dry-run` (Phase 5), as text for people and JSON for tools.

use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use super::code;
use super::model::{Plan, PlanKind};
use crate::problem::Problem;

/// `file:line`, or just the file, as the reports show a problem's place.
fn report_place(p: &Problem) -> String {
    p.place().unwrap_or_default()
}

/// The outcome of `plan validate`.
#[derive(Debug, Serialize)]
pub(super) struct Validation<'a> {
    pub file: &'a str,
    /// `READY` or `FAIL`.
    pub status: &'static str,
    pub valid: bool,
    #[serde(rename = "type")]
    pub kind: Option<&'static str>,
    pub plan_version: Option<&'a str>,
    pub legacy_plan: bool,
    pub steps: usize,
    pub manifests_valid: usize,
    pub manifests_synthesized: usize,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
}

impl<'a> Validation<'a> {
    /// Only errors fail the validation (Phase 2.3: an unrecognised format, a
    /// missing or malformed Manifest in strict mode, an invalid pattern, and
    /// the other structural errors); warnings are listed beside READY.
    /// `fail_on_warnings`: any warning fails it too (for CI).
    pub(super) fn of(
        file: &'a str,
        plan: Option<&'a Plan>,
        problems: &'a [Problem],
        fail_on_warnings: bool,
    ) -> Self {
        let errors: Vec<Problem> = problems
            .iter()
            .filter(|p| p.is_error())
            .map(|p| p.clone().in_file_if_none(Path::new(file)))
            .collect();
        let warnings: Vec<Problem> = problems
            .iter()
            .filter(|p| !p.is_error())
            .map(|p| p.clone().in_file_if_none(Path::new(file)))
            .collect();
        let warned_out = fail_on_warnings && !warnings.is_empty();
        let valid = plan.is_some() && errors.is_empty() && !warned_out;
        let manifests = |synth: bool| {
            plan.map_or(0, |p| {
                p.steps
                    .iter()
                    .filter(|s| s.manifest.as_ref().is_some_and(|m| m.synthesized == synth))
                    .count()
            })
        };
        Self {
            file,
            status: if valid { "READY" } else { "FAIL" },
            valid,
            kind: plan.map(|p| p.kind.label()),
            plan_version: plan.and_then(|p| p.plan_version.as_deref()),
            legacy_plan: plan.is_some_and(|p| p.legacy_plan),
            steps: plan.map_or(0, |p| p.steps.len()),
            manifests_valid: manifests(false),
            manifests_synthesized: manifests(true),
            errors,
            warnings,
        }
    }

    pub(super) fn render_json(&self, out: &mut impl Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, self)?;
        writeln!(out)
    }

    /// The errors and warnings as GitHub Actions annotations, each placed
    /// in the plan file unless it names another.
    pub(super) fn render_github(&self, out: &mut impl Write) -> io::Result<()> {
        let problems = self.errors.iter().chain(&self.warnings);
        crate::problem::render_github_all(problems, Path::new(self.file), out)
    }

    pub(super) fn render_text(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "=== Schema Validation: {} ===", self.status)?;
        writeln!(out, "File: {}", self.file)?;
        if let Some(kind) = self.kind {
            writeln!(out, "Type: {kind}")?;
            writeln!(
                out,
                "plan_version: {}",
                if self.legacy_plan {
                    "legacy"
                } else {
                    self.plan_version.unwrap_or("legacy")
                }
            )?;
            writeln!(out, "Steps: {}", self.steps)?;
            if self.legacy_plan {
                writeln!(
                    out,
                    "Manifests: {} synthesized (legacy)",
                    self.manifests_synthesized
                )?;
            } else {
                writeln!(out, "Manifests: {} valid", self.manifests_valid)?;
            }
        }
        if !self.valid {
            // No error: a warning failed it under --fail-on-warnings.
            let reason = self
                .errors
                .first()
                .or(self.warnings.first())
                .map_or("", |e| e.message.as_str());
            writeln!(out, "Reason: {reason}")?;
            writeln!(out, "Errors: {}", self.errors.len())?;
            for e in &self.errors {
                writeln!(out, "- {} {}: {}", e.code, report_place(e), e.message)?;
            }
        }
        writeln!(out, "Warnings: {}", self.warnings.len())?;
        for w in &self.warnings {
            writeln!(out, "- {} {}: {}", w.code, report_place(w), w.message)?;
        }
        writeln!(out)?;
        if self.valid {
            writeln!(out, "Plan is schema-compliant. Safe to run:")?;
            writeln!(out, "  /trekexecute {}", self.file)?;
        } else {
            writeln!(out, "Fix: {}", self.fix_hint())?;
        }
        Ok(())
    }

    fn fix_hint(&self) -> &'static str {
        let first = self.errors.first().map_or("", |e| e.code);
        match first {
            code::PLAN_UNRECOGNIZED_FORMAT | code::PLAN_FORBIDDEN_HEADING => {
                "write steps as \"### Step N: <description>\" under \"## Implementation Plan\", then validate the plan again (voyage-helper plan validate PLAN)"
            }
            code::PLAN_MISSING_MANIFEST | code::PLAN_MANIFEST_MISSING_KEY => {
                "write the missing Manifest keys of every step from its Files and Checkpoint (voyage-helper plan fill PLAN), then validate the plan again (voyage-helper plan validate PLAN)"
            }
            "" => "resolve the warnings above, or validate without --fail-on-warnings",
            _ => {
                "edit the plan at the lines above, then validate it again (voyage-helper plan validate PLAN)"
            }
        }
    }
}

/// One row of the dry-run's step table.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(super) struct DryRunStep {
    pub number: u32,
    pub title: String,
    pub verify: Option<String>,
    pub on_failure: &'static str,
    pub checkpoint: Option<String>,
    pub issues: Vec<String>,
}

/// A file a step names, looked up below the repository root.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(super) struct DryRunFile {
    pub path: String,
    pub step: u32,
    pub exists: bool,
    pub new: bool,
    /// Outside the repository (`..`, `/`, `~/`): not looked up, and an
    /// error of the plan (PLAN_PATH_OUTSIDE_REPOSITORY).
    pub outside: bool,
}

/// One row of the execution preview.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(super) struct DryRunSession {
    pub wave: Option<u32>,
    pub session: u32,
    pub title: String,
    pub steps: Vec<u32>,
    pub depends_on: Vec<u32>,
    /// What the user runs in the session they open.
    pub starter: String,
}

/// One criterion of `## Verification` (or `## Exit Condition`), screened
/// before the run as `criteria run` will screen it.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(super) struct DryRunCriterion {
    pub line: u32,
    pub command: String,
    /// Whether the runner will run it.
    pub runs: bool,
    /// `denylist` or `allowlist` when it will not run.
    pub refused_by: Option<&'static str>,
    pub reason: Option<String>,
    pub fix: Option<String>,
}

/// The Phase 5 report.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(super) struct DryRun {
    pub file: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub steps: Vec<DryRunStep>,
    pub files: Vec<DryRunFile>,
    pub entry_condition: Option<String>,
    pub exit_conditions: Vec<String>,
    /// The criteria the run ends with, each screened.
    pub verification: Vec<DryRunCriterion>,
    pub sessions: Vec<DryRunSession>,
    pub waves: usize,
    pub issues: usize,
    /// `READY` or `NEEDS ATTENTION`.
    pub verdict: &'static str,
}

impl DryRun {
    /// Builds the report; files are looked up below `root`, and the
    /// starter lines name the plan by `plan_rel`, its path from `root`.
    pub(super) fn of(
        plan: &Plan,
        root: &Path,
        plan_rel: &str,
        screen: &dyn super::CriteriaScreen,
    ) -> Self {
        let steps: Vec<DryRunStep> = plan
            .steps
            .iter()
            .map(|s| DryRunStep {
                number: s.number,
                title: s.title.clone(),
                verify: s.verify.as_ref().map(|c| c.command.clone()),
                on_failure: s.on_failure.action.as_str(),
                checkpoint: s.checkpoint.as_ref().map(|c| {
                    super::manifest::commit_message(&c.command)
                        .map_or_else(|| c.command.clone(), str::to_owned)
                }),
                issues: plan
                    .problems
                    .iter()
                    .filter(|p| p.step == Some(s.number))
                    .map(|p| p.code.to_owned())
                    .collect(),
            })
            .collect();
        let files: Vec<DryRunFile> = plan
            .steps
            .iter()
            .flat_map(|s| {
                s.files.iter().map(move |f| {
                    let outside = !super::in_repository(&f.path);
                    DryRunFile {
                        path: f.path.clone(),
                        step: s.number,
                        exists: !outside && root.join(&f.path).exists(),
                        new: f.new,
                        outside,
                    }
                })
            })
            .collect();
        let sessions: Vec<DryRunSession> = plan
            .strategy
            .iter()
            .flat_map(|st| &st.sessions)
            .map(|s| DryRunSession {
                wave: s.wave,
                session: s.number,
                title: s.title.clone(),
                steps: s.steps.clone(),
                depends_on: s.depends_on.clone(),
                starter: s.starter(plan_rel),
            })
            .collect();
        let verification: Vec<DryRunCriterion> = screen
            .screened(plan, root)
            .into_iter()
            .map(|s| DryRunCriterion {
                line: s.line,
                command: s.command,
                runs: s.refusal.is_none(),
                refused_by: s.refusal.as_ref().map(|r| r.by),
                reason: s.refusal.as_ref().map(|r| r.reason.clone()),
                fix: s.refusal.map(|r| r.fix),
            })
            .collect();
        // Issues are what needs fixing: errors, missing files and criteria
        // that will not run. Warnings are listed in the report but are no
        // issue (Phase 5's verdict).
        // A path outside the repository is counted once, as its error.
        let missing = files
            .iter()
            .filter(|f| !f.exists && !f.new && !f.outside)
            .count();
        let refused = verification.iter().filter(|c| !c.runs).count();
        let issues = plan.errors().count() + missing + refused;
        Self {
            file: plan.file.clone(),
            kind: plan.kind.label(),
            steps,
            files,
            entry_condition: plan
                .session
                .as_ref()
                .and_then(|s| s.entry_condition.as_ref().map(|e| e.text.clone())),
            exit_conditions: plan
                .session
                .iter()
                .flat_map(|s| &s.exit_conditions)
                .map(|c| c.command.clone())
                .collect(),
            verification,
            waves: plan.strategy.as_ref().map_or(0, |s| s.wave_count()),
            sessions,
            issues,
            verdict: if issues == 0 {
                "READY"
            } else {
                "NEEDS ATTENTION"
            },
        }
    }

    pub(super) fn render_json(&self, out: &mut impl Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, self)?;
        writeln!(out)
    }

    pub(super) fn render_text(&self, plan: &Plan, out: &mut impl Write) -> io::Result<()> {
        let name = Path::new(&self.file)
            .file_name()
            .map_or_else(|| self.file.clone(), |n| n.to_string_lossy().into_owned());
        writeln!(out, "## Dry Run Report: {name}")?;
        writeln!(out)?;
        writeln!(out, "**Type:** {}", self.kind)?;
        writeln!(out, "**Steps:** {}", self.steps.len())?;
        writeln!(out)?;
        writeln!(out, "### Step Validation")?;
        writeln!(out)?;
        writeln!(
            out,
            "| Step | Description | Verify | On failure | Checkpoint | Issues |"
        )?;
        writeln!(
            out,
            "|------|-------------|--------|------------|------------|--------|"
        )?;
        for s in &self.steps {
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                s.number,
                cell(&s.title),
                s.verify
                    .as_deref()
                    .map_or_else(|| "(missing)".to_owned(), |v| format!("`{}`", cell(v))),
                s.on_failure,
                s.checkpoint
                    .as_deref()
                    .map_or_else(|| "(missing)".to_owned(), cell),
                if s.issues.is_empty() {
                    "none".to_owned()
                } else {
                    s.issues.join(", ")
                }
            )?;
        }
        writeln!(out)?;
        writeln!(out, "### File References")?;
        writeln!(out)?;
        if self.files.is_empty() {
            writeln!(out, "(no step names a file)")?;
        }
        for f in &self.files {
            let state = match (f.exists, f.new) {
                _ if f.outside => "OUTSIDE THE REPOSITORY (not looked up)",
                (true, _) => "EXISTS",
                (false, true) => "NOT FOUND (marked as new file)",
                (false, false) => "NOT FOUND (unexpected — may be missing)",
            };
            writeln!(out, "- {}: {state}", f.path)?;
        }
        if plan.kind == PlanKind::SessionSpec {
            writeln!(out)?;
            writeln!(out, "### Entry / Exit Conditions")?;
            writeln!(out)?;
            writeln!(
                out,
                "Entry condition: {}",
                self.entry_condition.as_deref().unwrap_or("(none)")
            )?;
            for c in &self.exit_conditions {
                writeln!(out, "- [ ] `{c}`")?;
            }
        }
        writeln!(out)?;
        writeln!(
            out,
            "### {} (run at the end)",
            if plan.kind == PlanKind::SessionSpec {
                "Exit Condition"
            } else {
                "Verification"
            }
        )?;
        writeln!(out)?;
        if self.verification.is_empty() {
            writeln!(
                out,
                "(no criterion: the run cannot be reported as verified)"
            )?;
        }
        for c in &self.verification {
            match (&c.refused_by, &c.reason, &c.fix) {
                (Some(by), Some(reason), Some(fix)) => writeln!(
                    out,
                    "- line {}: `{}` → WILL NOT RUN ({by}): {reason}\n  Fix: {fix}",
                    c.line, c.command
                )?,
                _ => writeln!(out, "- line {}: `{}` → runs", c.line, c.command)?,
            }
        }
        if !self.sessions.is_empty() {
            writeln!(out)?;
            writeln!(out, "### Execution Preview")?;
            writeln!(out)?;
            writeln!(
                out,
                "**Sessions:** {} across {} waves",
                self.sessions.len(),
                self.waves
            )?;
            writeln!(out)?;
            writeln!(
                out,
                "| Wave | Session | Steps | Depends on | Starter (given to a session opened in the directory its wave order names) |"
            )?;
            writeln!(out, "|------|---------|-------|------------|---------|")?;
            for s in &self.sessions {
                let deps = if s.depends_on.is_empty() {
                    "none".to_owned()
                } else {
                    s.depends_on
                        .iter()
                        .map(|d| format!("S{d}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                writeln!(
                    out,
                    "| {} | Session {}: {} | {} | {deps} | `{}` |",
                    s.wave.map_or_else(|| "?".to_owned(), |w| w.to_string()),
                    s.session,
                    cell(&s.title),
                    s.steps
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    s.starter
                )?;
            }
        }
        if !plan.problems.is_empty() {
            writeln!(out)?;
            writeln!(out, "### Problems")?;
            writeln!(out)?;
            for p in &plan.problems {
                let kind = if p.is_error() { "error" } else { "warning" };
                writeln!(
                    out,
                    "- {kind} {} {}: {}",
                    p.code,
                    report_place(p),
                    p.message
                )?;
            }
        }
        writeln!(out)?;
        writeln!(out, "### Verdict")?;
        writeln!(out)?;
        if self.issues == 0 {
            writeln!(out, "READY")
        } else {
            let noun = if self.issues == 1 { "issue" } else { "issues" };
            writeln!(out, "NEEDS ATTENTION — {} {noun} found", self.issues)
        }
    }
}

/// Table cells cannot hold `|` or line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
