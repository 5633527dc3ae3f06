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
pub use file::{CODES, conforms, parse};
pub(crate) use file::{load, save};
pub(crate) use gate::{Gate, completion_gate};
pub(crate) use gate::{audit_word, stop_signal};
pub use model::Progress;
pub(crate) use model::{Left, ScopeViolation, StepKey, StepRecord};
pub use status::StepStatus;
pub(crate) use status::{ManifestAudit, RunStatus};
pub use transition::{StepUpdate, apply};

pub(crate) use ops::{
    FinishRequest, GitDone, GitStepRequest, InitRequest, Initialized, StepRequest, edit,
    finish_run, initialize, note_scope_violation, note_verify_warning, on_failure_git, record_step,
};
