//! `criteria`'s and `entry`'s command lines: their subcommands and flags,
//! each run by an `execute` here. The judging context (`$HOME`) and the
//! working directory are resolved once, here at the edge.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::ops::{Request, Verification, check_entry, run_criteria};
use super::render;

/// Run a plan's end-to-end checks (trekexecute Phase 7).
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    Run(RunArgs),
}

/// Check a session spec's entry condition (trekexecute Phase 4).
#[derive(Debug, clap::Subcommand)]
pub(crate) enum EntryCommand {
    Check(CheckArgs),
}

/// Run a plan's Verification (or a session spec's Exit Condition) criteria.
///
/// The criteria are a trekplan's `## Verification` or a session spec's
/// `## Exit Condition` checklist; exit 0 means every one passed. The runner
/// reads two forms, nothing else: a bullet whose first backticked
/// span is the command (`- [ ] `cargo test` — the whole suite passes`), and
/// each command line of a fence tagged bash, sh, shell or console (in console
/// fences the lines after `$ `). Each criterion, in file order:
///
///   1. is screened by the denylist engine (the rules of `scan command`); a
///      blocked one is BLOCKED and never runs;
///   2. must be a test, lint or build run on the allowlist below, else it is
///      NOT RUN (unrunnable) and never runs;
///   3. runs in the FOREGROUND as `bash -o pipefail -c COMMAND` in --cwd, in
///      a process group of its own, stdin from /dev/null, through the same
///      supervisor as `run`: at --timeout the whole group gets SIGTERM, 2 s
///      of grace, then SIGKILL (exit 124, FAIL).
///
/// ALLOWLIST. A command line of simple commands joined by &&, ||, ; or |
/// (no $(…), backticks, <(…), background &, functions or compound
/// commands), where each pipeline starts with a runner or a check (or is a
/// lone `cd DIR`, DIR relative and without ..) and later pipe stages may be
/// head, tail, grep, wc, sort, uniq, cut, tr or cat. `env VAR=…`, `timeout N` and `VAR=… ` before a
/// command are read through.
///
///   Rust        cargo test|nextest|build|check|clippy|fmt|doc|bench|llvm-cov|
///               tarpaulin|deny|audit|machete|hack|miri, cargo-nextest, rustfmt
///   JS/TS       npm test|run|lint|build, pnpm/yarn test|run|lint|build|check|…,
///               bun test|run, npx/bunx <a runner>, node --test,
///               deno test|lint|fmt|check|bench|task, jest, vitest, mocha,
///               tsc, eslint, prettier, biome, stylelint, ava, tap, oxlint,
///               vue-tsc, svelte-check, playwright test, cypress run,
///               turbo run|test|…, nx test|lint|…
///   Python      pytest, tox, nox, ruff, mypy, pyright, flake8, pylint, black,
///               isort, pycodestyle, pydocstyle, pyflakes, bandit, pytype,
///               python[3] -m pytest|unittest|mypy|ruff|pycodestyle|…,
///               uv/poetry/pipenv/pdm/rye/pixi/hatch run <a runner>,
///               coverage run -m <a module>, hatch test
///   Go          go test|vet|build, go run <a listed tool>, gofmt,
///               golangci-lint, staticcheck, govulncheck
///   Build       make, just, ninja, cmake --build, ctest, meson test|compile,
///               bazel test|build, gradle, mvn, sbt, ant, dotnet test|build|
///               format, swift test|build, xcodebuild, zig build|test, stack/
///               cabal/dune test|build, mix test|compile|format|credo, rebar3,
///               flutter test|analyze, dart test|analyze|format
///   Ruby, PHP   rake, rspec, rubocop, standardrb, bundle exec <a runner>,
///               ruby TEST_SCRIPT, phpunit, pest, phpstan, psalm, phpcs,
///               composer test|run|validate|lint|check
///   Shell       shellcheck, shfmt, bats, bash|sh -n FILE…, and test scripts:
///               bash|sh|python SCRIPT or ./SCRIPT, SCRIPT a relative path in
///               the tree (no ..) under tests/, test/ or spec/, or named
///               test*, check*, lint*, verify*, validate*, smoke*, build*,
///               ci*, e2e*, format*, fmt*, style*, typecheck*, coverage*
///               (bash scripts/smoke.sh, bash format.sh)
///   Checks      test, [, grep, rg, diff, cmp, git diff --quiet|--exit-code|--check
///   Smoke       the project's own program (a relative path in the tree,
///               python -m PKG, node FILE, cargo run, go run ./…) as the
///               first stage of a pipe that ends in a check:
///               `./app --version | grep -qx 1.2`
///   Exec forms  npx, bunx, pnpm/yarn/npm exec|dlx, bun x, nyc, c8 and
///               go run PKG/cmd/TOOL[@V] read through to a listed runner;
///               ./gradlew, ./mvnw, vendor/bin/phpunit and the like run
///               the listed program they name
///
/// PROJECT FILE. .voyage/criteria-allow at the repository root (--cwd),
/// versioned with the project, adds the project's own runners: one program
/// or command prefix a line (`pycodestyle`, `bash tools/style.sh`), `#`
/// comments. An entry only widens the allowlist; the denylist still screens
/// every command first. `plan validate`, `plan dry-run` and `trek start`
/// screen the criteria with these same rules before the run starts.
///
/// OUTPUT (stable):
///
///     Plan verification: PLAN, ## Verification (line L), in DIR
///                        (session specs: Exit condition check: …)
///     - [x] COMMAND → PASS (0.8 s)
///     - [ ] COMMAND → FAIL (exit 1, 0.3 s)
///           | the last lines it printed
///     - [ ] COMMAND → BLOCKED: RULE (name): … Safer: …
///     - [ ] COMMAND → NOT RUN: `python deploy.py` is not a test, lint …
///     Criteria: P/T passed, F failed, B blocked, U not run
///     RESULT: PASSED|FAILED|NOT-RUN [(CODE)]
///
/// --json prints one object (schema criteria-run): {file, plan_type,
/// section, section_line, cwd, status: passed|failed|not-run, summary:
/// {total, passed, failed, blocked, unrunnable}, failed_criteria: [{label,
/// command, exit_code, line, outcome, reason}], criteria: [every one, with
/// duration_ms], error?: {code, file, line, message}}.
///
/// A trekplan without `## Verification` fails with NO_VERIFICATION_SECTION;
/// a section (or an Exit Condition) with nothing in the two forms fails with
/// NO_CRITERIA and its file:line: the plan is what failed, not the run.
///
/// --record PROGRESS writes the result into that progress file: for
/// trekplans `plan_verification: {status, summary, failed_criteria}`; for
/// session specs `exit_condition_checked` (true only when all passed) and
/// `exit_condition: {status, summary, failed_criteria}`.
///
/// Example: voyage-helper criteria run --plan plan.md --json --record .trekexecute-progress-plan.json
///
/// Exit status: 0 every criterion passed; 1 one failed, was blocked or is
/// unrunnable, or NO_VERIFICATION_SECTION or NO_CRITERIA; 2 the runner could
/// not run (unreadable plan, bad --cwd, no bash, interrupted, --record
/// failed). Exit 2 is never a pass: status not-run.
// `--help` text: its brackets and URLs are not rustdoc's links.
#[allow(rustdoc::broken_intra_doc_links, rustdoc::bare_urls)]
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct RunArgs {
    /// The trekplan or session spec.
    #[arg(long, value_name = "PLAN")]
    pub plan: PathBuf,
    /// Where the commands run (default: the git work tree holding the
    /// current directory, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Seconds each criterion may take (1..86400, default 600).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..=crate::run::MAX_TIMEOUT_SECS))]
    pub timeout: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write the result into this progress file.
    #[arg(long, value_name = "PROGRESS")]
    pub record: Option<PathBuf>,
}

