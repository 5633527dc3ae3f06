//! The command-line tree (clap derive). Only shapes and docs live here; each
//! area turns its arguments into its own `Options` (STYLE.md pattern 4).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser};
use clap_complete::Shell;

use crate::{progress, run, scan, verdict};

/// The deterministic half of the Voyage Claude Code plugin.
///
/// Voyage executes long coding plans with Claude Code without trusting the
/// agent's word for "done". This binary does every part that needs no model:
/// running a command with a log and a verdict, validating plans, judging
/// commands against the security denylist (also as Claude Code's PreToolUse
/// hook), running YAML workflows in Executant's format, and (in later releases)
/// auditing steps.
///
/// Exit codes: 0 checked and fine, 1 checked and not fine, 2 could not check
/// (usage error, unreadable input). `run`, `verdict`, `hook pre-tool-use`
/// and `workflow` document their own.
#[derive(Debug, Parser)]
#[command(
    name = "voyage-helper",
    version,
    about,
    long_about,
    max_term_width = 100
)]
#[command(after_help = "Run 'voyage-helper <command> --help' for what a command prints.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Subcommand,
}

// `defer`: a subcommand's own arguments and subcommands are built only when
// it is the one being run (or help or completions need them), not on every
// call: a `progress step` then does not pay for building `run`'s or
// `plan`'s. A deferred struct's doc comment reaches the command only when
// it is built, so the variants below that take a struct repeat its first
// line, for the list of commands in `--help` and in completions (as an
// attribute: a one-line doc comment would lose its final full stop).
#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum Subcommand {
    #[command(about = "Run one shell command with a log, and print a short block about it.")]
    Run(RunArgs),
    #[command(about = "Turn a command's log into the executor skill's short reply.")]
    Verdict(VerdictArgs),
    #[command(subcommand)]
    Plan(PlanCommand),
    #[command(subcommand)]
    Brief(BriefCommand),
    #[command(subcommand)]
    Scan(ScanCommand),
    #[command(subcommand)]
    Hook(HookCommand),
    /// Print the JSON Schema of a format the helper reads or writes.
    ///
    /// Without a name, list the names. The schemas describe every `--json`
    /// output and file format (draft 2020-12); they are the same files as in
    /// the repository's `schemas/` folder.
    Schema {
        /// The schema's name, e.g. `run-block`.
        name: Option<String>,
    },
    #[command(about = "Replace a file with stdin, atomically")]
    Write(WriteArgs),
    #[command(subcommand)]
    State(StateCommand),
    #[command(subcommand)]
    Progress(ProgressCommand),
    #[command(subcommand)]
    Stats(StatsCommand),
    #[command(subcommand)]
    Event(EventCommand),
    #[command(about = "Decide what the run does at an autonomy boundary")]
    Gate(GateArgs),
    #[command(subcommand)]
    Profile(ProfileCommand),
    #[command(subcommand)]
    Workflow(WorkflowCommand),
    /// Print a shell completion script.
    ///
    /// For bash: `voyage-helper completions bash > ~/.local/share/bash-completion/completions/voyage-helper`.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: Shell,
    },
}

/// Run one shell command with a log, and print a short block about it.
///
/// The command runs as `bash -c <command>` in its own process group, with
/// stdin from /dev/null and stdout+stderr merged into a log file under
/// `<root>/.temp/voyage/logs/` (root: the enclosing git work tree, else the
/// directory it runs in). Its output never reaches your terminal: you get the
/// block, and open LOG: for more.
///
/// INPUT. Either flags (`voyage-helper run --timeout 60 -- cargo test`), or,
/// with no flags, `label: value` lines on stdin, as the executor skill sends
/// them:
///
///     command: cargo test --workspace      (required; run verbatim)
///     cwd: crates/core                     (optional; relative to here)
///     timeout: 300                         (optional; 1..86400 s, default 600)
///     expect-exit: 0                       (optional; 0..255 or nonzero)
///
/// Labels count only at column 0 and in lower case; unknown lines are
/// ignored; the first occurrence of a label wins.
///
/// OUTPUT (stable; the skill and scripts parse it), one line each, in order:
///
///     RESULT: SUCCESS|DEVIATION   SUCCESS only for ok with the expected exit
///     STATUS: ok|timeout|error
///     EXIT: <n>                   exit code, 128+signal, or 124 on timeout
///     DURATION: <n>s              whole seconds
///     LOG: <path>
///     LINES: <n>                  newlines in the log
///     TAIL: <line>                last line with content (max 400 chars)
///     REASON: <text>              only with STATUS: error
///
/// Refused input prints only RESULT, STATUS: error and REASON. Exit codes
/// 126 and 127 are reported as STATUS: error ("command not found or not
/// executable"). On timeout, or if this process gets SIGINT, SIGTERM or
/// SIGHUP, the command's whole process group gets SIGTERM, 2 s of grace, then
/// SIGKILL; whatever a finished command left running in its group is stopped
/// the same way. `--json` prints the same fields as one JSON object.
///
/// Exit status: 0 for ok and timeout, 2 for every error. Nothing is ever
/// written to stderr.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RunArgs {
    /// Directory to run in (absolute, or relative to the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<OsString>,

    /// Seconds before the command's process group is stopped (1..86400).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<String>,

    /// The exit code that counts as RESULT: SUCCESS (0..255, or nonzero).
    #[arg(long, value_name = "CODE")]
    pub expect_exit: Option<String>,

    /// Print the block as one JSON object.
    #[arg(long)]
    pub json: bool,

    /// The command, after `--`; several words are joined with spaces.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

