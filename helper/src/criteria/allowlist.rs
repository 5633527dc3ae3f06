//! The allowlist of the criteria runner: which command lines are test, lint
//! or build runs it may execute (trekexecute Phase 7: "a command outside the
//! allowlist of test runners" could not run, and fails the verification).
//!
//! A command line is read with the denylist engine's shell parser and must
//! be plain: lists joined by `&&`, `||`, `;` or newlines, of pipelines of
//! simple commands, with no command substitution, process substitution,
//! background job, function or compound command (the allowlist could not
//! see what those run). In it:
//!
//! - every pipeline starts with a **runner** or a **check** (or is a lone
//!   `cd DIR`); later stages of a pipe may also be **filters** (`head`,
//!   `tail`, `grep`, `wc`, `sort`, `uniq`, `cut`, `tr`, `cat`);
//! - a pipeline may also start with the project's own program (a relative
//!   path in the tree, `python -m PKG`, `node FILE`, `cargo run`, `go run`)
//!   when it ends in a check (`app --version | grep -qx 1.2`): a smoke
//!   check of what the program prints, decided by the check;
//! - at least one runner or check runs;
//! - `env [NAME=VALUE]… CMD` and `timeout [OPTIONS] DURATION CMD` are read
//!   as CMD, and `NAME=VALUE CMD` as CMD.
//!
//! The runners and checks are the table [`PROGRAMS`]; a script is a runner
//! when it is named by a relative path inside the working tree (no `..`)
//! that lies under `tests/`, `test/` or `spec/`, or whose file name starts
//! with `test`, `check`, `lint`, `verify`, `validate`, `smoke`, `build`,
//! `ci` or `e2e` (`bash scripts/smoke.sh`, `./tests/run.sh`,
//! `python tests/check_api.py`). A relative path whose file name is a
//! listed program runs that program (`./gradlew test`,
//! `vendor/bin/phpunit`, `node_modules/.bin/jest`).
//!
//! A project adds its own runners in `.voyage/criteria-allow` (see
//! [`Project`]): each entry is the first words of a simple command. The
//! entries widen this list only; the denylist still screens every command
//! first (see `super::screen`).

use brush_parser::ast::{
    AndOr, Command, CommandPrefixOrSuffixItem, CompoundListItem, Pipeline, SeparatorOperator,
    SimpleCommand,
};

use crate::scan::parse_shell;

/// What a program may be asked to do, to count as a runner.
#[derive(Debug, Clone, Copy)]
enum Use {
    /// Any arguments.
    Any,
    /// Its first word that is not an option must be one of these.
    Sub(&'static [&'static str]),
    /// It must be given this option.
    Flag(&'static str),
    /// This option (`node --test`), or a test script; a script in the tree
    /// is the project's own program (`node bin/cli.js`).
    FlagOrScript(&'static str),
    /// `-m MODULE` with one of these modules, or a test script.
    Module(&'static [&'static str]),
    /// One of these subcommands, then a command line that is itself a
    /// runner (`uv run pytest`, `bundle exec rspec`).
    Then(&'static [&'static str]),
    /// One of the first subcommands as [`Use::Sub`], or one of the second
    /// as [`Use::Then`] (`pnpm test`, `pnpm dlx eslint .`).
    SubThen(&'static [&'static str], &'static [&'static str]),
    /// Its options, then a command line that is itself a runner (`npx
    /// jest`, `bunx --bun vitest`, `nyc mocha`).
    Exec,
    /// As [`Use::Sub`], or `run PACKAGE` whose last path element is a
    /// listed runner (`go run honnef.co/go/tools/cmd/staticcheck@latest`).
    GoSub(&'static [&'static str]),
    /// A test script (`bash tests/run.sh`), or `-n FILE…` (a syntax check).
    Shell,
    /// A read-only check (`test -f x`, `grep -q pattern file`).
    Check,
    /// `git diff` with `--quiet`, `--exit-code` or `--check`.
    GitDiff,
}

