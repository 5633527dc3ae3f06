//! Crash-safe state files (area `state/`; seed Phase 8, Handover
//! 7): `write --atomic`, `state write`, `state validate`.
//!
//! - every write goes through the crate's atomic writer,
//!   [`crate::atomic_file`] (temp file, fsync, rename, fsync of the
//!   directory, mode kept; killed writers' temporary files swept up).
//! - [`session_state`]: the handover pair `.session-state.local.json` +
//!   `NEXT-SESSION-PROMPT.local.md`.
//! - [`check`]: `state validate`, the schema plus the pair's agreement.
//! - [`pair`]: writing the pair so that both change or neither does.

mod check;
mod cli;
pub(crate) mod code;
mod pair;
mod session_state;

pub use check::{check_prompt, validate_text};
pub(crate) use cli::{Command, WriteArgs};

use std::io::{self, Read, Write};

use cli::StateWriteArgs;
use session_state::SessionState;

use crate::atomic_file::write_atomic;
use crate::clock::UtcTime;
use crate::exit;
use crate::problem::Coded;
use crate::problem::{self, Problem};
use crate::schema;
use crate::write_reply::WriteReply;

/// The most bytes `write --atomic` accepts on stdin (state files are small;
/// this bounds memory when something else is piped in by mistake).
pub(crate) const MAX_DOCUMENT_BYTES: u64 = 64 * 1024 * 1024;

/// The problems `state` reports from a schema check.
pub(crate) const CODES: schema::Codes = schema::Codes {
    missing_key: code::STATE_MISSING_KEY,
    not_object: code::STATE_NOT_OBJECT,
    other: code::STATE_BAD_VALUE,
    tagged: code::ALL,
};

/// `write --atomic`: stdin replaces `path` whole, or nothing changes.
/// Exit 0 written, 1 refused by `--schema`, 2 could not write (or the error
/// writing the reply).
pub(crate) fn execute_write(
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
        Ok(_) => write_checked(options, &bytes),
    };
    finish(options.json, outcome, out, |reply| {
        reply.bytes = Some(bytes.len() as u64);
    })
}

fn write_checked(options: &WriteArgs, bytes: &[u8]) -> Result<WriteReply, (u8, Problem)> {
    if let Some(name) = &options.schema {
        if schema::find(name).is_none() {
            return Err((
                exit::CANNOT_CHECK,
                Problem::new(
                    code::STATE_UNKNOWN_SCHEMA,
                    format!(
                        "no schema named '{name}' (known: {})",
                        schema::names().join(", ")
                    ),
                ),
            ));
        }
        let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
            (
                exit::NOT_OK,
                Problem::new(code::STATE_NOT_JSON, format!("stdin is not JSON: {e}"))
                    .at_line_usize(e.line()),
            )
        })?;
        let codes = schema::Codes {
            missing_key: code::STATE_MISSING_KEY,
            not_object: code::STATE_NOT_OBJECT,
            other: code::STATE_SCHEMA_VIOLATION,
            tagged: &[],
        };
        let problems = schema::check(name, &value, &codes);
        if let Some(first) = problems.first() {
            problem::eprint_all(problems.get(1..).unwrap_or(&[]));
            return Err((exit::NOT_OK, first.clone()));
        }
    }
    write_atomic(&options.path, bytes)
        .map(|()| WriteReply::written(&options.path))
        .map_err(|e| (exit::CANNOT_CHECK, e.problem()))
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
pub(crate) fn execute_state_write(
    options: &StateWriteArgs,
    out: &mut impl Write,
) -> io::Result<u8> {
    let outcome = write_state_pair(
        &options.project,
        &options.brief,
        &options.label,
        &options.status,
    );
    finish(options.json, outcome, out, |_| {})
}

/// Writes the handover pair into `project_dir`: both files or neither,
/// each checked against its schema.
pub(crate) fn write_state_pair(
    project_dir: &std::path::Path,
    brief: &str,
    label: &str,
    status: &str,
) -> Result<WriteReply, (u8, Problem)> {
    let state = SessionState {
        schema_version: 1,
        project: project_dir.display().to_string(),
        next_session_brief_path: brief.to_owned(),
        next_session_label: label.to_owned(),
        status: status.to_owned(),
        updated_at: UtcTime::now().rfc3339(),
    };
    pair::write_pair(project_dir, &state)
}

/// Writes the handover pair into `project_dir` for another area (`wave
/// preflight` stopping on a dirty tree, seed Phase 2.55 Check 1; `trek`
/// ending a `--project` run), its brief the project's `brief.md`.
pub(crate) fn write_handover(
    project_dir: &std::path::Path,
    label: &str,
    status: &str,
) -> Result<WriteReply, (u8, Problem)> {
    let brief = project_dir.join("brief.md").display().to_string();
    write_state_pair(project_dir, &brief, label, status)
}
