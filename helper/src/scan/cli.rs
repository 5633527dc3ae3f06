//! `scan`'s and `hook`'s command lines: their subcommands and flags, each
//! run by an `execute` here. The judging context (`$HOME`) is read once, here
//! at the edge ([`Context::from_env`]).

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;

use super::plan::Scan;
use super::{Context, Decision, judge_command, render_json, render_text};
use crate::exit;
use crate::problem::{Coded, Format};

/// Check commands against the security denylist before they run.
///
/// The denylist (trekexecute Phase 2.4, Sub-step D1, Hard rules 14 to 16)
/// is judged on what bash would actually run: the command is parsed by a
/// real shell parser, wrappers (sudo, env, xargs, find -exec, timeout, ...)
/// come off, code given to bash -c, eval, a here-document or a pipe into a
/// shell is parsed and judged in turn, every spelling of a flag counts, and
/// what the command puts in variables, arrays or `read` is followed to where
/// it is used (`F=-rf; rm $F /` is `rm -rf /`; an expansion that cannot be
/// known is taken as what it could be).
/// Text that is only data (echo 'rm -rf /', a commit message, a grep
/// pattern) is never judged as a command.
// `scan command` is the subcommand's name, not a repeat of the enum's.
#[allow(clippy::enum_variant_names)]
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    Command(ScanCommandArgs),
    Plan(ScanPlanArgs),
    Rules(ScanRulesArgs),
}

/// List the rules, or check that each judges its own examples as it says.
///
/// Every rule of the denylist carries commands it must report (at its
/// severity) and harmless look-alikes it must not: `rm -rf ~/old-project`
/// beside `rm -r build/tmp`, `git push --force origin main` beside `git
/// push origin HEAD`. OUTPUT, one line per rule, in the order the engine
/// reports them:
///
///     <rule-id>  <block|warn>  <pattern name>
///
/// `--check` judges every example as the PreToolUse hook would (the
/// engine, then the hook's wording of its judgement), in this
/// environment ($HOME included), and prints instead one line per example
/// judged wrong, then the result:
///
///     FAIL <rule-id> (engine|hook): `<command>` should be reported
///          (block) as <rule-id>, got <decision> (<rules named>)
///     RESULT: PASS|FAILED (<n> examples of <n> rules, <n> failed)
///
/// `--json` prints one object: {"rules": [{"id", "severity", "name",
/// "catches", "instead", "reports": [...], "allows": [...]}]}, and with
/// `--check` also "check": {"examples", "failures": [{"rule", "command",
/// "wants", "got", "rules", "through", "message"}]} (schema: scan-rules).
///
/// Exit status: 0 listed, or every example judged as its rule says; 1 an
/// example judged wrong (a bug in the engine: report it with the FAIL line).
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct ScanRulesArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,

    /// Judge every rule's examples and exit 1 if any is judged wrong.
    #[arg(long)]
    pub check: bool,
}

/// Scan every command of a plan before it runs (trekexecute Phase 2.4).
///
/// Judges each step's Verify and Checkpoint command, the Exit Condition
/// checklist and the Verification criteria, with the same engine and rules
/// as `scan command`. OUTPUT, for each rule that fired:
///
///     Security scan: Step <N> — <description> (<Verify|Checkpoint>, line <L>)
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
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct ScanPlanArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,

    /// `github`: each blocked command as a GitHub Actions error annotation
    /// and each advisory as a warning, on the command's line of the plan,
    /// titled with the rule id (`::error file=…,line=…,title=RULE::…`);
    /// `json` is --json, `text` the default.
    #[arg(long, value_name = "FORMAT", value_parser = |s: &str| s.parse::<crate::problem::Format>())]
    pub format: Option<crate::problem::Format>,

    /// The plan file.
    pub plan: PathBuf,
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
/// Exit status: 0 PASS or WARNING, 1 BLOCKED, 2 no command given.
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment, after_long_help = super::rules::help_lines())]
pub(crate) struct ScanCommandArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,

    /// The command, after `--`; several words are joined with spaces.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

impl ScanCommandArgs {
    /// The command line judged: the words after `--`, joined with spaces.
    pub(crate) fn line(&self) -> String {
        let words: Vec<String> = self
            .command
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect();
        words.join(" ")
    }
}