/// The modules `python -m` and `python3 -m` may run.
const PYTHON_MODULES: &[&str] = &[
    "pytest",
    "unittest",
    "mypy",
    "ruff",
    "black",
    "flake8",
    "pylint",
    "isort",
    "compileall",
    "doctest",
    "tox",
    "nox",
    "pyright",
    "pycodestyle",
    "pydocstyle",
    "pyflakes",
    "coverage",
    "bandit",
    "py_compile",
    "build",
    "pip_audit",
];
/// What `npm`, `pnpm`, `yarn` and `bun` may run besides their exec forms.
const JS_SUBS: &[&str] = &[
    "test",
    "t",
    "tst",
    "run",
    "run-script",
    "lint",
    "build",
    "check",
    "typecheck",
    "format",
    "vitest",
    "jest",
    "tsc",
    "eslint",
];
/// The subcommands through which a JS package manager runs a package's
/// binary (`pnpm dlx`, `yarn exec`, `npm exec`, `bun x`).
const JS_EXEC: &[&str] = &["exec", "dlx", "x"];
/// The programs the runner runs, by name, and how.
const PROGRAMS: &[(&str, Use)] = &[
    // Rust
    (
        "cargo",
        Use::Sub(&[
            "test",
            "nextest",
            "build",
            "check",
            "clippy",
            "fmt",
            "doc",
            "bench",
            "llvm-cov",
            "tarpaulin",
            "deny",
            "audit",
            "machete",
            "hack",
            "miri",
        ]),
    ),
    ("cargo-nextest", Use::Any),
    ("rustfmt", Use::Any),
    // JavaScript and TypeScript
    ("npm", Use::SubThen(JS_SUBS, JS_EXEC)),
    ("pnpm", Use::SubThen(JS_SUBS, JS_EXEC)),
    ("yarn", Use::SubThen(JS_SUBS, JS_EXEC)),
    ("bun", Use::SubThen(JS_SUBS, JS_EXEC)),
    ("npx", Use::Exec),
    ("bunx", Use::Exec),
    ("nyc", Use::Exec),
    ("c8", Use::Exec),
    ("node", Use::FlagOrScript("--test")),
    (
        "deno",
        Use::Sub(&["test", "lint", "fmt", "check", "bench", "task"]),
    ),
    ("jest", Use::Any),
    ("vitest", Use::Any),
    ("mocha", Use::Any),
    ("tsc", Use::Any),
    ("eslint", Use::Any),
    ("prettier", Use::Any),
    ("biome", Use::Any),
    ("stylelint", Use::Any),
    ("ava", Use::Any),
    ("tap", Use::Any),
    ("jasmine", Use::Any),
    ("karma", Use::Sub(&["start", "run"])),
    ("oxlint", Use::Any),
    ("xo", Use::Any),
    ("standard", Use::Any),
    ("vue-tsc", Use::Any),
    ("svelte-check", Use::Any),
    ("playwright", Use::Sub(&["test"])),
    ("cypress", Use::Sub(&["run"])),
    (
        "turbo",
        Use::Sub(&["run", "test", "lint", "build", "check", "typecheck"]),
    ),
    (
        "nx",
        Use::Sub(&["test", "lint", "build", "run", "run-many", "affected"]),
    ),
    // Python
    ("pytest", Use::Any),
    ("py.test", Use::Any),
    ("tox", Use::Any),
    ("nox", Use::Any),
    ("ruff", Use::Any),
    ("mypy", Use::Any),
    ("pyright", Use::Any),
    ("flake8", Use::Any),
    ("pylint", Use::Any),
    ("black", Use::Any),
    ("isort", Use::Any),
    ("pycodestyle", Use::Any),
    ("pydocstyle", Use::Any),
    ("pyflakes", Use::Any),
    ("bandit", Use::Any),
    ("pytype", Use::Any),
    ("python", Use::Module(PYTHON_MODULES)),
    ("python3", Use::Module(PYTHON_MODULES)),
    ("uv", Use::Then(&["run"])),
    ("poetry", Use::Then(&["run"])),
    ("pipenv", Use::Then(&["run"])),
    ("pdm", Use::Then(&["run"])),
    ("rye", Use::Then(&["run"])),
    ("pixi", Use::Then(&["run"])),
    ("coverage", Use::Then(&["run"])),
    ("hatch", Use::SubThen(&["test"], &["run"])),
    // Go
    ("go", Use::GoSub(&["test", "vet", "build"])),
    ("gofmt", Use::Any),
    ("golangci-lint", Use::Any),
    ("staticcheck", Use::Any),
    ("govulncheck", Use::Any),
    // Build tools
    ("make", Use::Any),
    ("gmake", Use::Any),
    ("just", Use::Any),
    ("ninja", Use::Any),
    ("cmake", Use::Flag("--build")),
    ("ctest", Use::Any),
    ("meson", Use::Sub(&["test", "compile"])),
    ("bazel", Use::Sub(&["test", "build"])),
    ("bazelisk", Use::Sub(&["test", "build"])),
    ("gradle", Use::Any),
    ("gradlew", Use::Any),
    ("mvn", Use::Any),
    ("mvnw", Use::Any),
    ("lein", Use::Sub(&["test", "check"])),
    ("sbt", Use::Any),
    ("ant", Use::Any),
    ("dotnet", Use::Sub(&["test", "build", "format"])),
    ("cppcheck", Use::Any),
    ("clang-tidy", Use::Any),
    ("swift", Use::Sub(&["test", "build"])),
    ("xcodebuild", Use::Any),
    ("zig", Use::Sub(&["build", "test"])),
    ("stack", Use::Sub(&["test", "build"])),
    ("cabal", Use::Sub(&["test", "build"])),
    ("dune", Use::Sub(&["test", "build"])),
    ("mix", Use::Sub(&["test", "compile", "format", "credo"])),
    ("rebar3", Use::Sub(&["eunit", "ct", "compile"])),
    ("flutter", Use::Sub(&["test", "analyze"])),
    ("dart", Use::Sub(&["test", "analyze", "format"])),
    // Ruby, PHP
    ("rake", Use::Any),
    ("rspec", Use::Any),
    ("rubocop", Use::Any),
    ("bundle", Use::Then(&["exec"])),
    ("ruby", Use::Module(&[])),
    ("standardrb", Use::Any),
    ("phpunit", Use::Any),
    ("pest", Use::Any),
    ("phpstan", Use::Any),
    ("psalm", Use::Any),
    ("phpcs", Use::Any),
    (
        "composer",
        Use::Sub(&["test", "run", "run-script", "validate", "lint", "check"]),
    ),
    // Shell
    ("bash", Use::Shell),
    ("sh", Use::Shell),
    ("dash", Use::Shell),
    ("zsh", Use::Shell),
    ("shellcheck", Use::Any),
    ("shfmt", Use::Any),
    ("bats", Use::Any),
    // Read-only checks
    ("test", Use::Check),
    ("[", Use::Check),
    ("grep", Use::Check),
    ("egrep", Use::Check),
    ("fgrep", Use::Check),
    ("rg", Use::Check),
    ("diff", Use::Check),
    ("cmp", Use::Check),
    ("git", Use::GitDiff),
];

