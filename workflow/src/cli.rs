//! `workflow`'s command line: its subcommands and flags, each run by
//! [`Command::execute`] through [`super::command`], the area's I/O edge.
//! The environment's settings (`VOYAGE_*`, then `EXECUTANT_*`) are read
//! once, there ([`Settings::from_env`]).

use std::io::{self, Write};
use std::path::PathBuf;

use super::authoring;
use super::command;
use super::settings::Settings;

/// Run YAML workflows in Executant's format, or have an agent write one.
///
/// Command, log, loop and nested workflow steps, with a typed event stream;
/// `workflow plan` and `workflow refine` write and rewrite workflow files.
/// A workflow file has a `goal:`, `steps:` and optional `vars:`; see
/// `voyage-helper schema workflow` for every field, and `examples/` in the
/// repository for runnable ones. Prompt (agent) steps run the Claude Code
/// CLI (`claude`) or OpenCode (`opencode`), with the judge, self-healing
/// and a failure retrospective as `workflow run --help` says.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Run(RunArgs),
    /// Check a workflow file without running it: the schema, vars and
    /// placeholders, and every nested `workflow:` reference (loaded too).
    ///
    /// Problems print as `error[CODE]: message (file:line)`, unknown keys as
    /// warnings. `--json` prints `{file, valid, goal, steps, errors[],
    /// warnings[]}`. A workflow path (or a nested reference) that is not a
    /// regular file is refused with WORKFLOW_NOT_A_FILE, a file over 16 MiB
    /// with WORKFLOW_TOO_LARGE. Exit status: 0 valid, 2 invalid or
    /// unreadable (as `workflow run` exits on such a file), 1 a malformed
    /// --var.
    Validate(ValidateArgs),
    Plan(PlanArgs),
    Refine(RefineArgs),
}

impl Command {
    /// Runs the subcommand; a write error of `out` is returned.
    pub fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Run(args) => command::run(&args, Settings::from_env(), out),
            Self::Validate(args) => command::validate(&args, &Settings::from_env(), out),
            Self::Plan(args) => authoring::plan(&args, Settings::from_env(), out),
            Self::Refine(args) => authoring::refine(&args, Settings::from_env(), out),
        }
    }
}

// The flags of each subcommand. Its help is the variant's doc comment; a
// doc comment on the struct would be a second source of it (clap reads both).
#[derive(Debug, Clone, clap::Args)]
pub struct ValidateArgs {
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// `github`: each error and warning as a GitHub Actions annotation,
    /// `::error file=…,line=…,title=CODE::message`, shown on the workflow
    /// file's line in a pull request; `json` is --json, `text` the default.
    #[arg(long, value_name = "FORMAT", value_parser = |s: &str| s.parse::<crate::problem::Format>())]
    pub format: Option<crate::problem::Format>,
    /// Give a var, as `workflow run` would (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// The workflow file, or an http(s) URL (fetched as `workflow run`
    /// fetches it).
    pub file: PathBuf,
}

/// Write a workflow from a description: an agent researches the project,
/// drafts the file and reviews the draft.
///
/// Three passes through the provider the environment names
/// (VOYAGE_PROVIDER / EXECUTANT_PROVIDER, else claude; VOYAGE_MODEL /
/// EXECUTANT_MODEL, else sonnet on claude and OpenCode's default on
/// opencode), none of which may change anything: research (Read, Grep,
/// Glob) reads the project in the current directory for its commands and
/// layout; decompose writes the YAML, shown the format's schema; a review
/// (Read, Grep, Glob) checks the draft against the description. A draft
/// must load as `workflow validate` would load it (the loader, nested
/// references, schemas/workflow.schema.json); when it does not, or the
/// review rejects it, its problems go back to the next draft, up to 3
/// drafts in all. Progress goes to stderr as `plan: …` lines while the
/// passes run.
///
/// With -o the file is written atomically (only when a draft loads; an
/// existing file is otherwise left as it was) and a line saying so, with
/// the goal, the step count, the attempts and the cost, goes to stdout;
/// without -o the YAML itself goes to stdout. --fast skips the research
/// and the review. For example:
///
///   voyage-helper workflow plan "Add a --version flag and test it" -o flows/version.yaml
///   VOYAGE_PROVIDER=opencode voyage-helper workflow plan --fast "Lint, then test" > ci.yaml
///
/// Exit status: 0 written, 1 no draft loaded in 3 attempts
/// (WORKFLOW_PLAN_INVALID, with the last one's problems), 2 could not try
/// (no description, the agent failed or is missing, the file cannot be
/// written, a stopping signal: WORKFLOW_PLAN_CANCELLED). A written
/// workflow the review still rejected on the last attempt comes with a
/// WORKFLOW_PLAN_CONCERNS warning.
#[derive(Debug, Clone, clap::Args)]
pub struct PlanArgs {
    /// Where to write the workflow (atomically); without it, stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Skip the research and review passes: one call per draft.
    #[arg(long)]
    pub fast: bool,
    /// What the workflow should do, in words.
    pub description: String,
}