/// How long a criterion or an entry condition's command may run unless
/// told otherwise.
pub(crate) const DEFAULT_TIMEOUT_SECS: u64 = 600;

/// Check a session spec's entry condition before its steps run (Phase 4).
///
/// The condition is the text after `Entry condition:` in `## Dependencies`.
/// It is read, in this order, as:
///
///   none              `none`, `n/a`, `-`, `none (first session)` → PASS
///   previous session  names a session, a commit or `git log` and quotes a
///                     pattern ("feat(store):") → PASS when a commit subject
///                     reachable from HEAD contains it (git log --format=%s)
///   git state         mentions `git status` or a clean working tree → PASS
///                     when `git status --porcelain` prints nothing
///   command           its first backticked span → screened by the denylist
///                     and the allowlist of `criteria run`, then run like a
///                     criterion → PASS on exit 0
///
/// Anything else, a command blocked or off the allowlist, a previous session
/// without a quoted pattern, or a check that cannot run (no repository) is
/// UNDECIDED: the agent judges it. Undecided is never a pass. A trekplan has
/// no entry condition: NOT APPLICABLE.
///
/// OUTPUT:
///
///     Entry condition: PASS|FAILED|UNDECIDED|NOT APPLICABLE
///     Condition: TEXT (line L)
///     Checked: WHAT WAS RUN OR LOOKED FOR
///     Found: WHAT IT FOUND
///     Reason: WHY
///     Complete the prerequisite first, then re-run.      (FAILED only)
///
/// --json prints one object (schema entry-check): {file, status: pass|fail|
/// undecided|not-applicable, kind: none|previous-session|git-state|command|
/// unknown|null, condition, line, checked, found, reason}.
///
/// --record PROGRESS sets entry_condition_checked in that progress file:
/// true on PASS, false otherwise (a trekplan's file is left alone). On
/// FAILED, Phase 4 stops the run: `progress finish --status stopped`.
///
/// Example: voyage-helper entry check --plan session-2.md --json
///
/// Exit status: 0 PASS or NOT APPLICABLE, 1 FAILED, 2 UNDECIDED or the
/// check could not run (unreadable plan, bad --cwd, --record failed).
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct CheckArgs {
    /// The session spec.
    #[arg(long, value_name = "PLAN")]
    pub plan: PathBuf,
    /// The repository to check (default: the git work tree holding the
    /// current directory, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Seconds a command condition may take (1..86400, default 600).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT_SECS,
          value_parser = clap::value_parser!(u64).range(1..=crate::run::MAX_TIMEOUT_SECS))]
    pub timeout: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Set entry_condition_checked in this progress file.
    #[arg(long, value_name = "PROGRESS")]
    pub record: Option<PathBuf>,
}

