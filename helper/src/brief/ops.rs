//! The brief read from disk, as `brief validate` and `profile resolve
//! --brief` read it: [`read`] for its text, [`load`] for it parsed.

use std::path::Path;

use super::code;
use super::model::Brief;
use crate::problem::Problem;

/// The most bytes a brief may have; briefs are a few kilobytes.
pub(crate) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The text of the brief at `path` (invalid UTF-8 replaced: the checks
/// point at what it breaks), for `brief validate` and `profile resolve
/// --brief` alike.
pub(crate) fn read(path: &Path) -> Result<String, crate::input_file::InputError> {
    let bytes = crate::input_file::read(path, MAX_FILE_BYTES)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// The brief at `path`, checked as `brief validate` checks it (a missing
/// `phase_signals` block an error), or why it cannot be read.
pub(crate) fn load(path: &Path) -> Result<Brief, Problem> {
    let source = read(path).map_err(|e| {
        Problem::new(
            e.code(code::INPUT),
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    Ok(Brief::parse(&source, false))
}
