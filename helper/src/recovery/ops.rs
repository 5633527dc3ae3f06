//! The recovery operation, as the command line and `trek` call it:
//! [`recover`] checks the drifted run, writes the recovery spec and says
//! what it did.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{code, missing, spec};
use crate::exit;
use crate::plan::Plan;
use crate::problem::{self, Problem};
use crate::progress::{Progress, RunStatus};

/// The recovery spec [`recover`] would write for `source` (read as
/// `plan.md`) with `missing` steps, at depth 1 of session 1 from a fixed
/// commit; `None` when `source` is no plan. For the property tests: the
/// writer must never panic, and its text must read back as a plan.
pub fn spec_text(source: &str, missing: &[u32]) -> Option<String> {
    let plan = crate::plan::parse(source, "plan.md").ok()?;
    Some(spec::render(&spec::Inputs {
        plan: &plan,
        source,
        plan_path: "plan.md",
        progress_path: "p.json",
        session: 1,
        depth: 1,
        missing,
        head: "0123456789abcdef0123456789abcdef01234567",
        subject: "feat: the last commit",
    }))
}

/// The deepest recovery: a run at this depth escalates instead.
const MAX_DEPTH: u32 = 2;

/// What `recovery spec --json` prints (schema `recovery-spec`).
#[derive(Debug, Clone, Default, Serialize)]
pub(super) struct Reply {
    /// `written`, `exhausted` or `refused`; `error` when it could not check.
    status: &'static str,
    session: Option<u32>,
    /// The parent's depth before this dispatch.
    recovery_depth: Option<u32>,
    /// The depth of the spec written (the parent's + 1).
    new_depth: Option<u32>,
    missing_steps: Vec<u32>,
    spec: Option<String>,
    /// The commit the recovery session starts from.
    entry_sha: Option<String>,
    /// The progress file the dispatch was recorded in.
    recorded: Option<String>,
    problem: Option<Problem>,
}

/// Why nothing was written: the exit code (1 refused, 2 could not) and the
/// problem.
type Refused = (u8, Problem);

fn refused(code: &'static str, message: String, path: &Path) -> Refused {
    (exit::NOT_OK, Problem::new(code, message).in_file(path))
}

fn cannot(problem: Problem) -> Refused {
    (exit::CANNOT_CHECK, problem)
}