/// Programs a pipe may feed after its first stage.
const FILTERS: &[&str] = &[
    "head", "tail", "grep", "egrep", "fgrep", "wc", "sort", "uniq", "cut", "tr", "cat",
];

/// Where a script counts as a test script whatever its name.
const TEST_DIRS: &[&str] = &["tests", "test", "spec"];
/// How a test script's file name may start elsewhere.
const TEST_NAMES: &[&str] = &[
    "test",
    "check",
    "lint",
    "verify",
    "validate",
    "smoke",
    "build",
    "ci",
    "e2e",
    "format",
    "fmt",
    "style",
    "typecheck",
    "coverage",
];

/// What one simple command is to the allowlist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Runner,
    /// A read-only check (`grep -q`, `test -f`): a runner, and what may
    /// decide a smoke pipeline.
    Check,
    Cd,
    Filter,
    /// The project's own program: only as the first stage of a pipeline
    /// that ends in a check.
    Smoke,
}

/// Why a command line is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// Why, as a phrase.
    pub reason: String,
    /// The first words of the simple command that is not a listed runner,
    /// which a project could add to its allowlist file; `None` when the
    /// line's shape is refused (a substitution, a background job, a
    /// compound command), which no entry can allow.
    pub entry: Option<String>,
}

impl Refusal {
    fn shape(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            entry: None,
        }
    }
}

/// A project's own runners: the entries of its `.voyage/criteria-allow`,
/// each the first words of a simple command it may run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Project {
    entries: Vec<Vec<String>>,
}

