//! voyage-helper: the deterministic half of the Voyage Claude Code plugin.
//!
//! This library exists for the `voyage-helper` binary and its tests and makes
//! no stability promise. It is laid out by area
//! (docs/maintainer/architecture.md); each area's `mod.rs` says what it does
//! and which section of the trekexecute specification it implements (its
//! phase and sub-step numbers: docs/maintainer/phases.md).
//!
//! - [`mod@run`]: `run`, the executor's command runner with a log and a block.
//! - [`verdict`]: `verdict`, the executor's reply built from a log.
//! - [`plan`]: `plan validate`, `plan show`, `plan dry-run`; the plan model.
//! - [`brief`]: `brief validate`.
//! - [`pattern`]: regular expressions as plan authors write them.
//! - [`scan`]: the denylist engine, `scan command`, `scan plan` and
//!   `hook pre-tool-use`.
//! - [`state`]: `write --atomic`, `state write`, `state validate`.
//! - [`progress`]: the progress file (`progress …`).
//! - [`audit`]: `audit step`, `audit checkpoint`, `audit session`.
//! - [`stats`]: `stats append`, `event emit`, `stats show`.
//! - [`criteria`]: `criteria run` (Phase 7) and `entry check` (Phase 4).
//! - [`fence`]: `scope exec` and `scope status`, the kernel fence of a
//!   run's step.
//! - [`gate`]: the autonomy gate; [`profile`]: `profile resolve`.
//! - shared: [`validation`] (validator reports), [`write_reply`] (what
//!   writers print), [`data_dir`], [`helper_call`] (this helper as a
//!   call printed for a terminal names it).
//! - from other crates of the workspace, named at the root so that areas
//!   reach them as `crate::…`: [`workflow`] (`voyage-workflow`: `workflow
//!   run`, `validate`, `plan`, `refine`), and from `voyage-core`
//!   [`problem`] (coded problems), [`yaml`], [`ansi`], [`atomic_file`],
//!   [`input_file`] (the one reader of outside files), [`shell`] (words
//!   quoted for a POSIX shell), [`proc`] and [`git`]
//!   (every spawn and every git call), [`schema`] (the embedded JSON
//!   Schemas), [`clock`], [`exit`] (the exit codes) and [`fault`] (the
//!   crash and panic points of the fault-injection tests).
//! - [`cli`]: the top of the command-line tree (each area owns its flags
//!   and their `execute`, in `<area>/cli.rs`); [`output`]: what a write error of stdout becomes.
//!
//! Visibility says who may use what, and the compiler checks it. Every
//! module above is private; the only public items are [`fn@run`] and
//! [`Allocator`] (all the binary uses) and [`internals`] (what the integration tests and the fuzz
//! targets call, hidden from the docs). Inside an area the submodules are
//! private and the area's `mod.rs` re-exports what others may use: with
//! `pub use` when [`internals`] re-exports it too, with `pub(crate) use`
//! when only other areas do (`unreachable_pub` tells the two apart). A
//! submodule stays visible only where callers name items through it, because
//! the bare names would clash or say nothing: each area's `code` table
//! (`code::ALL`), `yaml::front_matter` and `plan::version` (a `parse` next to
//! the area's own), `proc::supervise` (`Job`, `Ending`, `Stderr`), and `scan::hook`
//! (`hook::answer`, `hook::render`).

// The docs link the private modules and items they describe: they are read
// with `cargo doc --document-private-items` (docs/maintainer/conventions.md,
// "Docs in the code").
#![allow(rustdoc::private_intra_doc_links)]
// The doc comments of clap's arguments are `--help` text, written for a
// terminal: `<slug>` there is a placeholder, not an HTML tag, and an
// indented line is an example, not Rust code.
#![allow(rustdoc::invalid_html_tags, rustdoc::invalid_rust_codeblocks)]

mod audit;
mod brief;
mod claude_session;
mod cli;
mod criteria;
mod data_dir;
mod fence;
mod gate;
mod git_exclude;
mod helper_call;
#[doc(hidden)]
pub mod internals;
mod orders;
mod output;
mod pattern;
mod plan;
mod profile;
mod progress;
mod recovery;
// docs/reference/commands.md and man/ are generated from the clap tree.
#[cfg(test)]
mod reference_test;
mod report;
mod run;
mod run_marker;
mod scan;
mod state;
mod stats;
mod trek;
mod validation;
mod verdict;
mod wave;
mod write_reply;

