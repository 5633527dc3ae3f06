//! `trek`'s command line: the four calls `/trekexecute` makes.

use std::io::{self, Write};
use std::path::PathBuf;

/// Execute a plan with Claude Code, one phase per call (`/trekexecute`).
///
/// The slash command makes these calls and does in between only what an
/// agent must: implement a step's Changes, judge what a reply calls
/// undecided, ask the main-merge question. Each call prints a few lines
/// for the user and ends with a `NEXT:` line naming the next call; `--json`
/// prints one object instead (schema `trek-reply`).
///
///     voyage-helper trek start plan.md          # Phases 1-4, then NEXT: trek step-begin 1
///     voyage-helper trek step-begin 1           # the step's Files, Changes, Verify
///     (the agent edits the step's Files)
///     voyage-helper trek step-done 1            # scope, Verify, manifest audit, checkpoint or On failure
///     voyage-helper trek finish                 # verification, audit, then the main-merge question
///     voyage-helper trek finish --gate confirm  # final status, report, stats
///
/// While a run is in progress, the work tree's git directory holds a run
/// marker (`voyage-run.json`, schema `run-marker`): the PreToolUse hook
/// then also refuses writes outside the repository, to Never-touch paths,
/// and to files that are not the current step's.
///
/// Exit status: 0 the run goes on (or completed), 1 it stopped short
/// (a failed check, an escalation, a partial result), 2 it could not be
/// checked (usage, unreadable files, no git work tree).
#[derive(Debug, clap::Subcommand)]
#[command(verbatim_doc_comment)]
pub(crate) enum Command {
    /// Phases 1-4: arguments, plan checks, scan, strategy, progress, entry condition.
    ///
    /// Takes `/trekexecute`'s arguments as they are. --validate and
    /// --dry-run print their report and end there. Otherwise: the brief's
    /// sequencing gate (--project), the profile and effort, the security
    /// scan of every plan command, the autonomy gates, the run's files
    /// (progress files, .temp/voyage/, .claude/trekplan-sessions/) named
    /// once in the common .git/info/exclude, and the strategy.
    /// A new run (not a --session run, not with --in-place) makes the run
    /// branch trek/SLUG/run from the branch checked out and checks it out:
    /// its commits land there until the main-merge gate; --resume goes
    /// back to it from the start branch and refuses any other.
    /// A multi-session plan (an Execution Strategy, default mode) takes the
    /// wave path: the preflight (which first lists what the run will do
    /// to the repository and the remote: run branch, plan commit,
    /// worktrees, pushes) and wave W's session orders, then the run stops
    /// with the hand-over (the next run collects the wave, naming each
    /// push to origin; --no-push or VOYAGE_NO_PUSH=1: none; while a
    /// session of it has not completed, that run exits 1, WAVE_RUNNING).
    /// --session N of a prepared wave runs only in session N's worktree,
    /// on its copy of the plan (TREK_SESSION_PLACE otherwise). Every
    /// other run gets its progress file (kept on --resume; an earlier
    /// run's file is named, and a completed one kept under a timestamped
    /// name beside it, an unfinished one refused without --fresh), the entry
    /// condition checked (session specs), the run marker, and the first
    /// step to begin.
    ///
    /// Examples:
    ///     voyage-helper trek start .claude/plans/auth.md
    ///     voyage-helper trek start --project .claude/projects/2026-04-18-jwt --resume
    ///     voyage-helper trek start --session 2 plans/split.md
    #[command(verbatim_doc_comment)]
    Start(StartArgs),
    /// Sub-steps A-B: scope fence, attempt start, test first; the step handed over.
    ///
    /// A file of the step in the Never-touch list escalates at once. The
    /// reply lists the step's Files, Changes, Reuses and Verify, and the
    /// attempt (at most 3). The run marker now names the step's Files: the
    /// hook refuses writes to any other file until `trek step-done N`.
    ///
    /// Example: voyage-helper trek step-begin 2
    #[command(verbatim_doc_comment)]
    StepBegin(StepArgs),
    /// Sub-steps D-F: scope audit, Verify, manifest audit, then checkpoint
    /// or On failure.
    ///
    /// First the scope audit: every path changed since step-begin outside
    /// the step's Files and expected_paths (modified, added, deleted,
    /// renamed, untracked; the run's own files and ignored paths aside)
    /// fails the attempt like a manifest FAIL. Those changes are saved as a
    /// patch in <git dir>/voyage-scope/ and put back as they were when the
    /// step began; `git apply PATCH` brings them back. What was put back
    /// and the patch are kept per attempt in the step's scope_violations
    /// (progress file), for the report and the stats record. A nested repository
    /// is left in place and the step escalated. Then the Verify command is judged by the denylist (blocked: escalate),
    /// run through the runner in the work tree (a fresh run, exit code is
    /// truth; 77 from a sandbox pre-flight is the blocked sentinel), then
    /// the step's manifest is audited. A pass stages the step's Files, runs
    /// the Checkpoint as written and checks its message; a failure applies
    /// the step's On failure: retry or revert (another attempt while fewer
    /// than 3 and the budget lasts, else the Files are reverted and the run
    /// fails), skip, or escalate (completed work committed, run stopped).
    /// Each of these is announced only after git has answered: a file the
    /// revert left (a completed step shares it) or a commit that failed is
    /// named with why and what to do, and the exit is then 1; a checkpoint
    /// that made no commit reads `PASS, NOT committed`.
    ///
    /// Example: voyage-helper trek step-done 2
    #[command(verbatim_doc_comment)]
    StepDone(StepArgs),
    /// Phases 7-9: verification, session audit, main-merge gate, report, stats.
    ///
    /// Without --gate: the plan's Verification (or the Exit Condition)
    /// when every step ran, the independent manifest audit, a recovery
    /// spec for a drifted session spec, and the main-merge question. With
    /// --gate confirm (or decline: recorded as partial): the final status
    /// through the completion gate, the state pair, the report with its
    /// trekexecute_summary, the stats record; the run marker is removed.
    /// A confirm first merges the run branch into the branch the run
    /// started from (fast-forward, else a merge commit; a conflict merges
    /// nothing, keeps the run at the gate and prints the way to finish by
    /// hand) and checks that branch out; a decline leaves the run branch.
    /// A run that stopped early is finalised by the first call.
    ///
    /// Examples:
    ///     voyage-helper trek finish
    ///     voyage-helper trek finish --gate confirm
    ///     voyage-helper trek finish --gate confirm --plan plans/split.md   # multi-session
    #[command(verbatim_doc_comment)]
    Finish(FinishArgs),
    /// For the user: end a run whose session died, without its checks.
    ///
    /// Removes the work tree's run marker, so the PreToolUse hook stops
    /// holding the tree to the run's scope (while a marker is live, even a
    /// progress file that says the run is over keeps every write refused).
    /// The progress file is left as it is: `/trekexecute --resume PLAN`
    /// picks the run up again, with every check. Run it in a terminal: the
    /// hook refuses it to the agent while the run is live.
    ///
    /// Example: voyage-helper trek release
    #[command(verbatim_doc_comment)]
    Release(ReleaseArgs),
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ReleaseArgs {
    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct StartArgs {
    /// A trekbrief project folder: its plan.md, progress.json and state pair.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Run every step here, ignoring the Execution Strategy.
    #[arg(long)]
    pub fg: bool,
    /// Continue from the progress file's first step not completed.
    #[arg(long)]
    pub resume: bool,
    /// Start over although an unfinished run's progress file is there (it
    /// is kept beside itself under a timestamped name first). Without it,
    /// such a start stops and points at --resume.
    #[arg(long, conflicts_with = "resume")]
    pub fresh: bool,
    /// Start even though some step's Files hold uncommitted changes of
    /// yours. Without it such a start stops and names them: a failed
    /// step's revert restores its Files from HEAD. With it they are the
    /// steps' starting point, and a revert saves them in a patch first.
    #[arg(long)]
    pub allow_dirty: bool,
    /// Run on the branch checked out, without a run branch: each
    /// checkpoint lands on it as it is made, and the main-merge gate
    /// merges nothing. By default the run makes `trek/SLUG/run` from that
    /// branch, works there, and the gate's confirm merges it back.
    #[arg(long)]
    pub in_place: bool,
    /// Show what would run, the pre-flight checks the start would make
    /// (with this call's --project, --fresh, --no-push, --allow-dirty and
    /// --in-place) and their outcome,
    /// and what the run would do to the repository and the remote; run
    /// nothing (the report of `plan dry-run`).
    #[arg(long)]
    pub dry_run: bool,
    /// Multi-session runs: push nothing. By default each wave's collect
    /// pushes every session branch to `origin` before merging it (a safety
    /// copy, Hard rule 19). Given to the start that prepares a wave, the
    /// choice is kept in the run's wave.json, so the later starts of the
    /// run push nothing either. VOYAGE_NO_PUSH=1 does the same.
    #[arg(long)]
    pub no_push: bool,
    /// Check the plan's schema only.
    #[arg(long)]
    pub validate: bool,
    /// Run only step N.
    #[arg(long, value_name = "N")]
    pub step: Option<u32>,
    /// Run only session N of the Execution Strategy (in its worktree).
    #[arg(long, value_name = "N")]
    pub session: Option<u32>,
    /// Autonomy gates: bare --gates pauses at every boundary (closed);
    /// --gates=open|adaptive|closed chooses.
    #[arg(long, value_name = "MODE", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub gates: Option<String>,
    /// The profile (economy, balanced, premium, fable or a custom one).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Your judgement of an entry condition the helper left undecided.
    #[arg(long, value_enum, value_name = "JUDGEMENT")]
    pub entry: Option<EntryJudgement>,
    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// The plan or session spec (default: DIR/plan.md with --project).
    pub plan: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum EntryJudgement {
    Met,
    Unmet,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct StepArgs {
    /// The step number (0 is the sandbox pre-flight).
    pub step: u32,
    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GateAnswer {
    /// Confirm — main-merge.
    Confirm,
    /// Decline — hold for review.
    Decline,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct FinishArgs {
    /// The user's answer to the main-merge question.
    #[arg(long, value_enum, value_name = "ANSWER")]
    pub gate: Option<GateAnswer>,
    /// A multi-session plan whose waves are all merged (its gate's answer).
    /// Asked again once confirmed, it says the run is finished and shows
    /// the sessions' report again.
    #[arg(long, value_name = "PLAN", requires = "gate")]
    pub plan: Option<PathBuf>,
    /// In a `--session N` run: also run the plan's Verification, as
    /// information only (the session's completion never depends on it).
    #[arg(long, conflicts_with = "gate")]
    pub advisory_verification: bool,
    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl Command {
    /// Runs the call; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        let (name, json) = match &self {
            Self::Start(args) => ("start", args.json),
            Self::StepBegin(args) => ("step-begin", args.json),
            Self::StepDone(args) => ("step-done", args.json),
            Self::Finish(args) => ("finish", args.json),
            Self::Release(args) => ("release", args.json),
        };
        // The one place a phase learns where it runs: every phase takes
        // this directory as a parameter, so it can also be called in a
        // process whose own directory is elsewhere (trek/phases.rs).
        let here = match std::env::current_dir() {
            Ok(dir) => dir,
            Err(e) => {
                let problem = crate::problem::Problem::new(
                    super::code::TREK_NO_RUN,
                    format!("no current directory: {e}"),
                );
                return super::stop::problem(name, &problem).render(json, out);
            }
        };
        let reply = match self {
            Self::Start(args) => super::start::start(&here, &args),
            Self::StepBegin(args) => super::step::begin(&here, args.step),
            Self::StepDone(args) => super::step::done(&here, args.step),
            Self::Finish(args) => super::finish::finish(
                &here,
                args.gate,
                args.plan.as_deref(),
                args.advisory_verification,
            ),
            Self::Release(_) => super::release::release(&here),
        };
        reply.render(json, out)
    }
}
