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
    /// What the verdict counts for this step, one entry each: its errors'
    /// codes and the files it needs that no step before it creates.
    pub issues: Vec<String>,
    /// Its warnings' codes: listed, never counted.
    pub warnings: Vec<String>,
}

/// How a step creates a file the plan names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub(super) enum Creation {
    /// Marked `(new)` in its Files.
    MarkedNew,
    /// In its written manifest's expected_paths.
    Manifest,
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
    /// For a file not there and not marked `(new)` here: the first step
    /// that creates it (marked `(new)` in its Files, or in its written
    /// manifest's expected_paths), if any does.
    pub created_by: Option<u32>,
    pub created_how: Option<Creation>,
    /// Why the file counts as an issue of its step; `None` when it does not.
    pub issue: Option<String>,
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
    /// The checks the real start makes before it creates anything, each
    /// with its outcome; a `fail` is an issue. The plan's errors that
    /// belong to no step and the criteria that will not run are rows here
    /// too, so that every issue counted is shown in a step's row or here.
    pub preflight: Vec<super::PreflightRow>,
    /// Every step's issues plus every failed pre-flight row.
    pub issues: usize,
    /// `READY` or `NEEDS ATTENTION`.
    pub verdict: &'static str,
}

impl DryRun {
    /// Builds the report; files are looked up below `root`, and the
    /// starter lines name the plan by `plan_rel`, its path from `root`.
    /// `checks` are the real start's pre-flight rows, as its caller found
    /// them.
    pub(super) fn of(
        plan: &Plan,
        root: &Path,
        plan_rel: &str,
        screen: &dyn super::CriteriaScreen,
        checks: Vec<super::PreflightRow>,
    ) -> Self {
        let files: Vec<DryRunFile> = plan
            .steps
            .iter()
            .enumerate()
            .flat_map(|(at, s)| {
                s.files
                    .iter()
                    .map(move |f| file_reference(plan, at, &f.path, f.new, root))
            })
            .collect();
        // An error goes to the first row of its step; one of no step (or
        // of a step number no row has) is a row of the pre-flight table.
        let mut steps: Vec<DryRunStep> = plan
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
                issues: Vec::new(),
                warnings: Vec::new(),
            })
            .collect();
        let mut preflight = Vec::new();
        for p in &plan.problems {
            let row = p
                .step
                .and_then(|n| steps.iter_mut().find(|s| s.number == n));
            match (row, p.is_error()) {
                (Some(row), true) => row.issues.push(p.code.to_owned()),
                (Some(row), false) => row.warnings.push(p.code.to_owned()),
                (None, true) => preflight.push(super::PreflightRow::new(
                    "plan",
                    super::PreflightOutcome::Fail,
                    format!("{} {}: {}", p.code, report_place(p), p.message),
                )),
                (None, false) => {}
            }
        }
        for f in &files {
            if let (Some(issue), Some(row)) =
                (&f.issue, steps.iter_mut().find(|s| s.number == f.step))
            {
                row.issues.push(issue.clone());
            }
        }
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
        // The start refuses a criterion that will not run before anything.
        for c in verification.iter().filter(|c| !c.runs) {
            preflight.push(super::PreflightRow::new(
                &format!("criterion at line {}", c.line),
                super::PreflightOutcome::Fail,
                format!(
                    "`{}` will not run ({}): {}",
                    c.command,
                    c.refused_by.unwrap_or("screen"),
                    c.reason.as_deref().unwrap_or("")
                ),
            ));
        }
        preflight.extend(checks);
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
        // Issues are what needs fixing, each shown where it is counted: a
        // step's errors and missing files in its row, the rest as failed
        // pre-flight rows. Warnings are listed but are no issue (Phase 5's
        // verdict); a path outside the repository is counted once, as its
        // error.
        let issues = steps.iter().map(|s| s.issues.len()).sum::<usize>()
            + preflight
                .iter()
                .filter(|r| r.outcome == super::PreflightOutcome::Fail)
                .count();
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
            preflight,
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
                match (s.issues.is_empty(), s.warnings.is_empty()) {
                    (false, _) => cell(&s.issues.join(", ")),
                    (true, true) => "none".to_owned(),
                    (true, false) => format!("none (warnings: {})", s.warnings.join(", ")),
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
            writeln!(out, "- {}: {}", f.path, file_state(f))?;
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
        if !self.preflight.is_empty() {
            writeln!(out)?;
            writeln!(out, "### Pre-flight (what the real start checks first)")?;
            writeln!(out)?;
            writeln!(out, "| Check | Outcome | What the start will say |")?;
            writeln!(out, "|-------|---------|-------------------------|")?;
            for r in &self.preflight {
                writeln!(
                    out,
                    "| {} | {} | {} |",
                    cell(&r.check),
                    r.outcome.word(),
                    cell(&r.detail)
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

/// The file `path` that the step at index `at` of `plan` names, looked up
/// below `root`; one not there and not marked `(new)` is traced to the
/// step that creates it.
fn file_reference(plan: &Plan, at: usize, path: &str, new: bool, root: &Path) -> DryRunFile {
    let step = plan.steps.get(at).map_or(0, |s| s.number);
    let outside = !super::in_repository(path);
    let exists = !outside && root.join(path).exists();
    let mut file = DryRunFile {
        path: path.to_owned(),
        step,
        exists,
        new,
        outside,
        created_by: None,
        created_how: None,
        issue: None,
    };
    if exists || new || outside {
        return file;
    }
    match creator(plan, path) {
        Some((by, n, how)) => {
            file.created_by = Some(n);
            file.created_how = Some(how);
            if by > at {
                file.issue = Some(format!("{path} first created by later step {n}"));
            }
        }
        None => file.issue = Some(format!("{path} not found and no step creates it")),
    }
    file
}

/// The first step (its index and number) that creates `path`: marks it
/// `(new)` in its Files, or lists it in its written manifest's
/// expected_paths (a synthesised manifest only repeats the Files).
fn creator(plan: &Plan, path: &str) -> Option<(usize, u32, Creation)> {
    let key = same_path(path);
    plan.steps.iter().enumerate().find_map(|(at, s)| {
        if s.files.iter().any(|f| f.new && same_path(&f.path) == key) {
            return Some((at, s.number, Creation::MarkedNew));
        }
        s.manifest
            .as_ref()
            .filter(|m| !m.synthesized)
            .is_some_and(|m| m.expected_paths.iter().any(|p| same_path(p) == key))
            .then_some((at, s.number, Creation::Manifest))
    })
}

/// A path as the plan's places compare it: `./a` is `a`.
fn same_path(path: &str) -> &str {
    let path = path.trim();
    path.strip_prefix("./").unwrap_or(path)
}

/// The File References line of `f`, after its path.
fn file_state(f: &DryRunFile) -> String {
    let mark = |n: u32| format!("mark it `(new)` in step {n}'s Files");
    match (f.exists, f.new, f.created_by, f.created_how) {
        _ if f.outside => "OUTSIDE THE REPOSITORY (not looked up)".to_owned(),
        (true, _, _, _) => "EXISTS".to_owned(),
        (false, true, _, _) => "NOT FOUND (marked as new file)".to_owned(),
        (false, false, Some(n), how) if f.issue.is_some() => format!(
            "NOT FOUND — needed by step {}, but created only by step {n}, a later step ({}): create it in step {} or earlier, or move step {}'s work after step {n}",
            f.step,
            match how {
                Some(Creation::Manifest) => "in its manifest",
                _ => "marked `(new)` there",
            },
            f.step,
            f.step
        ),
        (false, false, Some(n), Some(Creation::Manifest)) => {
            format!("created by step {n} (in its manifest; {})", mark(n))
        }
        (false, false, Some(n), _) => format!("created by step {n} (marked `(new)` there)"),
        (false, false, None, _) => format!(
            "NOT FOUND — no step creates it: fix the path, or {}",
            mark(f.step)
        ),
    }
}

/// Table cells cannot hold `|` or line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
