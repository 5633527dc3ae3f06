//! The plan operations, the only I/O of the area: a plan file read into
//! the model ([`load`]), and the `plan validate` and `plan dry-run` reports
//! on it, as the command line and `trek` ask for them.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::render::{DryRun, Validation};
use super::{CriteriaScreen, Plan, PreflightPreview, code, fill, markdown, parse};
use crate::exit;
use crate::problem::{Coded, Format, Problem};

/// Why a plan could not be loaded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlanLoadError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: crate::input_file::InputError,
    },
    /// Neither a trekplan nor a session spec; the problems say what was seen.
    #[error("{path}: unrecognised plan format")]
    Unrecognized {
        path: String,
        problems: Vec<Problem>,
    },
}

impl crate::problem::Coded for PlanLoadError {
    fn code(&self) -> &'static str {
        match self {
            Self::Read { source, .. } => source.code(code::INPUT),
            Self::Unrecognized { .. } => code::PLAN_UNRECOGNIZED_FORMAT,
        }
    }
}

/// The most bytes a plan file may have. The largest plans seen are well
/// under a megabyte; parsing one this size takes about a second.
pub(crate) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Every heading of a plan's Markdown, as its level and 1-based line (the
/// front matter skipped, a `#` inside a code fence not a heading): where a
/// step's text ends, for a writer that copies steps whole (`recovery
/// spec`).
pub(crate) fn heading_lines(source: &str) -> Vec<(u8, u32)> {
    parse::body_blocks(source)
        .into_iter()
        .filter_map(|b| match b {
            markdown::Block::Heading { level, line, .. } => Some((level, line)),
            _ => None,
        })
        .collect()
}

/// The plan an operation works on: `given`, when its caller has read it
/// already (trek reads the plan once per call and hands it to every
/// operation), else the plan at `path`, read now and kept in `slot`.
pub(crate) fn given_or_load<'a>(
    given: Option<&'a Plan>,
    path: &Path,
    slot: &'a mut Option<Plan>,
) -> Result<&'a Plan, PlanLoadError> {
    match given {
        Some(plan) => Ok(plan),
        None => Ok(slot.insert(load(path)?)),
    }
}

/// Reads and parses the plan at `path`. Invalid UTF-8 is replaced, never an
/// error: the problems will point at what it breaks.
pub(crate) fn load(path: &Path) -> Result<Plan, PlanLoadError> {
    let shown = path.display().to_string();
    read_then(path, |source, _| parse::parse(source, &shown))?.map_err(|problems| {
        PlanLoadError::Unrecognized {
            path: shown.clone(),
            problems,
        }
    })
}

/// Reads the plan at `path` and hands `then` its text (invalid UTF-8
/// replaced) and whether the bytes were valid UTF-8.
fn read_then<T>(path: &Path, then: impl FnOnce(&str, bool) -> T) -> Result<T, PlanLoadError> {
    let bytes =
        crate::input_file::read(path, MAX_FILE_BYTES).map_err(|source| PlanLoadError::Read {
            path: path.display().to_string(),
            source,
        })?;
    // Checking valid UTF-8 is several times faster than the lossy decoder
    // walking it in chunks, and a plan nearly always is valid.
    Ok(match std::str::from_utf8(&bytes) {
        Ok(text) => then(text, true),
        Err(_) => then(&String::from_utf8_lossy(&bytes), false),
    })
}

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
pub(super) fn load_or_report(
    path: &Path,
    json: bool,
    out: &mut impl Write,
) -> io::Result<Result<Plan, u8>> {
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

/// The report of `plan dry-run` on the plan at `path` (also `trek start
/// --dry-run`'s), with the real start's pre-flight as `preflight` previews
/// it; returns the exit code.
pub(crate) fn dry_run_report(
    path: &Path,
    json: bool,
    screen: &dyn CriteriaScreen,
    preflight: &dyn PreflightPreview,
    out: &mut impl Write,
) -> io::Result<u8> {
    let plan = match load_or_report(path, json, out)? {
        Ok(plan) => plan,
        Err(code) => return Ok(code),
    };
    let root = repo_root(path);
    let checks = preflight.rows(&plan, path);
    let report = DryRun::of(&plan, &root, &relative_to(path, &root), screen, checks);
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

/// `plan` relative to the repository's top `root`, `/`-separated, as a
/// session's worktree holds it; the path as given when it is not inside.
fn relative_to(plan: &Path, root: &Path) -> String {
    std::fs::canonicalize(plan)
        .ok()
        .and_then(|real| {
            let rel = real.strip_prefix(root).ok()?;
            let parts: Option<Vec<&str>> = rel.iter().map(|p| p.to_str()).collect();
            parts.map(|p| p.join("/"))
        })
        .filter(|rel| !rel.is_empty())
        .unwrap_or_else(|| plan.display().to_string())
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

/// `plan fill` on the plan at `path`: the manifest keys its steps lack
/// written into it (atomically; a symbolic link is written through, as
/// `write --atomic` does for a path its caller names), or with `check`
/// only reported. Returns the exit code: 0 when every step has the six
/// keys afterwards, 1 when not (or not a plan), 2 when the plan cannot be
/// read or written.
pub(super) fn fill_report(
    path: &Path,
    check: bool,
    json: bool,
    out: &mut impl Write,
) -> io::Result<u8> {
    let shown = path.display().to_string();
    let read = read_then(path, |source, utf8| {
        if !utf8 {
            let problem = Problem::new(
                code::PLAN_UNREADABLE,
                format!(
                    "{shown} is not valid UTF-8; the filler writes only a file it can read whole: fix its encoding, then run `voyage-helper plan fill {shown}` again"
                ),
            );
            return Err((exit::CANNOT_CHECK, vec![problem]));
        }
        match parse::parse(source, &shown) {
            Ok(plan) => Ok((fill::fill(source, &plan), plan)),
            Err(problems) => Err((exit::NOT_OK, problems)),
        }
    });
    let result = match read {
        Ok(result) => result,
        Err(e) => Err((exit::CANNOT_CHECK, vec![e.problem()])),
    };
    let (reply, code) = match result {
        Err((code, errors)) => (fill::Reply::failed(&shown, check, errors), code),
        Ok((filled, plan)) => {
            let write = !check && filled.changed();
            let written = write.then(|| {
                crate::atomic_file::write_atomic_through_link(path, filled.text.as_bytes())
            });
            match written {
                Some(Err(e)) => {
                    let problem = Problem::new(e.code(), format!("the plan is unchanged: {e}"));
                    (
                        fill::Reply::failed(&shown, check, vec![problem]),
                        exit::CANNOT_CHECK,
                    )
                }
                _ => {
                    let reply = fill::Reply::of(&plan, filled, check, write);
                    let code = if reply.complete {
                        exit::OK
                    } else {
                        exit::NOT_OK
                    };
                    (reply, code)
                }
            }
        }
    };
    if json {
        serde_json::to_writer_pretty(&mut *out, &reply)?;
        writeln!(out)?;
    } else {
        let errors: Vec<Problem> = reply
            .errors
            .iter()
            .map(|p| p.clone().in_file_if_none(path))
            .collect();
        crate::problem::eprint_all(&errors);
        if errors.is_empty() {
            reply.render_text(out)?;
        }
    }
    out.flush()?;
    Ok(code)
}
