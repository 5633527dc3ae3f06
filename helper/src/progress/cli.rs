//! `progress`'s command line: its subcommands and flags, each run by
//! [`Command::execute`]. The recovery budget
//! (`TREKEXECUTE_MAX_RECOVERY_ITERATIONS`) is read once, there.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::budget;
use super::code;
use super::ops::{
    FinishRequest, GitStepRequest, InitRequest, StepRequest, finish_run, initialize,
    load_for_update, on_failure_git, record_step, refuse_plain, resume_point,
};
use super::path;
use super::render::{self, Reply};
use super::status::ManifestAudit;
use super::transition::StepUpdate;
use crate::exit;
use crate::problem::{self, Problem};

/// Which progress file: `--file`, or derived from a project or a plan.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct Locate {
    /// The progress file itself.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["plan", "project"])]
    pub file: Option<PathBuf>,
    /// The plan: the file is `.trekexecute-progress-<slug>.json` beside it.
    #[arg(long, value_name = "PLAN")]
    pub plan: Option<PathBuf>,
    /// The project: the file is `DIR/progress.json`.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// One session's file: `-session-N` before `.json`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub session: Option<u32>,
}

/// Where the progress file is: given, or derived as Phase 3 says.
impl Locate {
    /// The progress file at `path` itself.
    pub(crate) fn of_file(path: &Path) -> Self {
        Self {
            file: Some(path.to_path_buf()),
            ..Self::default()
        }
    }
    /// The progress file's path, or a usage problem.
    pub(crate) fn resolve(&self) -> Result<PathBuf, Problem> {
        if let Some(file) = &self.file {
            return Ok(file.clone());
        }
        path::progress_path(self.plan.as_deref(), self.project.as_deref(), self.session).ok_or_else(
            || {
                Problem::new(
                    code::PROGRESS_NO_TARGET,
                    "say which progress file: --file PATH, --project DIR or --plan PLAN",
                )
            },
        )
    }
}

