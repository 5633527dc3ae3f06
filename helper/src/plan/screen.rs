//! How the caller screens a plan's criteria ([`CriteriaScreen`]), handed
//! to the plan's reports so that the plan area stays below `criteria`.

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
