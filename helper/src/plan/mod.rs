//! Plans: parse, check and report on trekplans and session specs
//! (trekexecute Phases 1, 2, 2.3 and 5, and Phase 2.55 Check 3).
//!
//! [`load`] reads a file into a [`Plan`], the model every later area uses
//! (scan, audits, criteria, orders, waves, progress): the file kind, the
//! header, every step with its fields and manifest, the session-spec
//! sections, the Execution Strategy and the Verification criteria, each with
//! its source line, and every [`Problem`] found. The Markdown is read with a
//! real CommonMark parser ([`markdown`]), its front matter and manifests with
//! the crate's YAML reader ([`crate::yaml`]); [`fields`] reads a step's labels;
//! [`manifest`] parses or synthesises manifests; [`check`] holds the checks
//! over the whole model; [`render`] prints the `validate` and `dry-run`
//! reports; [`strategy`] reads the Execution Strategy and groups its
//! sessions into waves, and [`decision`] makes the Phase 2.5 choice of one
//! session or waves (`plan strategy`, which the wave area follows).

mod check;
mod cli;
pub(crate) mod code;
mod command;
mod criterion;
mod decision;
mod fields;
mod manifest;
mod markdown;
mod model;
mod parse;
mod render;
mod step;
mod strategy;
pub(crate) mod version;

pub(crate) use cli::Command;
pub(crate) use command::{dry_run_report, validate_report};
pub(crate) use criterion::{Criterion, CriterionForm};
pub(crate) use decision::{Decision as StrategyDecision, Invocation, decide};
pub(crate) use manifest::Manifest;
pub(crate) use model::{CommandKind, Plan, PlanCommand, PlanKind};
pub use parse::parse;
pub(crate) use step::{Action, SANDBOX_BLOCKED_EXIT, Step, VerifyOutcome};
pub(crate) use strategy::{Session, waves};

#[cfg(test)]
mod schema_test;

/// How a plan's criteria will be screened when they run (the criteria
/// area's allowlist and the denylist), handed to the plan's reports by
/// their caller, so that the plan area stays below the area that runs
/// the criteria.
pub(crate) trait CriteriaScreen {
    /// The refused criteria as problems of the plan (errors: a refused
    /// criterion fails the run after all its steps).
    fn problems(&self, plan: &Plan, root: &Path) -> Vec<Problem>;
    /// Every criterion in order, with its refusal if it will not run.
    fn screened(&self, plan: &Plan, root: &Path) -> Vec<ScreenedCriterion>;
}

/// One criterion as a [`CriteriaScreen`] sees it.
#[derive(Debug, Clone)]
pub(crate) struct ScreenedCriterion {
    pub line: u32,
    pub command: String,
    /// `None`: it will run.
    pub refusal: Option<CriterionRefusal>,
}

/// Why a criterion will not run.
#[derive(Debug, Clone)]
pub(crate) struct CriterionRefusal {
    /// `denylist` or `allowlist`.
    pub by: &'static str,
    pub reason: String,
    pub fix: String,
}

use std::path::Path;

use crate::problem::Problem;

/// Why a plan could not be loaded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlanLoadError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: crate::input_file::InputError,
    },
    /// Neither a trekplan nor a session spec; the problems say what was seen.
    #[error("{path}: unrecognised plan format")]
    Unrecognized {
        path: String,
        problems: Vec<Problem>,
    },
}

impl crate::problem::Coded for PlanLoadError {
    fn code(&self) -> &'static str {
        match self {
            Self::Read { source, .. } => source.code(code::INPUT),
            Self::Unrecognized { .. } => code::PLAN_UNRECOGNIZED_FORMAT,
        }
    }
}

/// The most bytes a plan file may have. The largest plans seen are well
/// under a megabyte; parsing one this size takes about a second.
pub(crate) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Every heading of a plan's Markdown, as its level and 1-based line (the
/// front matter skipped, a `#` inside a code fence not a heading): where a
/// step's text ends, for a writer that copies steps whole (`recovery
/// spec`).
pub(crate) fn heading_lines(source: &str) -> Vec<(u8, u32)> {
    let front = crate::yaml::front_matter::split(source).ok().flatten();
    let (body, body_line) = front.map_or((source, 1), |f| (f.body, f.body_line));
    markdown::blocks(body, body_line)
        .into_iter()
        .filter_map(|b| match b {
            markdown::Block::Heading { level, line, .. } => Some((level, line)),
            _ => None,
        })
        .collect()
}

/// Reads and parses the plan at `path`. Invalid UTF-8 is replaced, never an
/// error: the problems will point at what it breaks.
pub(crate) fn load(path: &Path) -> Result<Plan, PlanLoadError> {
    let shown = path.display().to_string();
    let bytes =
        crate::input_file::read(path, MAX_FILE_BYTES).map_err(|source| PlanLoadError::Read {
            path: shown.clone(),
            source,
        })?;
    // Checking valid UTF-8 is several times faster than the lossy decoder
    // walking it in chunks, and a plan nearly always is valid.
    let source = match std::str::from_utf8(&bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(&bytes),
    };
    parse::parse(&source, &shown).map_err(|problems| PlanLoadError::Unrecognized {
        path: shown,
        problems,
    })
}
