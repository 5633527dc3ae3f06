//! voyage-helper: the deterministic half of the Voyage Claude Code plugin.
//!
//! This library exists for the `voyage-helper` binary and its tests and makes
//! no stability promise. It is laid out by area (DESIGN.md, "Areas of the
//! helper"); each area's `mod.rs` says what it does and which seed section it
//! implements.
//!
//! - [`run`]: `run`, the executor's command runner with a log and a block.
//! - [`verdict`]: `verdict`, the executor's reply built from a log.
//! - [`plan`]: `plan validate`, `plan show`, `plan dry-run`; the plan model.
//! - [`brief`]: `brief validate`.
//! - [`pattern`]: regular expressions as plan authors write them.
//! - [`scan`]: the denylist engine, `scan command`, `scan plan` and
//!   `hook pre-tool-use`.
//! - [`proc`]: the one place that spawns and signals processes.
//! - [`schema`]: the embedded JSON Schemas of `schemas/`.
//! - [`cli`]: the command-line tree; [`exit`]: the exit codes.

pub mod brief;
pub mod cli;
pub mod clock;
pub mod exit;
pub mod pattern;
pub mod plan;
pub mod proc;
pub mod run;
pub mod scan;
pub mod schema;
pub mod verdict;

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use cli::{Cli, Subcommand};

/// Parses `args`, runs the subcommand and returns the process exit code.
/// Safe to call more than once in one process.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are "errors" to clap but succeed for us.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit::CANNOT_CHECK
            } else {
                exit::OK
            });
        }
    };
    ExitCode::from(dispatch(cli))
}

fn dispatch(cli: Cli) -> u8 {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Subcommand::Run(args) => {
            let pwd = match run::current_dir() {
                Ok(pwd) => pwd,
                Err(e) => {
                    // No directory to run in: still answer with a block.
                    let block = run::block::Block::PreLaunch {
                        reason: format!("working directory missing: {e}"),
                    };
                    let _ = block.render_text(&mut out);
                    return exit::CANNOT_CHECK;
                }
            };
            let options = args.into_options(pwd);
            run::execute(&options, &mut out)
        }
        Subcommand::Verdict(args) => verdict::execute(&args.into_options(), &mut out),
        Subcommand::Plan(command) => match command {
            cli::PlanCommand::Validate {
                strict,
                json,
                plan: path,
            } => plan::command::validate(&path, strict, json, &mut out),
            cli::PlanCommand::Show { json, plan: path } => {
                plan::command::show(&path, json, &mut out)
            }
            cli::PlanCommand::DryRun { json, plan: path } => {
                plan::command::dry_run(&path, json, &mut out)
            }
        },
        Subcommand::Brief(cli::BriefCommand::Validate {
            soft,
            json,
            brief: path,
        }) => brief::validate(&path, soft, json, &mut out),
        Subcommand::Scan(cli::ScanCommand::Command(args)) => {
            scan::execute_command(&args.into_options(), &mut out)
        }
        Subcommand::Scan(cli::ScanCommand::Plan(args)) => {
            scan::plan::execute(&args.into_options(), &mut out)
        }
        Subcommand::Hook(cli::HookCommand::PreToolUse) => {
            let ctx = scan::Context::from_env();
            let answer = scan::hook::read_input().map_or(scan::hook::Answer::Silent, |input| {
                scan::hook::answer(&input, &ctx)
            });
            let _ = scan::hook::render(&answer, &mut out).and_then(|()| out.flush());
            exit::OK
        }
        Subcommand::Schema { name } => match name {
            None => {
                for name in schema::names() {
                    let _ = writeln!(out, "{name}");
                }
                exit::OK
            }
            Some(name) => match schema::find(&name) {
                Some(text) => {
                    let _ = out.write_all(text.as_bytes());
                    exit::OK
                }
                None => {
                    eprintln!(
                        "error: no schema named '{name}' (known: {})",
                        schema::names().join(", ")
                    );
                    exit::CANNOT_CHECK
                }
            },
        },
        Subcommand::Completions { shell } => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "voyage-helper", &mut out);
            let _ = out.flush();
            exit::OK
        }
    }
}
