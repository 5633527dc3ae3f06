//! The shell-command judge: what a command line would do if bash ran it,
//! judged against Voyage's denylist (trekexecute Hard rules 14 to 16).
//!
//! Commands are parsed by a real bash parser ([`parse`], brush-parser; a
//! long line of plain words by the one-pass [`plain`]) and the syntax tree
//! is walked ([`walk`]) to find every simple command that would run, with
//! its words expanded as far as that is possible without running anything
//! ([`word`], [`arg`]). Each is then judged by the program it runs
//! ([`call`], [`program`]): wrappers come off ([`wrapper`]), PowerShell's
//! and other shells' code is read ([`shells`]), a program copied or aliased
//! under another name is judged as itself ([`renamed`]), code handed
//! to a shell, `eval` or a substitution is parsed and judged in turn
//! ([`scanner`], depth-capped), text moving along pipes is tracked
//! ([`flow`]), through other descriptors and the processes `exec` makes
//! of them ([`descriptors`]), through named pipes ([`fifos`]), and into
//! files run later ([`downloads`]) so
//! that downloads and decoded text never reach a shell, `cd` is followed
//! ([`cwd`]) so a command is judged where it runs, what the command puts
//! in variables and arrays is followed to where it is used ([`vars`],
//! filled by assignments, loops and the builtins of [`setters`]), bash's
//! arithmetic and the subscripts it expands a second time are evaluated
//! as bash does ([`arith`]), and the per-program checks ([`checks`],
//! options read by [`getopt`]) and protected paths ([`paths`]) apply. The
//! rules themselves are data ([`rule`], each with examples that
//! [`examples`] checks); results are [`finding`]s, with the files a command
//! writes ([`write_target`], resolved by [`real_path`]).
//!
//! The API is [`judge_command`] (and [`judge_path`] for a file a tool
//! writes): a command and a [`Context`] in, a [`Judgement`] out, whose
//! [`Judgement::decision`] is block, warn or allow. [`render_text`] and
//! [`render_json`] print it as `voyage-helper scan command` does. Nothing
//! here knows a command line, Claude Code's hook protocol or a run of
//! `/trekexecute`: those are the helper's (`helper/src/scan/`).
//!
//! ```text
//! let judgement = voyage_judge::judge_command("rm -rf ~", &Context::default());
//! assert_eq!(judgement.decision(), Decision::Block);
//! ```

// The modules are the crate's API for the helper; their docs link to the
// private items that explain them, as the helper's docs do.
#![allow(rustdoc::private_intra_doc_links)]

pub mod arg;
pub mod arith;
pub mod call;
pub mod checks;
pub mod cwd;
mod delayed;
pub mod descriptors;
pub mod downloads;
pub mod engine;
pub mod examples;
mod fault;
pub mod fifos;
pub mod find_expr;
pub mod finding;
pub mod flow;
pub mod getopt;
pub mod labels;
pub mod parse;
pub mod paths;
pub mod plain;
pub mod program;
pub mod real_path;
pub mod renamed;
pub mod render;
pub mod rule;
pub mod scanner;
pub mod setters;
pub mod shells;
pub mod vars;
pub mod walk;
pub mod word;
pub mod wrapper;
pub mod write_target;

pub use engine::{judge_command, judge_path};
pub use finding::{Decision, Judgement, MAX_EXCERPT_CHARS};
pub use labels::Labels;
/// The shell parser the engine uses, for readers of a command's shape.
pub use parse::parse_with_brush as parse_shell;
pub use render::{render_json, render_text};
pub use rule::{RULES, find};
pub use scanner::Context;
pub use write_target::{WriteDir, WriteKind, WriteTarget};

/// The decision on `command`, judged for a user whose home is `home`, and
/// the ids of the rules it broke: what the unit tests of each area ask.
#[cfg(test)]
pub(crate) fn judged(command: &str, home: Option<&str>) -> (Decision, Vec<&'static str>) {
    let ctx = Context {
        home: home.map(str::to_owned),
    };
    let judgement = judge_command(command, &ctx);
    let rules = judgement.findings.iter().map(|f| f.rule.id).collect();
    (judgement.decision(), rules)
}