impl Project {
    /// Reads the file's text: one entry a line, `#` starting a comment,
    /// blank lines skipped. A line with a word the shell would expand or
    /// unquote (`$`, quotes, globs, `;`, `|`) is no entry; it is returned
    /// with its 1-based line and why, and skipped.
    pub(crate) fn parse(text: &str) -> (Self, Vec<(u32, String)>) {
        let mut entries = Vec::new();
        let mut bad = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            let plain = words.iter().all(|w| {
                literal(w).as_deref() == Some(w.as_str())
                    && !w.contains([';', '|', '&', '<', '>', '(', ')'])
            });
            if plain {
                entries.push(words);
            } else {
                let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
                bad.push((
                    n,
                    format!("`{line}` is not plain words (no quotes, $, globs or shell operators); it is ignored"),
                ));
            }
        }
        (Self { entries }, bad)
    }

    /// Whether `words` (literal) start with one of the entries.
    fn allows(&self, words: &[String]) -> bool {
        self.entries.iter().any(|entry| {
            entry.len() <= words.len()
                && entry
                    .iter()
                    .zip(words)
                    .all(|(e, w)| literal(w).as_deref() == Some(e.as_str()))
        })
    }
}

/// `Ok` when the command line may run, else why not.
pub(crate) fn check(command: &str, project: &Project) -> Result<(), Refusal> {
    for marker in ["$(", "`", "<(", ">("] {
        if command.contains(marker) {
            return Err(Refusal::shape(format!(
                "it holds `{marker}`, code the allowlist cannot see through"
            )));
        }
    }
    let program = parse_shell(command).map_err(|e| Refusal::shape(e.to_string()))?;
    let mut runners = 0;
    for list in &program.complete_commands {
        for CompoundListItem(and_or, separator) in &list.0 {
            if matches!(separator, SeparatorOperator::Async) {
                return Err(Refusal::shape("it runs something in the background (`&`)"));
            }
            let rest = and_or.additional.iter().map(|next| match next {
                AndOr::And(p) | AndOr::Or(p) => p,
            });
            for pipeline in std::iter::once(&and_or.first).chain(rest) {
                runners += check_pipeline(pipeline, project)?;
            }
        }
    }
    if runners == 0 {
        return Err(Refusal::shape("it runs no test, lint or build runner"));
    }
    Ok(())
}

/// Checks one pipeline; the number of runners and checks in it.
fn check_pipeline(pipeline: &Pipeline, project: &Project) -> Result<usize, Refusal> {
    let mut kinds = Vec::new();
    for command in &pipeline.seq {
        let Command::Simple(simple) = command else {
            return Err(Refusal::shape(
                "it uses a compound command, function or [[ test ]], which the allowlist does not read",
            ));
        };
        let words = words(simple)?;
        kinds.push((kind(&words, project)?, words));
    }
    let ends_in_check = kinds.len() > 1 && kinds.last().is_some_and(|(k, _)| *k == Kind::Check);
    let mut runners = 0;
    for (i, (kind, words)) in kinds.iter().enumerate() {
        match kind {
            Kind::Runner | Kind::Check => runners += 1,
            Kind::Cd if kinds.len() == 1 => {}
            Kind::Filter if i > 0 => {}
            Kind::Smoke if i == 0 && ends_in_check => {}
            Kind::Cd | Kind::Filter | Kind::Smoke => return Err(not_listed(words)),
        }
    }
    Ok(runners)
}

/// The words of a simple command (program first), raw as written; the
/// assignments before it dropped.
fn words(simple: &SimpleCommand) -> Result<Vec<String>, Refusal> {
    let mut out = Vec::new();
    let prefix = simple.prefix.iter().flat_map(|p| &p.0);
    let suffix = simple.suffix.iter().flat_map(|s| &s.0);
    for item in prefix {
        if let CommandPrefixOrSuffixItem::ProcessSubstitution(..) = item {
            return Err(Refusal::shape("it uses a process substitution"));
        }
    }
    let Some(name) = &simple.word_or_name else {
        return Err(Refusal::shape("it only sets variables or redirects"));
    };
    out.push(name.value.clone());
    for item in suffix {
        match item {
            CommandPrefixOrSuffixItem::Word(w)
            | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                out.push(w.value.clone());
            }
            CommandPrefixOrSuffixItem::IoRedirect(_) => {}
            CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                return Err(Refusal::shape("it uses a process substitution"));
            }
        }
    }
    Ok(out)
}

