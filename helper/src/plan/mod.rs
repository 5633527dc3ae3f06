//! Plans: parse, check and report on trekplans and session specs
//! (trekexecute Phases 1, 2, 2.3 and 5, and Phase 2.55 Check 3).
//!
//! [`load`] reads a file into a [`Plan`], the model every later area uses
//! (scan, audits, criteria, orders, waves, progress): the file kind, the
//! header, every step with its fields and manifest, the session-spec
//! sections, the Execution Strategy and the Verification criteria, each with
//! its source line, and every [`Problem`](crate::problem::Problem) found.
//! The Markdown is read with a real CommonMark parser ([`markdown`]), its
//! front matter and manifests with the crate's YAML reader
//! ([`crate::yaml`]); [`fields`] reads a step's labels; [`manifest`] parses
//! or synthesises manifests; [`check`] holds the checks over the whole
//! model; [`render`] prints the `validate` and `dry-run` reports;
//! [`strategy`] reads the Execution Strategy and groups its sessions into
//! waves, and [`decision`] makes the Phase 2.5 choice of one session or
//! waves (`plan strategy`, which the wave area follows).
//!
//! [`ops`] holds the I/O: [`load`], and the `validate` and `dry-run`
//! reports as the command line and `trek` ask for them; [`screen`] is how
//! their caller hands in the criteria's screening ([`CriteriaScreen`]);
//! [`cli`] has the flags, each subcommand run by an `execute` there.
//!
//! [`fill`] writes the manifest keys a plan's steps lack (`plan fill`),
//! read and written by [`ops`].

mod check;
mod cli;
pub(crate) mod code;
mod commit_line;
mod criterion;
mod decision;
mod fields;
mod fill;
mod manifest;
mod markdown;
mod model;
mod ops;
mod parse;
mod render;
mod screen;
mod step;
mod strategy;
pub(crate) mod version;

pub(crate) use cli::Command;
pub(crate) use criterion::{Criterion, CriterionForm};
pub(crate) use decision::{Decision as StrategyDecision, Invocation, decide};
pub use fill::{FillText, fill_text};
pub(crate) use manifest::Manifest;
pub(crate) use model::{CommandKind, Plan, PlanCommand, PlanKind};
pub(crate) use ops::{
    MAX_FILE_BYTES, PlanLoadError, dry_run_report, given_or_load, heading_lines, load,
    validate_report,
};
pub use parse::parse;
pub(crate) use screen::{
    CriteriaScreen, CriterionRefusal, PreflightOutcome, PreflightPreview, PreflightRow,
    ScreenedCriterion,
};
pub(crate) use step::{
    Action, NEW_MARKER, SANDBOX_BLOCKED_EXIT, Step, VerifyOutcome, in_repository,
};
pub(crate) use strategy::{Session, waves};

#[cfg(test)]
mod reference_test;
#[cfg(test)]
mod schema_test;