impl Command {
    /// Runs the subcommand; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        let ctx = Context::from_env();
        match self {
            Self::Command(args) => execute_command(&args, &ctx, out),
            Self::Plan(args) => execute_plan(&args, &ctx, out),
            Self::Rules(args) => super::rules::execute(args.json, args.check, &ctx, out),
        }
    }
}

/// Claude Code hooks.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum HookCommand {
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
    /// WHILE A /trekexecute RUN IS IN PROGRESS (a run marker,
    /// <git dir>/voyage-run.json, in a work tree the call writes into, or
    /// around the input's cwd or $CLAUDE_PROJECT_DIR; nested repositories
    /// and submodules are walked past), every write the call makes is also
    /// held to the run's scope: the file tool's path, and each write target
    /// the engine finds in a Bash command (every redirection, tee,
    /// cp/mv/install, sed -i, touch, mkdir, rm, ln, truncate, dd of=, ...),
    /// relative paths seen from the cwd after any `cd`, `..` resolved,
    /// links followed on both sides (the step's Files too). Denied, each
    /// with its own reason:
    ///
    ///     run-outside-repo       outside the repository root (Hard rule 15);
    ///                            ~/.claude/ and /dev/null, /dev/tty and the
    ///                            standard streams (/dev/stdout, /dev/fd/0-2)
    ///                            are open; /dev/fd/N of a descriptor the
    ///                            command opened is the file it opened
    ///     run-memory-write       ~/.claude/projects/*/memory/ without the
    ///                            step's memory_write: true
    ///     run-never-touch        a Never-touch path (Hard rule 8)
    ///     run-outside-step       not in the current step's Files (Hard rule
    ///                            2): leave it, record a finding instead
    ///     run-between-steps      any write while no step is in progress
    ///     run-marker-write       the marker, the progress file, the plan
    ///     run-release            the agent running `trek release`
    ///     run-unknown-target     a target only known at run time (> "$X"),
    ///                            where the kernel cannot fence
    ///     run-trek-alone         a `voyage-helper trek` call run with other
    ///                            commands while the kernel fences the run
    ///                            (`| tail`, `&&`): run it on its own
    ///     run-marker-unreadable  a marker that cannot be read or parsed, or
    ///                            whose progress file is missing, unreadable
    ///                            or not in_progress (the guard fails closed
    ///                            until `trek release`, run by the user)
    ///
    /// For example, with step 2's Files `src/a.rs` and a live marker:
    ///
    ///     echo x > src/a.rs     allowed (no output)
    ///     echo x > src/b.rs     "voyage: blocked run-outside-step (Hard rule 2:
    ///                           only the step's Files): `src/b.rs` touches
    ///                           src/b.rs, which is not in step 2's Files ..."
    ///
    /// A call that writes nothing is never affected, and a denylist denial
    /// stays as it is.
    ///
    /// WHERE THE KERNEL FENCES THE RUN (`voyage-helper scope status`), a
    /// Bash call the judge lets through is rewritten instead of answered:
    /// the reply's hookSpecificOutput.updatedInput holds the call with its
    /// command run by `voyage-helper scope exec` (no permissionDecision, so
    /// the user's permission flow judges the rewritten call), and a target
    /// only known at run time is left to the kernel. The helper's own plain
    /// `trek` calls are not rewritten.
    ///
    /// IN A SESSION NOBODY WATCHES (CLAUDE_CODE_ENTRYPOINT sdk-cli for
    /// `claude -p`, sdk-ts, sdk-py, claude-code-github-action, mcp), a Bash
    /// call that answers the main-merge gate (`voyage-helper trek finish
    /// --gate …`) is denied as gate-operator, run or no run: that answer is
    /// the operator's, given from a shell.
    ///
    /// INPUT is read leniently: any nesting depth, lone surrogate escapes
    /// and invalid UTF-8 (both read as U+FFFD), a leading byte-order mark;
    /// unknown fields are skipped, and of a repeated key the last counts.
    /// A command holding a NUL character is denied as unscannable.
    ///
    /// FAILS OPEN ONLY WHEN THERE IS NOTHING TO JUDGE: input that is not a
    /// JSON object at all, names another event or another tool, or is a
    /// whole object without a tool_name, a tool_input object or a command
    /// (path) string gets no output and exit 0, as if the hook were not
    /// installed. It never exits 1.
    ///
    /// CANNOT READ, DENIES: a call for Bash or a file tool (or one that
    /// names no tool before it breaks off) whose input is cut short, not
    /// well-formed JSON, unreadable, or larger than 64 MiB (only 64 MiB are
    /// read) is denied as unscannable, with the reason saying which.
    ///
    /// NEVER FAILS OPEN ON ITS OWN FAULT: if the check itself fails (a
    /// panic, an allocation that fails, a crash such as a stack overflow,
    /// in any thread), the call is denied as unscannable: the deny reply
    /// above on stdout, the reason on stderr, exit 2 (Claude Code's
    /// blocking error, which blocks whatever stdout holds). A denial that
    /// cannot be written to stdout is made the same way: its reason on
    /// stderr, exit 2. Any other answer that cannot be written is no
    /// decision (exit 0).
    ///
    /// UNDER A MEMORY LIMIT (ulimit -v, a container's): nothing large is
    /// reserved up front, so a command is judged as usual wherever the
    /// helper can start at all (about 16 MB of address space for the
    /// static release build); what the limit does not leave room for (a
    /// huge or deeply nested command) is denied as unscannable, the reason
    /// saying the check ran out of memory.
    #[command(verbatim_doc_comment)]
    PreToolUse,
    /// The SessionStart hook: nothing to do once the helper runs.
    ///
    /// The plugin's launcher (plugin/bin/voyage-helper) answers this hook
    /// itself, before any binary exists: it appends
    /// `export VOYAGE_DATA_DIR='…'` (the hooks' $CLAUDE_PLUGIN_DATA) to
    /// $CLAUDE_ENV_FILE, so the agent's
    /// Bash calls (`trek`, `stats`, `event`) write to the data dir the hooks
    /// get, and it starts the helper's build in the background when the
    /// binary is missing or older than the plugin's source, saying so in
    /// one line. The helper, once built, only reads the hook's input and
    /// prints nothing (exit 0): a hooks.json that calls the binary itself
    /// instead of the launcher loses both.
    SessionStart,
}