/// The session number: the flag, else the title's `Session N`, else 1.
fn session_number(flag: Option<u32>, plan: &Plan) -> u32 {
    flag.or_else(|| {
        let title = plan.title.as_deref()?;
        let rest = title.trim_start().strip_prefix("Session ")?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
    .unwrap_or(1)
}

fn load_plan(path: &Path) -> Result<(Plan, String), Refused> {
    let bytes = crate::input_file::read(path, crate::plan::MAX_FILE_BYTES).map_err(|e| {
        cannot(
            Problem::new(
                e.code(crate::plan::code::INPUT),
                format!("cannot read: {e}"),
            )
            .in_file(path),
        )
    })?;
    let source = String::from_utf8_lossy(&bytes).into_owned();
    let shown = path.display().to_string();
    let plan = crate::plan::parse(&source, &shown).map_err(|_| {
        cannot(
            Problem::new(
                code::RECOVERY_PLAN_UNREADABLE,
                "neither a trekplan nor a session spec; `voyage-helper plan validate` says why",
            )
            .in_file(path),
        )
    })?;
    Ok((plan, source))
}

fn load_progress(path: &Path) -> Result<Progress, Refused> {
    crate::progress::load(path).map_err(|e| {
        let mut problems = e.problems.into_iter();
        let first = problems.next().unwrap_or_else(|| {
            Problem::new(code::RECOVERY_PROGRESS, "the progress file cannot be read").in_file(path)
        });
        problem::eprint_all(&problems.collect::<Vec<_>>());
        cannot(first)
    })
}

/// HEAD of the work tree holding `dir` (else the current directory): full
/// id and subject.
fn head(dir: Option<&Path>) -> Result<(String, String), Refused> {
    let none = |why: String| cannot(Problem::new(code::RECOVERY_NOT_A_REPOSITORY, why));
    let here = match dir {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().map_err(|e| none(format!("no current directory: {e}")))?,
    };
    let out = crate::git::run(&here, &["log", "-1", "--format=%H%x00%s"])
        .map_err(|e| none(format!("git cannot run: {e}")))?;
    if !out.ok() {
        return Err(none(format!(
            "{} has no commit to start a recovery from: {}",
            here.display(),
            out.why()
        )));
    }
    let text = out.text();
    let (sha, subject) = text
        .trim_end()
        .split_once('\0')
        .unwrap_or((text.trim(), ""));
    Ok((sha.to_owned(), subject.to_owned()))
}

/// One line per missing step, for the exhausted report.
fn missing_lines(plan: &Plan, steps: &[u32]) -> String {
    if steps.is_empty() {
        return "no step named (see manifest_audit.drift_details)".into();
    }
    let names: Vec<String> = steps
        .iter()
        .map(|&n| match plan.step(n) {
            Some(s) => format!("step {n} ({})", s.title),
            None => format!("step {n}"),
        })
        .collect();
    names.join(", ")
}

/// The drifted run a recovery spec is written for, and where it goes.
#[derive(Debug, Clone)]
pub(crate) struct SpecRequest {
    pub plan: PathBuf,
    pub progress: PathBuf,
    /// The directory the spec is written in.
    pub out: PathBuf,
    pub session: Option<u32>,
    /// Where the recovery is made from (its HEAD, the checkout the order
    /// names): the current directory when `None`.
    pub dir: Option<PathBuf>,
}

/// What `recovery spec` did.
#[derive(Debug, Clone)]
pub(crate) struct Recovery {
    pub(super) reply: Reply,
    /// What is printed without `--json`: the recovery order, or why
    /// recovery is exhausted.
    pub text: String,
    pub code: u8,
}

impl Recovery {
    /// Prints the refusal's problem on stderr.
    pub(crate) fn eprint(&self) {
        if let Some(p) = &self.reply.problem {
            problem::eprint_all(std::slice::from_ref(p));
        }
    }
}

/// Writes the recovery spec of a drifted session (Phase 7.6), or says why
/// not.
pub(crate) fn recover(request: &SpecRequest) -> Recovery {
    let mut reply = Reply::default();
    let mut text = String::new();
    let done = dispatch(request, &mut reply, &mut text);
    let code = match done {
        Err((code, p)) => {
            reply.status = match code {
                exit::NOT_OK if p.code == code::RECOVERY_EXHAUSTED => "exhausted",
                exit::NOT_OK => "refused",
                _ => "error",
            };
            reply.problem = Some(p);
            code
        }
        Ok(()) => {
            reply.status = "written";
            exit::OK
        }
    };
    Recovery { reply, text, code }
}

fn dispatch(args: &SpecRequest, reply: &mut Reply, text: &mut String) -> Result<(), Refused> {
    let (plan, source) = load_plan(&args.plan)?;
    let progress = load_progress(&args.progress)?;
    let session = session_number(args.session, &plan);
    let depth = progress.recovery_depth.unwrap_or(0);
    let missing = missing::steps(&plan, &progress);
    reply.session = Some(session);
    reply.recovery_depth = Some(depth);
    reply.missing_steps.clone_from(&missing);

    if crate::progress::audit_word(&progress) != "drift" {
        return Err(refused(
            code::RECOVERY_NO_DRIFT,
            format!(
                "manifest_audit is {}: Phase 7.6 dispatches only after Phase 7.5 drifted (`voyage-helper audit session --record`)",
                crate::progress::audit_word(&progress)
            ),
            &args.progress,
        ));
    }
    if depth >= MAX_DEPTH {
        *text = format!(
            "RECOVERY EXHAUSTED: session {session} drifted after {MAX_DEPTH} recovery attempts.\nMissing: {}\nStatus: partial (recovery_depth={depth}, escalated to user)\n",
            missing_lines(&plan, &missing)
        );
        return Err(refused(
            code::RECOVERY_EXHAUSTED,
            format!(
                "session {session} is at recovery_depth {depth}: no third recovery; escalate to the user"
            ),
            &args.progress,
        ));
    }
    if progress.iterations_remaining == Some(0) {
        return Err(refused(
            code::RECOVERY_BUDGET_SPENT,
            "iterations_remaining is 0: the recovery/retry budget is spent".into(),
            &args.progress,
        ));
    }
    if missing.is_empty() {
        return Err(refused(
            code::RECOVERY_NOTHING_MISSING,
            "the audit drifted, but no step is missing: the drift (a forbidden path, a commit subject) is for the user".into(),
            &args.progress,
        ));
    }
    let (sha, subject) = head(args.dir.as_deref())?;
    let new_depth = depth + 1;
    let plan_path = args.plan.display().to_string();
    let progress_path = args.progress.display().to_string();
    let body = spec::render(&spec::Inputs {
        plan: &plan,
        source: &source,
        plan_path: &plan_path,
        progress_path: &progress_path,
        session,
        depth: new_depth,
        missing: &missing,
        head: &sha,
        subject: &subject,
    });
    let file = args
        .out
        .join(format!("session-{session}-recovery-{new_depth}.md"));
    let shown = file.display().to_string();
    // The spec must pass `plan validate` itself: checked before it exists.
    match crate::plan::parse(&body, &shown) {
        // `plan validate`: no error. A warning the original's steps carry
        // (a legacy step with no Verify) comes along with them.
        Ok(written) if written.errors().next().is_none() => {}
        Ok(written) => {
            let said: Vec<String> = written
                .errors()
                .map(|p| format!("{}: {}", p.code, p.message))
                .collect();
            return Err(cannot(
                Problem::new(
                    code::RECOVERY_INVALID_SPEC,
                    format!("the recovery spec would not validate: {}", said.join("; ")),
                )
                .in_file(&args.plan),
            ));
        }
        Err(_) => {
            return Err(cannot(
                Problem::new(
                    code::RECOVERY_INVALID_SPEC,
                    "the recovery spec would not read as a session spec",
                )
                .in_file(&args.plan),
            ));
        }
    }
    write_spec(&args.out, &file, &body)?;
    reply.spec = Some(shown.clone());
    reply.new_depth = Some(new_depth);
    reply.entry_sha = Some(sha);

    crate::progress::edit(&args.progress, |p| {
        p.recovery_dispatched = Some(true);
        p.recovery_depth = Some(new_depth);
        p.iterations_remaining = p.iterations_remaining.map(|n| n.saturating_sub(1));
        p.extra.insert(
            "recovery_spec".into(),
            serde_json::Value::String(shown.clone()),
        );
        if matches!(p.status, RunStatus::Completed | RunStatus::InProgress) {
            p.status = RunStatus::Partial;
        }
    })
    .map_err(|p| {
        cannot(Problem::new(code::RECOVERY_PROGRESS, p.message).in_file(&args.progress))
    })?;
    reply.recorded = Some(progress_path);

    let root = args
        .dir
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .and_then(|d| crate::git::toplevel(&d))
        .unwrap_or_else(|| PathBuf::from("."));
    let numbers: Vec<String> = missing.iter().map(u32::to_string).collect();
    *text = format!(
        "Recovery spec: {shown} (steps {})\n\nRecovery order: session {session}, depth {new_depth}\nOpen a Claude Code session yourself in {} (the main checkout, which\nholds the session's merged work) and give it:\n    /trekexecute --session {session} {}\nThat session runs the missing steps and its own Phase 7.5 audit.\n",
        numbers.join(", "),
        root.display(),
        crate::shell::quote(&shown)
    );
    Ok(())
}

fn write_spec(dir: &Path, file: &Path, body: &str) -> Result<(), Refused> {
    let failed = |why: String| cannot(Problem::new(code::RECOVERY_WRITE_FAILED, why).in_file(file));
    std::fs::create_dir_all(dir)
        .map_err(|e| failed(format!("cannot create {}: {e}", dir.display())))?;
    crate::atomic_file::write_atomic(file, body.as_bytes()).map_err(|e| failed(e.to_string()))
}
