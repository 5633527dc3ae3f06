//! `progress validate`: a progress file against the `progress` schema — the
//! run's and the steps' status words, a non-negative integer budget, the
//! required keys; unknown keys are tolerated (seed Phase 2.3 and Phase 3).
//! Every problem is reported, not just the first.

use std::path::Path;

use super::code;
use super::file;
use crate::validation::ValidationReport;

/// Validates the file at `path`.
pub(crate) fn validate_file(path: &Path) -> ValidationReport {
    match file::load(path) {
        Ok(_) => ValidationReport::new(path, Vec::new()),
        Err(e) => {
            let unreadable = e.missing
                || e.problems.iter().any(|p| {
                    [
                        code::PROGRESS_UNREADABLE,
                        code::PROGRESS_NOT_A_FILE,
                        code::PROGRESS_TOO_LARGE,
                    ]
                    .contains(&p.code)
                });
            let mut report = ValidationReport::new(path, e.problems);
            report.unreadable = unreadable;
            report
        }
    }
}
