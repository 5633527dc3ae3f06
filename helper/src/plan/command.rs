//! The `plan` subcommands: read the file, run the checks, render, and say
//! the exit code. The only I/O of the area.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::cli::{DryRunArgs, ShowArgs, StrategyArgs, ValidateArgs};
use super::render::{DryRun, Validation};
use super::{CriteriaScreen, PlanLoadError, load};
use crate::exit;
use crate::problem::{Coded, Format};

/// Prints a load error the way each output form expects; returns the code.
fn unreadable(e: &PlanLoadError, json: bool, out: &mut impl Write) -> io::Result<u8> {
    if json {
        let body = serde_json::json!({
            "valid": false,
            "status": "FAIL",
            "errors": [e.problem()],
            "warnings": [],
        });
        writeln!(out, "{body:#}")?;
        out.flush()?;
    } else {
        crate::problem::eprint_all(&[e.problem()]);
    }
    Ok(exit::CANNOT_CHECK)
}

/// `plan validate`: 0 ready, 1 not, 2 unreadable.
pub(super) fn validate(
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

/// The report of `plan validate` on the plan at `path` (also `trek start`'s
/// when the plan is not executable); returns the exit code.
pub(crate) fn validate_report(
    path: &Path,
    format: Format,
    fail_on_warnings: bool,
    screen: &dyn CriteriaScreen,
    out: &mut impl Write,
) -> io::Result<u8> {
    let file = path.display().to_string();
    let (plan, problems) = match load(path) {
        Ok(plan) => {
            let mut problems = plan.problems.clone();
            // The criteria the run ends with, screened now as `criteria
            // run` will screen them: a refusal is an error, since it makes
            // the run fail after all its steps.
            problems.extend(screen.problems(&plan, &repo_root(path)));
            (Some(plan), problems)
        }
        Err(PlanLoadError::Unrecognized { problems, .. }) => (None, problems),
        Err(e) if format == Format::Github => {
            crate::problem::render_github_all(&[e.problem()], path, out)?;
            out.flush()?;
            return Ok(exit::CANNOT_CHECK);
        }
        Err(e) => return unreadable(&e, format == Format::Json, out),
    };
    let report = Validation::of(&file, plan.as_ref(), &problems, fail_on_warnings);
    match format {
        Format::Json => report.render_json(out)?,
        Format::Github => report.render_github(out)?,
        Format::Text => report.render_text(out)?,
    }
    out.flush()?;
    Ok(if report.valid { exit::OK } else { exit::NOT_OK })
}

/// Loads the plan, or reports why not (as `plan validate` would) and
/// returns the exit code (`Ok(Err(code))`), or the error writing that.
fn load_or_report(
    path: &Path,
    json: bool,
    out: &mut impl Write,
) -> io::Result<Result<super::Plan, u8>> {
    match load(path) {
        Ok(plan) => Ok(Ok(plan)),
        Err(PlanLoadError::Unrecognized { problems, path }) => {
            let report = Validation::of(&path, None, &problems, false);
            if json {
                report.render_json(out)?;
            } else {
                report.render_text(out)?;
            }
            out.flush()?;
            Ok(Err(exit::NOT_OK))
        }
        Err(e) => unreadable(&e, json, out).map(Err),
    }
}

/// `plan show`: the model as JSON, or the Phase 2 summary as text.
pub(super) fn show(args: &ShowArgs, out: &mut impl Write) -> io::Result<u8> {
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
pub(super) fn dry_run(
    args: &DryRunArgs,
    screen: &dyn CriteriaScreen,
    out: &mut impl Write,
) -> io::Result<u8> {
    dry_run_report(&args.plan, args.json, screen, out)
}

/// The report of `plan dry-run` on the plan at `path` (also `trek start
/// --dry-run`'s); returns the exit code.
pub(crate) fn dry_run_report(
    path: &Path,
    json: bool,
    screen: &dyn CriteriaScreen,
    out: &mut impl Write,
) -> io::Result<u8> {
    let plan = match load_or_report(path, json, out)? {
        Ok(plan) => plan,
        Err(code) => return Ok(code),
    };
    let report = DryRun::of(&plan, &repo_root(path), screen);
    if json {
        report.render_json(out)?;
    } else {
        report.render_text(&plan, out)?;
    }
    out.flush()?;
    Ok(if report.issues == 0 {
        exit::OK
    } else {
        exit::NOT_OK
    })
}

/// The root step paths are relative to: the git work tree holding the plan,
/// or else the current directory.
fn repo_root(plan: &Path) -> PathBuf {
    let dir = plan
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::canonicalize(dir)
        .ok()
        .and_then(|real| {
            real.ancestors()
                .find(|d| d.join(".git").exists())
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `plan strategy`: the Phase 2.5 decision. A plan that cannot be loaded is
/// reported on stderr only.
pub(super) fn strategy(args: &StrategyArgs, out: &mut impl Write) -> io::Result<u8> {
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
    let how = super::Invocation {
        fg: args.fg,
        mode: &args.mode,
        effort: args.effort.as_deref(),
    };
    let report = super::decide(&plan, &how);
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
