//! The audits (area `audit/`): `audit step` (trekexecute Sub-step
//! D2, with the Step 0 sentinel of D1), `audit checkpoint` (Sub-step F) and
//! `audit session` (Phase 7.5 and the completion gate's counter liveness).
//!
//! An audit re-derives "done" from the work tree, git and exit codes, and
//! reports every finding as a [`drift::Drift`] item `{check, expected,
//! actual}`; the executor's own bookkeeping only says which steps it claims.
//!
//! - [`step`], [`checkpoint`], [`session`]: the three audits, each taking
//!   values and returning a report.
//! - [`git`]: the git calls; [`bash`]: `bash -n`; [`paths`]: manifest paths
//!   kept inside the repository and matched like pathspecs.
//! - [`scope`]: what changed since the step began outside its Files (the
//!   scope audit `trek step-done` runs first, and `audit scope`).
//! - [`record`]: `--record`, written through the progress area's reader
//!   and writer; [`render`]: the text reports.
//! - [`ops`]: the I/O edge of each audit, as the command line and `trek`
//!   call it; [`cli`]: the flags, each mapped to its audit, and the
//!   audit printed.

mod bash;
mod checkpoint;
mod cli;
pub(crate) mod code;
mod drift;
mod git;
mod ops;
mod paths;
mod record;
mod render;
pub(crate) mod scope;
mod session;
mod step;

pub(crate) use checkpoint::checkpoint_drift;
pub(crate) use cli::Command;
pub(crate) use drift::line_of as drift_line;
pub(crate) use git::Git;
pub use git::{Commit, parse_log};
pub(crate) use ops::{SessionFindings, SessionRequest, StepRequest, audit_session, audit_step};
pub use paths::{Matcher, inside};
