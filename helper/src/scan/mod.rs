//! `scan`: the denylist engine, and the subcommands and hook built on it.
//!
//! Implements trekexecute Phase 2.4 (pre-execution security scan), Sub-step
//! D1 (the Verify command check) and Hard rules 14 to 16. Commands are parsed
//! by a real bash parser ([`parse`], brush-parser; a long line of plain words
//! by the one-pass [`plain`]) and the syntax tree is
//! walked ([`walk`]) to find every simple command that would run, with its
//! words expanded as far as that is possible without running anything
//! ([`word`], [`arg`]). Each is then judged by the program it runs
//! ([`call`], [`program`]): wrappers come off ([`wrapper`]), code handed to
//! a shell, `eval` or a substitution is parsed and judged in turn
//! ([`scanner`], depth-capped), text moving along pipes is tracked
//! ([`flow`]) so that downloads and decoded text never reach a shell, `cd`
//! is followed ([`cwd`]) so a command is judged where it runs, what the
//! command puts in variables and arrays is followed to where it is used
//! ([`vars`], filled by assignments, loops and the builtins of
//! [`setters`]), and
//! the per-program checks ([`checks`], options read by [`getopt`]) and
//! protected paths ([`paths`]) apply. The rules themselves are data
//! ([`rule`]); results are [`finding`]s.
//!
//! Entry points: [`engine::judge_command`] and [`engine::judge_path`]. The
//! `scan command` subcommand renders a judgement ([`render`]); `scan plan`
//! judges every command of a plan ([`plan`], on the plan area's model); the
//! PreToolUse hook answers Claude Code ([`hook`], reading its input with
//! [`hook_input`]).

mod arg;
mod call;
mod checks;
mod cli;
mod cwd;
mod engine;
mod finding;
mod flow;
mod getopt;
pub(crate) mod hook;
mod hook_input;
mod parse;
mod paths;
mod plain;
mod plan;
mod program;
mod real_path;
mod render;
mod rule;
mod run_scope;
mod scanner;
mod setters;
mod vars;
mod walk;
mod word;
mod wrapper;
mod write_target;

pub(crate) use cli::{Command, HookCommand};
pub use engine::judge_command;
pub use finding::{Decision, Judgement, MAX_EXCERPT_CHARS};
/// The shell parser the engine uses, for readers of a command's shape
/// (the criteria runner's allowlist).
pub(crate) use parse::parse_with_brush as parse_shell;
pub(crate) use plan::Scan as PlanScan;
pub use render::{render_json, render_text};
pub use rule::{RULES, find};
pub use scanner::Context;
pub use write_target::{WriteDir, WriteKind, WriteTarget};

use std::io::{self, Write};

use crate::exit;

/// `scan command`: judges the command, prints the result to `out`, and
/// returns the exit code: 0 pass or warning, 1 blocked, 2 no command (or
/// the error writing the result).
pub(crate) fn execute_command(
    args: &cli::ScanCommandArgs,
    ctx: &Context,
    out: &mut impl Write,
) -> io::Result<u8> {
    let command = args.line();
    if command.trim().is_empty() {
        eprintln!("error: no command given (voyage-helper scan command -- COMMAND)");
        return Ok(exit::CANNOT_CHECK);
    }
    let judgement = judge_command(&command, ctx);
    if args.json {
        render::render_json(&command, &judgement, out)?;
    } else {
        render::render_text(&judgement, out)?;
    }
    out.flush()?;
    Ok(match judgement.decision() {
        Decision::Block => exit::NOT_OK,
        Decision::Warn | Decision::Allow => exit::OK,
    })
}
