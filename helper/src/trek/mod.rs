//! `trek`: the façade `/trekexecute` calls, one call per phase.
//!
//! Each call runs the areas' typed operations (the same ones their
//! command lines run: `plan::validate_report`, `progress::initialize`,
//! `criteria::run_criteria`, `audit::audit_step`, `report::build`, …) in
//! the order the command's phases need them, their diagnostics passed on
//! once ([`said`]), and prints one small reply that names the next call
//! ([`reply`]), so the Markdown command stays short and the agent never
//! strings shell logic together:
//!
//! - [`start`]: Phases 1–4 (and [`waves`], the multi-session path, whose
//!   gate answer ends with [`run_report`], the whole run's report);
//! - [`step`]: Sub-steps A–F, `step-begin` and `step-done`;
//! - [`finish`]: Phases 7–9;
//! - [`context`]: the run found from the run marker, and what `start`
//!   decided (kept in the progress file); [`stop`]: early stops;
//! - [`existing`]: an earlier run's progress file met by a fresh start;
//! - [`preflight`]: the checks a start makes before it creates anything,
//!   each an outcome the start acts on and the dry-run previews;
//! - [`git_setup`]: git's version, identity and signing, and why a
//!   checkpoint made no commit, apart from the agent's work;
//! - [`release`]: the user's way out of a run whose session died;
//! - [`run_branch`]: the branch a run's commits land on until the gate.

mod cli;
pub(crate) mod code;
mod context;
mod existing;
mod finish;
mod git_setup;
pub(crate) mod phases;
mod preflight;
mod release;
mod reply;
mod run_branch;
mod run_report;
mod said;
mod start;
mod step;
mod stop;
mod waves;

pub(crate) use cli::Command;
pub(crate) use preflight::Preview as PreflightPreview;