/// The progress file: the ground truth of a run (Phase 3, Phase 6)
///
/// Every subcommand that changes the file reads it, checks it against the
/// `progress` schema and the rules, and replaces it atomically; a refused
/// change leaves it untouched. Say which file with --file PATH, or let it be
/// derived: --project DIR → DIR/progress.json; --plan PLAN →
/// .trekexecute-progress-<slug>.json beside the plan; --session N adds
/// -session-N.
#[derive(Debug, clap::Subcommand)]
#[command(verbatim_doc_comment)]
pub(crate) enum Command {
    /// Start a progress file from a plan: every step pending.
    ///
    /// The plan is PLAN (or --plan PLAN), or DIR/plan.md with --project
    /// DIR. The file goes where Phase 3 puts it (DIR/progress.json with
    /// --project, .trekexecute-progress-<slug>.json beside the plan
    /// otherwise, -session-N with --session N), or to --file PATH. It records
    /// plan_type (plan or session-spec), plan_version (or legacy),
    /// legacy_plan (true when the manifests were synthesised), the mode,
    /// iterations_remaining from TREKEXECUTE_MAX_RECOVERY_ITERATIONS
    /// (default 25), recovery_depth 0 and recovery_dispatched false (a
    /// recovery spec, written by `recovery spec`, gets the recovery_depth D
    /// of its ## Recovery Metadata and D fewer iterations). A plan
    /// that opens with the synthetic Step 0 (the sandbox pre-flight) gets a
    /// step "0". With --session N on a plan with an Execution Strategy,
    /// only that session's steps are listed.
    ///
    /// A file already there: --mode execute (the default; session with
    /// --session) replaces it, with a warning on stderr when its run was
    /// unfinished (in_progress, failed, stopped, partial) since --resume
    /// could continue it; --mode resume and --mode step keep it as it is.
    ///
    /// OUTPUT: `created|replaced PATH: N steps pending, B recovery/retry
    /// iterations` or `kept PATH (MODE): M/T steps completed`; with --json
    /// one line (schema progress-reply).
    ///
    /// Exit status: 0 written or kept, 1 not a plan or no such session, 2
    /// unreadable plan, a broken file kept in resume or step mode, or a
    /// failed write.
    #[command(verbatim_doc_comment)]
    Init(InitArgs),
    /// Print the run and a table of its steps (--json: the file itself).
    Show(ShowArgs),
    /// Record a step's new status.
    ///
    /// Legal changes (anything else is PROGRESS_ILLEGAL_TRANSITION):
    ///
    ///     from \ to     in_progress    completed  failed  blocked  skipped
    ///     pending       attempt 1      -          -       yes      yes
    ///     in_progress   next attempt   yes        yes     yes      yes
    ///     failed        retry          -          -       -        yes
    ///     blocked       retry          -          -       -        yes
    ///     skipped       attempt/retry  -          -       -        -
    ///     completed     -              -          -       -        -
    ///
    /// Each move to in_progress starts an attempt. A step has at most 3
    /// (initial + 2 retries): a 4th is refused with PROGRESS_RETRY_CAP. Every
    /// attempt beyond a step's first is a retry and spends one of the run's
    /// iterations_remaining; once that is 0, retries are refused with
    /// PROGRESS_BUDGET_EXHAUSTED (first attempts still start). A missing
    /// iterations_remaining is first seeded from
    /// TREKEXECUTE_MAX_RECOVERY_ITERATIONS (default 25).
    ///
    /// completed sets completed_at and manifest_audit: pass; with
    /// --manifest-audit fail it is refused (PROGRESS_MANIFEST_FAILED: a step
    /// whose manifest failed is failed). --commit and --checkpoint-drift go
    /// with completed; --error, --drift and --manifest-audit with failed,
    /// blocked or skipped. blocked (the Step 0 sentinel: a sandbox
    /// pre-flight's Verify exited 77) also stops the run (status stopped,
    /// result blocked). Every change sets current_step and updated_at; a
    /// step starting sets the run back to in_progress.
    ///
    /// OUTPUT: `step N: FROM -> TO (attempt A of 3[, a retry]); R
    /// recovery/retry iterations left`, or with --json one line (schema
    /// progress-reply). Refusals go to stderr as `error[CODE]: …`.
    ///
    /// Exit status: 0 recorded, 1 refused, 2 missing or broken file.
    #[command(verbatim_doc_comment)]
    Step(StepArgs),
    /// Print where a resumed run starts: the first step not completed.
    ///
    /// Legacy `passed` counts as completed. When the file has no
    /// iterations_remaining, it is seeded from
    /// TREKEXECUTE_MAX_RECOVERY_ITERATIONS (default 25) and written back.
    ///
    /// OUTPUT: `Resuming from step N. M/T steps already completed.` or
    /// `All T steps completed.`; with --json one line (schema
    /// progress-reply; `step` is null when all are completed).
    ///
    /// Exit status: 0, or 2 for a missing or broken file.
    #[command(verbatim_doc_comment)]
    ResumePoint(ResumePointArgs),
    /// Record the run's final status (Phase 8).
    ///
    /// completed is refused (PROGRESS_INCOMPLETE) while any step is neither
    /// completed nor skipped. Then the completion gate (Phase 7.5) decides
    /// whether completed stands; it needs all three of:
    ///   1. manifest_audit.status pass (`audit session --record`);
    ///   2. for a trekplan plan_verification.status passed, for a session
    ///      spec exit_condition_checked (`criteria run --record`);
    ///   3. iterations_remaining == TREKEXECUTE_MAX_RECOVERY_ITERATIONS
    ///      (default 25) - (recovery_depth + the attempts beyond each
    ///      step's first).
    ///
    /// When one fails, the gate's status is recorded instead (failed when
    /// clause 2 failed, else partial) with completion_gate {from, to,
    /// reasons}; the reasons are printed, error[PROGRESS_COMPLETION_GATE]
    /// goes to stderr and the exit is 1.
    ///
    /// OUTPUT: `run FROM -> TO: C/T steps completed`, then on an override
    /// `completion gate: completed overridden to TO, because` and one
    /// `  - reason` line each. --json: one line (schema progress-reply, with
    /// completion_gate on an override).
    ///
    /// Example:
    ///     voyage-helper audit session --plan plan.md --progress p.json --start "$START" --record
    ///     voyage-helper criteria run --plan plan.md --record p.json
    ///     voyage-helper progress finish --file p.json --status completed
    ///
    /// Exit status: 0 recorded, 1 refused or overridden, 2 missing or
    /// broken file.
    // `--help` text: its brackets and URLs are not rustdoc's links.
    #[allow(rustdoc::broken_intra_doc_links, rustdoc::bare_urls)]
    #[command(verbatim_doc_comment)]
    Finish(FinishArgs),
    /// Check a progress file against the `progress` schema.
    ///
    /// Checks the run's status (in_progress, completed, failed, stopped,
    /// partial), each step's (pending, in_progress, completed, failed,
    /// skipped, blocked, and legacy passed), attempts 0..3, a non-negative
    /// integer iterations_remaining, the required keys (schema_version,
    /// plan, plan_type, plan_version, status, steps); unknown keys are fine.
    /// Every problem is listed.
    ///
    /// Codes: PROGRESS_NOT_JSON, PROGRESS_NOT_OBJECT, PROGRESS_MISSING_KEY,
    /// PROGRESS_BAD_STATUS, PROGRESS_BAD_BUDGET, PROGRESS_BAD_ATTEMPTS,
    /// PROGRESS_BAD_STEP_KEY, PROGRESS_BAD_VERSION, PROGRESS_BAD_VALUE,
    /// PROGRESS_NOT_FOUND, PROGRESS_UNREADABLE, PROGRESS_NOT_A_FILE (a
    /// directory, FIFO or device), PROGRESS_TOO_LARGE (over 16 MiB).
    ///
    /// Exit status: 0 valid, 1 problems found, 2 missing or unreadable.
    #[command(verbatim_doc_comment)]
    Validate(crate::validation::ValidateArgs),
    /// Undo a failed step: restore only its Files: with git (Sub-step E).
    ///
    /// Paths HEAD has are restored from HEAD in the index and the working
    /// tree (git restore --source=HEAD --staged --worktree); paths marked
    /// (new) that HEAD lacks are unstaged and removed (git rm --cached, git
    /// clean -fd); any other path HEAD lacks is kept and named. A file of
    /// step N (or a directory holding one) that also belongs to a completed
    /// step is left as it is (a restore could throw that step's
    /// uncommitted work away) while the step's other files are still
    /// reverted; the reply then names what it left and why, and is a
    /// refusal (PROGRESS_SHARED_FILE, exit 1). A completed step N is
    /// refused with nothing touched (PROGRESS_REVERT_COMPLETED). The step's
    /// record gets `reverted`: what was restored, removed and left.
    ///
    /// The plan is --plan PLAN (or DIR/plan.md with --project DIR, or the
    /// progress file's `plan`); the repository is the git work tree holding
    /// --cwd DIR (default: the current directory), which the Files: paths
    /// are relative to.
    ///
    /// OUTPUT: `step N reverted: restored A, B; removed C; kept D` (or
    /// `step N reverted: nothing to restore`; `step N reverted in part: …;
    /// left E (why)` when a file was left); with --json one object
    /// (schema progress-git-reply).
    ///
    /// Example: voyage-helper progress revert-step 3 --plan plan.md
    ///
    /// Exit status: 0 reverted, 1 refused or reverted only in part, 2 no
    /// usable progress file or plan, no git work tree, or git failed.
    #[command(verbatim_doc_comment)]
    RevertStep(GitStepArgs),
    /// Commit the completed steps' work before an escalation stop (Sub-step E).
    ///
    /// Stages only the Files: of the steps the progress file records as
    /// completed (never `git add -A`: secrets, binaries and unrelated work
    /// stay out) and commits those paths alone (git commit --only), so
    /// anything else already staged stays staged and out of the commit. The
    /// message is `wip: trekexecute stopped at step N — escalation needed`.
    /// Nothing to commit is not an error (commit: null).
    ///
    /// The plan, the progress file and the repository are found as for
    /// revert-step. Git's own hooks and identity apply.
    ///
    /// OUTPUT: `committed SHA: wip: … (K paths: A, B)` or `nothing to
    /// commit: …`; with --json one object (schema progress-git-reply).
    ///
    /// Example: voyage-helper progress escalate-commit 4 --plan plan.md
    ///
    /// Exit status: 0 committed or nothing to commit, 2 no usable progress
    /// file or plan, no git work tree, or git failed (a refusing hook too).
    #[command(verbatim_doc_comment)]
    EscalateCommit(GitStepArgs),
}