impl Command {
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Run(args) => execute_run(&args, out),
        }
    }
}

impl EntryCommand {
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Check(args) => execute_entry(&args, out),
        }
    }
}

/// The request both commands make from their flags: the plan is read by
/// the operation.
fn request<'a>(
    plan: &'a Path,
    cwd: &'a Option<PathBuf>,
    timeout: u64,
    record: &'a Option<PathBuf>,
) -> Request<'a> {
    Request {
        plan,
        loaded: None,
        cwd: cwd.as_deref(),
        timeout: Duration::from_secs(timeout),
        record: record.as_deref(),
    }
}

/// `criteria run`: 0 all passed, 1 not, 2 the runner could not run.
fn execute_run(args: &RunArgs, out: &mut impl Write) -> io::Result<u8> {
    let request = request(&args.plan, &args.cwd, args.timeout, &args.record);
    let Verification { report, code } = run_criteria(&request);
    if args.json {
        render::json(&report, out)?;
    } else {
        render::text(&report, out)?;
    }
    out.flush()?;
    Ok(code)
}

/// `entry check`: 0 pass or not applicable, 1 fail, 2 undecided or could
/// not check.
fn execute_entry(args: &CheckArgs, out: &mut impl Write) -> io::Result<u8> {
    let request = request(&args.plan, &args.cwd, args.timeout, &args.record);
    let (report, code) = check_entry(&request);
    let mut out = out;
    if args.json {
        render::json(&report, &mut out)?;
    } else {
        render::entry_text(&report, &mut out)?;
    }
    out.flush()?;
    Ok(code)
}
