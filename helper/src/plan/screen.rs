//! What the caller hands the plan's reports so that the plan area stays
//! below the areas that run a plan: how the criteria are screened
//! ([`CriteriaScreen`]), and the real start's pre-flight checks
//! ([`PreflightPreview`]) the dry-run previews.

use std::path::Path;

use super::Plan;
use crate::problem::Problem;

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

/// What one pre-flight check of the real start found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub(crate) enum PreflightOutcome {
    /// The start goes on.
    Pass,
    /// The start goes on and says this first.
    Warn,
    /// The start stops here: an issue of the dry-run.
    Fail,
}

impl PreflightOutcome {
    /// As the dry-run's table shows it.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Warn => "WARN",
            Self::Fail => "FAIL",
        }
    }
}

/// One check the real start makes before it creates anything, with its
/// outcome and the start's own words about it.
#[derive(Debug, Clone, serde::Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub(crate) struct PreflightRow {
    /// What is checked: `git identity`, `clean working tree`.
    pub check: String,
    pub outcome: PreflightOutcome,
    /// What the start will say (on a failure, the words it stops with).
    pub detail: String,
}

impl PreflightRow {
    pub(crate) fn new(check: &str, outcome: PreflightOutcome, detail: impl Into<String>) -> Self {
        Self {
            check: check.to_owned(),
            outcome,
            detail: detail.into(),
        }
    }
}

/// The checks a real `trek start` of the plan would make before it
/// creates anything, handed to the dry-run by its caller (the `trek` area
/// owns the start): the plan area stays below it.
pub(crate) trait PreflightPreview {
    /// Each check in the order the start makes it, for the plan at `path`.
    fn rows(&self, plan: &Plan, path: &Path) -> Vec<PreflightRow>;
}