impl Command {
    /// Runs the subcommand; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        let budget = budget::from_env();
        match self {
            Self::Init(args) => execute_init(&args, &budget, out),
            Self::Show(args) => execute_show(&args, out),
            Self::Step(args) => execute_step(&args, &budget, out),
            Self::ResumePoint(args) => execute_resume_point(&args, &budget, out),
            Self::Finish(args) => execute_finish(&args, &budget, out),
            Self::Validate(args) => args.execute(super::check::validate_file, out),
            Self::RevertStep(args) => execute_on_failure(&args, false, out),
            Self::EscalateCommit(args) => execute_on_failure(&args, true, out),
        }
    }
}

// The flags of each subcommand. Its help is the variant's doc comment; a
// doc comment on the struct would be a second source of it (clap reads both).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct InitArgs {
    /// The plan or session spec.
    #[arg(value_name = "PLAN")]
    pub plan: Option<PathBuf>,
    /// The plan or session spec, as a flag (the same as PLAN).
    #[arg(long = "plan", value_name = "PLAN", conflicts_with = "plan")]
    pub plan_flag: Option<PathBuf>,
    /// The project directory (its plan.md unless PLAN says otherwise).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// One session's file and steps.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub session: Option<u32>,
    /// Write here instead of the derived path.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// execute, resume, step or session.
    #[arg(long, value_name = "MODE", default_value = "execute")]
    pub mode: String,
    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ShowArgs {
    #[command(flatten)]
    pub locate: Locate,
    /// Print the progress document as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct StepArgs {
    /// The step number (0 is the sandbox pre-flight).
    #[arg(value_name = "N")]
    pub step: u32,
    /// pending, in_progress, completed, failed, skipped or blocked.
    #[arg(long, value_name = "STATUS")]
    pub status: String,
    /// What went wrong (failed, blocked, skipped).
    #[arg(long, value_name = "TEXT")]
    pub error: Option<String>,
    /// The checkpoint commit (completed).
    #[arg(long, value_name = "SHA")]
    pub commit: Option<String>,
    /// The manifest audit's result: pass or fail.
    #[arg(long, value_name = "RESULT", value_parser = ["pass", "fail"])]
    pub manifest_audit: Option<String>,
    /// manifest_drift, a JSON array: [{"check": …, "reason": …}].
    #[arg(long, value_name = "JSON")]
    pub drift: Option<String>,
    /// checkpoint_drift, a JSON object: {"expected_pattern": …, "actual_message": …}.
    #[arg(long, value_name = "JSON")]
    pub checkpoint_drift: Option<String>,
    #[command(flatten)]
    pub locate: Locate,
    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ResumePointArgs {
    #[command(flatten)]
    pub locate: Locate,
    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct FinishArgs {
    /// completed, failed, stopped or partial.
    #[arg(long, value_name = "STATUS")]
    pub status: String,
    /// The summary: JSON, or else kept as text.
    #[arg(long, value_name = "JSON|TEXT")]
    pub summary: Option<String>,
    /// Phase 7's result: {"status": "passed|failed|not-run", …}.
    #[arg(long, value_name = "JSON")]
    pub plan_verification: Option<String>,
    #[command(flatten)]
    pub locate: Locate,
    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct GitStepArgs {
    /// The step number.
    #[arg(value_name = "N")]
    pub step: u32,
    #[command(flatten)]
    pub locate: Locate,
    /// A directory inside the repository (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl InitArgs {
    /// The plan: PLAN or `--plan` (clap refuses both), else the project's
    /// `plan.md`.
    pub(crate) fn plan(&self) -> Option<PathBuf> {
        self.plan
            .clone()
            .or_else(|| self.plan_flag.clone())
            .or_else(|| self.project.as_deref().map(super::path::project_plan))
    }

    /// Where the progress file goes: `--file`, or derived from the plan.
    pub(crate) fn locate(&self) -> Locate {
        Locate {
            file: self.file.clone(),
            plan: self.plan(),
            project: self.project.clone(),
            session: self.session,
        }
    }
}

impl StepArgs {
    /// The change asked for, with `--drift` and `--checkpoint-drift` parsed
    /// (the status word is checked later, against the file's rules).
    pub(crate) fn update(&self) -> Result<StepUpdate, Problem> {
        Ok(StepUpdate {
            step: self.step,
            status: None,
            error: self.error.clone(),
            commit: self.commit.clone(),
            manifest_audit: self
                .manifest_audit
                .as_deref()
                .and_then(ManifestAudit::parse),
            drift: json_arg("--drift", self.drift.as_deref(), true)?,
            checkpoint_drift: json_arg(
                "--checkpoint-drift",
                self.checkpoint_drift.as_deref(),
                false,
            )?,
        })
    }
}

/// A flag's JSON value: an array when `want_array`, else an object.
fn json_arg(
    flag: &'static str,
    text: Option<&str>,
    want_array: bool,
) -> Result<Option<serde_json::Value>, Problem> {
    text.map(|t| match serde_json::from_str::<serde_json::Value>(t) {
        Ok(v) if v.is_array() == want_array && (want_array || v.is_object()) => Ok(v),
        _ => Err(Problem::new(
            code::PROGRESS_NOT_JSON,
            format!(
                "{flag} must be a JSON {}",
                if want_array { "array" } else { "object" }
            ),
        )),
    })
    .transpose()
}

// --- Each subcommand: its flags mapped to the operation, then printed. ---

/// `progress step N --status S`: exit 0 applied, 1 refused, 2 no usable file.
pub(super) fn execute_step(
    options: &StepArgs,
    budget: &budget::Budget,
    out: &mut impl Write,
) -> io::Result<u8> {
    let update = match options.update() {
        Ok(update) => update,
        Err(p) => return Ok(refuse_plain(exit::NOT_OK, p)),
    };
    let request = StepRequest {
        locate: options.locate.clone(),
        status: options.status.clone(),
        update,
    };
    let stepped = record_step(&request, budget);
    stepped.eprint();
    stepped.render(options.json, out)
}

/// `progress revert-step N` (`escalate` false) and `progress
/// escalate-commit N`: exit 0 done, 1 refused, 2 no usable file, plan or
/// repository, or git failed.
pub(super) fn execute_on_failure(
    options: &GitStepArgs,
    escalate: bool,
    out: &mut impl Write,
) -> io::Result<u8> {
    let request = GitStepRequest {
        step: options.step,
        locate: options.locate.clone(),
        cwd: options.cwd.clone(),
    };
    let done = on_failure_git(&request, escalate);
    done.eprint();
    done.render(escalate, options.json, out)
}

/// `progress finish --status S`: the run's final status (seed Phase 8,
/// "Progress + state-file writes"). `completed` needs every step completed
/// or skipped, and then passes the completion gate ([`gate`](super::gate)): when a
/// clause fails, the status the gate gives (`partial` or `failed`) is
/// recorded instead, with `completion_gate` saying why, and the exit is 1.
/// Exit 0, 1 refused or overridden, 2 no usable file.
pub(super) fn execute_finish(
    options: &FinishArgs,
    budget: &budget::Budget,
    out: &mut impl Write,
) -> io::Result<u8> {
    let request = FinishRequest {
        locate: options.locate.clone(),
        status: options.status.clone(),
        summary: options.summary.clone(),
        plan_verification: options.plan_verification.clone(),
    };
    let finished = finish_run(&request, budget);
    finished.eprint();
    finished.render(options.json, out)
}

/// `progress init`: exit 0 created, replaced or kept; 1 the plan is not a
/// plan or has no such session; 2 unreadable plan, broken file kept in
/// resume or step mode, or a failed write.
pub(super) fn execute_init(
    options: &InitArgs,
    budget: &budget::Budget,
    out: &mut impl Write,
) -> io::Result<u8> {
    let request = InitRequest {
        locate: options.locate(),
        mode: options.mode.clone(),
        loaded: None,
        extra: None,
    };
    let done = initialize(&request, budget);
    done.eprint();
    done.render(options.json, out)
}

/// Prints a refusal (stderr, and the JSON reply with `--json`) and returns
/// its exit code.
fn refuse(
    reply: Reply,
    json: bool,
    code: u8,
    problem: Problem,
    out: &mut impl Write,
) -> io::Result<u8> {
    problem::eprint_all(std::slice::from_ref(&problem));
    if json {
        reply.refused(&problem).render_json(out)?;
        out.flush()?;
    }
    Ok(code)
}

/// `progress show`: exit 0, or 2 when the file is missing or broken.
fn execute_show(options: &ShowArgs, out: &mut impl Write) -> io::Result<u8> {
    let path = match options.locate.resolve() {
        Ok(p) => p,
        Err(p) => return Ok(refuse_plain(exit::CANNOT_CHECK, p)),
    };
    let progress = match load_for_update(&path) {
        Ok(p) => p,
        Err((code, p)) => return Ok(refuse_plain(code, p)),
    };
    if options.json {
        serde_json::to_writer_pretty(&mut *out, &progress)?;
        writeln!(out)?;
    } else {
        render::render_show(&path.display().to_string(), &progress, out)?;
    }
    out.flush()?;
    Ok(exit::OK)
}

/// `progress resume-point`: the first step not completed. A missing
/// `iterations_remaining` is seeded and written back. Exit 0, or 2 when the
/// file is missing or broken.
fn execute_resume_point(
    options: &ResumePointArgs,
    budget: &budget::Budget,
    out: &mut impl Write,
) -> io::Result<u8> {
    let path = match options.locate.resolve() {
        Ok(p) => p,
        Err(p) => return Ok(refuse_plain(exit::CANNOT_CHECK, p)),
    };
    let (reply, found) = resume_point(&path, budget);
    let progress = match found {
        Ok(p) => p,
        Err((code, p)) => return refuse(reply, options.json, code, p, out),
    };
    if options.json {
        reply.render_json(out)?;
    } else {
        match reply.step {
            Some(n) => writeln!(
                out,
                "Resuming from step {n}. {}/{} steps already completed.",
                reply.completed_steps, reply.total_steps
            )?,
            None => writeln!(out, "All {} steps completed.", reply.total_steps)?,
        }
    }
    if reply.backfilled {
        crate::problem::eprint_line(&format!(
            "note: iterations_remaining was missing; seeded to {}",
            progress.iterations_remaining.unwrap_or_default()
        ));
    }
    out.flush()?;
    Ok(exit::OK)
}
