//! The command-line tree (clap derive). Only shapes and docs live here; each
//! area turns its arguments into its own `Options` (STYLE.md pattern 4).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser};
use clap_complete::Shell;

use crate::{run, scan, verdict};

/// The deterministic half of the Voyage Claude Code plugin.
///
/// Voyage executes long coding plans with Claude Code without trusting the
/// agent's word for "done". This binary does every part that needs no model:
/// running a command with a log and a verdict, validating plans, judging
/// commands against the security denylist (also as Claude Code's PreToolUse
/// hook), and (in later releases) auditing steps and running YAML workflows.
///
/// Exit codes: 0 checked and fine, 1 checked and not fine, 2 could not check
/// (usage error, unreadable input). `run`, `verdict` and `hook pre-tool-use`
/// document their own.
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

#[derive(Debug, clap::Subcommand)]
pub enum Subcommand {
    Run(RunArgs),
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
    /// OUTPUT on stdout, always with exit status 0:
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
    /// and exit 0, as if the hook were not installed. It never exits 1 or 2.
    #[command(verbatim_doc_comment)]
    PreToolUse,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
