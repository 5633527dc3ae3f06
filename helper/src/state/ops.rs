//! The state operations, as the command line and the other areas call
//! them: a document checked and written whole ([`write_checked`]), and the
//! handover pair written both or neither ([`write_state_pair`],
//! [`write_handover`]).

use std::path::Path;

use super::session_state::SessionState;
use super::{code, pair};

use crate::atomic_file::write_atomic_through_link;
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

/// Writes `bytes` over `path` atomically, after checking them against the
/// embedded schema `schema` when one is named.
pub(super) fn write_checked(
    path: &Path,
    schema: Option<&str>,
    bytes: &[u8],
) -> Result<WriteReply, (u8, Problem)> {
    if let Some(name) = schema {
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
    write_atomic_through_link(path, bytes)
        .map(|()| WriteReply::written(path))
        .map_err(|e| (exit::CANNOT_CHECK, e.problem()))
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
