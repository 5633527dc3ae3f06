//! `scope`'s command line: `scope exec` (what the hook rewrites a Bash call
//! to during a run) and `scope status`.

use std::io::{self, Write};
use std::path::PathBuf;

use super::exec::{self, REFUSED, Request};
use super::status;
use crate::exit;

/// The kernel fence that holds a run's step to its Files.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Run one shell command inside the fence of the run in progress.
    ///
    /// The PreToolUse hook rewrites every Bash call made while a
    /// /trekexecute run is in progress into this (the helper's own `trek`
    /// calls excepted); it is not meant to be typed. The helper reads the
    /// run marker, restricts itself with Linux Landlock and becomes the
    /// shell Claude Code uses (CLAUDE_CODE_SHELL, else SHELL when bash or
    /// zsh, else bash), which runs COMMAND. Writes then reach only: the
    /// step's Files (an existing file written in place; a new file's
    /// directory, for new files), the directories of step files this call
    /// visibly rewrites (--dir, for `sed -i`), the build output directories
    /// `trek step-begin` found ignored, Voyage's log directory, the run's
    /// private temporary directory (TMPDIR), the package managers' caches,
    /// ~/.claude (its projects/ only with memory_write) and the devices a
    /// redirection writes. Between steps no file of the repository can be
    /// written. Reads, execution and the network are untouched. Every
    /// other write fails in the kernel with EACCES ("Permission denied");
    /// when COMMAND fails, one line on stderr says the scope was held.
    ///
    /// When it exits the shell leaves its working directory in the
    /// --cwd-file, if given, which the rewritten command changes to, so a
    /// `cd` carries to the next call as it does without the fence (the
    /// hook gives one only to a command whose text may change directory).
    /// `run --fence` runs its command through this too.
    ///
    /// Exit status: COMMAND's; 126 when the fence cannot be built (the
    /// marker is gone or unreadable, the kernel refused), with the reason
    /// on stderr and COMMAND not run.
    #[command(verbatim_doc_comment)]
    Exec(ExecArgs),
    /// Say whether this kernel holds a run's scope, and what is open now.
    ///
    /// Reports the kernel's Landlock ABI (3 or later holds a step's scope:
    /// Linux 6.2 and later; below it, or without Landlock, the run's scope
    /// is judged from the text of each command alone, and `trek start`
    /// says so), the run in progress in this directory with every place
    /// its fence leaves open now and why, and the table of package-manager
    /// caches a fenced command may write. --json: one object (schema
    /// scope-status).
    ///
    /// Example:
    ///     voyage-helper scope status
    ///     voyage-helper scope status --json
    ///
    /// Exit status: 0.
    #[command(verbatim_doc_comment)]
    Status(StatusArgs),
}

impl Command {
    /// Runs the subcommand; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Exec(args) => {
                let why = exec::exec(&Request {
                    marker: &args.marker,
                    cwd_file: args.cwd_file.as_deref(),
                    shell: args.shell.as_deref(),
                    call_dirs: &args.dir,
                    command: &args.command,
                });
                eprintln!("voyage: the command was not run: {why}");
                Ok(REFUSED)
            }
            Self::Status(args) => {
                let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
                let status = status::status(&here);
                if args.json {
                    serde_json::to_writer(&mut *out, &status)?;
                    writeln!(out)?;
                } else {
                    out.write_all(status::render(&status).as_bytes())?;
                }
                Ok(exit::OK)
            }
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ExecArgs {
    /// The run marker whose step holds the command.
    #[arg(long, value_name = "FILE")]
    pub marker: PathBuf,
    /// Where the shell leaves its last working directory, for a command
    /// that may change it; its directory is the run's private temporary
    /// directory (without it: <temp dir>/voyage-fence-<uid>/<run>).
    #[arg(long, value_name = "FILE")]
    pub cwd_file: Option<PathBuf>,
    /// The shell to run COMMAND with (`run --fence` uses bash, as `run`
    /// always does).
    #[arg(long, value_name = "PATH")]
    pub shell: Option<std::ffi::OsString>,
    /// A directory (relative to the repository) where this call rewrites a
    /// step file: files may be made and replaced there. Repeatable.
    #[arg(long, value_name = "DIR")]
    pub dir: Vec<String>,
    /// The command, as the agent wrote it.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: String,
}

#[derive(Debug, Clone, clap::Args)]
pub(crate) struct StatusArgs {
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}
