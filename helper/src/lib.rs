//! voyage-helper: the deterministic half of the Voyage Claude Code plugin.
//!
//! This library exists for the `voyage-helper` binary and its tests and makes
//! no stability promise. It is laid out by area (DESIGN.md, "Areas of the
//! helper"); each area's `mod.rs` says what it does and which seed section it
//! implements.
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
//! - [`stats`]: `stats append`, `event emit`, `stats show`.
//! - [`gate`]: the autonomy gate; [`profile`]: `profile resolve`.
//! - [`workflow`]: `workflow run`, `workflow validate` (Executant-compatible
//!   YAML workflows).
//! - [`proc`]: the one place that spawns and signals processes.
//! - [`schema`]: the embedded JSON Schemas of `schemas/`.
//! - shared: [`problem`] (coded problems), [`validation`] (validator
//!   reports), [`write_reply`] (what writers print), [`front_matter`],
//!   [`data_dir`], [`clock`].
//! - [`cli`]: the command-line tree; [`exit`]: the exit codes.

pub mod ansi;
pub mod atomic_file;
pub mod brief;
pub mod cli;
pub mod clock;
pub mod data_dir;
pub mod exit;
pub mod front_matter;
pub mod gate;
pub mod pattern;
pub mod plan;
pub mod problem;
pub mod proc;
pub mod profile;
pub mod progress;
pub mod run;
pub mod scan;
pub mod schema;
pub mod state;
pub mod stats;
pub mod validation;
pub mod verdict;
pub mod workflow;
pub mod write_reply;
pub mod yaml;

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use cli::{
    Cli, EventCommand, ProfileCommand, ProgressCommand, StateCommand, StatsCommand, Subcommand,
};

/// Parses `args`, runs the subcommand and returns the process exit code.
/// Safe to call more than once in one process.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are "errors" to clap but succeed for us.
            let _ = e.print();
            return ExitCode::from(if !e.use_stderr() {
                exit::OK
            } else if args.get(1).is_some_and(|a| a == "workflow") {
                // Executant's code for a bad flag is 1: 2 means an invalid
                // workflow file there, and CI wrappers tell them apart.
                workflow::command::exit_code::STEP_FAILED
            } else {
                exit::CANNOT_CHECK
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
        Subcommand::Hook(cli::HookCommand::PreToolUse) => scan::hook::execute(&mut out),
        Subcommand::Write(args) => state::execute_write(
            &state::WriteOptions {
                path: args.path,
                schema: args.schema,
                json: args.json,
            },
            &mut io::stdin().lock(),
            &mut out,
        ),
        Subcommand::State(command) => dispatch_state(command, &mut out),
        Subcommand::Progress(command) => dispatch_progress(command, &mut out),
        Subcommand::Stats(command) => dispatch_stats(command, &mut out),
        Subcommand::Event(EventCommand::Emit {
            event,
            payload,
            kind,
        }) => stats::execute_event(
            &stats::EventOptions {
                event,
                payload: payload.map(source),
                kind,
                data_dir: data_dir::resolve(),
            },
            &mut io::stdin().lock(),
            &mut out,
        ),
        Subcommand::Gate(args) => gate::execute(
            &gate::Options {
                state: args.state,
                event: args.event,
                gates: args.gates,
                effort: args.effort,
                json: args.json,
                record: !args.no_record,
                data_dir: data_dir::resolve(),
            },
            &mut out,
        ),
        Subcommand::Profile(ProfileCommand::Resolve {
            phase,
            brief,
            profile,
            plan,
            json,
        }) => profile::execute(
            &profile::Options {
                phase,
                brief,
                plan,
                choice: profile::resolve::Choice {
                    flag: profile,
                    env: std::env::var("VOYAGE_PROFILE").ok(),
                    plan: None,
                },
                project: std::path::PathBuf::from("."),
                data_dir: data_dir::resolve(),
                json,
            },
            &mut out,
        ),
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
        Subcommand::Workflow(cli::WorkflowCommand::Run(args)) => {
            workflow::command::run(&args.into_options(), &mut out)
        }
        Subcommand::Workflow(cli::WorkflowCommand::Validate { json, vars, file }) => {
            workflow::command::validate(&file, &vars, json, &mut out)
        }
        Subcommand::Completions { shell } => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "voyage-helper", &mut out);
            let _ = out.flush();
            exit::OK
        }
    }
}