impl RunArgs {
    /// Resolves the arguments; `pwd` is where relative `cwd` values start.
    pub fn into_options(self, pwd: PathBuf) -> run::Options {
        let flags_given = !self.command.is_empty()
            || self.cwd.is_some()
            || self.timeout.is_some()
            || self.expect_exit.is_some();
        let input = if flags_given {
            run::Input::Flags(run::Options::flags(
                &self.command,
                self.cwd,
                self.timeout,
                self.expect_exit,
            ))
        } else {
            run::Input::Stdin(run::read_stdin())
        };
        run::Options {
            input,
            json: self.json,
            pwd,
        }
    }
}

/// Turn a command's log into the executor skill's short reply.
///
/// Reads the log once, front to back, and recognises the aggregate line and
/// the failures of cargo test, cargo nextest, pytest, go test, node --test,
/// jest, vitest, mocha, tsc, eslint and rspec, plus any `N passed, N failed`
/// line. Without a recognised aggregate, SUMMARY is the log's last non-empty
/// line.
///
/// INPUT. Flags, or with no flags `label: value` lines on stdin (labels in
/// any case, so the block `run` printed can be passed on as it is):
///
///     log: <path>          the LOG: of the run (required)
///     exit: <n>            its EXIT: (required, an integer)
///     duration: <d>        its DURATION:, shown as given (default -)
///     status: <s>          its STATUS: ok, timeout or error (default ok)
///     reason: <text>       its REASON:, the SUMMARY of an error
///     expect: <sentence>   the wanted outcome, e.g. "all green"
///
/// OUTPUT (at most 40 lines, in this order):
///
///     VERDICT: PASS|FAIL|TIMEOUT|ERROR (exit <n>, <duration>)
///     EXPECT: met|not met|undecided - <why>     only with --expect
///     SUMMARY: <the tool's aggregate line, verbatim>
///     FAILURES:                                 only when something failed
///     - <test or target> - <message>
///         <first stack frame>
///     - +<N> more, see LOG                      past 10 failures
///     LOG: <path>
///
/// EXPECT is decided only where a machine can: "all green", "passes",
/// "fails", "exit code 3" and the like against the exit code; anything that
/// needs reading (why a test fails, "without warnings") is `undecided - ...`
/// for the model to judge. Input errors print `VERDICT: ERROR (exit -, -)`
/// and a SUMMARY saying what is missing.
///
/// Exit status: 0 PASS, 1 FAIL or TIMEOUT, 2 ERROR.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct VerdictArgs {
    /// The log file a run wrote.
    #[arg(long, value_name = "PATH")]
    pub log: Option<PathBuf>,

    /// The run's exit code.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub exit: Option<String>,

    /// The run's duration, shown as given (e.g. 34s).
    #[arg(long, value_name = "D")]
    pub duration: Option<String>,

    /// The run's STATUS: ok, timeout or error.
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,

    /// The run's REASON: (with --status error).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,

    /// One sentence naming the wanted outcome, e.g. "all green".
    #[arg(long, value_name = "TEXT")]
    pub expect: Option<String>,

    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl VerdictArgs {
    pub fn into_options(self) -> verdict::Options {
        let flags_given = self.log.is_some()
            || self.exit.is_some()
            || self.duration.is_some()
            || self.status.is_some()
            || self.reason.is_some()
            || self.expect.is_some();
        let input = if flags_given {
            verdict::Input {
                log: self.log,
                exit: self.exit,
                duration: self.duration,
                status: self.status,
                reason: self.reason,
                expect: self.expect,
            }
        } else {
            verdict::Input::parse_labels(&run::read_stdin())
        };
        verdict::Options {
            input,
            json: self.json,
        }
    }
}

/// Replace a file with stdin, atomically
///
/// A reader or a crash sees the old document or the new one, never a mix.
/// Stdin is written to a temporary file in PATH's directory, fsynced, given
/// the mode of the file it replaces (a new file gets 0666 less the umask),
/// renamed over PATH, and the directory is fsynced. A crash or a kill at any
/// moment leaves PATH as it was or as it is now; a failed write leaves it
/// untouched and no temporary file behind. A symlink at PATH is followed.
///
/// A writer killed mid-write leaves its temporary file,
/// `.NAME.voyage-tmp.PID.N`, beside PATH. The next write of PATH removes
/// those whose writer has exited (and is older than 5 s) or that are older
/// than 15 minutes, unless the directory is too large to list cheaply.
///
/// With `--schema NAME`, stdin must be a JSON document valid against that
/// embedded schema (`voyage-helper schema` lists them), or nothing is
/// written.
///
/// OUTPUT: `wrote PATH` on stdout; with --json one line
/// `{"written": true, "path": …, "bytes": N}` or
/// `{"written": false, "code": …, "reason": …}`. Problems also go to stderr
/// as `error[CODE]: …`.
///
/// Exit status: 0 written, 1 refused by --schema, 2 could not write
/// (missing directory, PATH is a directory, no permission).
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct WriteArgs {
    /// Write atomically (the only mode; required so that the guarantee is
    /// visible where it is relied on).
    #[arg(long, required = true)]
    pub atomic: bool,

    /// Check stdin against this embedded schema first (e.g. `progress`).
    #[arg(long, value_name = "NAME")]
    pub schema: Option<String>,

    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,

    /// The file to replace or create.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
}