/// The literal text of a raw word, or `None` when the shell would expand
/// it (a variable, a glob, a tilde, a brace).
fn literal(raw: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '$' | '`' | '\\' => return None,
                    c => out.push(c),
                }
            },
            '\\' => out.push(chars.next()?),
            '$' | '*' | '?' | '[' | '{' | '~' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// What the command in `words` is (wrappers read through).
fn kind(words: &[String], project: &Project) -> Result<Kind, Refusal> {
    let rest = strip_wrappers(words);
    // A lone `[` is the test command, not a glob.
    let program = rest.first().and_then(|w| {
        if w == "[" {
            Some(w.clone())
        } else {
            literal(w)
        }
    });
    let Some(program) = program else {
        return Err(Refusal::shape(match rest.first() {
            Some(w) => format!("its program `{w}` is not a plain word"),
            None => "a wrapper without a command".into(),
        }));
    };
    let args = rest.get(1..).unwrap_or_default();
    if project.allows(rest) {
        return Ok(Kind::Runner);
    }
    if program == "cd" {
        return Ok(Kind::Cd);
    }
    let mut name = program.as_str();
    if program.contains('/') {
        if !in_tree(&program) {
            return Err(not_listed(rest));
        }
        if is_test_script(&program) {
            return Ok(Kind::Runner);
        }
        // `./gradlew`, `vendor/bin/phpunit`: a listed program kept in the
        // tree; otherwise the project's own program.
        let file = program.rsplit('/').next().unwrap_or_default();
        if !PROGRAMS.iter().any(|(n, _)| *n == file) {
            return Ok(Kind::Smoke);
        }
        name = file;
    }
    let Some((_, usage)) = PROGRAMS.iter().find(|(n, _)| *n == name) else {
        return if FILTERS.contains(&name) {
            Ok(Kind::Filter)
        } else {
            Err(not_listed(rest))
        };
    };
    let allowed = match *usage {
        Use::Any => true,
        Use::Check => return Ok(Kind::Check),
        Use::Sub(subs) => first_operand(args).is_some_and(|s| subs.contains(&s.as_str())),
        Use::Flag(flag) => args.iter().any(|a| literal(a).as_deref() == Some(flag)),
        Use::FlagOrScript(flag) if args.iter().any(|a| literal(a).as_deref() == Some(flag)) => true,
        Use::Module(_) | Use::FlagOrScript(_) => match module(args, modules_of(*usage)) {
            Some(true) => true,
            // `python -m mypkg`, `python app.py`: the project's program.
            Some(false) => return Ok(Kind::Smoke),
            None => false,
        },
        Use::Then(subs) => return then(rest, args, subs, project),
        Use::SubThen(subs, thens) => {
            if first_operand(args).is_some_and(|s| subs.contains(&s.as_str())) {
                true
            } else {
                return then(rest, args, thens, project);
            }
        }
        Use::Exec => {
            let skip = args.iter().take_while(|a| a.starts_with('-')).count();
            return match kind(args.get(skip..).unwrap_or_default(), project) {
                Ok(Kind::Runner | Kind::Check) => Ok(Kind::Runner),
                _ => Err(not_listed(rest)),
            };
        }
        Use::GoSub(subs) => {
            if first_operand(args).is_some_and(|s| subs.contains(&s.as_str())) {
                true
            } else {
                return go_run(rest, args, project);
            }
        }
        Use::Shell => shell(args),
        Use::GitDiff => {
            first_operand(args).as_deref() == Some("diff")
                && args.iter().any(|a| {
                    matches!(
                        literal(a).as_deref(),
                        Some("--quiet" | "--exit-code" | "--check")
                    )
                })
        }
    };
    if allowed {
        Ok(Kind::Runner)
    } else if FILTERS.contains(&name) {
        Ok(Kind::Filter)
    } else if name == "cargo" && first_operand(args).as_deref() == Some("run") {
        Ok(Kind::Smoke)
    } else {
        Err(not_listed(rest))
    }
}

/// The modules a `-m` may name for `usage` (none for `node`).
fn modules_of(usage: Use) -> &'static [&'static str] {
    match usage {
        Use::Module(modules) => modules,
        _ => &[],
    }
}

