//! Reading and writing a progress file, with the schema as the gate both
//! ways: a file that does not validate is never modified, and a document
//! that would not validate is never written.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use serde_json::Value;

use super::CODES;
use super::model::Progress;
use crate::exit;
use crate::problem::Problem;
use crate::schema;
use crate::state::write_atomic;

/// The most bytes a progress file may have (a plan of thousands of steps is
/// well under a megabyte).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why a progress file could not be used. `problems` name every reason.
#[derive(Debug, Clone)]
pub struct LoadError {
    /// The file is missing (as opposed to present but broken).
    pub missing: bool,
    pub problems: Vec<Problem>,
}

/// Reads and checks the progress file at `path`.
pub fn load(path: &Path) -> Result<Progress, LoadError> {
    let fail = |missing, problems: Vec<Problem>| LoadError {
        missing,
        problems: problems.into_iter().map(|p| p.in_file(path)).collect(),
    };
    match fs::metadata(path) {
        Ok(meta) if meta.len() > MAX_FILE_BYTES => {
            return Err(fail(
                false,
                vec![Problem::new(
                    "PROGRESS_TOO_LARGE",
                    format!("larger than {MAX_FILE_BYTES} bytes"),
                )],
            ));
        }
        Ok(meta) if meta.is_dir() => {
            return Err(fail(
                false,
                vec![Problem::new("PROGRESS_UNREADABLE", "is a directory")],
            ));
        }
        _ => {}
    }
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err(fail(
                true,
                vec![Problem::new("PROGRESS_NOT_FOUND", "no progress file here")],
            ));
        }
        Err(e) => {
            return Err(fail(
                false,
                vec![Problem::new(
                    "PROGRESS_UNREADABLE",
                    format!("cannot read: {e}"),
                )],
            ));
        }
    };
    parse(&text).map_err(|problems| fail(false, problems))
}

/// Parses and checks one progress document.
pub fn parse(text: &str) -> Result<Progress, Vec<Problem>> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        vec![Problem::new("PROGRESS_NOT_JSON", format!("not JSON: {e}")).at_line(e.line() as u64)]
    })?;
    let problems = schema::check("progress", &value, &CODES);
    if !problems.is_empty() {
        return Err(problems);
    }
    serde_json::from_value(value).map_err(|e| {
        vec![Problem::new(
            "PROGRESS_BAD_VALUE",
            format!("cannot be read: {e}"),
        )]
    })
}

/// Checks `progress` against the schema and replaces the file atomically.
/// A document that does not validate (a flag's value the schema refuses) is
/// not written: exit 1 with the schema's code; a failed write is exit 2.
pub fn save(path: &Path, progress: &Progress) -> Result<(), (u8, Problem)> {
    let value = progress.to_value();
    if let Some(problem) = schema::check("progress", &value, &CODES).into_iter().next() {
        return Err((exit::NOT_OK, problem.in_file(path)));
    }
    write_atomic(path, &progress.to_bytes()).map_err(|e| {
        (
            exit::CANNOT_CHECK,
            Problem::new(e.code(), e.to_string()).in_file(path),
        )
    })
}
