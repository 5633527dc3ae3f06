//! `plan`'s command line: its subcommands and their flags, each run by
//! [`Command::execute`] through an `execute` here; the reading and the
//! reports are [`super::ops`], the area's I/O edge.

use std::io::{self, Write};
use std::path::PathBuf;

use super::ops::{
    PlanLoadError, dry_run_report, fill_report, load, load_or_report, validate_report,
};
use super::{CriteriaScreen, Invocation, PreflightPreview, decide};
use crate::exit;
use crate::problem::{Coded, Format};

/// Parse, check and preview trekplans and session specs.
///
/// A trekplan has `## Implementation Plan` with `### Step N: description`
/// headings; a session spec has `## Dependencies` (with `Entry condition:`),
/// `## Scope Fence` and `## Exit Condition`. Each step may carry Files,
/// Changes, Reuses, Test first, Verify, On failure, Checkpoint and a
/// Manifest (a ```yaml fence); plans at `plan_version: 1.7` or later must
/// carry a manifest per step, older ones get one synthesised.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Check a plan's schema: the READY / FAIL report (trekexecute Phase 2.3).
    ///
    /// Every problem has a stable code and a line. Errors make it FAIL: an
    /// unrecognised format or PLAN_FORBIDDEN_HEADING, and for a plan at
    /// plan_version 1.7 or later PLAN_MISSING_MANIFEST, PLAN_MALFORMED_YAML,
    /// a Manifest key missing or of the wrong type, PLAN_INVALID_REGEX and
    /// PLAN_REGEX_UNSUPPORTED (lookaround, backreferences), besides step
    /// numbering and Execution Strategy errors such as
    /// PLAN_STRATEGY_SCOPE_OVERLAP. In any plan, a step a run could never
    /// complete is an error too: PLAN_MISSING_CHECKPOINT and
    /// PLAN_MISSING_FILES (only the sandbox pre-flight, `sandbox_preflight:
    /// true`, commits nothing, and PLAN_PREFLIGHT_CHECKPOINT if it has a
    /// Checkpoint), PLAN_PATH_OUTSIDE_REPOSITORY (`..`, `/`, `~/` in Files or
    /// a manifest's paths), PLAN_MIN_FILE_COUNT_UNREACHABLE and
    /// PLAN_CHECKPOINT_MESSAGE_MISMATCH. Warnings are listed under READY and
    /// never fail it unless --fail-on-warnings: PLAN_LEGACY (manifests
    /// synthesised), PLAN_MISSING_VERIFY, PLAN_MISSING_ON_FAILURE,
    /// NO_VERIFICATION_SECTION, NO_CRITERIA and the like. `--json` prints `{file, status, valid, type,
    /// plan_version, legacy_plan, steps, manifests_valid,
    /// manifests_synthesized, errors[], warnings[]}`, each problem
    /// `{code, severity, message, file, line, step}`.
    ///
    /// The `## Verification` (or Exit Condition) criteria are screened as
    /// `criteria run` will screen them (denylist, allowlist, the
    /// repository's .voyage/criteria-allow): each refused one is an error,
    /// CRITERION_UNRUNNABLE or CRITERION_BLOCKED, with its line, the whole
    /// command, the rule and the fix, since the run would fail at its end.
    ///
    /// A path that is not a regular file (a directory, FIFO or device) is
    /// refused with PLAN_NOT_A_FILE, a file over 16 MiB with PLAN_TOO_LARGE,
    /// both unread; every reader of a plan does the same.
    ///
    /// Exit status: 0 READY (warnings or not), 1 FAIL, 2 the file cannot be
    /// read.
    Validate(ValidateArgs),
    /// Print the parsed plan: every step, field, manifest, session and
    /// criterion with its source line (see `voyage-helper schema plan`).
    ///
    /// Without --json, the short summary of trekexecute Phase 2. Exit status:
    /// 0 parsed, 1 not a plan, 2 unreadable.
    Show(ShowArgs),
    /// Preview a run without running anything: the step table, each file a
    /// step names checked below the repository root, entry and exit
    /// conditions, the Verification criteria (each screened as `criteria
    /// run` will screen it: runs, or will not run and why), the sessions
    /// and waves with the command that starts each session, the pre-flight
    /// checks a plain `trek start` from here will make, and the verdict
    /// (READY or NEEDS ATTENTION).
    ///
    /// A file that is not there and not marked `(new)` is traced to the
    /// first step that creates it (marked `(new)` in its Files, or in its
    /// manifest's expected_paths): named with that step ("mark it
    /// `(new)`"), not an issue. A file no step creates, or one created only
    /// by a later step than the one that needs it, is an issue of its step.
    /// The pre-flight rows are the start's own checks with their outcome
    /// and the start's words: git, the security scan, the repository and
    /// a commit, git's identity, a detached HEAD, a file in another
    /// repository, git's lock files, a run in progress, an earlier run's
    /// progress file, a clean tree (the step Files; on a multi-session
    /// plan the whole tree), the run branch, and on a multi-session plan
    /// the plan's commit and the pushes. Every issue counted is shown: in a step's Issues cell (its
    /// errors and file issues; `none` when nothing is counted there) or as
    /// a FAIL row (a refused criterion, an error of no step, a failed
    /// check). `--json` prints the same (schema `plan-dry-run`).
    ///
    /// Exit status: 0 READY, 1 NEEDS ATTENTION, 2 unreadable.
    DryRun(DryRunArgs),
    /// Decide how a run executes (trekexecute Phase 2.5): single, parallel or sequential.
    ///
    /// `single` when --fg is given, the mode is step, resume or session (or
    /// anything but execute), the plan has no `## Execution Strategy` or
    /// only one session, or the effort is low; the reason says which.
    /// Otherwise `parallel` when a wave has two or more sessions, else
    /// `sequential` (every session in a wave of its own). The waves and
    /// their sessions are listed either way. Example:
    ///
    ///   voyage-helper plan strategy .claude/plans/split.md --json
    ///
    /// prints `{plan, decision, reason, session_count, waves[{wave,
    /// parallel, sessions[{session, title, steps}]}], line}` (schema
    /// `plan-strategy`); the text form starts with the Phase 2.5 line
    /// `Strategy: 3 sessions (2 parallel, 1 sequential)`.
    ///
    /// Exit status: 0 decided, 1 not a plan, 2 unreadable.
    #[command(verbatim_doc_comment)]
    Strategy(StrategyArgs),
    /// Write the Manifest keys a plan's steps lack, made from each step.
    ///
    /// Each key comes from the step as legacy mode synthesises it:
    /// expected_paths from Files, min_file_count their count,
    /// commit_message_pattern the Checkpoint message's first three words
    /// (escaped, anchored with ^), bash_syntax_check the `.sh` files in
    /// Files, forbidden_paths and must_contain empty. A step without a
    /// Manifest gets a `- **Manifest:**` item with a ```yaml fence after its
    /// Checkpoint; a Manifest that lacks keys gets them at the end of its
    /// fence. Lines are only added: every key and byte already written stays
    /// as it was. A Manifest whose YAML does not parse, or is not a mapping,
    /// is left alone and reported: fix it, then fill again. The lines added
    /// are printed, each after `+ `; the file is replaced atomically (a
    /// symbolic link is written through). Use it after writing a plan's
    /// steps, before `plan validate`; then tighten what it wrote (end the
    /// pattern with `$`, add must_contain). A legacy plan (no plan_version,
    /// or below 1.7) stays legacy until it says `plan_version: 1.7`; the
    /// reply says so.
    ///
    /// --check writes nothing (for CI). --json prints `{file, check,
    /// written, complete, plan_version, legacy_plan, filled, left_alone,
    /// steps[{step, line, outcome, manifest_added, keys, after_line, lines,
    /// problem}], note, errors}` (schema `plan-fill`).
    ///
    /// Exit status: 0 every step's Manifest has the six keys afterwards
    /// (with --check: already has them), 1 some step lacks keys (with
    /// --check: would be filled, or was left alone) or the file is not a
    /// plan, 2 the plan cannot be read or written.
    Fill(FillArgs),
}