impl HookCommand {
    /// Runs the hook. It answers through its exit status and never returns
    /// a write error: see [`super::hook::execute`].
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::PreToolUse => Ok(super::hook::execute(out)),
            Self::SessionStart => {
                // Drained so that Claude Code's write never fails.
                let _ = io::copy(&mut io::stdin().lock(), &mut io::sink());
                Ok(crate::exit::OK)
            }
        }
    }
}

/// `scan command`: judges the command, prints the result to `out`, and
/// returns the exit code: 0 pass or warning, 1 blocked, 2 no command (or
/// the error writing the result).
fn execute_command(args: &ScanCommandArgs, ctx: &Context, out: &mut impl Write) -> io::Result<u8> {
    let command = args.line();
    if command.trim().is_empty() {
        eprintln!("error: no command given (voyage-helper scan command -- COMMAND)");
        return Ok(exit::CANNOT_CHECK);
    }
    let judgement = judge_command(&command, ctx);
    if args.json {
        render_json(&command, &judgement, out)?;
    } else {
        render_text(&judgement, out)?;
    }
    out.flush()?;
    Ok(match judgement.decision() {
        Decision::Block => exit::NOT_OK,
        Decision::Warn | Decision::Allow => exit::OK,
    })
}

/// `scan plan`: 0 nothing blocked, 1 something blocked, 2 the plan cannot
/// be read or is no plan (or the error writing the result).
fn execute_plan(args: &ScanPlanArgs, ctx: &Context, out: &mut impl Write) -> io::Result<u8> {
    let github = args.format == Some(Format::Github);
    let json = args.json || args.format == Some(Format::Json);
    let scan = match Scan::of(&args.plan, ctx) {
        Ok(scan) => scan,
        Err(e) if github => {
            crate::problem::render_github_all(&[e.problem()], &args.plan, out)?;
            out.flush()?;
            return Ok(exit::CANNOT_CHECK);
        }
        Err(e) => {
            if json {
                let body = serde_json::json!({
                    "file": args.plan.display().to_string(),
                    "status": "ERROR",
                    "error": {"code": e.code(), "message": e.to_string()},
                });
                writeln!(out, "{body}")?;
                out.flush()?;
            } else {
                crate::problem::eprint_all(&[e.problem()]);
            }
            return Ok(exit::CANNOT_CHECK);
        }
    };
    if github {
        crate::problem::render_github_all(&scan.problems(), &args.plan, out)?;
    } else if json {
        scan.render_json(out)?;
    } else {
        scan.render_text(out)?;
    }
    out.flush()?;
    Ok(if scan.blocked() > 0 {
        exit::NOT_OK
    } else {
        exit::OK
    })
}