/// The session handover pair a run leaves behind (Phase 8).
#[derive(Debug, clap::Subcommand)]
pub enum StateCommand {
    /// Write .session-state.local.json and NEXT-SESSION-PROMPT.local.md.
    ///
    /// Both go into DIR. The state record holds schema_version 1, project,
    /// next_session_brief_path, next_session_label, status and updated_at
    /// (schema `session-state`); the prompt's front matter holds
    /// produced_by: trekexecute, produced_at (the same instant as
    /// updated_at), project and status, then a line saying to resume with
    /// /trekcontinue.
    ///
    /// Both files are written so that both change or neither does: they are
    /// checked, staged as complete temporary files, then renamed into place,
    /// the prompt first and the record last; if the second rename fails the
    /// first is undone.
    ///
    /// Exit status: 0 written, 1 refused input (unknown status, empty
    /// label, a label of several lines), 2 could not write.
    #[command(verbatim_doc_comment)]
    Write {
        /// The project directory (it must exist).
        #[arg(long, value_name = "DIR")]
        project: PathBuf,
        /// The next session's brief, or the current one after the last session.
        #[arg(long, value_name = "PATH")]
        brief: String,
        /// The next session's label, or `Complete` after the last one.
        #[arg(long, value_name = "TEXT")]
        label: String,
        /// The run's final status: completed, failed, stopped or partial.
        #[arg(long, value_name = "STATUS")]
        status: String,
        /// Print the reply as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Check a .session-state.local.json (and the prompt beside it).
    ///
    /// The record is checked against the `session-state` schema (unknown
    /// keys are fine). When NEXT-SESSION-PROMPT.local.md sits beside it, its
    /// front matter must say produced_by: trekexecute and agree with the
    /// record on the instant, the project and the status.
    ///
    /// Codes: STATE_NOT_JSON, STATE_NOT_OBJECT, STATE_MISSING_KEY,
    /// STATE_BAD_VERSION, STATE_BAD_STATUS, STATE_BAD_TIME, STATE_BAD_VALUE,
    /// STATE_PROMPT_NO_FRONT_MATTER, STATE_PROMPT_BAD_FRONT_MATTER,
    /// STATE_PROMPT_PRODUCER, STATE_PAIR_MISMATCH, STATE_UNREADABLE.
    ///
    /// Exit status: 0 valid, 1 problems found, 2 unreadable.
    #[command(verbatim_doc_comment)]
    Validate {
        /// Print the report as one JSON object (schema validation-report).
        #[arg(long)]
        json: bool,
        /// The state file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
}

/// Which progress file: `--file`, or derived from a project or a plan.
#[derive(Debug, Clone, Args)]
pub struct LocateArgs {
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

impl LocateArgs {
    pub fn into_locate(self) -> progress::Locate {
        progress::Locate {
            file: self.file,
            plan: self.plan,
            project: self.project,
            session: self.session,
        }
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
pub enum ProgressCommand {
    /// Start a progress file from a plan: every step pending.
    ///
    /// The plan is --plan PLAN, or DIR/plan.md with --project DIR. The file
    /// goes where Phase 3 puts it (DIR/progress.json with --project,
    /// .trekexecute-progress-<slug>.json beside the plan otherwise,
    /// -session-N with --session N), or to --file PATH. It records
    /// plan_type (plan or session-spec), plan_version (or legacy), the mode,
    /// and iterations_remaining from TREKEXECUTE_MAX_RECOVERY_ITERATIONS
    /// (default 25). With --session N on a plan with an Execution Strategy,
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
    Init {
        /// The plan or session spec.
        #[arg(long, value_name = "PLAN")]
        plan: Option<PathBuf>,
        /// The project directory (its plan.md unless --plan says otherwise).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// One session's file and steps.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        session: Option<u32>,
        /// Write here instead of the derived path.
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
        /// execute, resume, step or session.
        #[arg(long, value_name = "MODE", default_value = "execute")]
        mode: String,
        /// Print the reply as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Print the run and a table of its steps (--json: the file itself).
    Show {
        #[command(flatten)]
        locate: LocateArgs,
        /// Print the progress document as JSON.
        #[arg(long)]
        json: bool,
    },
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
    /// blocked or skipped. Every change sets current_step and updated_at; a
    /// step starting sets the run back to in_progress.
    ///
    /// OUTPUT: `step N: FROM -> TO (attempt A of 3[, a retry]); R
    /// recovery/retry iterations left`, or with --json one line (schema
    /// progress-reply). Refusals go to stderr as `error[CODE]: …`.
    ///
    /// Exit status: 0 recorded, 1 refused, 2 missing or broken file.
    #[command(verbatim_doc_comment)]
    Step {
        /// The step number.
        #[arg(value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        step: u32,
        /// pending, in_progress, completed, failed, skipped or blocked.
        #[arg(long, value_name = "STATUS")]
        status: String,
        /// What went wrong (failed, blocked, skipped).
        #[arg(long, value_name = "TEXT")]
        error: Option<String>,
        /// The checkpoint commit (completed).
        #[arg(long, value_name = "SHA")]
        commit: Option<String>,
        /// The manifest audit's result: pass or fail.
        #[arg(long, value_name = "RESULT", value_parser = ["pass", "fail"])]
        manifest_audit: Option<String>,
        /// manifest_drift, a JSON array: [{"check": …, "reason": …}].
        #[arg(long, value_name = "JSON")]
        drift: Option<String>,
        /// checkpoint_drift, a JSON object: {"expected_pattern": …, "actual_message": …}.
        #[arg(long, value_name = "JSON")]
        checkpoint_drift: Option<String>,
        #[command(flatten)]
        locate: LocateArgs,
        /// Print the reply as one JSON object.
        #[arg(long)]
        json: bool,
    },
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
    ResumePoint {
        #[command(flatten)]
        locate: LocateArgs,
        /// Print the reply as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Record the run's final status (Phase 8).
    ///
    /// completed is refused (PROGRESS_INCOMPLETE) while any step is neither
    /// completed nor skipped.
    ///
    /// Exit status: 0 recorded, 1 refused, 2 missing or broken file.
    #[command(verbatim_doc_comment)]
    Finish {
        /// completed, failed, stopped or partial.
        #[arg(long, value_name = "STATUS")]
        status: String,
        /// The summary: JSON, or else kept as text.
        #[arg(long, value_name = "JSON|TEXT")]
        summary: Option<String>,
        /// Phase 7's result: {"status": "passed|failed|not-run", …}.
        #[arg(long, value_name = "JSON")]
        plan_verification: Option<String>,
        #[command(flatten)]
        locate: LocateArgs,
        /// Print the reply as one JSON object.
        #[arg(long)]
        json: bool,
    },
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
    /// PROGRESS_NOT_FOUND, PROGRESS_UNREADABLE.
    ///
    /// Exit status: 0 valid, 1 problems found, 2 missing or unreadable.
    #[command(verbatim_doc_comment)]
    Validate {
        /// Print the report as one JSON object (schema validation-report).
        #[arg(long)]
        json: bool,
        /// The progress file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
}

/// Stats records (Phase 9).
#[derive(Debug, clap::Subcommand)]
pub enum StatsCommand {
    /// Append one record to <data dir>/<KIND>-stats.jsonl.
    ///
    /// The record is RECORD, or stdin when RECORD is left out or `-`. It
    /// must be one JSON object; `ts` (UTC, RFC 3339) is added when it has
    /// none. It is appended as one line under an exclusive file lock, so
    /// concurrent writers never interleave; a writer gives up after 3 s on a
    /// busy lock rather than block the run.
    ///
    /// The data dir is $CLAUDE_PLUGIN_DATA, else $VOYAGE_DATA_DIR, else
    /// $XDG_DATA_HOME/voyage, else ~/.local/share/voyage (created).
    ///
    /// OUTPUT, always one line: {"written": true, "path": …} or
    /// {"written": false, "code": …, "reason": …}.
    ///
    /// Exit status: 0 written, 1 not written.
    #[command(verbatim_doc_comment)]
    Append {
        /// The kind: 1 to 64 of a-z, 0-9, _ and - (e.g. trekexecute).
        #[arg(value_name = "KIND")]
        kind: String,
        /// The record as JSON; stdin when left out or `-`.
        #[arg(value_name = "RECORD")]
        record: Option<String>,
    },
    /// Summarise the stats files, per kind.
    ///
    /// For each <kind>-stats.jsonl: runs (records with a `result`), results
    /// by kind, steps passed and failed, events by name, the last run, and
    /// lines that are not JSON objects.
    ///
    /// Exit status: 0, or 2 when the data dir cannot be read.
    #[command(verbatim_doc_comment)]
    Show {
        /// Only this kind.
        #[arg(value_name = "KIND")]
        kind: Option<String>,
        /// Print the summary as JSON (schema stats-summary).
        #[arg(long)]
        json: bool,
    },
}

/// Lifecycle events (Phase 8 main-merge gate, gates override).
#[derive(Debug, clap::Subcommand)]
pub enum EventCommand {
    /// Record a lifecycle event in <data dir>/trekexecute-stats.jsonl.
    ///
    /// The line is {ts, event, known_event, payload, not_exportable}.
    /// Known events: main-merge-gate, main-merge-approved,
    /// main-merge-declined, gates_mode_flag_override, wave-merge-gate,
    /// wave-merge-approved, wave-merge-declined, gates-halt; any other name
    /// (1 to 64 of A-Z a-z 0-9 _ - . :) is recorded with known_event: false.
    /// Payload keys outside the export allowlist (wave, wave_count, session,
    /// step, steps_total, steps_passed, steps_failed, result, status, mode,
    /// plan_type, reason, gates, effort, phase, profile) stay in the file
    /// and are listed in not_exportable.
    ///
    /// Pass the payload on stdin with a quoted heredoc so the shell expands
    /// nothing in it:
    ///
    ///     voyage-helper event emit --event main-merge-gate --payload - <<'JSON'
    ///     {"plan": "plans/auth.md", "wave_count": 1}
    ///     JSON
    ///
    /// OUTPUT, always one line: {"written": true, "path": …, "event": …,
    /// "known_event": …} or {"written": false, "code": …, "reason": …}
    /// (reason `payload-not-json: …` for a payload that is not JSON).
    ///
    /// Exit status: 0 written, 1 not written.
    #[command(verbatim_doc_comment)]
    Emit {
        /// The event's name.
        #[arg(long, value_name = "NAME")]
        event: String,
        /// A JSON object, or `-` for stdin (default: {}).
        #[arg(long, value_name = "-|JSON")]
        payload: Option<String>,
        /// The stats kind the event is recorded under.
        #[arg(long, value_name = "KIND", default_value = "trekexecute")]
        kind: String,
    },
}

/// Decide what the run does at an autonomy boundary
///
/// MODES. --gates open|adaptive|closed is the operator's flag (`true` is the
/// bare --gates flag: closed; `false` means no flag). Without a flag the
/// brief's --effort decides: low → open, standard → adaptive, high →
/// closed; without either, adaptive. A flag beats the effort signal; when
/// they disagree, `--event begin` records the gates_mode_flag_override
/// event (payload {flag, signal_effort}). open runs sessions one after
/// another (sequential_only); closed audits strictly (strict_audit).
///
/// STATES × EVENTS (action → next state; blank cells are refused with
/// GATE_ILLEGAL_EVENT, exit 1):
///
///     state                event          open / adaptive              closed
///     start                begin          continue → executing         continue → executing
///     executing            step-failed    continue → executing         pause → awaiting-operator
///     executing            wave-complete  continue → executing         pause → awaiting-wave-merge
///     executing            run-complete   continue → auditing          continue → auditing
///     auditing             audit-drift    continue → executing         pause → awaiting-operator
///     auditing             audit-pass     pause → awaiting-main-merge  pause → awaiting-main-merge
///     awaiting-operator    approve        continue → executing         continue → executing
///     awaiting-operator    decline        stop → held                  stop → held
///     awaiting-wave-merge  approve        continue → executing         continue → executing
///     awaiting-wave-merge  decline        stop → held                  stop → held
///     awaiting-main-merge  approve        continue → finalized         continue → finalized
///     awaiting-main-merge  decline        stop → held                  stop → held
///     finalized, held      (any)          refused: the run is over
///
/// The main-merge gate (auditing + audit-pass) pauses in every mode. A
/// failed step in open or adaptive mode goes on to the plan's own
/// `On failure:` clause. pause means: ask the operator, then send approve
/// or decline from the awaiting state.
///
/// OUTPUT, one `KEY: value` per line:
///
///     ACTION: continue|pause|stop
///     NEXT: <state>
///     BOUNDARY: main-merge-gate|wave-merge-gate|gates-halt   (at a boundary)
///     EMIT: <event> …        lifecycle events to record with `event emit`
///     GATES: <mode> (flag|brief|default)
///     OVERRIDE: --gates beat the brief's effort <effort>     (when it did)
///
/// --json prints one object (schema gate-decision).
///
/// Exit status: 0 decided, 1 an event the state refuses, 2 an unknown
/// state, event, mode or effort.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct GateArgs {
    /// Where the run is (see the table).
    #[arg(long, value_name = "STATE")]
    pub state: String,
    /// What just happened (see the table).
    #[arg(long, value_name = "EVENT")]
    pub event: String,
    /// The operator's --gates: open, adaptive, closed, true or false.
    #[arg(long, value_name = "MODE")]
    pub gates: Option<String>,
    /// The brief's effort for the execute phase: low, standard or high.
    #[arg(long, value_name = "EFFORT")]
    pub effort: Option<String>,
    /// Do not record the override event on `begin`.
    #[arg(long)]
    pub no_record: bool,
    /// Print the decision as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Profiles: which model each phase uses.
#[derive(Debug, clap::Subcommand)]
pub enum ProfileCommand {
    /// Compose one phase's effort and model from the brief and the profile.
    ///
    /// PROFILE. --profile NAME, else $VOYAGE_PROFILE, else the plan's front
    /// matter `profile:` (--plan PLAN), else premium; the source is reported as
    /// flag, env, inheritance or default. Built in: economy, balanced,
    /// premium, fable. Any other NAME is a custom profile,
    /// voyage-profiles/NAME.yaml (or .yml) in the current directory, then in
    /// the data dir (schema `profile`):
    ///
    ///     extends: balanced          # fills the phases left out (default premium)
    ///     phase_models:
    ///       execute: sonnet
    ///     parallel_agents: 2
    ///
    /// COMPOSITION. The brief's front matter phase_signals[PHASE] wins per
    /// field; the profile fills the model; effort defaults to standard.
    ///
    /// OUTPUT:
    ///
    ///     EFFORT: <low|standard|high> (brief|default)
    ///     MODEL: <model> (brief|profile)
    ///     SOURCE: brief|profile|brief+profile
    ///     PROFILE: <name> (<source>, <builtin or file>)
    ///     PARALLEL: <n>
    ///
    /// --json prints {effort, model, source, …} (schema
    /// profile-resolution). The brief is read as `brief validate --soft`
    /// reads it: a brief_version 2.1+ brief without phase_signals gets the
    /// warning BRIEF_V51_MISSING_SIGNALS on stderr, and its errors
    /// (BRIEF_INVALID_EFFORT, BRIEF_FRONT_MATTER, …) stop the resolution; a
    /// brief without front matter simply has no signals.
    ///
    /// Exit status: 0 resolved, 1 unknown profile, bad brief or profile
    /// content, or a --plan that is not a plan; 2 unreadable brief or plan,
    /// or unknown phase.
    #[command(verbatim_doc_comment)]
    Resolve {
        /// brief, research, plan, execute or review.
        #[arg(long, value_name = "PHASE")]
        phase: String,
        /// The brief.md whose phase_signals to use.
        #[arg(long, value_name = "PATH")]
        brief: Option<PathBuf>,
        /// The profile's name.
        #[arg(long, value_name = "NAME")]
        profile: Option<String>,
        /// The plan whose front matter `profile:` is inherited.
        #[arg(long, value_name = "PLAN")]
        plan: Option<PathBuf>,
        /// Print the resolution as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// Parse, check and preview trekplans and session specs.
///
/// A trekplan has `## Implementation Plan` with `### Step N: description`
/// headings; a session spec has `## Dependencies` (with `Entry condition:`),
/// `## Scope Fence` and `## Exit Condition`. Each step may carry Files,
/// Changes, Reuses, Test first, Verify, On failure, Checkpoint and a
/// Manifest (a ```yaml fence); plans at `plan_version: 1.7` or later must
/// carry a manifest per step, older ones get one synthesised.
#[derive(Debug, clap::Subcommand)]
pub enum PlanCommand {
    /// Check a plan's schema: the READY / FAIL report.
    ///
    /// Every problem has a stable code and a line, for example
    /// PLAN_MISSING_MANIFEST, PLAN_MALFORMED_YAML, PLAN_INVALID_REGEX,
    /// PLAN_REGEX_UNSUPPORTED (lookaround, backreferences),
    /// PLAN_FORBIDDEN_HEADING, PLAN_STRATEGY_SCOPE_OVERLAP, and the warnings
    /// PLAN_MISSING_VERIFY, PLAN_LEGACY, NO_VERIFICATION_SECTION and
    /// NO_CRITERIA. `--json` prints `{file, status, valid, type,
    /// plan_version, legacy_plan, steps, manifests_valid,
    /// manifests_synthesized, errors[], warnings[]}`, each problem
    /// `{code, severity, message, file, line, step}`.
    ///
    /// Exit status: 0 READY, 1 FAIL, 2 the file cannot be read.
    Validate {
        /// Warnings fail the validation too.
        #[arg(long)]
        strict: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// The plan file.
        plan: PathBuf,
    },
    /// Print the parsed plan: every step, field, manifest, session and
    /// criterion with its source line (see `voyage-helper schema plan`).
    ///
    /// Without --json, the short summary of trekexecute Phase 2. Exit status:
    /// 0 parsed, 1 not a plan, 2 unreadable.
    Show {
        /// Print the whole model as JSON.
        #[arg(long)]
        json: bool,
        plan: PathBuf,
    },
    /// Preview a run without running anything: the step table, each file a
    /// step names checked below the repository root, entry and exit
    /// conditions, the sessions and waves with the command that starts each
    /// session, and the verdict (READY or NEEDS ATTENTION).
    ///
    /// Exit status: 0 READY, 1 NEEDS ATTENTION, 2 unreadable.
    DryRun {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        plan: PathBuf,
    },
}

/// Check a `brief.md`'s front matter.
#[derive(Debug, clap::Subcommand)]
pub enum BriefCommand {
    /// Check brief_version and phase_signals (effort low, standard or high,
    /// optional model, per phase).
    ///
    /// A brief at brief_version 2.1 or later needs phase_signals, or
    /// `phase_signals_partial: true` (BRIEF_V51_MISSING_SIGNALS). Exit
    /// status: 0 valid, 1 not, 2 unreadable.
    Validate {
        /// Report missing phase signals as a warning, not an error.
        #[arg(long)]
        soft: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        brief: PathBuf,
    },
}

/// Check commands against the security denylist before they run.
///
/// The denylist (trekexecute Phase 2.4, Sub-step D1, Hard rules 14 to 16)
/// is judged on what bash would actually run: the command is parsed by a
/// real shell parser, wrappers (sudo, env, xargs, find -exec, timeout, ...)
/// come off, code given to bash -c, eval, a here-document or a pipe into a
/// shell is parsed and judged in turn, and every spelling of a flag counts.
/// Text that is only data (echo 'rm -rf /', a commit message, a grep
/// pattern) is never judged as a command.
#[derive(Debug, clap::Subcommand)]
pub enum ScanCommand {
    Command(ScanCommandArgs),
    Plan(ScanPlanArgs),
}

/// Scan every command of a plan before it runs (trekexecute Phase 2.4).
///
/// Judges each step's Verify and Checkpoint command, the Exit Condition
/// checklist and the Verification criteria, with the same engine and rules
/// as `scan command`. OUTPUT, for each rule that fired:
///
///     Security scan: Step <N> — <Verify|Checkpoint> (line <L>)
///                    or: <Exit Condition|Verification> (line <L>)
///       Command: <the command as the plan writes it>
///       BLOCKED|WARNING: <pattern name> (<rule-id>)
///
/// then, when anything is blocked:
///
///     SECURITY SCAN FAILED: <n> dangerous command(s) found in plan.
///     Blocked commands:
///       Step <N>: <command> → <pattern name>: <what matched>
///     ...and the options (fix the plan, --dry-run, --fg)
///
/// otherwise the warnings, if any, under `Security advisories:` as
/// `  Step <N>: <command> → <pattern name> (<safer alternative>)`, and last
/// `Security scan: PASS (<n> commands checked)`.
///
/// `--json` prints {"file", "status": "FAILED"|"PASS", "commands_checked",
/// "blocked_commands", "commands_with_advisories", "commands": [{"kind",
/// "step", "line", "command", "decision", "findings": [...]}]} (schema:
/// scan-plan); an unreadable plan prints {"file", "status": "ERROR",
/// "error": {"code", "message"}}.
///
/// Exit status: 0 nothing blocked, 1 a command is blocked, 2 the plan cannot
/// be read or is no plan.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ScanPlanArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,

    /// The plan file.
    pub plan: PathBuf,
}

impl ScanPlanArgs {
    pub fn into_options(self) -> scan::plan::Options {
        scan::plan::Options {
            plan: self.plan,
            json: self.json,
            context: scan::Context::from_env(),
        }
    }
}

/// Judge one shell command line.
///
/// OUTPUT, one block per rule that fired, then the result line:
///
///     BLOCKED: <rule-id> (<pattern name>)      or WARNING: ...
///       Command: <the command as judged, wrappers and quoting removed>
///       Why: <what matched>
///       Inside: <bash -c > $(...) ...>       only for nested code
///       Safer: <what to do instead>
///     RESULT: BLOCKED|WARNING|PASS (<n> blocked, <n> warnings)
///
/// `--json` prints one object instead: {"command", "decision":
/// "block"|"warn"|"allow", "findings": [{"rule", "severity", "name",
/// "command", "detail", "via", "instead"}]} (schema: scan-command).
///
/// RULES. Blocked: rm-recursive-force, rm-critical-path,
/// chmod-world-writable, download-to-shell, decode-to-shell, eval-expansion,
/// disk-format, disk-write, system-power, fork-bomb, cron-persistence,
/// kill-all, history-erase, git-hooks-write, credentials-write,
/// env-file-write, shell-config-write, claude-config-write, and unscannable
/// (the parser rejects the command, or it nests deeper than the scanner
/// checks: it fails closed). Warned: dependency-change, git-force-push,
/// git-reset-hard, git-clean-force, find-delete, opaque-command (a command
/// name or shell code only known at run time).
///
/// Exit status: 0 PASS or WARNING, 1 BLOCKED, 2 no command given.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ScanCommandArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,

    /// The command, after `--`; several words are joined with spaces.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

impl ScanCommandArgs {
    pub fn into_options(self) -> scan::CommandOptions {
        let words: Vec<String> = self
            .command
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect();
        scan::CommandOptions {
            command: words.join(" "),
            json: self.json,
            context: scan::Context::from_env(),
        }
    }
}

/// Claude Code hooks.
#[derive(Debug, clap::Subcommand)]
pub enum HookCommand {
    /// The PreToolUse hook: the denylist guard for Bash and file tools.
    ///
    /// Wired by the plugin's hooks/hooks.json for the tools Bash, Write,
    /// Edit, MultiEdit and NotebookEdit. Reads Claude Code's hook JSON on
    /// stdin. For Bash it judges tool_input.command like `scan command`; for
    /// the file tools it judges tool_input.file_path (notebook_path for
    /// NotebookEdit) against the protected paths (.git/hooks/, ~/.ssh,
    /// ~/.aws, ~/.gnupg, .env files, shell rc files, .claude/settings.json,
    /// .claude/hooks/, block devices, cron tables, shell history).
    ///
    /// OUTPUT on stdout, with exit status 0:
    ///
    ///     blocked  {"hookSpecificOutput":{"hookEventName":"PreToolUse",
    ///               "permissionDecision":"deny",
    ///               "permissionDecisionReason":"voyage: blocked <rule> ..."}}
    ///     warned   {"hookSpecificOutput":{"hookEventName":"PreToolUse",
    ///               "additionalContext":"voyage: warning <rule> ..."},
    ///               "systemMessage":"voyage: warning <rule> ..."}
    ///     allowed  nothing at all (the normal permission flow goes on;
    ///              "allow" is never sent)
    ///
    /// The reason is one line: the rule, the command as judged, what
    /// matched, and a safer alternative. Schema: hook-pre-tool-use-output.
    ///
    /// FAILS OPEN: input that is not JSON, has no tool_name or tool_input,
    /// names another tool or event, or is larger than 64 MiB gets no output
    /// and exit 0, as if the hook were not installed. It never exits 1.
    ///
    /// NEVER FAILS OPEN ON ITS OWN FAULT: if the check itself fails (an
    /// internal error, in any thread), the call is denied as unscannable:
    /// the deny reply above on stdout, the reason on stderr, exit 2 (Claude
    /// Code's blocking error, which blocks whatever stdout holds).
    #[command(verbatim_doc_comment)]
    PreToolUse,
}

/// Run YAML workflows in Executant's format.
///
/// Command, log, loop and nested workflow steps, with a typed event stream.
/// A workflow file has a `goal:`, `steps:` and optional `vars:`; see
/// `voyage-helper schema workflow` for every field, and `examples/` in the
/// repository for runnable ones. Prompt (agent) steps run the Claude Code
/// CLI (`claude`), with the judge, self-healing and a failure retrospective
/// as `workflow run --help` says.
#[derive(Debug, clap::Subcommand)]
pub enum WorkflowCommand {
    Run(WorkflowRunArgs),
    /// Check a workflow file without running it: the schema, vars and
    /// placeholders, and every nested `workflow:` reference (loaded too).
    ///
    /// Problems print as `error[CODE]: message (file:line)`, unknown keys as
    /// warnings. `--json` prints `{file, valid, goal, steps, errors[],
    /// warnings[]}`. Exit status: 0 valid, 2 invalid or unreadable (as
    /// `workflow run` exits on such a file), 1 a malformed --var.
    Validate {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Give a var, as `workflow run` would (repeatable).
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
        /// The workflow file.
        file: PathBuf,
    },
}

/// Run a workflow: each step in order, with a log file and a live view
/// (or, with --ci, an NDJSON event stream).
///
/// STEPS. `command:` runs `sh -c` in the current directory, in its own
/// process group, stdout and stderr merged line by line; `message:` logs a
/// line; `forEach:` (a list, or a shell command whose output lines are the
/// items) and `repeat: N` run their `steps:` once per item, `{{item}}`
/// filled in, `concurrency: N` on a pool of N workers; `workflow:` runs
/// another file as a nested run. `{{var}}` placeholders come from `vars:`,
/// overridden by --var.
///
/// AGENTS. `prompt:` runs `claude --print PROMPT --output-format stream-json
/// --verbose --permission-mode bypassPermissions --model MODEL` (model:
/// defaults to sonnet; allowed_tools: [..] becomes --allowedTools and
/// --tools, the set the model is offered, [] none at all;
/// append_system_prompt: is passed on; context: files come before the
/// prompt). The agent's words, tool calls, cost and tokens become
/// events; the run's report sums the cost. Running as root, the CLI wants
/// IS_SANDBOX=1 for bypassPermissions. A step asking for another provider
/// (provider:, VOYAGE_PROVIDER, EXECUTANT_PROVIDER) fails with
/// WORKFLOW_NO_PROVIDER. A command step with self_healing: true that fails
/// is handed to claude (sonnet, Bash/Read/Write/Edit/Glob/Grep) to fix the
/// cause, then runs again, up to max_healing_attempts runs (default 5);
/// only the command's exit code decides (step:healing events). A prompt
/// step with llm_as_judge: true is graded after each attempt by a second
/// claude that may only read (Read, Grep, Glob); a rejected attempt runs
/// again with the feedback, up to 5 attempts (step:judge events).
///
/// OUTPUT. With --ci, one JSON event per line on stdout, in Executant's
/// format (`voyage-helper schema event`): workflow:start, step:start,
/// log, output:text, step:complete or step:error, ..., workflow:report,
/// workflow:complete. Without it, a line per step with its status and
/// duration, the step's output under it (on a terminal only its last 5
/// lines, redrawn in place), and a summary. Either way a log
/// file goes to `.claude/voyage.local/logs/<UTC YYYYMMDD-HHMMSS>_<goal>.log`
/// (the nearest `.claude/voyage.local` from the workflow's directory up to
/// its git work tree's root, else one in the workflow's directory);
/// VOYAGE_LOG=0 or EXECUTANT_LOG=0 turn it off.
/// Warnings and the error that ended a run go to stderr.
///
/// CANCEL. A file `.voyage-cancel` (or `.executant-cancel`) in the
/// workflow's directory stops the run before its next step (nested runs
/// check it too); it is removed when seen. SIGINT, SIGTERM and SIGHUP stop
/// the running command's process group and cancel the run the same way.
///
/// Exit status: 0 success, 1 a step failed (or a bad flag value), 2 the
/// file, its vars or a nested reference is invalid, 3 a step timed out
/// (timeout_seconds), 4 cancelled.
#[derive(Debug, Args)]
pub struct WorkflowRunArgs {
    /// Print NDJSON events on stdout instead of the live view.
    #[arg(long)]
    pub ci: bool,
    /// Run only this top-level step (its name, or its number from 1); the
    /// others are skipped.
    #[arg(long, value_name = "NAME|N")]
    pub step: Option<String>,
    /// Resume: skip the steps before N. A dotted path goes on into loops:
    /// 3.2.1 is step 3, its iteration 2, that iteration's child 1.
    #[arg(long, value_name = "N[.M...]")]
    pub from_step: Option<String>,
    /// Stop after top-level step N (inclusive).
    #[arg(long, value_name = "N")]
    pub to_step: Option<String>,
    /// Set a var declared under `vars:` (repeatable); required vars (those
    /// declared without a value) must be given.
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// No post-mortem of a failed run. Without it, when a workflow with
    /// agent steps fails, one claude call without tools explains why
    /// (step:retrospective); VOYAGE_RETROSPECTIVE=0 or
    /// EXECUTANT_RETROSPECTIVE=0 also turn it off.
    #[arg(long)]
    pub no_retrospective: bool,
    /// The workflow file.
    pub file: PathBuf,
}

impl WorkflowRunArgs {
    pub fn into_options(self) -> crate::workflow::command::RunArgs {
        crate::workflow::command::RunArgs {
            file: self.file,
            ci: self.ci,
            step: self.step,
            from_step: self.from_step,
            to_step: self.to_step,
            vars: self.vars,
            no_retrospective: self.no_retrospective,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// The list of commands (help, completions) is drawn before a deferred
    /// command is built: each must already carry the about it gets built.
    #[test]
    fn deferred_commands_have_their_about_before_they_are_built() {
        let shallow = Cli::command();
        let mut built = Cli::command();
        built.build();
        for command in built.get_subcommands() {
            let name = command.get_name();
            // `help` is added by the build itself.
            let Some(unbuilt) = shallow.find_subcommand(name) else {
                continue;
            };
            let before = unbuilt.get_about().map(ToString::to_string);
            let after = command.get_about().map(ToString::to_string);
            assert_eq!(before, after, "{name}");
        }
    }
}