/// `TOOL SUB COMMAND…` with SUB one of `subs` and COMMAND a runner (`uv run
/// pytest`); `coverage run -m pytest` reads COMMAND as Python's.
fn then(
    rest: &[String],
    args: &[String],
    subs: &[&str],
    project: &Project,
) -> Result<Kind, Refusal> {
    let Some((first, tail)) = args.split_first() else {
        return Err(not_listed(rest));
    };
    if !literal(first).is_some_and(|f| subs.contains(&f.as_str())) {
        return Err(not_listed(rest));
    }
    let python;
    let inner = if tail.first().is_some_and(|w| w.starts_with('-')) {
        python = std::iter::once("python".to_owned())
            .chain(tail.iter().cloned())
            .collect::<Vec<_>>();
        python.as_slice()
    } else {
        tail
    };
    match kind(inner, project)? {
        Kind::Runner | Kind::Check => Ok(Kind::Runner),
        Kind::Smoke => Ok(Kind::Smoke),
        Kind::Cd | Kind::Filter => Err(not_listed(rest)),
    }
}

/// `go run PACKAGE[@VERSION] ARGS…`: the runner the package's last path
/// element names (`go run honnef.co/go/tools/cmd/staticcheck ./...`), or
/// the project's own program (`go run ./cmd/app`).
fn go_run(rest: &[String], args: &[String], project: &Project) -> Result<Kind, Refusal> {
    let Some((run, tail)) = args.split_first() else {
        return Err(not_listed(rest));
    };
    if literal(run).as_deref() != Some("run") {
        return Err(not_listed(rest));
    }
    let skip = tail.iter().take_while(|a| a.starts_with('-')).count();
    let Some((package, package_args)) = tail.get(skip..).unwrap_or_default().split_first() else {
        return Err(not_listed(rest));
    };
    let Some(package) = literal(package) else {
        return Err(not_listed(rest));
    };
    if package.starts_with('.') {
        return Ok(Kind::Smoke);
    }
    let path = package.split('@').next().unwrap_or_default();
    let last = path.rsplit('/').next().unwrap_or_default();
    if !PROGRAMS
        .iter()
        .any(|(n, u)| *n == last && !matches!(u, Use::Shell))
    {
        return Err(not_listed(rest));
    }
    let inner: Vec<String> = std::iter::once(last.to_owned())
        .chain(package_args.iter().cloned())
        .collect();
    match kind(&inner, project)? {
        Kind::Runner | Kind::Check => Ok(Kind::Runner),
        _ => Err(not_listed(rest)),
    }
}

/// The command after `env …` and `timeout …` wrappers.
fn strip_wrappers(words: &[String]) -> &[String] {
    let mut rest = words;
    loop {
        let Some((first, tail)) = rest.split_first() else {
            return rest;
        };
        match literal(first).as_deref() {
            Some("env") => {
                let skip = tail
                    .iter()
                    .take_while(|w| w.starts_with('-') || w.contains('='))
                    .count();
                rest = tail.get(skip..).unwrap_or_default();
            }
            Some("timeout") => {
                let skip = tail.iter().take_while(|w| w.starts_with('-')).count();
                // The duration, then the command.
                rest = tail.get(skip + 1..).unwrap_or_default();
            }
            _ => return rest,
        }
    }
}

/// The first argument that is not an option (nor a `+toolchain`).
fn first_operand(args: &[String]) -> Option<String> {
    args.iter()
        .find(|a| !a.starts_with('-') && !a.starts_with('+'))
        .and_then(|a| literal(a))
}

/// `python -m MODULE` or `python SCRIPT`: `Some(true)` for an allowed
/// module or a test script, `Some(false)` for another module or a script in
/// the tree (the project's own program), `None` for anything else (`-c`).
fn module(args: &[String], modules: &[&str]) -> Option<bool> {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match literal(arg).as_deref() {
            Some("-m") => {
                let m = literal(iter.next()?)?;
                return Some(modules.contains(&m.as_str()));
            }
            // Code on the command line (`python -c`, `ruby -e`).
            Some(opt) if opt.starts_with("-c") || opt.starts_with("-e") => return None,
            Some(opt) if opt.starts_with('-') => {}
            Some(script) if is_test_script(script) => return Some(true),
            Some(script) if in_tree(script) => return Some(false),
            _ => return None,
        }
    }
    None
}

