//! The top of the command-line tree (clap derive): [`Cli`] and the list of
//! subcommands, each naming its area's own arguments. Each area owns its
//! flags and runs them (`<area>/cli.rs`, an `execute` beside the code), so
//! `lib.rs` only dispatches.

use std::io::{self, Write};

use clap::{CommandFactory, Parser};
use clap_complete::Shell;

use crate::{
    audit, brief, criteria, fence, gate, orders, plan, profile, progress, recovery, report, run,
    scan, state, stats, trek, verdict, wave, workflow,
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
// `plan`'s. clap defers only variants that take a struct, so each group of
// commands (`plan`, `progress`, …) comes wrapped in a [`Group`]; without it
// every group's whole tree was built for every call, half of what a `run`
// costs its process. A deferred struct's or group's doc comment reaches the
// command only when it is built, so the variants below repeat its first
// line, for the list of commands in `--help` and in completions (as an
// attribute: a one-line doc comment would lose its final full stop).
#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub(crate) enum Subcommand {
    #[command(about = "Run one shell command with a log, and print a short block about it.")]
    Run(run::RunArgs),
    #[command(about = "Turn a command's log into the executor skill's short reply.")]
    Verdict(verdict::VerdictArgs),
    #[command(about = "Parse, check and preview trekplans and session specs")]
    Plan(Group<plan::Command>),
    #[command(about = "Check a `brief.md`'s front matter")]
    Brief(Group<brief::Command>),
    #[command(about = "Check commands against the security denylist before they run")]
    Scan(Group<scan::Command>),
    #[command(about = "Claude Code hooks")]
    Hook(Group<scan::HookCommand>),
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
    #[command(about = "The session handover pair a run leaves behind (Phase 8)")]
    State(Group<state::Command>),
    #[command(about = "The progress file: the ground truth of a run (Phase 3, Phase 6)")]
    Progress(Group<progress::Command>),
    #[command(
        about = "Audit a run against its plan's manifests: files, git and exit codes decide \"done\", never the executor's own word (Sub-steps D2 and F, Phase 7.5)"
    )]
    Audit(Group<audit::Command>),
    #[command(about = "Print a run's final report (Phase 8), or its stats record (Phase 9).")]
    Report(report::ReportArgs),
    #[command(about = "Recovery dispatch (Phase 7.6)")]
    Recovery(Group<recovery::Command>),
    #[command(about = "Stats records (Phase 9)")]
    Stats(Group<stats::Command>),
    #[command(about = "Lifecycle events (Phase 8 main-merge gate, gates override)")]
    Event(Group<stats::EventCommand>),
    #[command(about = "Run a plan's end-to-end checks (trekexecute Phase 7)")]
    Criteria(Group<criteria::Command>),
    #[command(about = "Check a session spec's entry condition (trekexecute Phase 4)")]
    Entry(Group<criteria::EntryCommand>),
    #[command(about = "Decide what the run does at an autonomy boundary")]
    Gate(gate::GateArgs),
    #[command(about = "Profiles: which model each phase uses")]
    Profile(Group<profile::Command>),
    #[command(about = "Run YAML workflows in Executant's format, or have an agent write one")]
    Workflow(Group<workflow::Command>),
    #[command(about = "Write and read the session orders of a multi-session run (Phase 2.6).")]
    Orders(Group<orders::Command>),
    #[command(about = "Prepare, collect and clean up the waves of a multi-session run.")]
    Wave(Group<wave::Command>),
    #[command(about = "Execute a plan with Claude Code, one phase per call (`/trekexecute`).")]
    Trek(Group<trek::Command>),
    #[command(about = "The kernel fence that holds a run's step to its Files")]
    Scope(Group<fence::Command>),
    /// Print a shell completion script.
    ///
    /// For bash: `voyage-helper completions bash > ~/.local/share/bash-completion/completions/voyage-helper`.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: Shell,
    },
}

// A group of commands (`plan validate`, `plan show`, …) as a struct, so
// that `defer` reaches it: clap builds a group's subcommands, and their
// arguments, only when the group is the one being run. Its command line is
// the group's own, as if the enum stood in the variant. (A `//` comment: a
// doc comment would become every group's about.)
#[derive(Debug, clap::Args)]
#[group(skip)]
pub(crate) struct Group<C: clap::Subcommand> {
    #[command(subcommand)]
    pub command: C,
}

/// `completions SHELL`: the script for `shell`, drawn from the whole tree.
/// Rendered whole in memory first: clap_complete panics when its writer
/// fails, and a reader that stops early (`| head -1`) must get the quiet
/// exit 0 of `crate::output`, not an abort.
pub(crate) fn completions(shell: Shell, out: &mut impl Write) -> io::Result<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut whole_tree(), "voyage-helper", &mut script);
    out.write_all(&script)?;
    out.flush()?;
    Ok(crate::exit::OK)
}

/// The tree with every [`Group`]'s subcommands in place before the top is
/// built. clap's own `help` subcommand is a copy of the tree as it stands
/// when the top is built, and a deferred group is still empty then: the
/// completion scripts would lose `help plan validate` and the like.
fn whole_tree() -> clap::Command {
    Cli::command().mut_subcommands(|sub| {
        let expand = match sub.get_name() {
            "plan" => Group::<plan::Command>::expand,
            "brief" => Group::<brief::Command>::expand,
            "scan" => Group::<scan::Command>::expand,
            "hook" => Group::<scan::HookCommand>::expand,
            "state" => Group::<state::Command>::expand,
            "progress" => Group::<progress::Command>::expand,
            "audit" => Group::<audit::Command>::expand,
            "recovery" => Group::<recovery::Command>::expand,
            "stats" => Group::<stats::Command>::expand,
            "event" => Group::<stats::EventCommand>::expand,
            "criteria" => Group::<criteria::Command>::expand,
            "entry" => Group::<criteria::EntryCommand>::expand,
            "profile" => Group::<profile::Command>::expand,
            "workflow" => Group::<workflow::Command>::expand,
            "orders" => Group::<orders::Command>::expand,
            "wave" => Group::<wave::Command>::expand,
            "trek" => Group::<trek::Command>::expand,
            "scope" => Group::<fence::Command>::expand,
            _ => return sub,
        };
        expand(sub)
    })
}

impl<C: clap::Subcommand> Group<C> {
    /// The group's deferred part applied now, with nothing left to defer.
    fn expand(command: clap::Command) -> clap::Command {
        <Self as clap::Args>::augment_args(command.defer(|c| c))
    }
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

    /// Completions see each group's subcommands before the top is built,
    /// as they are once it is: a group added to [`Subcommand`] needs its
    /// line in `whole_tree`.
    #[test]
    fn completions_see_every_group_expanded() {
        let names = |command: &clap::Command| -> Vec<String> {
            command
                .get_subcommands()
                .map(|c| c.get_name().to_owned())
                .filter(|name| name != "help")
                .collect()
        };
        let expanded = whole_tree();
        let mut built = Cli::command();
        built.build();
        for command in built.get_subcommands() {
            let name = command.get_name();
            let Some(before) = expanded.find_subcommand(name) else {
                continue;
            };
            assert_eq!(names(before), names(command), "{name}");
        }
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