impl Command {
    /// Runs the subcommand, its criteria screened by `screen` and a real
    /// start's pre-flight previewed by `preflight`; a write error of `out`
    /// is returned.
    pub(crate) fn execute(
        self,
        screen: &dyn CriteriaScreen,
        preflight: &dyn PreflightPreview,
        out: &mut impl Write,
    ) -> io::Result<u8> {
        match self {
            Self::Validate(args) => execute_validate(&args, screen, out),
            Self::Show(args) => execute_show(&args, out),
            Self::DryRun(args) => execute_dry_run(&args, screen, preflight, out),
            Self::Strategy(args) => execute_strategy(&args, out),
            Self::Fill(args) => fill_report(&args.plan, args.check, args.json, out),
        }
    }
}

// The flags of each subcommand. Its help is the variant's doc comment; a
// doc comment on the struct would be a second source of it (clap reads both).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ValidateArgs {
    /// Any warning fails the validation too (exit 1), for CI that wants
    /// plans free of warnings.
    #[arg(long)]
    pub fail_on_warnings: bool,
    /// The call trekexecute Phase 2.3 names; changes nothing: the plan's
    /// own plan_version decides strict mode, and warnings never fail
    /// without --fail-on-warnings.
    #[arg(long)]
    pub strict: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// `github`: each error and warning as a GitHub Actions annotation,
    /// `::error file=…,line=…,title=CODE::message`, shown on the plan's
    /// line in a pull request (the repository's action.yml); `json` is
    /// --json, `text` the default.
    #[arg(long, value_name = "FORMAT", value_parser = |s: &str| s.parse::<crate::problem::Format>())]
    pub format: Option<crate::problem::Format>,
    /// The plan file.
    pub plan: PathBuf,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ShowArgs {
    /// Print the whole model as JSON.
    #[arg(long)]
    pub json: bool,
    pub plan: PathBuf,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct DryRunArgs {
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    pub plan: PathBuf,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct StrategyArgs {
    /// Run in the foreground (`/trekexecute --fg`): always single.
    #[arg(long)]
    pub fg: bool,
    /// The run's mode: execute, step, resume, session, validate, dry-run.
    #[arg(long, default_value = "execute")]
    pub mode: String,
    /// The run's effort; `low` runs as a single session.
    #[arg(long)]
    pub effort: Option<String>,
    /// Print the decision as JSON.
    #[arg(long)]
    pub json: bool,
    pub plan: PathBuf,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct FillArgs {
    /// Write nothing: exit 1 when a step lacks keys, 0 when none does.
    #[arg(long)]
    pub check: bool,
    /// Print the reply as JSON.
    #[arg(long)]
    pub json: bool,
    /// The plan file.
    pub plan: PathBuf,
}

/// `plan validate`: 0 ready, 1 not, 2 unreadable.
fn execute_validate(
    args: &ValidateArgs,
    screen: &dyn CriteriaScreen,
    out: &mut impl Write,
) -> io::Result<u8> {
    let format = match args.format {
        Some(format) => format,
        None if args.json => Format::Json,
        None => Format::Text,
    };
    validate_report(&args.plan, format, args.fail_on_warnings, screen, out)
}

/// `plan show`: the model as JSON, or the Phase 2 summary as text.
fn execute_show(args: &ShowArgs, out: &mut impl Write) -> io::Result<u8> {
    let plan = match load_or_report(&args.plan, args.json, out)? {
        Ok(plan) => plan,
        Err(code) => return Ok(code),
    };
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &plan)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(exit::OK);
    }
    writeln!(out, "Type: {}", plan.kind.label())?;
    writeln!(out, "Steps: {}", plan.steps.len())?;
    if let Some(s) = &plan.strategy {
        writeln!(
            out,
            "Execution Strategy: {} sessions across {} waves",
            s.sessions.len(),
            s.wave_count()
        )?;
    }
    if let Some(spec) = &plan.session {
        if let Some(entry) = &spec.entry_condition {
            writeln!(out, "Entry condition: {}", entry.text)?;
        }
        writeln!(
            out,
            "Scope fence: {} touch, {} never-touch",
            spec.touch.len(),
            spec.never_touch.len()
        )?;
    }
    let warnings: Vec<_> = plan.warnings().collect();
    if !warnings.is_empty() {
        writeln!(out, "Warnings:")?;
        for w in warnings {
            writeln!(
                out,
                "- {} {}: {}",
                w.code,
                w.line.map_or_else(String::new, |l| format!("line {l}")),
                w.message
            )?;
        }
    }
    for e in plan.errors() {
        writeln!(
            out,
            "error {} {}: {}",
            e.code,
            e.line.map_or_else(String::new, |l| format!("line {l}")),
            e.message
        )?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// `plan dry-run`: 0 ready, 1 needs attention, 2 unreadable.
fn execute_dry_run(
    args: &DryRunArgs,
    screen: &dyn CriteriaScreen,
    preflight: &dyn PreflightPreview,
    out: &mut impl Write,
) -> io::Result<u8> {
    dry_run_report(&args.plan, args.json, screen, preflight, out)
}

/// `plan strategy`: the Phase 2.5 decision. A plan that cannot be loaded is
/// reported on stderr only.
fn execute_strategy(args: &StrategyArgs, out: &mut impl Write) -> io::Result<u8> {
    let plan = match load(&args.plan) {
        Ok(plan) => plan,
        Err(e) => {
            let code = match e {
                PlanLoadError::Read { .. } => exit::CANNOT_CHECK,
                PlanLoadError::Unrecognized { .. } => exit::NOT_OK,
            };
            crate::problem::eprint_all(&[e.problem().in_file_if_none(&args.plan)]);
            return Ok(code);
        }
    };
    let how = Invocation {
        fg: args.fg,
        mode: &args.mode,
        effort: args.effort.as_deref(),
    };
    let report = decide(&plan, &how);
    if args.json {
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{}", report.line)?;
        if let Some(reason) = &report.reason {
            writeln!(out, "single session: {reason}")?;
        }
        for w in &report.waves {
            let names: Vec<String> = w
                .sessions
                .iter()
                .map(|s| format!("Session {} ({})", s.session, s.title))
                .collect();
            writeln!(
                out,
                "Wave {}: {}{}",
                w.wave,
                names.join(", "),
                if w.parallel { " (parallel)" } else { "" }
            )?;
        }
    }
    out.flush()?;
    Ok(exit::OK)
}
