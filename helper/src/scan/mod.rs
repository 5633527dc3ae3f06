//! `scan`: the subcommands and the hook built on the denylist engine, the
//! `voyage-judge` crate (`judge/`), whose description follows.
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
//! ([`flow`]), through other descriptors ([`descriptors`]) and into files
//! run later ([`downloads`]) so that downloads and decoded text never
//! reach a shell, `cd` is followed ([`cwd`]) so a command is judged where
//! it runs, what the command puts in variables and arrays is followed to
//! where it is used ([`vars`], filled by assignments, loops and the
//! builtins of [`setters`]), bash's arithmetic and the subscripts it
//! expands again are evaluated as bash does ([`arith`]), and
//! the per-program checks ([`checks`], options read by [`getopt`]) and
//! protected paths ([`paths`]) apply. The rules themselves are data
//! ([`rule`]); results are [`finding`]s.
//!
//! Entry points: [`engine::judge_command`] and [`engine::judge_path`]. The
//! `scan command` subcommand renders a judgement ([`render`]); `scan plan`
//! judges every command of a plan ([`plan`], on the plan area's model); the
//! PreToolUse hook answers Claude Code ([`hook`], reading its input with
//! [`hook_input`]); `scan rules` lists the rule table and checks its
//! examples ([`rules`]). [`cli`] has the flags, each subcommand run by an
//! `execute` there (the hook's own edge is [`hook::execute`], and
//! [`fail_closed`] makes anything that stops it a denial).
//!
//! [`parse`]: voyage_judge::parse
//! [`plain`]: voyage_judge::plain
//! [`walk`]: voyage_judge::walk
//! [`word`]: voyage_judge::word
//! [`arg`]: voyage_judge::arg
//! [`call`]: voyage_judge::call
//! [`program`]: voyage_judge::program
//! [`wrapper`]: voyage_judge::wrapper
//! [`flow`]: voyage_judge::flow
//! [`descriptors`]: voyage_judge::descriptors
//! [`downloads`]: voyage_judge::downloads
//! [`arith`]: voyage_judge::arith
//! [`cwd`]: voyage_judge::cwd
//! [`vars`]: voyage_judge::vars
//! [`setters`]: voyage_judge::setters
//! [`checks`]: voyage_judge::checks
//! [`getopt`]: voyage_judge::getopt

mod cli;
mod fail_closed;
pub(crate) mod hook;
mod hook_input;
mod plan;
mod rules;
mod run_scope;

// The judge's modules, under the names this area's own modules and the
// rest of the helper use for them.
pub(crate) use voyage_judge::{
    engine, finding, paths, real_path, render, rule, scanner, write_target,
};

pub(crate) use cli::{Command, HookCommand};
pub use fail_closed::Allocator;
pub(crate) use plan::Scan as PlanScan;
pub use voyage_judge::Context;
/// The rule table's examples and how they are held to it.
pub use voyage_judge::examples;
pub use voyage_judge::judge_command;
/// The shell parser the engine uses, for readers of a command's shape
/// (the criteria runner's allowlist).
pub(crate) use voyage_judge::parse_shell;
pub use voyage_judge::{Decision, Judgement, MAX_EXCERPT_CHARS};
pub use voyage_judge::{RULES, find, render_json, render_text};
pub use voyage_judge::{WriteDir, WriteKind, WriteTarget};