/// Rewrite a workflow file as an instruction says, the same way `plan`
/// writes one.
///
/// The research, decompose and review passes of `workflow plan --help`,
/// given the file's current text and the instruction; the result must load
/// as `workflow validate` would load the file where it is (nested
/// references from its directory), up to 3 drafts, each told what was
/// wrong with the last. The file is replaced atomically, and only then: on
/// any failure (no draft loads, the agent fails, a signal) the original is
/// kept byte for byte. A line on stdout says what was written; progress
/// goes to stderr as `refine: …` lines. For example:
///
///   voyage-helper workflow refine flows/release.yaml --instruction "Run the tests before tagging"
///
/// Exit status as for `plan`: 0 written, 1 no draft loaded
/// (WORKFLOW_PLAN_INVALID), 2 could not try (an unreadable file, an empty
/// instruction, the agent, a signal).
#[derive(Debug, Clone, clap::Args)]
pub struct RefineArgs {
    /// What to change, in words.
    #[arg(long, value_name = "TEXT")]
    pub instruction: String,
    /// Skip the research and review passes: one call per draft.
    #[arg(long)]
    pub fast: bool,
    /// The workflow file to rewrite.
    pub file: PathBuf,
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
/// IS_SANDBOX=1 for bypassPermissions.
///
/// GUARD. Every claude agent of a run (prompt steps, self-healing, the
/// judge, the retrospective) also gets `--settings` attaching this
/// helper's `hook pre-tool-use` as a PreToolUse hook, whatever the user's
/// settings say: a call the denylist refuses does not run, the agent is
/// told the rule's reason, and a step:denied event records it.
/// VOYAGE_WORKFLOW_GUARD=off turns the guard off; the run warns and its
/// report says guard: off.
///
/// OPENCODE. `provider: opencode` on a step, or VOYAGE_PROVIDER=opencode
/// (EXECUTANT_PROVIDER=opencode) for steps that name none, runs
/// `opencode run --format json --title=STEP [--model=M] [--agent=A]
/// --dangerously-skip-permissions` with the prompt on stdin. The model is
/// the step's model: (OpenCode spells it provider/model), else
/// VOYAGE_MODEL / EXECUTANT_MODEL, else OpenCode's configured default; the
/// agent is the step's agent:, else VOYAGE_AGENT / EXECUTANT_AGENT.
/// allowed_tools: becomes OPENCODE_PERMISSION, denying every OpenCode tool
/// the list does not name (case-insensitively; [] denies them all). Its
/// text, tool calls (named as Claude names them), tokens and cost become
/// the same events as claude's; its errors fail the step. For example:
///
///   VOYAGE_PROVIDER=opencode VOYAGE_MODEL=anthropic/claude-sonnet-4-5 \
///     voyage-helper workflow run --ci flow.yaml
///
/// Another provider name (in VOYAGE_PROVIDER, say) fails the step with
/// WORKFLOW_NO_PROVIDER. A command step with self_healing: true that fails
/// is handed to claude (sonnet, Bash/Read/Write/Edit/Glob/Grep) to fix the
/// cause, then runs again, up to max_healing_attempts runs (default 5);
/// only the command's exit code decides (step:healing events). A prompt
/// step with llm_as_judge: true is graded after each attempt by a second
/// agent that may only read (Read, Grep, Glob): claude on sonnet, or the
/// provider VOYAGE_JUDGE_PROVIDER / EXECUTANT_JUDGE_PROVIDER names (on
/// opencode: VOYAGE_MODEL, else its default); a rejected attempt runs
/// again with the feedback, up to 5 attempts (step:judge events).
///
/// OUTPUT. With --ci, one JSON event per line on stdout, in Executant's
/// format (`voyage-helper schema event`): workflow:start, step:start,
/// log, output:text, step:complete or step:error, ..., workflow:report,
/// workflow:complete. Without it, on a terminal, the full-screen view (see
/// TERMINAL); elsewhere, or with --no-tui, a line per step with its status
/// and duration, the step's output under it (on a terminal only its last 5
/// lines, redrawn in place), and a summary. Either way a log
/// file goes to `.claude/voyage.local/logs/<UTC YYYYMMDD-HHMMSS>_<goal>.log`
/// (the nearest `.claude/voyage.local` from the workflow's directory up to
/// its git work tree's root, else one in the workflow's directory);
/// VOYAGE_LOG=0 or EXECUTANT_LOG=0 turn it off. A successful run's
/// workflow:report sums cost and tokens and tells each step's judge and
/// self-healing history; with VOYAGE_REPORT_SUGGESTION=1 (or
/// EXECUTANT_REPORT_SUGGESTION=1) one more claude call (haiku, no tools,
/// at most 600 s) adds a one-sentence `suggestion` to it and to the log,
/// or a warning with the reason it could not.
/// Warnings and the error that ended a run go to stderr. If stdout cannot
/// be written, the run is stopped as SIGTERM would stop it, and exits 2
/// with `error: cannot write output: ...` on stderr (0, quietly, when the
/// reader closed the pipe).
///
/// REMOTE. FILE may be an http(s) URL, and so may a `workflow:` step's
/// reference: the file is fetched before anything runs. GitHub blob pages
/// (github.com/OWNER/REPO/blob/REF/PATH) and gist pages are read from their
/// raw files; for raw.githubusercontent.com and gist.githubusercontent.com
/// only (over https), the output of `gh auth token` (when gh is installed and logged in)
/// goes with the request, so private files work; a 401, 403 or 404 from
/// GitHub says to run `gh auth login`. A reference inside a fetched
/// workflow is joined to its URL, never read from the disk (`/x.yaml` is
/// the same host's /x.yaml). A fetched workflow has no directory of its
/// own: the current directory is the run's (cancel file, log directory,
/// VOYAGE_WORKFLOW_DIR). A download may take VOYAGE_FETCH_TIMEOUT seconds
/// (default 30; WORKFLOW_FETCH_TIMEOUT) and 16 MiB (WORKFLOW_TOO_LARGE);
/// an HTTP error or no connection is WORKFLOW_FETCH_FAILED, another scheme
/// WORKFLOW_REMOTE_UNSUPPORTED, each exit 2. For example:
///
///   voyage-helper workflow run https://github.com/OWNER/REPO/blob/main/flows/release.yaml
///
/// TERMINAL. When stdout is a terminal (TERM set, not dumb) and neither
/// --ci nor --no-tui is given, the run is drawn full-screen: every step
/// with its mark and duration, a running loop's last 8 iterations, the
/// running step's output, a status bar (repository, branch, and how full
/// the running agent session's context is: 10 cells, yellow from 70%, red
/// from 90%; VOYAGE_STATUSLINE=0 or EXECUTANT_STATUSLINE=0 turn it off)
/// and a line of keys: arrows, j/k, PageUp/PageDown scroll the output (End
/// back to the tail); [ and ] shrink and grow its pane (kept for the run);
/// i types a correction for the next prompt step (see INTERJECT); Ctrl-C
/// stops the run as SIGINT does. After a failure with a retrospective the
/// analysis is shown (o: the step's output; u: leave and run `workflow
/// refine FILE --instruction TEXT` with its fix, the exit code unchanged);
/// after a success the report, where a asks for the efficiency suggestion
/// and any other key exits. Without a terminal on stdin it never waits.
/// The terminal is restored however the run ends, and a summary printed.
///
/// INTERJECT. A correction typed after i, or a line appended to
/// --interject-file FILE, is queued for the next prompt step, whose prompt
/// gets it in front: `[User correction from a previous step]`, the
/// messages, `---`, then the prompt (a log event records each). The file
/// holds one message per line; each prompt step takes the lines completed
/// since the last one (blank lines are skipped); it may not exist yet, but
/// a directory or FIFO is refused (exit 1). For example:
///
///   voyage-helper workflow run --interject-file notes.txt flows/release.yaml &
///   echo "the staging database is db2, not db1" >> notes.txt
///
/// TELEMETRY. With OTEL_EXPORTER_OTLP_ENDPOINT set (and only then), the run
/// goes to that OpenTelemetry collector as OTLP/HTTP JSON (POST /v1/traces
/// and /v1/metrics; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and
/// ..._METRICS_ENDPOINT name full URLs): a voyage.run root span with the
/// report's totals, a span per top-level step (index, type, provider,
/// model, cost) and per iteration of a top-level loop, tool, healing and
/// judge span events (never a tool's input or an output line), a failed
/// step's error as an exception event of at most 1,000 characters, and the
/// metrics voyage.step.duration, voyage.step.errors, voyage.cost.usd (by
/// provider), voyage.healing.attempts and voyage.judge.verdicts. Every
/// command, agent and item source gets TRACEPARENT (its step's span); a
/// TRACEPARENT in our own environment makes the run its child. The export
/// never holds the run up; at the end it gets about 3 s at most, spans
/// left open (a cancel, a signal) end with voyage.aborted=true, and a
/// WORKFLOW_TELEMETRY warning says what was lost. OTEL_EXPORTER_OTLP_HEADERS,
/// OTEL_SERVICE_NAME (default voyage-helper), OTEL_RESOURCE_ATTRIBUTES,
/// OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER/OTEL_METRICS_EXPORTER=none and
/// OTEL_METRIC_EXPORT_INTERVAL are read; only http/json is spoken
/// (OTEL_EXPORTER_OTLP_PROTOCOL=grpc gets a warning). For example:
///
///   OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 voyage-helper workflow run flow.yaml
///
/// CANCEL. A file `.voyage-cancel` (or `.executant-cancel`) in the
/// workflow's directory stops the run before its next step (nested runs
/// check it too); it is removed when seen. SIGINT, SIGTERM and SIGHUP stop
/// the running command's process group and cancel the run the same way.
///
/// Exit status: 0 success, 1 a step failed (or a bad flag value), 2 the
/// file, its vars or a nested reference is invalid, 3 a step timed out
/// (timeout_seconds), 4 cancelled.
// `--help` text: its brackets and URLs are not rustdoc's links.
#[allow(rustdoc::broken_intra_doc_links, rustdoc::bare_urls)]
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
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
    /// agent steps fails, one agent call without tools explains why
    /// (step:retrospective), on the provider and model the environment
    /// names (VOYAGE_PROVIDER / EXECUTANT_PROVIDER, else claude;
    /// VOYAGE_MODEL / EXECUTANT_MODEL, else the CLI's default), told where
    /// in its loop the step failed; when the analysis itself fails, a
    /// warning gives its cause (a timeout, the API's error).
    /// VOYAGE_RETROSPECTIVE=0 or EXECUTANT_RETROSPECTIVE=0 also turn it off.
    #[arg(long)]
    pub no_retrospective: bool,
    /// The line view instead of the full-screen one, on a terminal too (see
    /// TERMINAL).
    #[arg(long)]
    pub no_tui: bool,
    /// Read corrections for the next prompt step from FILE: one message per
    /// line, appended while the run goes (see INTERJECT).
    #[arg(long, value_name = "FILE")]
    pub interject_file: Option<PathBuf>,
    /// The workflow file, or an http(s) URL to fetch it from (see REMOTE).
    pub file: PathBuf,
}
