//! Criteria and entry conditions: `criteria run` (trekexecute Phase 7) and
//! `entry check` (Phase 4), the two checks that decide from exit codes and
//! git, not from the agent's word, whether a plan's promises hold.
//!
//! The criteria themselves come from the plan model
//! ([`crate::plan::Plan::verification`] for trekplans, the session spec's
//! `exit_conditions`), read there by the same code `plan validate` and
//! `scan plan` use. Here:
//!
//! - [`allowlist`]: which command lines are test, lint or build runs;
//! - [`screen`]: the one screen of a criterion (denylist, then allowlist
//!   with the project's `.voyage/criteria-allow`), applied by the runner
//!   and, before the run, by `plan validate`, `plan dry-run` and `trek
//!   start`; its doc says why a step's Verify is screened differently;
//! - [`runner`]: one criterion screened and run under
//!   [`crate::proc::supervise`];
//! - [`model`]: outcomes, the verdict and the progress record;
//! - [`entry`]: the entry condition, read and decided;
//! - [`render`]: both as text and JSON;
//! - [`ops`]: the two checks themselves, as the command line and `trek`
//!   call them; [`cli`]: the flags, each mapped to its check.

mod allowlist;
mod cli;
pub(crate) mod code;
mod entry;
mod model;
mod ops;
mod render;
mod runner;
mod screen;

pub(crate) use cli::{Command, DEFAULT_TIMEOUT_SECS, EntryCommand};
pub(crate) use entry::EntryStatus;
pub use entry::{Reading, read as read_entry_condition};
pub use ops::allowlisted;
pub(crate) use ops::{Request, Verification, check_entry, run_criteria};
pub(crate) use screen::{Screening, plan_problems};