/// `bash -n FILE…`, or `bash SCRIPT …` with a test script (never `-c`).
fn shell(args: &[String]) -> bool {
    let mut syntax_only = false;
    for arg in args {
        match literal(arg).as_deref() {
            Some("-n") => syntax_only = true,
            Some(opt) if opt.starts_with('-') => {
                if opt.contains('c') || opt.contains('s') || opt == "--" {
                    return false;
                }
            }
            Some(script) => return syntax_only || is_test_script(script),
            None => return false,
        }
    }
    false
}

/// A relative path that stays inside the working tree (no `..`, not
/// absolute).
fn in_tree(path: &str) -> bool {
    let path = path.strip_prefix("./").unwrap_or(path);
    !path.is_empty() && !path.starts_with('/') && !path.split('/').any(|p| p == "..")
}

/// A relative path inside the working tree that names a test script.
fn is_test_script(path: &str) -> bool {
    if !in_tree(path) {
        return false;
    }
    let path = path.strip_prefix("./").unwrap_or(path);
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let Some((name, dirs)) = parts.split_last() else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    dirs.iter().any(|d| TEST_DIRS.contains(d)) || TEST_NAMES.iter().any(|t| name.starts_with(t))
}

/// The refusal of a simple command that is no listed runner: the whole
/// command named (never cut), and the entry that would allow it: its
/// program, or for a listed program used another way (`cargo run`, `bash
/// deploy.sh`) the program and its first argument.
fn not_listed(words: &[String]) -> Refusal {
    let program = words.first().map_or("", String::as_str);
    let listed = PROGRAMS.iter().any(|(n, _)| *n == program) || FILTERS.contains(&program);
    let take = if listed { 2 } else { 1 };
    let entry: Vec<&str> = words.iter().take(take).map(String::as_str).collect();
    Refusal {
        reason: format!(
            "`{}` is not a test, lint or build runner on the allowlist",
            words.join(" ")
        ),
        entry: Some(entry.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::{Project, check};

    fn plain(command: &str) -> Result<(), super::Refusal> {
        check(command, &Project::default())
    }

    #[test]
    fn runners_and_checks_run() {
        for ok in [
            "cargo test",
            "cargo +nightly clippy --all-targets -- -D warnings",
            "RUST_LOG=debug cargo nextest run --workspace",
            "cargo test 2>&1 | tail -5",
            "cd helper && cargo test",
            "npm test",
            "npm run lint",
            "npx vitest run",
            "python3 -m pytest -q tests/",
            "uv run pytest",
            "bundle exec rspec",
            "go test ./...",
            "make check",
            "bash scripts/smoke.sh",
            "bash tests/run.sh --fast",
            "./tests/e2e.sh",
            "sh -n install.sh",
            "test -f target/release/app",
            "grep -q 'fn main' src/main.rs",
            "git diff --exit-code",
            "timeout 300 cargo test",
            "env CI=1 npm test",
            "node --test",
            "cargo fmt --check && cargo clippy -- -D warnings",
        ] {
            assert_eq!(plain(ok), Ok(()), "{ok}");
        }
    }

    /// The common test, lint, type-check and build spellings of each
    /// ecosystem.
    #[test]
    fn every_ecosystems_runners_run() {
        for ok in [
            // Python
            "pytest -q",
            "python -m pytest tests/ -k parse",
            "python3 -m unittest discover",
            "python -m mypy src",
            "python -m ruff check .",
            "python -m flake8",
            "pycodestyle --max-line-length=100 src",
            "python -m pycodestyle src",
            "python -m pylint pkg",
            "python -m black --check .",
            "black --check .",
            "tox -e py312",
            "nox -s tests",
            "coverage run -m pytest",
            "poetry run pytest",
            "hatch run test",
            "uv run mypy .",
            // JS / TS
            "npm test",
            "npm run build",
            "pnpm test",
            "pnpm run lint",
            "yarn test",
            "yarn run typecheck",
            "bun test",
            "bun run check",
            "npx jest --ci",
            "npx --yes vitest run",
            "npx eslint .",
            "npx tsc --noEmit",
            "npx prettier --check .",
            "bunx vitest run",
            "bunx tsc --noEmit",
            "pnpm dlx eslint .",
            "pnpm exec vitest run",
            "yarn dlx tsc",
            "node --test test/",
            "deno test",
            "deno lint",
            "deno check main.ts",
            "node_modules/.bin/jest",
            // Rust
            "cargo test --workspace",
            "cargo build --release",
            "cargo check",
            "cargo clippy -- -D warnings",
            "cargo fmt --check",
            "cargo nextest run",
            // Go
            "go test ./...",
            "go vet ./...",
            "go build ./...",
            "go run honnef.co/go/tools/cmd/staticcheck@latest ./...",
            "go run github.com/golangci/golangci-lint/cmd/golangci-lint@v1.59.0 run",
            "golangci-lint run",
            "staticcheck ./...",
            // JVM
            "mvn -q verify",
            "gradle test",
            "./gradlew check",
            "./mvnw test",
            // Ruby
            "rspec",
            "rake test",
            "bundle exec rake",
            "bundle exec rubocop",
            "ruby -Itest test/parser_test.rb",
            // PHP
            "phpunit",
            "vendor/bin/phpunit --testdox",
            "composer test",
            "composer validate --strict",
            // .NET
            "dotnet test",
            "dotnet build -c Release",
            // C / C++
            "make -j4 test",
            "cmake --build build",
            "ctest --test-dir build",
            "meson test -C build",
            "ninja -C build",
            // Shell
            "shellcheck scripts/*.sh",
            "bats tests/",
            "bash -n install.sh",
            "bash tests/cli.sh",
            "bash format.sh",
            "bash scripts/lint.sh",
            // Checks in pipelines
            "python -m mylib --version | grep -qx 1.2.0",
            "./target/release/app --help | grep -q Usage",
            "cargo run -q -- --version | grep -q 0.3",
            "go run ./cmd/app -h 2>&1 | grep -q usage",
            "node bin/cli.js --version | grep -qx 2.0.0",
            "test -x bin/app && [ -s README.md ]",
        ] {
            assert_eq!(plain(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn everything_else_is_unrunnable() {
        for no in [
            "python deploy.py",
            "curl https://example.invalid",
            "bash -c 'cargo test'",
            "bash ../outside/test.sh",
            "bash /tmp/test.sh",
            "bash scripts/deploy.sh",
            "cargo run --release",
            "cargo test $(cat args)",
            "cargo test `x`",
            "cargo test &",
            "cd x",
            "tail -f log",
            "for x in a; do cargo test; done",
            "npm install",
            "$CARGO test",
            "uv run python deploy.py",
            "git push",
            "cargo test <(x)",
            "echo ok",
            "X=1",
            "",
            // The project's program alone, or piped into no check.
            "./target/release/app serve",
            "python -m mylib --serve",
            "go run ./cmd/app | tail -1",
            "python -c 'print(1)' | grep -q 1",
            "/usr/bin/app --version | grep -q 1",
            "../app --version | grep -q 1",
            "npx cowsay hi",
            "pnpm dlx create-app x",
            "go run example.com/tool@latest",
            "npm publish",
            "composer install",
            "dotnet run",
        ] {
            assert!(plain(no).is_err(), "{no}");
        }
    }

    #[test]
    fn a_project_entry_allows_its_prefix_and_nothing_else() {
        let (project, bad) = Project::parse(
            "# ours
pycodestyle
bash tools/fmt.sh  # the formatter

$X
",
        );
        assert_eq!(bad.len(), 1);
        assert_eq!(bad.first().map(|b| b.0), Some(5));
        for ok in [
            "bash tools/fmt.sh --check",
            "cd sub && bash tools/fmt.sh",
            "env A=1 bash tools/fmt.sh",
        ] {
            assert_eq!(check(ok, &project), Ok(()), "{ok}");
        }
        for no in [
            "bash tools/other.sh",
            "bash tools/fmt.sh $(x)",
            "bash tools/fmt.sh &",
        ] {
            assert!(check(no, &project).is_err(), "{no}");
        }
        let refused = check("bash tools/deploy.sh", &Project::default());
        assert_eq!(
            refused.map_err(|r| r.entry),
            Err(Some("bash tools/deploy.sh".into()))
        );
    }

    #[test]
    fn a_refusal_names_the_whole_command() {
        let long = "python deploy.py --target production --region eu-west-1 --really";
        let why = plain(long).err().map(|r| r.reason).unwrap_or_default();
        assert!(why.contains(long), "{why}");
    }
}
