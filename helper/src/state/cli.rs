//! `write --atomic`'s and `state`'s command lines: the flags, each
//! subcommand run by an `execute` here.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use super::code;
use super::ops::{MAX_DOCUMENT_BYTES, write_checked, write_state_pair};
use crate::exit;
use crate::problem::{self, Problem};
use crate::write_reply::WriteReply;

/// Replace a file with stdin, atomically
///
/// A reader or a crash sees the old document or the new one, never a mix.
/// Stdin is written to a temporary file in PATH's directory, fsynced, given
/// the mode of the file it replaces (a new file gets 0666 less the umask),
/// renamed over PATH, and the directory is fsynced. A crash or a kill at any
/// moment leaves PATH as it was or as it is now; a failed write leaves it
/// untouched and no temporary file behind. A symlink at PATH is followed.
///
/// A writer killed mid-write leaves its temporary file,
/// `.NAME.voyage-tmp.PID.N`, beside PATH. The next write of PATH removes
/// those whose writer has exited (and is older than 5 s) or that are older
/// than 15 minutes, unless the directory is too large to list cheaply.
///
/// With `--schema NAME`, stdin must be a JSON document valid against that
/// embedded schema (`voyage-helper schema` lists them), or nothing is
/// written.
///
/// OUTPUT: `wrote PATH` on stdout; with --json one line
/// `{"written": true, "path": …, "bytes": N}` or
/// `{"written": false, "code": …, "reason": …}`. Problems also go to stderr
/// as `error[CODE]: …`.
///
/// Exit status: 0 written, 1 refused by --schema, 2 could not write
/// (missing directory, PATH is a directory, no permission).
#[derive(Debug, Clone, clap::Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct WriteArgs {
    /// Write atomically (the only mode; required so that the guarantee is
    /// visible where it is relied on).
    #[arg(long, required = true)]
    pub atomic: bool,

    /// Check stdin against this embedded schema first (e.g. `progress`).
    #[arg(long, value_name = "NAME")]
    pub schema: Option<String>,

    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,

    /// The file to replace or create.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
}

impl WriteArgs {
    /// `write --atomic`: stdin replaces PATH; a write error of `out` is
    /// returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        execute_write(&self, &mut io::stdin().lock(), out)
    }
}

/// The session handover pair a run leaves behind (Phase 8).
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Write .session-state.local.json and NEXT-SESSION-PROMPT.local.md.
    ///
    /// Both go into DIR. The state record holds schema_version 1, project,
    /// next_session_brief_path, next_session_label, status and updated_at
    /// (schema `session-state`); the prompt's front matter holds
    /// produced_by: trekexecute, produced_at (the same instant as
    /// updated_at), project and status, then a line saying to resume with
    /// /trekcontinue.
    ///
    /// Both files are written so that both change or neither does: they are
    /// checked, staged as complete temporary files, then renamed into place,
    /// the prompt first and the record last; if the second rename fails the
    /// first is undone.
    ///
    /// Exit status: 0 written, 1 refused input (unknown status, empty
    /// label, a label of several lines), 2 could not write.
    #[command(verbatim_doc_comment)]
    Write(StateWriteArgs),
    /// Check a .session-state.local.json (and the prompt beside it).
    ///
    /// The record is checked against the `session-state` schema (unknown
    /// keys are fine). When NEXT-SESSION-PROMPT.local.md sits beside it, its
    /// front matter must say produced_by: trekexecute and agree with the
    /// record on the instant, the project and the status.
    ///
    /// Codes: STATE_NOT_JSON, STATE_NOT_OBJECT, STATE_MISSING_KEY,
    /// STATE_BAD_VERSION, STATE_BAD_STATUS, STATE_BAD_TIME, STATE_BAD_VALUE,
    /// STATE_PROMPT_NO_FRONT_MATTER, STATE_PROMPT_BAD_FRONT_MATTER,
    /// STATE_PROMPT_PRODUCER, STATE_PAIR_MISMATCH, STATE_UNREADABLE,
    /// STATE_NOT_A_FILE (a directory, FIFO or device), STATE_TOO_LARGE (over
    /// 64 MiB).
    ///
    /// Exit status: 0 valid, 1 problems found, 2 unreadable.
    #[command(verbatim_doc_comment)]
    Validate(crate::validation::ValidateArgs),
}

