//! The top of the command-line tree (clap derive): [`Cli`] and the list of
//! subcommands, each naming its area's own arguments. Each area owns its
//! flags and runs them (`<area>/cli.rs`, an `execute` beside the code), so
//! `lib.rs` only dispatches.

use std::io::{self, Write};

use clap::{CommandFactory, Parser};
use clap_complete::Shell;

use crate::{
    audit, brief, criteria, gate, orders, plan, profile, progress, recovery, report, run, scan,
    state, stats, trek, verdict, wave, workflow,
};

/// The deterministic half of the Voyage Claude Code plugin.
///
/// Voyage executes long coding plans with Claude Code without trusting the
/// agent's word for "done". This binary does every part that needs no model:
/// running a command with a log and a verdict, validating plans, judging
/// commands against the security denylist (also as Claude Code's PreToolUse
/// hook), running YAML workflows in Executant's format, and auditing steps
/// and runs against their manifests.
///
/// Exit codes: 0 checked and fine, 1 checked and not fine, 2 could not check
/// (usage error, unreadable input, output that cannot be written; a reader
/// that closed the pipe early gets a quiet 0). `run`, `verdict`,
/// `hook pre-tool-use` and `workflow` document their own.
#[derive(Debug, Parser)]
#[command(
    name = "voyage-helper",
    version,
    about,
    long_about,
    max_term_width = 100
)]
#[command(after_help = "Run 'voyage-helper <command> --help' for what a command prints.")]
pub(crate) struct Cli {
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
pub(crate) enum Subcommand {
    #[command(about = "Run one shell command with a log, and print a short block about it.")]
    Run(run::RunArgs),
    #[command(about = "Turn a command's log into the executor skill's short reply.")]
    Verdict(verdict::VerdictArgs),
    #[command(subcommand)]
    Plan(plan::Command),
    #[command(subcommand)]
    Brief(brief::Command),
    #[command(subcommand)]
    Scan(scan::Command),
    #[command(subcommand)]
    Hook(scan::HookCommand),
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
    Write(state::WriteArgs),
    #[command(subcommand)]
    State(state::Command),
    #[command(subcommand)]
    Progress(progress::Command),
    #[command(subcommand)]
    Audit(audit::Command),
    #[command(about = "Print a run's final report (Phase 8), or its stats record (Phase 9).")]
    Report(report::ReportArgs),
    #[command(subcommand)]
    Recovery(recovery::Command),
    #[command(subcommand)]
    Stats(stats::Command),
    #[command(subcommand)]
    Event(stats::EventCommand),
    #[command(subcommand)]
    Criteria(criteria::Command),
    #[command(subcommand)]
    Entry(criteria::EntryCommand),
    #[command(about = "Decide what the run does at an autonomy boundary")]
    Gate(gate::GateArgs),
    #[command(subcommand)]
    Profile(profile::Command),
    #[command(subcommand)]
    Workflow(workflow::Command),
    #[command(subcommand)]
    Orders(orders::Command),
    #[command(subcommand)]
    Wave(wave::Command),
    #[command(subcommand)]
    Trek(trek::Command),
    /// Print a shell completion script.
    ///
    /// For bash: `voyage-helper completions bash > ~/.local/share/bash-completion/completions/voyage-helper`.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: Shell,
    },
}

/// `completions SHELL`: the script for `shell`, drawn from the whole tree.
/// Rendered whole in memory first: clap_complete panics when its writer
/// fails, and a reader that stops early (`| head -1`) must get the quiet
/// exit 0 of `crate::output`, not an abort.
pub(crate) fn completions(shell: Shell, out: &mut impl Write) -> io::Result<u8> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "voyage-helper", &mut script);
    out.write_all(&script)?;
    out.flush()?;
    Ok(crate::exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes of every area, voyage-core's included, side by side: one
    /// code names one problem across the whole binary.
    #[test]
    fn every_code_is_declared_once_with_its_area_prefix() {
        let areas: &[(&str, &[(&str, &str)])] = &[
            ("GATE_", crate::gate::code::ALL),
            ("PROFILE_", crate::profile::code::ALL),
            ("PROGRESS_", crate::progress::code::ALL),
            ("STATE_", crate::state::code::ALL),
            ("STATE_", crate::atomic_file::code::ALL),
            ("STATS_", crate::stats::code::ALL),
            ("WORKFLOW_", crate::workflow::code::ALL),
            ("BRIEF_", crate::brief::code::ALL),
            ("PLAN_", crate::plan::code::ALL),
        ];
        let mut seen = std::collections::BTreeSet::new();
        for (prefix, codes) in areas {
            for (code, what) in *codes {
                // Two plan codes are older than the prefixes (seed Phase 4).
                let unprefixed = ["NO_VERIFICATION_SECTION", "NO_CRITERIA"].contains(code);
                assert!(
                    code.starts_with(prefix) || unprefixed,
                    "{code} lacks {prefix}"
                );
                assert!(!what.is_empty(), "{code} says nothing");
                assert!(seen.insert(*code), "{code} is declared twice");
            }
        }
    }

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
