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
//! - at least one runner or check runs;
//! - `env [NAME=VALUE]… CMD` and `timeout [OPTIONS] DURATION CMD` are read
//!   as CMD, and `NAME=VALUE CMD` as CMD.
//!
//! The runners and checks are the table [`PROGRAMS`]; a script is a runner
//! when it is named by a relative path inside the working tree (no `..`)
//! that lies under `tests/`, `test/` or `spec/`, or whose file name starts
//! with `test`, `check`, `lint`, `verify`, `validate`, `smoke`, `build`,
//! `ci` or `e2e` (`bash scripts/smoke.sh`, `./tests/run.sh`,
//! `python tests/check_api.py`).

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
    /// `-m MODULE` with one of these modules, or a test script.
    Module(&'static [&'static str]),
    /// This subcommand, then a command line that is itself a runner
    /// (`uv run pytest`, `bundle exec rspec`).
    Then(&'static str),
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
];
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
    (
        "npm",
        Use::Sub(&["test", "t", "tst", "run", "run-script", "lint", "build"]),
    ),
    (
        "pnpm",
        Use::Sub(&[
            "test",
            "t",
            "run",
            "lint",
            "build",
            "check",
            "typecheck",
            "format",
            "vitest",
            "jest",
            "tsc",
            "eslint",
        ]),
    ),
    (
        "yarn",
        Use::Sub(&[
            "test",
            "run",
            "lint",
            "build",
            "check",
            "typecheck",
            "format",
            "vitest",
            "jest",
            "tsc",
            "eslint",
        ]),
    ),
    ("bun", Use::Sub(&["test", "run"])),
    (
        "npx",
        Use::Sub(&[
            "jest",
            "vitest",
            "mocha",
            "tsc",
            "eslint",
            "prettier",
            "playwright",
            "cypress",
            "ava",
            "tap",
            "biome",
            "stylelint",
        ]),
    ),
    ("node", Use::Flag("--test")),
    ("deno", Use::Sub(&["test", "lint", "fmt", "check", "bench"])),
    ("jest", Use::Any),
    ("vitest", Use::Any),
    ("mocha", Use::Any),
    ("tsc", Use::Any),
    ("eslint", Use::Any),
    ("prettier", Use::Any),
    ("biome", Use::Any),
    ("stylelint", Use::Any),
    ("playwright", Use::Sub(&["test"])),
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
    ("python", Use::Module(PYTHON_MODULES)),
    ("python3", Use::Module(PYTHON_MODULES)),
    ("uv", Use::Then("run")),
    ("poetry", Use::Then("run")),
    ("pipenv", Use::Then("run")),
    ("pdm", Use::Then("run")),
    ("hatch", Use::Sub(&["test"])),
    // Go
    ("go", Use::Sub(&["test", "vet", "build"])),
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
    ("mvn", Use::Any),
    ("sbt", Use::Any),
    ("ant", Use::Any),
    ("dotnet", Use::Sub(&["test", "build", "format"])),
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
    ("bundle", Use::Then("exec")),
    ("phpunit", Use::Any),
    ("composer", Use::Sub(&["test"])),
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
    "test", "check", "lint", "verify", "validate", "smoke", "build", "ci", "e2e",
];

/// What one simple command is to the allowlist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Runner,
    Cd,
    Filter,
}

/// `Ok` when the command line may run, else why not (a phrase).
pub(super) fn check(command: &str) -> Result<(), String> {
    for marker in ["$(", "`", "<(", ">("] {
        if command.contains(marker) {
            return Err(format!(
                "it holds `{marker}`, code the allowlist cannot see through"
            ));
        }
    }
    let program = parse_shell(command).map_err(|e| e.to_string())?;
    let mut runners = 0;
    for list in &program.complete_commands {
        for CompoundListItem(and_or, separator) in &list.0 {
            if matches!(separator, SeparatorOperator::Async) {
                return Err("it runs something in the background (`&`)".into());
            }
            let rest = and_or.additional.iter().map(|next| match next {
                AndOr::And(p) | AndOr::Or(p) => p,
            });
            for pipeline in std::iter::once(&and_or.first).chain(rest) {
                runners += check_pipeline(pipeline)?;
            }
        }
    }
    if runners == 0 {
        return Err("it runs no test, lint or build runner".into());
    }
    Ok(())
}