// The shared pieces live in voyage-core; named here so that every area
// reaches them as `crate::problem`, `crate::proc`, … as before the split.
use voyage_core::{
    ansi, atomic_file, clock, exit, fault, git, input_file, own_file, problem, proc, schema, shell,
    yaml,
};
use voyage_workflow as workflow;

use std::ffi::OsString;
use std::io;
use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Group, Subcommand};

/// The binary's global allocator: the system's, with the hook's answer to
/// an allocation that fails (`scan/fail_closed.rs`).
pub use scan::Allocator;

/// Parses `args`, runs the subcommand and returns the process exit code.
/// Safe to call more than once in one process.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    // The PreToolUse hook runs before every tool call, as exactly these
    // words (hooks/hooks.json): building clap's tree of some twenty-five
    // commands would cost it more than judging the call. Any other spelling
    // (`--help` among them) goes through clap to the same code.
    if let [_, hook, event] = args.as_slice()
        && hook == "hook"
        && event == "pre-tool-use"
    {
        let stdout = io::stdout();
        let code = scan::HookCommand::PreToolUse.execute(&mut stdout.lock());
        return ExitCode::from(output::exit_code(code));
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let printed = e.print();
            // --help and --version are "errors" to clap but succeed for us;
            // help that cannot be written is output like any other.
            if !e.use_stderr() {
                return ExitCode::from(output::exit_code(printed.map(|()| exit::OK)));
            }
            // A usage error keeps its code even when stderr is gone.
            return ExitCode::from(if args.get(1).is_some_and(|a| a == "workflow") {
                // Executant's code for a bad flag is 1: 2 means an invalid
                // workflow file there, and CI wrappers tell them apart.
                workflow::exit_code::STEP_FAILED
            } else {
                exit::CANNOT_CHECK
            });
        }
    };
    let stdout = io::stdout();
    ExitCode::from(output::exit_code(dispatch(cli.command, &mut stdout.lock())))
}

/// Runs the subcommand: each area's own `execute`, on `out` (stdout, or a
/// buffer in the tests).
pub(crate) fn dispatch(command: Subcommand, out: &mut impl io::Write) -> io::Result<u8> {
    match command {
        Subcommand::Run(args) => args.execute(out),
        Subcommand::Verdict(args) => args.execute(out),
        Subcommand::Plan(Group { command }) => {
            // A plain start from here, previewed by `plan dry-run`.
            let here = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
            let preflight = trek::PreflightPreview {
                here: &here,
                project: None,
                fresh: false,
                no_push: false,
                allow_dirty: false,
                in_place: false,
            };
            command.execute(&criteria::Screening, &preflight, out)
        }
        Subcommand::Brief(Group { command }) => command.execute(out),
        Subcommand::Scan(Group { command }) => command.execute(out),
        Subcommand::Hook(Group { command }) => command.execute(out),
        Subcommand::Schema { name } => schema::print(name.as_deref(), out),
        Subcommand::Write(args) => args.execute(out),
        Subcommand::State(Group { command }) => command.execute(out),
        Subcommand::Progress(Group { command }) => command.execute(out),
        Subcommand::Audit(Group { command }) => command.execute(out),
        Subcommand::Report(args) => args.execute(out),
        Subcommand::Recovery(Group { command }) => command.execute(out),
        Subcommand::Stats(Group { command }) => command.execute(out),
        Subcommand::Event(Group { command }) => command.execute(out),
        Subcommand::Gate(args) => args.execute(out),
        Subcommand::Criteria(Group { command }) => command.execute(out),
        Subcommand::Entry(Group { command }) => command.execute(out),
        Subcommand::Profile(Group { command }) => command.execute(out),
        Subcommand::Workflow(Group { command }) => command.execute(out),
        Subcommand::Orders(Group { command }) => command.execute(out),
        Subcommand::Wave(Group { command }) => command.execute(out),
        Subcommand::Trek(Group { command }) => command.execute(out),
        Subcommand::Scope(Group { command }) => command.execute(out),
        Subcommand::Completions { shell } => cli::completions(shell, out),
    }
}