/// `-` (or nothing) means stdin.
fn source(text: String) -> stats::Source {
    if text == "-" {
        stats::Source::Stdin
    } else {
        stats::Source::Arg(text)
    }
}

fn dispatch_state(command: StateCommand, out: &mut impl Write) -> u8 {
    match command {
        StateCommand::Write {
            project,
            brief,
            label,
            status,
            json,
        } => state::execute_state_write(
            &state::StateWriteOptions {
                project,
                brief,
                label,
                status,
                json,
            },
            out,
        ),
        StateCommand::Validate { json, file } => {
            state::execute_state_validate(&state::StateValidateOptions { file, json }, out)
        }
    }
}

fn dispatch_progress(command: ProgressCommand, out: &mut impl Write) -> u8 {
    match command {
        ProgressCommand::Init {
            plan,
            project,
            session,
            file,
            mode,
            json,
        } => progress::execute_init(
            &progress::InitOptions {
                locate: progress::Locate {
                    file,
                    plan,
                    project,
                    session,
                },
                mode,
                json,
            },
            out,
        ),
        ProgressCommand::Show { locate, json } => progress::execute_show(
            &progress::ShowOptions {
                locate: locate.into_locate(),
                json,
            },
            out,
        ),
        ProgressCommand::Step {
            step,
            status,
            error,
            commit,
            manifest_audit,
            drift,
            checkpoint_drift,
            locate,
            json,
        } => {
            let json_arg = |flag: &'static str, text: Option<String>, want_array: bool| {
                text.map(|t| match serde_json::from_str::<serde_json::Value>(&t) {
                    Ok(v) if v.is_array() == want_array && (want_array || v.is_object()) => Ok(v),
                    _ => Err(problem::Problem::new(
                        progress::code::PROGRESS_NOT_JSON,
                        format!(
                            "{flag} must be a JSON {}",
                            if want_array { "array" } else { "object" }
                        ),
                    )),
                })
                .transpose()
            };
            let (drift, checkpoint_drift) = match (
                json_arg("--drift", drift, true),
                json_arg("--checkpoint-drift", checkpoint_drift, false),
            ) {
                (Ok(d), Ok(c)) => (d, c),
                (Err(p), _) | (_, Err(p)) => {
                    problem::eprint_all(&[p]);
                    return exit::NOT_OK;
                }
            };
            progress::execute_step(
                &progress::StepOptions {
                    locate: locate.into_locate(),
                    update: progress::transition::StepUpdate {
                        step,
                        status: None,
                        error,
                        commit,
                        manifest_audit: manifest_audit
                            .as_deref()
                            .and_then(progress::status::ManifestAudit::parse),
                        drift,
                        checkpoint_drift,
                    },
                    status_word: status,
                    json,
                },
                out,
            )
        }
        ProgressCommand::ResumePoint { locate, json } => progress::execute_resume_point(
            &progress::ResumeOptions {
                locate: locate.into_locate(),
                json,
            },
            out,
        ),
        ProgressCommand::Finish {
            status,
            summary,
            plan_verification,
            locate,
            json,
        } => progress::execute_finish(
            &progress::FinishOptions {
                locate: locate.into_locate(),
                status_word: status,
                summary,
                plan_verification,
                json,
            },
            out,
        ),
        ProgressCommand::Validate { json, file } => {
            progress::execute_validate(&progress::ValidateOptions { file, json }, out)
        }
    }
}

fn dispatch_stats(command: StatsCommand, out: &mut impl Write) -> u8 {
    match command {
        StatsCommand::Append { kind, record } => stats::execute_append(
            &stats::AppendOptions {
                kind,
                record: record.map_or(stats::Source::Stdin, source),
                data_dir: data_dir::resolve(),
            },
            &mut io::stdin().lock(),
            out,
        ),
        StatsCommand::Show { kind, json } => stats::execute_show(
            &stats::ShowOptions {
                kind,
                data_dir: data_dir::resolve(),
                json,
            },
            out,
        ),
    }
}