/// Checks one pipeline; the number of runners and checks in it.
fn check_pipeline(pipeline: &Pipeline) -> Result<usize, String> {
    let mut runners = 0;
    for (i, command) in pipeline.seq.iter().enumerate() {
        let Command::Simple(simple) = command else {
            return Err(
                "it uses a compound command, function or [[ test ]], which the allowlist does not read"
                    .into(),
            );
        };
        let words = words(simple)?;
        match kind(&words)? {
            Kind::Runner => runners += 1,
            Kind::Cd if pipeline.seq.len() == 1 => {}
            Kind::Filter if i > 0 => {}
            Kind::Cd | Kind::Filter => return Err(not_listed(&words)),
        }
    }
    Ok(runners)
}

/// The words of a simple command (program first), raw as written; the
/// assignments before it dropped.
fn words(simple: &SimpleCommand) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let prefix = simple.prefix.iter().flat_map(|p| &p.0);
    let suffix = simple.suffix.iter().flat_map(|s| &s.0);
    for item in prefix {
        if let CommandPrefixOrSuffixItem::ProcessSubstitution(..) = item {
            return Err("it uses a process substitution".into());
        }
    }
    let Some(name) = &simple.word_or_name else {
        return Err("it only sets variables or redirects".into());
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
                return Err("it uses a process substitution".into());
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
fn kind(words: &[String]) -> Result<Kind, String> {
    let rest = strip_wrappers(words);
    let Some(program) = rest.first().and_then(|w| literal(w)) else {
        return Err(match rest.first() {
            Some(w) => format!("its program `{w}` is not a plain word"),
            None => "a wrapper without a command".into(),
        });
    };
    let args = rest.get(1..).unwrap_or_default();
    if program == "cd" {
        return Ok(Kind::Cd);
    }
    if program.contains('/') {
        return if is_test_script(&program) {
            Ok(Kind::Runner)
        } else {
            Err(not_listed(rest))
        };
    }
    let Some((_, usage)) = PROGRAMS.iter().find(|(name, _)| *name == program) else {
        return if FILTERS.contains(&program.as_str()) {
            Ok(Kind::Filter)
        } else {
            Err(not_listed(rest))
        };
    };
    let allowed = match *usage {
        Use::Any | Use::Check => true,
        Use::Sub(subs) => first_operand(args).is_some_and(|s| subs.contains(&s.as_str())),
        Use::Flag(flag) => args.iter().any(|a| literal(a).as_deref() == Some(flag)),
        Use::Module(modules) => module(args, modules),
        Use::Then(sub) => {
            return match args.split_first() {
                Some((first, tail)) if literal(first).as_deref() == Some(sub) => {
                    match kind(tail)? {
                        Kind::Runner => Ok(Kind::Runner),
                        Kind::Cd | Kind::Filter => Err(not_listed(rest)),
                    }
                }
                _ => Err(not_listed(rest)),
            };
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
    } else if FILTERS.contains(&program.as_str()) {
        Ok(Kind::Filter)
    } else {
        Err(not_listed(rest))
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

/// `python -m MODULE` with an allowed module, or `python SCRIPT` with a
/// test script.
fn module(args: &[String], modules: &[&str]) -> bool {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match literal(arg).as_deref() {
            Some("-m") => {
                return iter
                    .next()
                    .and_then(|m| literal(m))
                    .is_some_and(|m| modules.contains(&m.as_str()));
            }
            Some(opt) if opt.starts_with('-') => {}
            Some(script) => return is_test_script(script),
            None => return false,
        }
    }
    false
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

/// A relative path inside the working tree that names a test script.
fn is_test_script(path: &str) -> bool {
    let path = path.strip_prefix("./").unwrap_or(path);
    if path.starts_with('/') || path.is_empty() {
        return false;
    }
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return false;
    }
    let Some((name, dirs)) = parts.split_last() else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    dirs.iter().any(|d| TEST_DIRS.contains(d)) || TEST_NAMES.iter().any(|t| name.starts_with(t))
}

fn not_listed(words: &[String]) -> String {
    let shown: Vec<&str> = words.iter().take(3).map(String::as_str).collect();
    format!(
        "`{}` is not a test, lint or build runner on the allowlist",
        shown.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::check;

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
            assert_eq!(check(ok), Ok(()), "{ok}");
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
        ] {
            assert!(check(no).is_err(), "{no}");
        }
    }
}
