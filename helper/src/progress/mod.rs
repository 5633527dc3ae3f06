//! Progress files (area `progress/`; seed Phase 3 and Phase 6):
//! `progress init`, `show`, `step`, `resume-point`, `finish`, `validate`,
//! `revert-step` and `escalate-commit`.
//!
//! The progress file is the executor's ground truth for resume (Hard rule
//! 9). Every change is read, checked against the schema and the transition
//! rules, and written back atomically, so a crash, a concurrent reader or a
//! refused change never leaves a broken or half-changed file.
//!
//! - [`model`]: the document; [`status`]: its status words.
//! - [`init`]: a fresh file from a plan (the plan model of `plan/`).
//! - [`path`]: where the file lives for a plan, a project and a session.
//! - [`transition`]: the legal step changes, the retry cap and the budget.
//! - [`budget`]: `TREKEXECUTE_MAX_RECOVERY_ITERATIONS` and the caps.
//! - [`mod@file`]: load and save through the schema; [`check`]: `validate`.
//! - [`render`]: `show` and the replies.
//! - [`on_failure`]: `revert-step` and `escalate-commit`, the git side of
//!   Sub-step E.
//! - [`gate`]: the completion gate `finish --status completed` and
//!   `report` apply (Phase 7.5's three clauses).
//! - [`ops`]: the operations themselves (init, step, finish, revert-step,
//!   escalate-commit, show, resume-point), as the command line and `trek`
//!   call them; [`cli`]: the flags, each mapped to its operation.

mod budget;
mod check;
mod cli;
pub(crate) mod code;
mod file;
mod gate;
mod init;
mod model;
mod on_failure;
mod ops;
mod path;
mod render;
mod status;
mod transition;

pub(crate) use budget::Budget;
pub(crate) use budget::from_env as budget_from_env;
pub(crate) use check::validate_file;
pub(crate) use cli::Command;
pub(crate) use cli::Locate;
pub(crate) use path::progress_path;
// For the areas that record into a progress file (the audits).
pub use file::{conforms, parse};
pub(crate) use file::{load, save};
pub(crate) use gate::{Gate, completion_gate};
pub(crate) use gate::{audit_word, stop_signal};
pub use model::Progress;
pub(crate) use model::{Left, StepKey};
pub use status::StepStatus;
pub(crate) use status::{ManifestAudit, RunStatus};
pub use transition::{StepUpdate, apply};

use std::path::{Path, PathBuf};

pub(crate) use ops::{
    FinishRequest, GitDone, GitStepRequest, InitRequest, Initialized, StepRequest, edit,
    finish_run, initialize, on_failure_git, record_step,
};

use crate::problem::Problem;
use crate::schema;

/// The codes a schema check of a progress file reports.
pub const CODES: schema::Codes = schema::Codes {
    missing_key: code::PROGRESS_MISSING_KEY,
    not_object: code::PROGRESS_NOT_OBJECT,
    other: code::PROGRESS_BAD_VALUE,
    tagged: code::ALL,
};

/// Where the progress file is: given, or derived as Phase 3 says.
impl Locate {
    /// The progress file at `path` itself.
    pub(crate) fn of_file(path: &Path) -> Self {
        Self {
            file: Some(path.to_path_buf()),
            ..Self::default()
        }
    }
    /// The progress file's path, or a usage problem.
    pub(crate) fn resolve(&self) -> Result<PathBuf, Problem> {
        if let Some(file) = &self.file {
            return Ok(file.clone());
        }
        path::progress_path(self.plan.as_deref(), self.project.as_deref(), self.session).ok_or_else(
            || {
                Problem::new(
                    code::PROGRESS_NO_TARGET,
                    "say which progress file: --file PATH, --project DIR or --plan PLAN",
                )
            },
        )
    }
}