impl Command {
    /// Runs the subcommand; a write error of `out` is returned.
    pub(crate) fn execute(self, out: &mut impl Write) -> io::Result<u8> {
        match self {
            Self::Write(args) => execute_state_write(&args, out),
            Self::Validate(args) => args.execute(super::check::validate_file, out),
        }
    }
}

// The flags of each subcommand. Its help is the variant's doc comment; a
// doc comment on the struct would be a second source of it (clap reads both).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct StateWriteArgs {
    /// The project directory (it must exist).
    #[arg(long, value_name = "DIR")]
    pub project: PathBuf,
    /// The next session's brief, or the current one after the last session.
    #[arg(long, value_name = "PATH")]
    pub brief: String,
    /// The next session's label, or `Complete` after the last one.
    #[arg(long, value_name = "TEXT")]
    pub label: String,
    /// The run's final status: completed, failed, stopped or partial.
    #[arg(long, value_name = "STATUS")]
    pub status: String,
    /// Print the reply as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// `write --atomic`: stdin replaces `path` whole, or nothing changes.
/// Exit 0 written, 1 refused by `--schema`, 2 could not write (or the error
/// writing the reply).
fn execute_write(
    options: &WriteArgs,
    stdin: &mut impl Read,
    out: &mut impl Write,
) -> io::Result<u8> {
    let mut bytes = Vec::new();
    let read = stdin.take(MAX_DOCUMENT_BYTES + 1).read_to_end(&mut bytes);
    let outcome = match read {
        Err(e) => Err((
            exit::CANNOT_CHECK,
            Problem::new(
                code::STATE_STDIN_UNREADABLE,
                format!("cannot read stdin: {e}"),
            ),
        )),
        Ok(_) if bytes.len() as u64 > MAX_DOCUMENT_BYTES => Err((
            exit::CANNOT_CHECK,
            Problem::new(
                code::STATE_TOO_LARGE,
                format!("stdin holds more than {MAX_DOCUMENT_BYTES} bytes"),
            ),
        )),
        Ok(_) => write_checked(&options.path, options.schema.as_deref(), &bytes),
    };
    finish(options.json, outcome, out, |reply| {
        reply.bytes = Some(bytes.len() as u64);
    })
}

/// Prints the outcome: `--json` as a write reply on stdout, otherwise a
/// line on stdout (written) or the problem on stderr (refused).
fn finish(
    json: bool,
    outcome: Result<WriteReply, (u8, Problem)>,
    out: &mut impl Write,
    decorate: impl FnOnce(&mut WriteReply),
) -> io::Result<u8> {
    let (code, reply) = match outcome {
        Ok(mut reply) => {
            decorate(&mut reply);
            (exit::OK, reply)
        }
        Err((code, problem)) => {
            problem::eprint_all(std::slice::from_ref(&problem));
            (code, WriteReply::refused(&problem))
        }
    };
    if json {
        reply.render_json(out)?;
    } else if let Some(path) = &reply.path {
        match &reply.prompt_path {
            Some(prompt) => writeln!(out, "wrote {path} and {prompt}")?,
            None => writeln!(out, "wrote {path}")?,
        }
    }
    out.flush()?;
    Ok(code)
}

/// `state write`: the handover pair, both or neither.
/// Exit 0 written, 1 refused input, 2 could not write.
fn execute_state_write(options: &StateWriteArgs, out: &mut impl Write) -> io::Result<u8> {
    let outcome = write_state_pair(
        &options.project,
        &options.brief,
        &options.label,
        &options.status,
    );
    finish(options.json, outcome, out, |_| {})
}
